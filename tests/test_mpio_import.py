"""Windows MPIO: `mpclaim -s -d N` (and the disk list), `Get-MPIOSetting` and
`Get-MSDSMGlobalDefaultLoadBalancePolicy` read on published samples and as pasted (PowerShell
prompt, CRLF, UTF-16 as PowerShell's `>` writes it, mail quoting), refused in one line naming
file and line, imported with the policy, standby set, weights and PDORemovePeriod as read, and
advised with the Microsoft DSM's own policies and `mpclaim -l -d` commands."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import one_error_line, pathlab, quiet
from pathlab.advisor.mpio_candidates import mpio_candidates
from pathlab.api import PathlabWarning, Scenario, ScenarioError
from pathlab.importer import import_files
from pathlab.readers import mpclaim, mpio_settings

DATA = Path(__file__).parent / "data" / "mpio"
VPLEX = DATA / "001-vplex-metro-rrws-eight-paths.txt"
SYMMETRIC = DATA / "003-msdsm-rr-symmetric-two-paths.txt"
SETTINGS = """PS C:\\> Get-MPIOSetting

PathVerificationState     : Disabled
PathVerificationPeriod    : 30
PDORemovePeriod           : 60
RetryCount                : 3
RetryInterval             : 1
UseCustomPathRecoveryTime : Disabled
CustomPathRecoveryTime    : 40
DiskTimeoutValue          : 60

PS C:\\> Get-MSDSMGlobalDefaultLoadBalancePolicy
LQD
"""


def _read(path: Path) -> mpclaim.Mpclaim:
    with quiet():
        return mpclaim.read(path)


def _imported(*paths: Path) -> tuple[dict[str, Any], Any]:
    with quiet():
        done = import_files([str(p) for p in paths])
    return tomllib.loads(done.text), done


def test_a_disk_gives_its_policy_alua_support_and_paths() -> None:
    (disk,) = _read(VPLEX).disks
    assert (disk.number, disk.line, disk.policy, disk.alua, disk.dsm, disk.serial) == (
        2, 4, "RRWS", "ALUA Not Supported", "Microsoft DSM", "6000144000000010301F14F9976C13A6")
    assert disk.supported == ("FOO", "RR", "RRWS", "LQD", "WP", "LB")
    assert [(p.path_id, p.state, p.port, p.target, p.lun, p.weight) for p in disk.paths][3:5] == [
        ("000000007704000a", "Active/Optimized", 4, 10, 1, 0), ("0000000077040005", "Standby", 4, 5, 1, 0)]


def test_tpg_lines_give_each_path_its_group() -> None:
    (disk,) = _read(SYMMETRIC).disks
    assert [(p.target, p.tpg_state, p.tpg_id, p.relative_port) for p in disk.paths] == [
        (1, "Active/Optimized", 256, 24), (0, "Active/Optimized", 256, 22)]


def test_the_disk_list_gives_each_disk_its_policy() -> None:
    listed = _read(DATA / "004-mpclaim-disk-list.txt").listed
    assert [(d.number, d.system_disk, d.policy, d.dsm) for d in listed] == [(1, "Disk 2", "RR", "Microsoft DSM"),
                                                                            (0, "Disk 1", "RR", "Microsoft DSM")]


@pytest.mark.parametrize("form", ["crlf", "utf16", "mail"])
def test_pasted_forms_read_as_the_listing(tmp_path: Path, form: str) -> None:
    text = VPLEX.read_text()
    if form == "mail":
        text = "Bob wrote:\n" + "".join(f"> {line}\n" for line in text.splitlines())
    data = text.replace("\n", "\r\n").encode("utf-16") if form != "mail" and form == "utf16" else \
        text.replace("\n", "\r\n").encode() if form == "crlf" else text.encode()
    pasted = tmp_path / "pasted.txt"
    pasted.write_bytes(data)
    (disk,) = _read(pasted).disks
    assert [(p.state, p.target) for p in disk.paths] == [(p.state, p.target) for p in _read(VPLEX).disks[0].paths]
    assert disk.line == 4 + (form == "mail")


def test_disks_one_after_the_other_are_all_read_and_a_disk_shown_twice_keeps_its_later_listing(tmp_path: Path) -> None:
    both = tmp_path / "loop.txt"
    both.write_text(VPLEX.read_text() + (DATA / "002-vplex-metro-rrws-fe-removed.txt").read_text()
                    + SYMMETRIC.read_text())
    disks = _read(both).disks
    assert [(d.number, len(d.paths)) for d in disks] == [(2, 4), (1, 2)]


def test_prose_after_the_listing_is_left_and_said(tmp_path: Path) -> None:
    """Issue 32: a mail's sign-off after `Get-MSDSMGlobalDefaultLoadBalancePolicy`'s word is not
    the tools': the disk, the settings and the default policy read as without it, the rest said."""
    pasted = tmp_path / "pasted.txt"
    pasted.write_text(VPLEX.read_text() + "\n" + SETTINGS + "\nThanks, let me know if you need more.\n")
    lines = pasted.read_text().splitlines()
    with pytest.warns(PathlabWarning, match=f"{pasted}: line {len(lines)}: skipped 1 line\\(s\\) after the `mpclaim "
                                            "-s -d` output, from 'Thanks, let me know if you need more.'"):
        read = mpclaim.read(pasted)
    (disk,) = read.disks
    assert [(p.state, p.target) for p in disk.paths] == [(p.state, p.target) for p in _read(VPLEX).disks[0].paths]
    assert read.settings.default_policy is not None and read.settings.default_policy[0] == "LQD"
    assert read.settings.values["PDORemovePeriod"][0] == "60"


@pytest.mark.parametrize(("change", "where", "says"), [
    (("Round Robin with Subset", "Round Robin Weighted"), "line 4", "policy 'Round Robin Weighted'"),
    (("08 Paths", "09 Paths"), "line 4", "9 paths announced, 8 listed"),
    (("0000000077040005 Standby ", "0000000077040005 Offline "), "line 15", "path state 'Offline'"),
    (("SN: 6000", "Serial: 6000"), "line 6", "not a line of mpclaim -s -d 2"),
])
def test_what_mpclaim_does_not_print_is_refused(tmp_path: Path, change: tuple[str, str], where: str, says: str) -> None:
    bad = tmp_path / "mpclaim.txt"
    bad.write_text(VPLEX.read_text().replace(*change, 1))
    with pytest.raises(ScenarioError) as refused:
        _read(bad)
    assert refused.value.args[1] == where and says in refused.value.args[2]


def test_an_annotated_tpg_line_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "mpclaim.txt"
    bad.write_text(SYMMETRIC.read_text().replace(": 24", ": 24       <---- what we want to see"))
    done = pathlab("import", str(bad))
    assert one_error_line(done).startswith(f"pathlab: error: {bad}: line 11: '* TPG_State")


def test_get_mpiosetting_and_the_global_default_are_read(tmp_path: Path) -> None:
    file = tmp_path / "settings.txt"
    file.write_text(SETTINGS)
    settings = mpio_settings.read(file)
    assert settings.integer(str(file), "PDORemovePeriod") == (60, 5)
    assert settings.default_policy == ("LQD", 13)


def test_import_holds_the_standby_set_of_round_robin_with_subset() -> None:
    scenario, done = _imported(VPLEX)
    (array,) = scenario["arrays"]
    assert (array["name"], array["symmetric"], array["tpgs"]) == ("oui-000144", True, False)
    assert scenario["fabric"][0]["targets"] == [4, 5, 6, 7, 8, 9, 10, 11]
    (device,) = scenario["devices"]
    # pathlab discovers the paths by target: 4 to 7 stand by, 8 to 11 are the subset
    assert (device["name"], device["lun"], device["policy"]) == (
        "MPIODisk2", 1, {"name": "mpio", "policy": "round_robin_with_subset", "active_paths": [4, 5, 6, 7]})
    assert "PDORemovePeriod 20 s (Windows' default) assumed" in dict(done.warnings)["devices.policy.pdo_remove_period"]
    assert [f.title for f in done.findings] == ["MPIO Disk2: 4 path(s) in Standby (Round Robin with Subset's standby "
                                                "paths): used only when the active ones fail"]
    assert done.findings[0].normal and not done.measured_load and done.stack == "windows"
    assert {d.stack for d in Scenario.from_text(done.text, "x").devices} == {"windows"}


def test_get_mpiosetting_gives_the_pdo_remove_period_and_the_default_is_compared(tmp_path: Path) -> None:
    file = tmp_path / "settings.txt"
    file.write_text(SETTINGS)
    scenario, done = _imported(VPLEX, file)
    assert scenario["devices"][0]["policy"]["pdo_remove_period"] == 60
    assert "devices.policy.pdo_remove_period" not in dict(done.warnings)
    assert done.findings[-1].title.startswith("the MSDSM default policy is LQD, but MPIO Disk2 runs RRWS")


def test_an_alua_disk_is_owned_by_the_group_of_its_optimized_paths(tmp_path: Path) -> None:
    """The shape Microsoft's mpclaim documentation shows for an ALUA disk: two target port
    groups, one Active/Optimized and one Active/Unoptimized."""
    listing = tmp_path / "mpclaim.txt"
    listing.write_text(
        "MPIO Disk1: 02 Paths, Round Robin with Subset, Implicit Only\n    Controlling DSM: Microsoft DSM\n"
        "    SN: 600D310010B00000000011\n    Supported Load Balance Policies: FOO RR RRWS LQD WP LB\n\n"
        "    Path ID          State              SCSI Address      Weight\n    " + "-" * 75 + "\n"
        "    0000000077030002 Active/Optimized   003|000|002|000   0\n"
        "        TPG_State : Active/Optimized  , TPG_Id: 4, : 3\n\n"
        "    0000000077030001 Active/Unoptimized 003|000|001|000   0\n"
        "        TPG_State : Active/Unoptimized, TPG_Id: 3, : 2\n")
    scenario, _ = _imported(listing)
    (array,) = scenario["arrays"]
    assert (array["symmetric"], array["tpgs"]) == (False, True)
    assert {p["name"]: p["controller"] for p in array["ports"]} == {"p3t2": "tpg4", "p3t1": "tpg3"}
    assert scenario["devices"][0]["owner"] == "tpg4"


def test_a_vendor_dsm_is_refused_naming_its_line(tmp_path: Path) -> None:
    bad = tmp_path / "mpclaim.txt"
    bad.write_text(VPLEX.read_text().replace("Controlling DSM: Microsoft DSM", "Controlling DSM: EMC PowerPath DSM"))
    assert one_error_line(pathlab("import", str(bad))) == (
        f"pathlab: error: {bad}: line 4: MPIO Disk2 is controlled by EMC PowerPath DSM: pathlab simulates the "
        "Microsoft DSM's policies only")


def test_the_disk_list_alone_is_refused_saying_what_gives_the_paths() -> None:
    done = pathlab("import", str(DATA / "004-mpclaim-disk-list.txt"))
    assert "`mpclaim -s -d N` for each disk N shows its paths" in one_error_line(done)


def test_advise_offers_the_microsoft_dsm_policies_with_mpclaim_commands() -> None:
    _, done = _imported(VPLEX)
    offered = {c.label: c for c in mpio_candidates(Scenario.from_text(done.text, "x").devices)}
    assert set(offered) == {"mpio FOO", "mpio RR", "mpio LQD", "mpio LB"}  # RRWS is in force; WP needs weights
    assert offered["mpio LQD"].commands == ["mpclaim -l -d 2 4",
                                            "Set-MSDSMGlobalDefaultLoadBalancePolicy -Policy LQD   # disks claimed from now on"]
    assert offered["mpio LQD"].overrides == {"devices.0.policy": {"name": "mpio", "policy": "least_queue_depth"}}
    assert "keeps in standby (MPIODisk2)" in offered["mpio LQD"].caveat


def test_two_states_under_one_target_port_group_are_refused(tmp_path: Path) -> None:
    """The shape of an edited illustration (a monitoring script's comment): one TPG_Id shown both
    Active/Optimized and Active/Unoptimized."""
    bad = tmp_path / "mpclaim.txt"
    bad.write_text(SYMMETRIC.read_text().replace("0000000087060000 Active/Optimized", "0000000087060000 Active/Unoptimized")
                   .replace("Optimized  , TPG_Id: 256, : 22", "Unoptimized, TPG_Id: 256, : 22"))
    with pytest.raises(ScenarioError) as refused:
        _read(bad)
    assert refused.value.args[1:] == ("line 14", "TPG_Id 256 is Active/Unoptimized here and Active/Optimized under the "
                                                 "path of line 10: a target port group has one state per disk")


def test_disks_of_one_vendor_on_different_targets_are_two_arrays(tmp_path: Path) -> None:
    """Two disks whose serials carry one OUI (002AE0), each LUN 1, reached through different SCSI
    ports: two arrays of one vendor, each with its own LUN 1 (the OUI made them one array)."""
    other = SYMMETRIC.read_text().replace("MPIO Disk1", "MPIO Disk3").replace(
        "6002AE000000013B006E3B", "6002AE000000013B00FFFF").replace("005|", "006|")
    listing = tmp_path / "mpclaim.txt"
    listing.write_text(SYMMETRIC.read_text() + other)
    scenario, done = _imported(listing)
    assert [(a["name"], sorted(p["name"] for p in a["ports"])) for a in scenario["arrays"]] == [
        ("oui-002AE0-1", ["p5t0", "p5t1"]), ("oui-002AE0-2", ["p6t0", "p6t1"])]
    assert [(d["name"], d["array"], d["lun"]) for d in scenario["devices"]] == [
        ("MPIODisk1", "oui-002AE0-1", 1), ("MPIODisk3", "oui-002AE0-2", 1)]
    assert len(Scenario.from_text(done.text, "host.toml").describe()["devices"]) == 2
