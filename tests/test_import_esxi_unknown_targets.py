"""A dead ESXi path whose target the listing prints as `unknown` (`Target Identifier: unknown`,
a path UID `unknown.vmhba37-unknown.1:0-…`) is no port of its own (`importer/esxi_unknown_targets.py`).
ESXi numbers targets per adapter and channel, so `vmhba37:C1:T0` names one target: the dead path
reaches the target a path of the same adapter, channel and target number names, and stays a path
down from 0 s; where no path there names it, which array port it reaches is not in the listing and
the path is left out of the imported host, said as a finding (it carries no I/O either way).
Where ESXi prints `unknown.` in a path's name: Checkmk's vSphere multipath check quotes an ESXi
5.1 host's `unknown.vmhba0-unknown.2:0-naa.6b8ca3a0facdc9001a2a27f8197dd718` (a path whose
transport names neither end: `unknown.<adapter>` and `unknown.<channel>:<target>`)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from conftest import quiet
from pathlab.api import Scenario, ScenarioError
from pathlab.importer import import_files

TARGET = "iqn.1992-04.com.emc:storage.Storage.tiny"
DEVICES = ("naa.5000144f79272808", "naa.5000144f79272809")


def _device_list(path: Path) -> None:
    path.write_text("".join(
        f"{d}\n"
        f"   Device Display Name: EMC iSCSI Disk ({d})\n"
        "   Storage Array Type: VMW_SATP_DEFAULT_AA\n"
        "   Storage Array Type Device Config: SATP VMW_SATP_DEFAULT_AA does not support device configuration.\n"
        "   Path Selection Policy: VMW_PSP_RR\n"
        "   Path Selection Policy Device Config: {policy=rr,iops=1000,bytes=10485760,useANO=0; "
        "lastPathIndex=0: NumIOsPending=0,numBytesPending=0}\n"
        "   Working Paths: " + ", ".join(f"vmhba37:C{c}:T0:L{lun}" for c in (0, 1)) + "\n\n"
        for lun, d in enumerate(DEVICES)))


def _block(channel: int, lun: int, state: str = "active", target_id: str | None = None) -> str:
    """One path of `esxcli storage core path list`, as ESXi 5+ prints it: a live session's target
    identifier `<ISID>,<target IQN>,t,<tag>`, or what the caller gives for a dead one."""
    isid = f"00023d00000{channel + 1}"
    live = target_id is None
    uid = (f"iqn.1998-01.com.vmware:esxi2-35bac89b-{isid},{TARGET},t,1-{DEVICES[lun]}" if live
           else f"unknown.vmhba37-unknown.{channel}:0-{DEVICES[lun]}")
    return (f"{uid}\n   UID: {uid}\n   Runtime Name: vmhba37:C{channel}:T0:L{lun}\n   Device: {DEVICES[lun]}\n"
            f"   Device Display Name: EMC iSCSI Disk ({DEVICES[lun]})\n   Adapter: vmhba37\n   Channel: {channel}\n"
            f"   Target: 0\n   LUN: {lun}\n   Plugin: NMP\n   State: {state}\n   Transport: iscsi\n"
            "   Adapter Identifier: iqn.1998-01.com.vmware:esxi2-35bac89b\n"
            f"   Target Identifier: {f'{isid},{TARGET},t,1' if live else target_id}\n"
            "   Adapter Transport Details: iqn.1998-01.com.vmware:esxi2-35bac89b\n"
            "   Target Transport Details: " + (f"IQN={TARGET} Alias= Session={isid} PortalTag=1" if live
                                               else "Unavailable or path is unclaimed") + "\n\n")


def _import(tmp_path: Path, blocks: list[str]) -> tuple[dict, object]:
    devices, paths = tmp_path / "devices.txt", tmp_path / "paths.txt"
    _device_list(devices)
    paths.write_text("".join(blocks))
    with quiet():
        done = import_files([str(devices), str(paths)])
    return tomllib.loads(done.text), done


@pytest.mark.parametrize("printed", ["unknown", "unknown.", "unknown.1:0", ",,t,1"])
def test_a_dead_path_of_an_unknown_target_reaches_its_adapter_channel_and_targets_port(tmp_path: Path,
                                                                                        printed: str) -> None:
    """Two sessions (C0, C1) of vmhba37, two LUNs; L1's C1 session is dead and its target printed
    `unknown`: the host has the two sessions' ports, not a third, and the dead path is down from 0 s."""
    scenario, done = _import(tmp_path, [_block(0, 0), _block(1, 0), _block(0, 1),
                                        _block(1, 1, "dead", target_id=printed)])
    (array,) = scenario["arrays"]
    assert len(array["ports"]) == 2, array["ports"]
    assert [(f["kind"], f["at"], f["path"]) for f in scenario["faults"]] == [("path_down", "0s", "vmhba37:C1:T0:L1")]
    said = [m for field, m in done.warnings if field == "paths.vmhba37:C1:T0:L1"]
    assert len(said) == 1 and "taken as the target vmhba37:C1:T0:L0 names" in said[0], said
    run = Scenario.from_text(done.text, "imported.toml", set={"run.duration": "1s", "run.warmup": "0s"}).run()
    rows = dict(zip(run.paths["name"], run.paths["state"], strict=True))
    assert sorted(rows) == ["vmhba37:C0:T0:L0", "vmhba37:C0:T0:L1", "vmhba37:C1:T0:L0", "vmhba37:C1:T0:L1"]
    assert rows["vmhba37:C1:T0:L1"] == "dead"


def test_a_dead_path_no_path_of_its_target_names_is_left_out_and_said(tmp_path: Path) -> None:
    """Both LUNs' C1 paths dead with `unknown` targets: no path of vmhba37:C1:T0 names its target,
    so the listing does not say which array port it is; the paths are left out, each a finding
    naming its line, and the host keeps the one port its live session names."""
    scenario, done = _import(tmp_path, [_block(0, 0), _block(1, 0, "dead", "unknown"), _block(0, 1),
                                        _block(1, 1, "dead", "unknown")])
    (array,) = scenario["arrays"]
    assert len(array["ports"]) == 1
    assert "faults" not in scenario
    left = sorted(f.title for f in done.findings if "left out" in f.title)
    assert left == [f"{DEVICES[0]}: path vmhba37:C1:T0:L0 left out: its target is unknown (captured)",
                    f"{DEVICES[1]}: path vmhba37:C1:T0:L1 left out: its target is unknown (captured)"]
    evidence = next(f.evidence for f in done.findings if "vmhba37:C1:T0:L0 left out" in f.title)
    assert evidence.startswith(f"{tmp_path / 'paths.txt'}, line 18: Target Identifier: unknown;"), evidence


def test_a_device_whose_every_path_is_dead_of_an_unknown_target_is_left_out_and_said(tmp_path: Path) -> None:
    """L1's two paths (on channels 2 and 3, which no live path names) both dead of unknown targets:
    all paths down, an ordinary capture during an outage. The device is left out of the imported
    host (as a local disk is), one finding naming both paths' lines, and the host is L0's."""
    scenario, done = _import(tmp_path, [_block(0, 0), _block(1, 0), _block(2, 1, "dead", "unknown"),
                                        _block(3, 1, "dead", "unknown")])
    assert [d["name"] for d in scenario["devices"]] == [DEVICES[0]]
    assert [w["devices"] for w in scenario["workloads"]] == [[DEVICES[0]]]
    assert len(scenario["arrays"][0]["ports"]) == 2 and "faults" not in scenario
    left = [f for f in done.findings if "left out" in f.title]
    assert [f.title for f in left] == [f"{DEVICES[1]}: left out: every path is out of use and of an unknown target "
                                       "(captured)"]
    assert left[0].evidence.startswith(f"{tmp_path / 'paths.txt'}, lines 35, 52: vmhba37:C2:T0:L1 State: dead, Target "
                                       "Identifier: unknown; vmhba37:C3:T0:L1 State: dead, Target Identifier: unknown; "
                                       "no path of vmhba37:C2:T0, vmhba37:C3:T0 names its target"), left[0].evidence
    run = Scenario.from_text(done.text, "imported.toml", set={"run.duration": "1s", "run.warmup": "0s"}).run()
    assert sorted(run.paths["name"]) == ["vmhba37:C0:T0:L0", "vmhba37:C1:T0:L0"]


def test_a_host_whose_every_device_is_left_out_is_refused(tmp_path: Path) -> None:
    """Every device's every path dead of an unknown target: no device is left to import."""
    with pytest.raises(ScenarioError, match=r"naa.5000144f79272808: every path's target is unknown .* no device is "
                                            r"left to import"):
        _import(tmp_path, [_block(2, 0, "dead", "unknown"), _block(3, 0, "dead", "unknown"),
                           _block(2, 1, "dead", "unknown"), _block(3, 1, "dead", "unknown")])


def test_a_path_in_use_of_an_unknown_target_keeps_a_port_of_its_adapters_target_number(tmp_path: Path) -> None:
    """A path in use whose transport names no target (Checkmk's ESXi 5.1 `unknown.vmhba0-unknown.2:0-…`
    is a live one) carries I/O: not left out, nor said dead, nor one port with every adapter's
    unknown paths; a port of its own, the target its adapter, channel and target number name."""
    scenario, done = _import(tmp_path, [_block(0, 0), _block(1, 0), _block(0, 1), _block(2, 1, "active", "unknown")])
    (array,) = scenario["arrays"]
    assert len(array["ports"]) == 3 and "faults" not in scenario
    assert '{ name = "P2" },  # ' + f"{tmp_path / 'paths.txt'}: target vmhba37:C2:T0" in done.text
    assert not [f for f in done.findings if "left out" in f.title]
    said = [m for field, m in done.warnings if field == "paths.vmhba37:C2:T0:L1"]
    assert said == [f"{tmp_path / 'paths.txt'}, line 52: Target Identifier: unknown: no path of vmhba37:C2:T0 names "
                    "its target, which is taken as a port of its own, vmhba37:C2:T0 (ESXi numbers targets per adapter "
                    "and channel)"], said


def _nmp_block(channel: int, lun: int, state: str = "active") -> str:
    """One path of `esxcli storage nmp path list`: a dead one named with ESXi's `unknown.` target."""
    uid = (f"iqn.1998-01.com.vmware:esxi2-35bac89b-00023d00000{channel + 1},{TARGET},t,1-{DEVICES[lun]}"
           if state == "active" else f"unknown.vmhba37-unknown.{channel}:0-{DEVICES[lun]}")
    return (f"{uid}\n   Runtime Name: vmhba37:C{channel}:T0:L{lun}\n   Device: {DEVICES[lun]}\n"
            f"   Device Display Name: EMC iSCSI Disk ({DEVICES[lun]})\n   Group State: {state}\n   Array Priority: 0\n"
            "   Storage Array Type Path Config: SATP VMW_SATP_DEFAULT_AA does not support path configuration.\n"
            "   Path Selection Policy Path Config: PSP VMW_PSP_RR does not support path configuration.\n\n")


def test_the_nmp_path_lists_unknown_target_in_a_path_name_is_placed_the_same(tmp_path: Path) -> None:
    scenario, done = _import(tmp_path, [_nmp_block(0, 0), _nmp_block(1, 0), _nmp_block(0, 1),
                                        _nmp_block(1, 1, "dead")])
    assert len(scenario["arrays"][0]["ports"]) == 2
    assert [f["path"] for f in scenario["faults"]] == ["vmhba37:C1:T0:L1"]
    said = [m for field, m in done.warnings if field == "paths.vmhba37:C1:T0:L1"]
    assert len(said) == 1 and f"path unknown.vmhba37-unknown.1:0-{DEVICES[1]}: taken as the target" in said[0], said


@pytest.mark.parametrize("dead_first", [False, True])
def test_a_dead_path_beside_a_path_in_use_of_an_unknown_target_takes_its_port(tmp_path: Path, dead_first: bool) -> None:
    """L0's C2 path in use and L1's C2 path dead, both of unknown targets: the two rules agree in
    one import, whichever is listed first. The path in use keeps the port vmhba37:C2:T0, and the
    dead one at the same adapter, channel and target number reaches it (one target there) and is
    down from 0 s, not left out saying no path there names its target."""
    in_use, dead = _block(2, 0, "active", "unknown"), _block(2, 1, "dead", "unknown")
    blocks = [_block(0, 0), dead, _block(0, 1), in_use] if dead_first else [_block(0, 0), in_use, _block(0, 1), dead]
    scenario, done = _import(tmp_path, blocks)
    (array,) = scenario["arrays"]
    assert len(array["ports"]) == 2, array["ports"]
    assert not [f for f in done.findings if "left out" in f.title]
    assert [(f["kind"], f["at"], f["path"]) for f in scenario["faults"]] == [("path_down", "0s", "vmhba37:C2:T0:L1")]
    said = [m for field, m in done.warnings if field == "paths.vmhba37:C2:T0:L1"]
    dead_line, in_use_line = (18, 52) if dead_first else (52, 18)  # (each block is 17 lines)
    assert said == [f"{tmp_path / 'paths.txt'}, line {dead_line}: Target Identifier: unknown: taken "
                    f"as the port vmhba37:C2:T0 of vmhba37:C2:T0:L0 (line {in_use_line}), a path in use at the same "
                    "adapter, channel and target number whose target is unknown too: ESXi numbers targets per adapter "
                    "and channel"], said
    run = Scenario.from_text(done.text, "imported.toml", set={"run.duration": "1s", "run.warmup": "0s"}).run()
    rows = dict(zip(run.paths["name"], run.paths["state"], strict=True))
    assert rows["vmhba37:C2:T0:L1"] == "dead" and rows["vmhba37:C2:T0:L0"] != "dead"


def test_a_core_path_list_run_again_after_a_path_died_is_the_later_listing(tmp_path: Path) -> None:
    """Two runs of `esxcli storage core path list` around a path's death: the second prints its
    target as ESXi's placeholder (`Target Identifier: unknown`, a UID `unknown.…`, `Unavailable or
    path is unclaimed`), which names no other target: the later listing is taken, the path down from
    0 s on the port its session named; a path whose target names another one is still refused."""
    live = [_block(0, 0), _block(1, 0), _block(0, 1), _block(1, 1)]
    scenario, _ = _import(tmp_path, live + [*live[:3], _block(1, 1, "dead", target_id="unknown")])
    assert len(scenario["arrays"][0]["ports"]) == 2
    assert [(f["kind"], f["path"]) for f in scenario["faults"]] == [("path_down", "vmhba37:C1:T0:L1")]
    other = _block(1, 1).replace(f"{TARGET},t,1", "iqn.1992-04.com.emc:storage.Storage.other,t,1")
    with pytest.raises(ScenarioError, match=r"vmhba37:C1:T0:L1 is listed a second time, differently from line \d+ "
                                            r"\(target_identifier, uid\)"):
        _import(tmp_path, live + [*live[:3], other])
