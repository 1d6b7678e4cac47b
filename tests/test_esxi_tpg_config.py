"""What an ESXi device list's `Storage Array Type Device Config` says of an ALUA array's target
port groups (`esxi_tpg_config`), on a host whose every path is active-optimized: the config makes
the array owned only where it names one AO group and an asymmetric state beside it (ANO, STBY,
UNAV); a uniform metro array's (two AO groups, a third ANO), or a group offline, transitioning or
logical-block dependent, leaves the paths' own reading, said."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from conftest import pathlab

#: Two LUNs of one array, each with two paths: (adapter, target number, target port's WWN tail, TPG).
METRO_PATHS = [("vmhba1", 0, "0", 1), ("vmhba2", 1, "1", 2)]  # one path to each site's AO group
OWNER_PATHS = [("vmhba1", 0, "0", 1), ("vmhba2", 0, "0", 1)]  # both paths to one group's port


def _listings(tmp_path: Path, config: str, paths: list[tuple[str, int, str, int]]) -> tuple[Path, Path]:
    """A device list whose devices' SATP config ends in `config` and a path list of `paths`, every
    path AO, as `esxcli storage nmp device list` and `esxcli storage core path list` print them."""
    devices, listed = [], []
    for lun in (1, 2):
        naa = f"naa.6006016000000000000000000000000{lun}"
        runtime = [f"{adapter}:C0:T{target}:L{lun}" for adapter, target, _, _ in paths]
        devices.append("\n".join([
            naa,
            f"   Device Display Name: DGC Fibre Channel Disk ({naa})",
            "   Storage Array Type: VMW_SATP_ALUA",
            "   Storage Array Type Device Config: {implicit_support=on; explicit_support=off; explicit_allow=on; "
            f"alua_followover=on; action_OnRetryErrors=off; {config}}}",
            "   Path Selection Policy: VMW_PSP_RR",
            "   Path Selection Policy Device Config: {policy=rr,iops=1000,bytes=10485760,useANO=0; lastPathIndex=0: "
            "NumIOsPending=0,numBytesPending=0}",
            "   Path Selection Policy Device Custom Config: ",
            f"   Working Paths: {', '.join(runtime)}",
            "   Is USB: false", ""]))
        for n, (_, _, port, tpg) in enumerate(paths, start=1):
            listed.append("\n".join([
                f"fc.2000001b3200000{n}:2100001b3200000{n}-fc.500601600000000{port}:500601610000000{port}-{naa}",
                f"   Runtime Name: {runtime[n - 1]}",
                f"   Device: {naa}",
                f"   Device Display Name: DGC Fibre Channel Disk ({naa})",
                "   Group State: active",
                "   Array Priority: 0",
                f"   Storage Array Type Path Config: {{TPG_id={tpg},TPG_state=AO,RTP_id={tpg}{n - 1},RTP_health=UP}}",
                "   Path Selection Policy Path Config: PSP VMW_PSP_RR does not support path configuration.", ""]))
    (tmp_path / "devices.txt").write_text("\n".join(devices))
    (tmp_path / "paths.txt").write_text("\n".join(listed))
    return tmp_path / "devices.txt", tmp_path / "paths.txt"


def _imported(tmp_path: Path, config: str, paths: list[tuple[str, int, str, int]]) -> tuple[dict, str, str]:
    devices, listed = _listings(tmp_path, config, paths)
    done = pathlab("import", str(devices), str(listed))
    assert done.returncode == 0, done.stderr
    return tomllib.loads(done.stdout), done.stdout, done.stderr


def test_a_uniform_metro_arrays_two_active_optimized_groups_are_not_read_as_owner_and_non_owner(tmp_path: Path) -> None:
    # Pure ActiveCluster / uniform metro: the host reaches TPG 1 and TPG 2, both AO, every path AO;
    # 3f38cab read the array owned with no owner, so vmhba2's paths (TPG 2) ran non-optimized.
    scenario, text, warned = _imported(tmp_path, "{TPG_id=1,TPG_state=AO}{TPG_id=2,TPG_state=AO}{TPG_id=3,TPG_state=ANO}",
                                       METRO_PATHS)
    (array,) = scenario["arrays"]
    assert array["symmetric"] is True
    assert "controllers" not in array and "non_owner_state" not in array
    assert [d.get("owner") for d in scenario["devices"]] == [None, None]
    assert "controller" not in text.split("[[devices]]")[0].split("ports = [")[1]
    assert (f"arrays.DGC.symmetric: {tmp_path / 'devices.txt'}, line 4: naa.60060160000000000000000000000001's "
            "Storage Array Type Device Config shows TPG_id=1 and TPG_id=2 active-optimized (TPG_id=3,TPG_state=ANO "
            "beside): more than one active-optimized group") in warned
    assert f"the paths' own reading stands, every path of this host ({tmp_path / 'paths.txt'}) active-optimized" in warned


def test_one_active_optimized_group_beside_a_non_optimized_one_still_owns(tmp_path: Path) -> None:
    scenario, _, warned = _imported(tmp_path, "{TPG_id=1,TPG_state=AO}{TPG_id=2,TPG_state=ANO}", OWNER_PATHS)
    (array,) = scenario["arrays"]
    assert array["symmetric"] is False
    assert array["non_owner_state"] == "active_non_optimized"
    assert [d["owner"] for d in scenario["devices"]] == ["TPG1", "TPG1"]
    assert "arrays.DGC.symmetric" not in warned


@pytest.mark.parametrize("state", ["OFFL", "TRAN", "LBD"])
def test_a_group_offline_transitioning_or_lbd_does_not_make_the_array_owned(tmp_path: Path, state: str) -> None:
    # 3f38cab read these owned (owner TPG1, "the array reports a target port group not
    # active-optimized") and said "the array's other target port groups decide" where none did.
    scenario, _, warned = _imported(tmp_path, f"{{TPG_id=1,TPG_state=AO}}{{TPG_id=2,TPG_state={state}}}", OWNER_PATHS)
    (array,) = scenario["arrays"]
    assert array["symmetric"] is True
    assert "controllers" not in array and "non_owner_state" not in array
    assert [d.get("owner") for d in scenario["devices"]] == [None, None]
    assert (f"arrays.DGC.symmetric: {tmp_path / 'devices.txt'}, line 4: naa.60060160000000000000000000000001's "
            f"Storage Array Type Device Config shows TPG_id=1 active-optimized (TPG_id=2,TPG_state={state} beside): "
            "offline (OFFL) or transitioning (TRAN) is a moment") in warned
    assert "whether the array owns LUNs by controller is not determined by the config: the paths' own reading" in warned
    assert "decide" not in warned


def test_an_asymmetric_state_after_an_lbd_group_decides(tmp_path: Path) -> None:
    scenario, text, _ = _imported(tmp_path, "{TPG_id=1,TPG_state=AO}{TPG_id=2,TPG_state=LBD}{TPG_id=3,TPG_state=STBY}",
                                  OWNER_PATHS)
    (array,) = scenario["arrays"]
    assert array["symmetric"] is False and array["non_owner_state"] == "standby"
    assert [d["owner"] for d in scenario["devices"]] == ["TPG1", "TPG1"]
    assert "Storage Array Type Device Config shows TPG_id=3,TPG_state=STBY: the array reports" in text
