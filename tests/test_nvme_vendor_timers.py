"""An NVMe controller's model read with its file and line (`nvme id-ctrl`'s mn, `nvme list -v`'s
MN column, `nvme list-subsys -v`'s `model=` from nvme-cli 2.13), tied to the controllers of the
listing, and the vendors' udev-rule `ctrl_loss_tmo` (NetApp ONTAP, HPE Alletra: -1 over NVMe/TCP)
compared with the one in force: the finding quotes the lines it rests on, says which file would
settle what is not read, and `advise --failures` runs the vendor's value with the stall the rule gives."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import pathlab
from conftest import ROOT
from pathlab.advisor.nvme_vendor_timers import SETTLE_MODEL
from pathlab.advisor.timer_findings import timer_findings
from pathlab.api import ScenarioError
from pathlab.importer.host import Host
from pathlab.readers import nvme_id_ctrl, nvme_subsys, nvme_sysfs

LINUX = ROOT / "tests/data/linux"
LISTING = str(ROOT / "tests/data/corpus/nvme-list-subsys/009-netapp-rocky10-tcp-two-subnets/bare.txt")
VERBOSE = str(LINUX / "nvme-list-subsys-v_v2.13_handbuilt-from-netapp-rocky10-tcp.txt")
VERBOSE_JSON = str(LINUX / "nvme-list-subsys-v_v2.13-json_handbuilt-from-netapp-rocky10-tcp.json")
TWO = str(ROOT / "tests/data/nvme-id-ctrl/two-controllers.txt")
JSON = str(ROOT / "tests/data/nvme-id-ctrl/one-controller.json")
NETAPP = "NetApp ONTAP Controller"


def _host(*files: str) -> Host:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pathlab.import_host(*files)


def _found(host: Host) -> dict[str, str]:
    return {f.title: f.evidence for f in timer_findings(host.stack, host.timers, host.scenario.devices)}


def _sysfs(tmp_path: Path, **loss: str) -> str:
    file = tmp_path / "sysfs.txt"
    file.write_text("".join(f"/sys/class/nvme/{c}/ctrl_loss_tmo:{v}\n" for c, v in loss.items()))
    return str(file)


# Reading the model

def test_id_ctrl_gives_the_model_number_with_its_line_in_text_and_json() -> None:
    first, second = nvme_id_ctrl.read(TWO)
    assert (first.mn, second.mn) == (nvme_id_ctrl.Field(NETAPP, 6), nvme_id_ctrl.Field(NETAPP, 95))
    (one,) = nvme_id_ctrl.read(JSON)
    assert one.mn == nvme_id_ctrl.Field(NETAPP, 6)


def test_list_v_reads_mn_by_its_place_before_the_transport() -> None:
    """`%-20s %-40s %-8s %-6s`: serials and models with blanks (`VMware NVME_0002`, `VMware Virtual NVMe Disk`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = {f.name: sorted({(r.controller, r.model, r.model_line) for r in nvme_subsys.read(f).itertuples()})
               for f in (LINUX / "nvme-list-v_v2_handbuilt-from-libnvme-issue995_cntlid-slot.txt",
                         LINUX / "nvme-list-v_v2_libnvme-pr108_toshiba-pcie.txt",
                         LINUX / "nvme-list-v_v2_handbuilt-from-nvme-cli-issue1529_powerstore.txt")}
    assert list(got.values()) == [[("nvme0", "VMware Virtual NVMe Disk", 8)],
                                  [("nvme0", "KXG60ZNV512G NVMe TOSHIBA 512GB", 8)],
                                  [("nvme0", "dellemc-powerstore", 9), ("nvme1", "dellemc-powerstore", 8)]]


def test_a_list_v_row_whose_blanks_a_page_squeezed_gives_no_model(tmp_path: Path) -> None:
    text = (LINUX / "nvme-list-v_v2_handbuilt-from-nvme-cli-issue1529_powerstore.txt").read_text()
    squeezed = tmp_path / "squeezed.txt"
    squeezed.write_text(text.replace("85JZX23              dellemc-powerstore                       2.1.0.0  tcp",
                                     "85JZX23 dellemc-powerstore 2.1.0.0 tcp"))
    assert nvme_subsys.read(squeezed)["model"].isna().all()


def test_list_subsys_v_gives_its_subsystems_model_in_text_and_json_and_undefined_is_none(tmp_path: Path) -> None:
    text = nvme_subsys.read(VERBOSE)
    assert sorted({(r.model, r.model_line) for r in text.itertuples()}) == [(NETAPP, 5)]
    as_json = nvme_subsys.read(VERBOSE_JSON)
    assert set(as_json["model"]) == {NETAPP} and as_json["model_line"].isna().all()
    undefined = tmp_path / "undefined.txt"
    undefined.write_text(Path(VERBOSE).read_text().replace(f"model={NETAPP}", "model=undefined"))
    assert nvme_subsys.read(undefined)["model"].isna().all()


def test_each_controller_gets_the_model_of_its_subsystem_with_the_line_read() -> None:
    host = _host(LISTING, TWO)
    models = {t.scope: t.where for t in host.timers if t.setting == "model" and t.value == NETAPP}
    assert models["nvme53"] == f"{TWO}, line 6 (nvme53's mn)"
    assert models["nvme102"] == (f"{TWO}, line 95 (nvme4's mn; a controller's `model` is its subsystem's: "
                                 "drivers/nvme/host/sysfs.c nvme_show_str_function(model))")
    transports = {t.scope: t.where for t in host.timers if t.setting == "transport" and t.value == "tcp"}
    assert transports["nvme53"] == f"{LISTING}, line 7 (nvme53)" and len(transports) == 4
    from_json = {t.scope: t.where for t in _host(VERBOSE_JSON).timers if t.setting == "model" and t.value == NETAPP}
    assert from_json["nvme4"] == (f"{VERBOSE_JSON}, subsystem nvme-subsys4's Model (nvme-subsys4's model; a "
                                  "controller's `model` is its subsystem's: drivers/nvme/host/sysfs.c "
                                  "nvme_show_str_function(model))") and len(from_json) == 4


def test_an_id_ctrl_model_other_than_the_listings_is_refused_naming_both_lines(tmp_path: Path) -> None:
    other = tmp_path / "id-ctrl.txt"
    other.write_text(Path(TWO).read_text().replace(f"mn        : {NETAPP}", "mn        : HPE Alletra", 1))
    with pytest.raises(ScenarioError) as refused:
        _host(VERBOSE, str(other))
    assert refused.value.args == (str(other), "line 6", f"mn HPE Alletra: {VERBOSE} line 5 gives nvme53's model as "
                                                        f"{NETAPP}: give one host's outputs")


# The vendor's ctrl_loss_tmo against the one in force

def test_a_read_ctrl_loss_tmo_other_than_netapps_is_said_with_every_line_it_rests_on(tmp_path: Path) -> None:
    sysfs = _sysfs(tmp_path, nvme53="600", nvme4="off")
    found = _found(_host(LISTING, TWO, sysfs))
    assert found[f"nvme53 ({NETAPP}, tcp): ctrl_loss_tmo 600 s where NetApp sets -1 (reconnect forever)"] == (
        f"model {NETAPP} ({TWO}, line 6 (nvme53's mn)); transport tcp ({LISTING}, line 7 (nvme53)); ctrl_loss_tmo 600 "
        f"({sysfs}, line 1); NetApp's udev rule, " + _netapp_source() + "; every path down: here I/O is held about 600 "
        "s, then it fails to the application (the controllers are removed) (ctrl_loss_tmo 600 s); with -1, I/O waits "
        "until a path returns (ctrl_loss_tmo off: the controllers reconnect forever)")
    # nvme4 is off, as NetApp's rule sets: nothing to say; nvme102 and nvme151 are not read
    assert not any(title.startswith("nvme4 ") for title in found)
    unread = found[f"nvme102, nvme151 ({NETAPP}, tcp): NetApp sets ctrl_loss_tmo -1 (reconnect forever); the one in "
                   "force is not read"]
    assert unread.endswith("`grep . /sys/class/nvme/nvme102/ctrl_loss_tmo` would settle it")
    assert "1 more controller(s) alike" in unread


def test_without_a_model_the_finding_says_which_file_would_settle_it() -> None:
    found = _found(_host(LISTING))
    assert found["nvme4, nvme53, nvme102 and 1 more: the array vendors' ctrl_loss_tmo not compared: no model read"] == (
        "the rows that give one (HPE Alletra 9000 / Alletra Storage MP (NVMe-oF), NetApp ONTAP (FAS/AFF/ASA)) match "
        f"the controller's model and transport, as their udev rules do; {SETTLE_MODEL}")


def test_an_fc_controller_of_the_same_model_is_not_held_to_the_tcp_rule(tmp_path: Path) -> None:
    fc = tmp_path / "fc.txt"
    fc.write_text(Path(VERBOSE).read_text().replace(" tcp ", " fc "))
    found = _found(_host(str(fc), _sysfs(tmp_path, nvme53="600")))
    assert not [t for t in found if "NetApp sets" in t or "not compared" in t]
    # nor is a model asked for where no row covers the transport (both rows are NVMe/TCP's)
    fc_listing = LINUX / "nvme-list-subsys_v1_nvme-cli-issue1542_netapp-fc.txt"
    assert not [t for t in _found(_host(str(fc_listing))) if "not compared" in t]


def _netapp_source() -> str:
    from pathlab.advisor.vendor_table import practice_for

    (row,) = practice_for("NVME", NETAPP, "nvme-native")
    return f"{row.source} ({row.date})"


def test_advise_failures_runs_netapps_value_and_the_stalls_equal_the_rule(tmp_path: Path) -> None:
    """Every path down for 30 s (the kind's outage) with ctrl_loss_tmo 20 read on every
    controller: I/O is held 20 s and then fails; NetApp's -1 holds it until the paths return."""
    sysfs = _sysfs(tmp_path, nvme53="20", nvme4="20", nvme102="20", nvme151="20")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        advice = pathlab.advise([VERBOSE, sysfs], failures="all_paths_down", seeds=2,
                                set={"workloads.0.outstanding": 1, "workloads.0.think_time": "1ms"})
    rows = {r.candidate: r for r in advice.rows}
    netapp = next(c for c in advice.candidates if c.label == "NetApp ONTAP (FAS/AFF/ASA)")
    assert [(s.value, s.provenance) for s in netapp.settings if s.name == "ctrl_loss_tmo"] == [("-1", "candidate")]
    held, forever = rows["in force"], rows["NetApp ONTAP (FAS/AFF/ASA)"]
    assert held.predicted.seconds == 20 and abs(held.measured.longest_wait_s - 20) < 0.002
    assert held.measured.failed_ios > 0
    outage = forever.predicted.seconds
    assert outage is not None and outage > 20 and abs(forever.measured.longest_wait_s - outage) < 0.002
    assert forever.measured.failed_ios == 0


def test_sysfs_model_and_transport_are_read_with_their_lines_and_a_conflict_refused(tmp_path: Path) -> None:
    """`grep -r . /sys/class/nvme/nvme*/{model,transport,ctrl_loss_tmo}`: the kernel pads the
    model number with blanks to 40 (`%.*s` of the field); a model other than id-ctrl's is refused."""
    sysfs = tmp_path / "sysfs.txt"
    sysfs.write_text(f"/sys/class/nvme/nvme53/model:{NETAPP:<40}\n/sys/class/nvme/nvme53/transport:tcp\n"
                     "/sys/class/nvme/nvme53/ctrl_loss_tmo:600\n")
    found = _found(_host(LISTING, str(sysfs)))
    title = f"nvme53 ({NETAPP}, tcp): ctrl_loss_tmo 600 s where NetApp sets -1 (reconnect forever)"
    assert found[title].startswith(f"model {NETAPP} ({sysfs}, line 1 (nvme53's sysfs model)); transport tcp "
                                   f"({LISTING}, line 7 (nvme53)); ctrl_loss_tmo 600 ({sysfs}, line 3)")
    sysfs.write_text("/sys/class/nvme/nvme53/model:HPE Alletra\n/sys/class/nvme/nvme53/ctrl_loss_tmo:600\n")
    with pytest.raises(ScenarioError) as refused:
        _host(LISTING, TWO, str(sysfs))
    assert refused.value.args == (str(sysfs), "line 1", f"nvme53's model HPE Alletra: {TWO}, line 6 (nvme53's mn) "
                                                        f"gives {NETAPP}: give one host's outputs")
    sysfs.write_text("/sys/class/nvme/nvme53/transport:tcpip\n")
    with pytest.raises(ScenarioError, match="transport 'tcpip': one of pcie, tcp, rdma, fc, loop, apple-nvme"):
        nvme_sysfs.read(sysfs)
