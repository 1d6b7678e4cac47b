"""Vendor rows of failure-related settings outside multipath.conf (issue 36): Pure's SCSI disk
timeout on Linux (a udev rule's `device/timeout` 60) and Pure's ESXi software iSCSI LoginTimeout
30 and DelayedAck off, each with its source; the timer findings compare the host's read values
with them, and advise --failures runs the Linux one as a candidate."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import pathlab
from conftest import ROOT
from pathlab.advisor.timer_candidates import candidates
from pathlab.advisor.timer_findings import timer_findings
from pathlab.advisor.vendor_table import practice_for

ADAPTER = ROOT / "tests/data/esxcli/iscsi-adapter-param-get-esxi5-elatov.txt"
OPENINDIANA = ROOT / "tests/data/corpus/esxcli-nmp-device-list/007-esxi5-openindiana-comstar-mru/bare.txt"
PURE_MAP = """3624a93701c0d5e5e4b5c4ff000011d11 dm-0 PURE,FlashArray
size=100G features='0' hwhandler='1 alua' wp=rw
`-+- policy='service-time 0' prio=50 status=active
  |- 1:0:0:1 sdb 8:16 active ready running
  `- 2:0:0:1 sdc 8:32 active ready running
"""
WWID = "3624a93701c0d5e5e4b5c4ff000011d11"


def _host(*files: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        return pathlab.import_host(*files)


def test_the_rows_are_found_by_the_identity_the_host_reports() -> None:
    (scsi,) = practice_for("PURE", "FlashArray      ", "linux-scsi")
    assert scsi.setting.given() == {"device_timeout": 60}
    assert scsi.source.startswith("https://support.purestorage.com/Solutions/Linux/Reference/Linux_Recommended_Settings")
    # esxcli's nmp listings print no model: the ESXi row matches the vendor alone
    (iscsi,) = practice_for("PURE", "", "esxi-iscsi")
    assert (iscsi.setting.given(), iscsi.date) == ({"login_timeout": 30, "delayed_ack": False}, "2020-10-07")
    assert practice_for("NETAPP", "LUN C-Mode", "esxi-iscsi") == []


def test_a_linux_pure_host_at_the_kernels_timeout_is_told_pures_and_runs_it(tmp_path: Path) -> None:
    (tmp_path / "m.txt").write_text(PURE_MAP)
    (tmp_path / "t.txt").write_text("/sys/block/sdb/device/timeout:30\n/sys/block/sdc/device/timeout:30\n")
    host = _host(tmp_path / "m.txt", tmp_path / "t.txt")
    found = {f.title: f.evidence for f in timer_findings(host.stack, host.timers, host.scenario.devices)}
    title = (f"{WWID} (PURE,FlashArray): device/timeout 30 where Pure Storage says 60: with it a path that stops "
             "answering would stall I/O for about 60 s (a longer timeout rides out the array's slow recoveries, and "
             "holds a lost command as long)")
    assert found[title].startswith(f"device/timeout 30 (read at {tmp_path / 't.txt'}, line 2 (sdc of map {WWID}))")
    cands, _ = candidates(host.scenario, host.scenario.devices, host.timers)
    pure = next(c for c in cands if c.label == "Pure Storage FlashArray (device/timeout)")
    assert pure.overrides["host.stack.io_timeout"] == "60s"
    assert (pure.timers.seconds["io_timeout"], pure.timers.seconds["checker_timeout"]) == (60.0, 60.0)
    assert pure.commands[1] == 'ACTION=="add|change", KERNEL=="sd*[!0-9]", SUBSYSTEM=="block", ENV{ID_VENDOR}=="PURE", ' \
                               'ATTR{device/timeout}="60"'
    # at Pure's own 60 s, nothing to say and no candidate
    (tmp_path / "t.txt").write_text("/sys/block/sdb/device/timeout:60\n/sys/block/sdc/device/timeout:60\n")
    host = _host(tmp_path / "m.txt", tmp_path / "t.txt")
    assert not any("where Pure Storage says 60" in f.title
                   for f in timer_findings(host.stack, host.timers, host.scenario.devices))
    assert "Pure Storage FlashArray (device/timeout)" not in [c.label for c in candidates(
        host.scenario, host.scenario.devices, host.timers)[0]]


@pytest.mark.parametrize(("ack", "title"), [
    ("false", "vmhba33: LoginTimeout 5 where Pure Storage says 30 for FlashArray iSCSI targets (not simulated: "
              "neither changes a stall pathlab simulates)"),
    ("true", "vmhba33: LoginTimeout 5 where Pure Storage says 30; DelayedAck true where Pure Storage says false for "
             "FlashArray iSCSI targets (not simulated: neither changes a stall pathlab simulates)")])
def test_an_esxi_pure_hosts_iscsi_adapter_is_compared_with_pures_row(tmp_path: Path, ack: str, title: str) -> None:
    """elatov's ESXi 5 adapter listing (LoginTimeout 5, DelayedAck false) under a FlashArray device."""
    (tmp_path / "d.txt").write_text(OPENINDIANA.read_text().replace("OI iSCSI Disk", "PURE iSCSI Disk"))
    listing = ADAPTER.read_text()
    if ack == "true":
        listing = listing.replace("DelayedAck false true", "DelayedAck true true")
    (tmp_path / "a.txt").write_text(listing)
    host = _host(tmp_path / "d.txt", tmp_path / "a.txt")
    found = {f.title: f.evidence for f in timer_findings(host.stack, host.timers, host.scenario.devices)}
    assert found[title].startswith(f"LoginTimeout 5 (read at {tmp_path / 'a.txt'}, line 15)")
    assert "PureStorage-OpenConnect/PureStorage.FlashArray.VMware@bfc26e70" in found[title]


def test_an_esxi_iscsi_listing_with_a_bad_login_timeout_is_refused_at_its_line(tmp_path: Path) -> None:
    from pathlab.readers import esxcli_iscsi_params

    (tmp_path / "a.txt").write_text(ADAPTER.read_text().replace("LoginTimeout 5 5", "LoginTimeout 90 5"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        with pytest.raises(pathlab.ScenarioError, match=r"LoginTimeout Current '90': expected whole seconds within "
                                                        r"the listing's own range 1 to 60") as refused:
            esxcli_iscsi_params.read(tmp_path / "a.txt")
    assert refused.value.args[1] == "line 15"
