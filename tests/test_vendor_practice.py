"""The vendor practice table (python/pathlab/advisor/vendor_practice.toml): every array family
issue 22 names has a row on some stack and, for every stack, a row or a note of what was
searched; every row has a source and a date; the rows agree with pathlab's own claim tables
(multipath-tools' hwtable in linux/hwtable.rs, nvme-cli's udev rules in linux/nvme_udev.rs),
resolved through a scenario of that array, except for the differences each row lists and
explains; a malformed table is refused in one line naming the file, the field and what is
allowed."""

from __future__ import annotations

import datetime
import re
from pathlib import Path
from typing import Any

import pytest

from pathlab.advisor import vendor_table
from pathlab.advisor.vendor_table import SURVEYED, Practice, practice_for
from pathlab.api import Scenario, ScenarioError

TABLE = vendor_table.shipped()
ROOT = Path(__file__).resolve().parent.parent
NVME_UDEV = ROOT / "crates" / "pathlab-sim" / "src" / "linux" / "nvme_udev.rs"

#: The array families issue 22 names, as (vendor, a word of the row's model).
FAMILIES = [
    ("Dell", "PowerMax"), ("Dell", "VMAX"), ("Dell", "PowerStore"), ("Dell", "Unity"), ("Dell", "XtremIO"),
    ("Pure Storage", "FlashArray"), ("NetApp", "ONTAP"), ("NetApp", "E-Series"),
    ("HPE", "3PAR"), ("HPE", "Primera"), ("HPE", "Alletra"), ("HPE", "Nimble"),
    ("IBM", "FlashSystem"), ("IBM", "SVC"), ("Hitachi", "VSP"), ("Infinidat", "InfiniBox"),
]

#: The settings pathlab's Linux claim resolves, by multipath.conf / sysfs name, and the origin
#: that means the claim tables say nothing about it (multipath-tools' compiled-in default, the
#: kernel's default iopolicy).
SILENT = {"multipath internal", "nvme_core.iopolicy"}


def rows(stack: str) -> list[Practice]:
    return [p for p in TABLE.practices if p.stack == stack]


def label(p: Practice) -> str:
    return f"{p.vendor} {p.model} {p.stack} tpgs={p.tpgs}"


def described(p: Practice, policy: str | None) -> dict[str, Any]:
    """`describe` of a one-path scenario of the row's array: its only device, claimed by the
    given policy, or by ESXi's claim rules when `policy` is None."""
    vendor, product = p.identity()
    policy_table = f'[policy]\nname = "{policy}"' if policy else ""
    text = f"""
name = "vendor-practice"
description = "one path to {vendor} {product}"
[run]
duration = "1ms"
[host]
name = "h"
adapters = [{{ name = "a0" }}]
[[arrays]]
name = "arr"
vendor = "{vendor}"
model = "{product}"
tpgs = {str(p.tpgs).lower()}
service = {{ fixed = "20us" }}
ports = [{{ name = "P0" }}]
[[fabric]]
adapters = ["a0"]
ports = ["arr/P0"]
latency = "5us"
[[devices]]
name = "d0"
array = "arr"
lun = 1
{policy_table}
[[workloads]]
name = "w"
devices = ["d0"]
outstanding = 1
"""
    return Scenario.from_text(text, "vendor-practice.toml").describe()


def claim(p: Practice) -> dict[str, tuple[str, str]]:
    """What a default Linux host sets for the row's array: setting name -> (value, origin)."""
    (device,) = described(p, "nvme" if p.stack == "nvme-native" else "dm-multipath")["linux"]["devices"]
    return {s["name"]: (s["value"], s["origin"]) for s in device["settings"]}


def esxi_claim(p: Practice) -> dict[str, object]:
    """What pathlab's ESXi claim rules give the row's array: satp, psp and, under round robin,
    rr_type and iops read from the PSP's device config ("{policy=iops,iops=1,...")."""
    (device,) = described(p, None)["devices"]
    out: dict[str, object] = {"satp": device["satp"], "psp": device["psp"]}
    options = re.match(r"\{policy=(\w+),iops=(\d+)", device["psp_config"])
    if device["psp"] == "VMW_PSP_RR" and options:
        out["rr_type"] = {"rr": "default"}.get(options[1], options[1])
        out["iops"] = int(options[2])
    return out


def written(value: object) -> str:
    """A setting as multipath.conf and describe write it (6 -> "6")."""
    return str(value)


def differences(p: Practice) -> set[str]:
    """The row's settings that pathlab's claim tables set to another value."""
    resolved = claim(p)
    out = set()
    for name, value in p.setting.given().items():
        if name in resolved and resolved[name][1] not in SILENT and resolved[name][0] != written(value):
            out.add(name)
    return out


def test_every_family_the_issue_names_has_a_row():
    for vendor, word in FAMILIES:
        assert any(p.vendor == vendor and word in p.model for p in TABLE.practices), (vendor, word)


def test_every_family_has_for_every_stack_a_row_or_what_was_searched():
    for vendor, word in FAMILIES:
        for stack in SURVEYED:
            has_row = any(p.vendor == vendor and word in p.model and p.stack == stack for p in TABLE.practices)
            said = any(n.vendor == vendor and word in n.model and stack in n.stacks for n in TABLE.not_published)
            assert has_row or said, (vendor, word, stack)


def test_no_stack_is_both_practice_and_not_published():
    for n in TABLE.not_published:
        for stack in n.stacks:
            clash = [label(p) for p in TABLE.practices if p.vendor == n.vendor and p.model == n.model and p.stack == stack]
            assert not clash, (n.model, stack)


def test_every_row_has_a_source_and_a_past_date():
    today = datetime.date.today()
    for p in TABLE.practices:
        assert len(p.source) > 20 and (re.search(r"https?://", p.source) or re.search(r"\w+/[\w.-]+@?", p.source))
        day = datetime.date.fromisoformat(p.date if len(p.date) == 10 else f"{p.date}-01")
        assert datetime.date(2005, 1, 1) <= day <= today, label(p)
        assert p.note and p.command


def test_every_row_is_found_by_the_identity_its_array_reports():
    for p in TABLE.practices:
        vendor, product = p.identity()
        assert p in practice_for(vendor, product, p.stack), label(p)
        assert p in practice_for(vendor, product, p.stack, tpgs=p.tpgs)
        assert p not in practice_for(vendor, product, p.stack, tpgs=not p.tpgs)


def test_practice_for_reads_padded_inquiry_strings_and_knows_nothing_of_other_arrays():
    # sd.c pads INQUIRY fields with blanks: "HITACHI " / "OPEN-V          ".
    hitachi = practice_for("HITACHI ", "OPEN-V          ", "esxi-nmp")
    assert sorted(p.tpgs for p in hitachi) == [False, True]
    assert [p.setting.iops for p in hitachi] == [1000, 1000], "Hitachi keeps the default IO operations limit"
    (alua,) = practice_for("HITACHI", "OPEN-V", "esxi-nmp", tpgs=True)
    assert (alua.setting.satp, alua.setting.claim_option) == ("VMW_SATP_ALUA", "tpgs_on")
    assert practice_for("PATHLAB", "SIMARRAY", "dm-multipath") == []
    assert practice_for("NETAPP", "LUN C-Mode", "nvme-native") == [], "an NVMe row never matches a SCSI LUN"
    (ontap,) = practice_for("NVME", "NetApp ONTAP Controller  ", "nvme-native")
    assert ontap.setting.iopolicy == "queue-depth"
    with pytest.raises(ValueError, match="unknown stack 'vmware'"):
        practice_for("PURE", "FlashArray", "vmware")


@pytest.mark.parametrize("row", rows("dm-multipath"), ids=label)
def test_dm_multipath_rows_agree_with_pathlabs_hwtable_except_where_noted(row: Practice):
    found = differences(row)
    assert found == set(row.claim_differs), f"{label(row)}: differs from the hwtable on {sorted(found)}"
    for name in row.claim_differs:
        assert name in row.note, f"{label(row)}: the note must explain {name}"


@pytest.mark.parametrize("row", rows("nvme-native"), ids=label)
def test_nvme_rows_agree_with_pathlabs_udev_rules(row: Practice):
    value, origin = claim(row)["iopolicy"]
    assert origin.startswith("71-nvmf-"), f"{label(row)}: pathlab's udev rules say nothing ({origin})"
    assert (value == row.setting.iopolicy) == ("iopolicy" not in row.claim_differs)


@pytest.mark.parametrize("row", [p for p in rows("esxi-nmp") if p.esxi_default], ids=label)
def test_esxi_rows_that_name_a_system_rule_agree_with_pathlabs_claim_rules_except_where_noted(row: Practice):
    resolved = esxi_claim(row)
    given = row.setting.given()
    found = {name for name in row.esxi_default if name in resolved and resolved[name] != given[name]}
    assert found == set(row.claim_differs), f"{label(row)}: pathlab's ESXi claim gives {resolved}"
    for name in row.claim_differs:
        assert name in row.note


def test_without_the_vendors_rule_esxi_claims_xtremio_fixed():
    """What the XtremIO rule changes, as its note says: the default active/active claim."""
    (xtremio,) = practice_for("XtremIO", "XtremApp", "esxi-nmp")
    assert esxi_claim(xtremio) == {"satp": "VMW_SATP_DEFAULT_AA", "psp": "VMW_PSP_FIXED"}
    assert (xtremio.setting.psp, xtremio.setting.iops) == ("VMW_PSP_RR", 1)


def test_every_udev_rule_of_a_named_vendor_has_its_row():
    """nvme_udev.rs's rules (nvme-cli's 71-nvmf-*.rules) for the vendors the issue names each have
    an nvme-native row with the same iopolicy (VASTData is not one of them)."""
    rules = re.findall(r'IopolicyRule \{ model: "([^"]+)", iopolicy: NvmeIoPolicy::(\w+)', NVME_UDEV.read_text())
    words = {"RoundRobin": "round-robin", "QueueDepth": "queue-depth", "Numa": "numa"}
    named = [(model, words[policy]) for model, policy in rules if not model.startswith("VAST")]
    assert len(named) == 3
    for model, iopolicy in named:
        (row,) = practice_for("NVME", model, "nvme-native")
        assert row.setting.iopolicy == iopolicy


def test_a_rows_ctrl_loss_tmo_transport_is_its_udev_rules():
    """The transport a row's `ctrl_loss_tmo` is for is the one its rule's line matches (`ATTR{transport}`)."""
    given = [p for p in rows("nvme-native") if p.setting.ctrl_loss_tmo is not None]
    assert [p.vendor for p in given] == ["NetApp", "HPE"]
    for row in given:
        (line,) = [line for line in row.command.splitlines() if "ctrl_loss_tmo" in line]
        assert f'ATTR{{transport}}=="{row.ctrl_loss_tmo_transport}"' in line, label(row)


def test_the_disagreements_found_are_the_published_values():
    """The two the table records, with the values on both sides."""
    (unity,) = practice_for("DGC", "VRAID", "dm-multipath")
    assert unity.setting.no_path_retry == 12
    assert claim(unity)["no_path_retry"] == ("60", "storage device configuration"), "300 s / 5 s checks"
    (ontap,) = practice_for("NETAPP", "LUN C-Mode", "dm-multipath")
    assert (ontap.setting.prio, ontap.setting.hardware_handler) == ("ontap", "0")
    resolved = claim(ontap)
    assert resolved["prio"] == ("alua", "storage device autodetected"), "detect_prio on an ALUA array"
    assert resolved["hardware_handler"] == ("1 alua", "retained by kernel driver")
    (powermax,) = practice_for("EMC", "SYMMETRIX", "dm-multipath")
    assert claim(powermax)["path_grouping_policy"] == ("multibus", "storage device configuration")


MINIMAL = '''
[[practice]]
vendor = "Pure Storage"
model = "FlashArray"
stack = "esxi-nmp"
scsi_vendor = "^PURE$"
scsi_product = "^FlashArray"
example = "PURE,FlashArray"
tpgs = true
source = "https://support.purestorage.com/example"
date = "2017-07"
command_from_source = false
command = "esxcli storage nmp satp rule add -s VMW_SATP_ALUA -V PURE -M FlashArray -P VMW_PSP_RR -O iops=1"
claim_differs = []
note = "n"
[practice.setting]
psp = "VMW_PSP_RR"
iops = 1
'''


def refused(tmp_path: Path, text: str) -> tuple[str, str, str]:
    path = tmp_path / "practice.toml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as e:
        vendor_table.load(path)
    file, field, message = e.value.args
    assert file == str(path)
    return file, field, message


def test_a_minimal_table_loads(tmp_path: Path):
    path = tmp_path / "practice.toml"
    path.write_text(MINIMAL)
    (row,) = vendor_table.load(path).practices
    assert row.setting.given() == {"psp": "VMW_PSP_RR", "iops": 1}


@pytest.mark.parametrize(("change", "field", "message"), [
    (('stack = "esxi-nmp"', 'stack = "vmware"'), "practice.0.stack", "one of esxi-nmp, esxi-hpp"),
    (('note = "n"', 'note = "n"\nspeed = 3'), "practice.0.speed", "unknown field"),
    (('iops = 1', 'iops = 0'), "practice.0.setting.iops", "a whole number ≥ 1"),
    (('iops = 1', 'iops = "1"'), "practice.0.setting.iops", "a whole number ≥ 1"),
    (('iops = 1', 'iopolicy = "round-robin"'), "practice.0.setting.iopolicy", "not a setting of esxi-nmp"),
    (('iops = 1', 'queue_mode = 2'), "practice.0.setting.queue_mode", "unknown setting"),
    (('psp = "VMW_PSP_RR"', 'psp = "RR"'), "practice.0.setting.psp", '"VMW_PSP_RR"'),
    (('source = "https://support.purestorage.com/example"\n', ''), "practice.0.source", "missing"),
    (('date = "2017-07"', 'date = "July 2017"'), "practice.0.date", "YYYY-MM-DD"),
    (('date = "2017-07"', 'date = "2017-13-01"'), "practice.0.date", "YYYY-MM-DD"),
    (('scsi_vendor = "^PURE$"', 'scsi_vendor = "^(PURE"'), "practice.0.scsi_vendor", "regular expression"),
    (('example = "PURE,FlashArray"', 'example = "EMC,SYMMETRIX"'), "practice.0.example", "not matched"),
    (('scsi_product = "^FlashArray"\n', ''), "practice.0.scsi_product", "both scsi_vendor and scsi_product"),
    (('claim_differs = []', 'claim_differs = ["satp"]'), "practice.0.claim_differs", "'satp' is not a setting"),
    (('tpgs = true', 'tpgs = "yes"'), "practice.0.tpgs", "true or false"),
    (('claim_differs = []', 'claim_differs = []\nesxi_default = ["iopolicy"]'), "practice.0.esxi_default",
     "'iopolicy' is not a setting"),
    (('claim_differs = []', 'claim_differs = []\nctrl_loss_tmo_transport = "tcp"'), "practice.0.ctrl_loss_tmo_transport",
     "only for a row whose setting gives ctrl_loss_tmo"),
    (('claim_differs = []', 'claim_differs = []\nctrl_loss_tmo_transport = "TCP"'), "practice.0.ctrl_loss_tmo_transport",
     '"tcp", "rdma", "fc"'),
])
def test_a_bad_row_is_refused_naming_the_file_and_field(tmp_path: Path, change: tuple[str, str], field: str,
                                                          message: str):
    old, new = change
    assert old in MINIMAL
    _, got_field, got_message = refused(tmp_path, MINIMAL.replace(old, new, 1))
    assert got_field == field
    assert message in got_message


def test_features_must_count_their_words(tmp_path: Path):
    text = MINIMAL.replace('stack = "esxi-nmp"', 'stack = "dm-multipath"').replace(
        'psp = "VMW_PSP_RR"\niops = 1', 'features = "3 pg_init_retries 50"')
    _, field, message = refused(tmp_path, text)
    assert field == "practice.0.setting.features" and "count of words" in message


def test_broken_toml_and_unknown_tables_are_refused(tmp_path: Path):
    _, field, message = refused(tmp_path, MINIMAL + "\n[practice.setting\n")
    assert field == "" and "not valid TOML" in message and "line" in message
    _, field, message = refused(tmp_path, MINIMAL + "\n[[vendors]]\nname = 'x'\n")
    assert field == "vendors" and "unknown table" in message
    _, field, message = refused(tmp_path, MINIMAL + '\n[[not_published]]\nvendor = "IBM"\nmodel = "SVC"\n'
                                'stacks = ["esxi"]\nsearched = "x"\n')
    assert field == "not_published.0.stacks" and "list of stacks" in message
