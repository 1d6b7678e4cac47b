"""What ESXi's listings show without counters: non-optimized paths carrying I/O, and a SATP that
ignores the ALUA target port groups the array reports. The path list is the corpus' real NetApp
sample (two paths active, two active unoptimized); no real device list of the corpus pairs with it
in these states, so the device lists are written by hand, in the shape of the corpus' own
(sample esxcli-nmp-device-list/009), with the line each finding must name."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import pathlab

PATHS = Path(__file__).parent / "data" / "corpus" / "esxcli-nmp-path-list" / "002-netapp-fc-two-ao-two-ano" / "bare.txt"
DEVICE = "naa.600a098038313530772b4d673979372f"
ALUA_CONFIG = ("{implicit_support=on; explicit_support=off; explicit_allow=on; alua_followover=on; "
               "action_OnRetryErrors=off; {TPG_id=1000,TPG_state=AO}{TPG_id=1001,TPG_state=ANO}}")


def _device(name: str, satp: str, satp_config: str, psp: str, psp_config: str, working: str) -> str:
    return "\n".join([
        name,
        f"   Device Display Name: NETAPP Fibre Channel Disk ({name})",
        f"   Storage Array Type: {satp}",
        f"   Storage Array Type Device Config: {satp_config}",
        f"   Path Selection Policy: {psp}",
        f"   Path Selection Policy Device Config: {psp_config}",
        "   Path Selection Policy Device Custom Config:",
        f"   Working Paths: {working}",
        "   Is USB: false",
        "",
    ])


def _findings(tmp_path: Path, devices: str, paths: str | None = None) -> list[dict]:
    (tmp_path / "devices.txt").write_text(devices)
    (tmp_path / "paths.txt").write_text(paths if paths is not None else PATHS.read_text())
    done = pathlab("advise", str(tmp_path / "devices.txt"), str(tmp_path / "paths.txt"), "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["findings"]


def _about(findings: list[dict], words: str) -> list[dict]:
    return [f for f in findings if words in f["title"]]


def test_round_robin_with_use_ano_names_the_non_optimized_paths_and_their_lines(tmp_path: Path) -> None:
    devices = _device(DEVICE, "VMW_SATP_ALUA", ALUA_CONFIG, "VMW_PSP_RR",
                      "{policy=rr,iops=1,bytes=10485760,useANO=1; lastPathIndex=0: NumIOsPending=0,numBytesPending=0}",
                      "vmhba3:C0:T2:L21, vmhba3:C0:T3:L21, vmhba4:C0:T2:L21, vmhba4:C0:T3:L21")
    (found,) = _about(_findings(tmp_path, devices), "non-optimized")
    assert found["title"] == (f"{DEVICE}: non-optimized path(s) vmhba3:C0:T2:L21, vmhba4:C0:T3:L21 carry I/O: "
                              "round robin with useANO=1 sends I/O down them (captured)")
    # Working Paths is the device list's line 8; the ANO paths' blocks start at lines 1 and 28.
    assert "devices.txt, line 8: Working Paths vmhba3:C0:T2:L21" in found["evidence"]
    assert "paths.txt, the path at line 1: Group State active unoptimized (TPG_state=ANO)" in found["evidence"]
    assert "paths.txt, the path at line 28: Group State active unoptimized" in found["evidence"]


def test_round_robin_on_the_optimized_paths_only_is_no_finding(tmp_path: Path) -> None:
    devices = _device(DEVICE, "VMW_SATP_ALUA", ALUA_CONFIG, "VMW_PSP_RR",
                      "{policy=rr,iops=1,bytes=10485760,useANO=0; lastPathIndex=0: NumIOsPending=0,numBytesPending=0}",
                      "vmhba3:C0:T3:L21, vmhba4:C0:T2:L21")
    findings = _findings(tmp_path, devices)
    assert not _about(findings, "non-optimized") and not _about(findings, "treats every path alike")


def test_fixed_preferring_a_non_optimized_path_is_found(tmp_path: Path) -> None:
    devices = _device(DEVICE, "VMW_SATP_ALUA", ALUA_CONFIG, "VMW_PSP_FIXED",
                      "{preferred=vmhba4:C0:T3:L21;current=vmhba4:C0:T3:L21}", "vmhba4:C0:T3:L21")
    (found,) = _about(_findings(tmp_path, devices), "non-optimized")
    assert found["title"].startswith(f"{DEVICE}: non-optimized path(s) vmhba4:C0:T3:L21 carry I/O: Fixed's preferred path")
    assert "paths.txt, the path at line 28" in found["evidence"]


def test_default_aa_on_an_array_whose_other_device_reports_alua_is_found(tmp_path: Path) -> None:
    """A second LUN of the same NetApp claimed by VMW_SATP_DEFAULT_AA (as a wrong claim rule
    leaves it): its path prints no target port group, but the first LUN's show the array's."""
    other = "naa.600a098038313530772b4d6739793730"
    devices = _device(DEVICE, "VMW_SATP_ALUA", ALUA_CONFIG, "VMW_PSP_RR",
                      "{policy=rr,iops=1,bytes=10485760,useANO=0; lastPathIndex=0: NumIOsPending=0,numBytesPending=0}",
                      "vmhba3:C0:T3:L21, vmhba4:C0:T2:L21") + "\n" + _device(
        other, "VMW_SATP_DEFAULT_AA", "SATP VMW_SATP_DEFAULT_AA does not support device configuration.", "VMW_PSP_FIXED",
        "{preferred=vmhba3:C0:T2:L22;current=vmhba3:C0:T2:L22}", "vmhba3:C0:T2:L22")
    paths = PATHS.read_text() + "\n" + "\n".join([
        f"fc.20000090fae0ec8e:10000090fae0ec8e-fc.201000a098dfe3d1:200b00a098dfe3d1-{other}",
        "   Runtime Name: vmhba3:C0:T2:L22", f"   Device: {other}",
        f"   Device Display Name: NETAPP Fibre Channel Disk ({other})", "   Group State: active",
        "   Array Priority: 0", "   Storage Array Type Path Config: SATP VMW_SATP_DEFAULT_AA does not support path "
        "configuration.", "   Path Selection Policy Path Config: {current: yes; preferred: yes}", ""])
    (found,) = _about(_findings(tmp_path, devices, paths), "treats every path alike")
    assert found["title"].startswith(f"{other}: VMW_SATP_DEFAULT_AA treats every path alike, but its array reports ALUA")
    # The second device's SATP is line 13 of the device list; the first's target port groups line 4.
    assert (f"devices.txt, line 13: Storage Array Type VMW_SATP_DEFAULT_AA; {DEVICE} of the same array: "
            in found["evidence"])
    assert "devices.txt, line 4: VMW_SATP_ALUA shows target port groups {TPG_id=1000,TPG_state=AO}" in found["evidence"]
