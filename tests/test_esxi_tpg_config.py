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
from esxi_alua_listings import Reached, write

#: Two LUNs of one array, each with two paths, every one AO (`esxi_alua_listings.Reached`).
METRO_PATHS = [Reached("vmhba1", 0, "00a0", 1, "AO"), Reached("vmhba2", 1, "00a1", 2, "AO")]  # one to each site's AO group
OWNER_PATHS = [Reached("vmhba1", 0, "00a0", 1, "AO"), Reached("vmhba2", 0, "00a0", 1, "AO")]  # both to one group's port


def _imported(tmp_path: Path, config: list[tuple[int, str]], paths: list[Reached]) -> tuple[dict, str, str]:
    """The import of a device list whose two devices' SATP config names the groups `config` and
    a path list of `paths`, as esxcli prints them (`esxi_alua_listings.write`)."""
    devices, listed = write(tmp_path, [(lun, config, paths) for lun in (1, 2)], vendor="DGC",
                            naa_of=lambda lun: f"naa.6006016000000000000000000000000{lun}")
    done = pathlab("import", str(devices), str(listed))
    assert done.returncode == 0, done.stderr
    return tomllib.loads(done.stdout), done.stdout, done.stderr


def test_a_uniform_metro_arrays_two_active_optimized_groups_are_not_read_as_owner_and_non_owner(tmp_path: Path) -> None:
    # Pure ActiveCluster / uniform metro: the host reaches TPG 1 and TPG 2, both AO, every path AO;
    # 3f38cab read the array owned with no owner, so vmhba2's paths (TPG 2) ran non-optimized.
    scenario, text, warned = _imported(tmp_path, [(1, "AO"), (2, "AO"), (3, "ANO")], METRO_PATHS)
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
    scenario, _, warned = _imported(tmp_path, [(1, "AO"), (2, "ANO")], OWNER_PATHS)
    (array,) = scenario["arrays"]
    assert array["symmetric"] is False
    assert array["non_owner_state"] == "active_non_optimized"
    assert [d["owner"] for d in scenario["devices"]] == ["TPG1", "TPG1"]
    assert "arrays.DGC.symmetric" not in warned


@pytest.mark.parametrize("state", ["OFFL", "TRAN", "LBD"])
def test_a_group_offline_transitioning_or_lbd_does_not_make_the_array_owned(tmp_path: Path, state: str) -> None:
    # 3f38cab read these owned (owner TPG1, "the array reports a target port group not
    # active-optimized") and said "the array's other target port groups decide" where none did.
    scenario, _, warned = _imported(tmp_path, [(1, "AO"), (2, state)], OWNER_PATHS)
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
    scenario, text, _ = _imported(tmp_path, [(1, "AO"), (2, "LBD"), (3, "STBY")], OWNER_PATHS)
    (array,) = scenario["arrays"]
    assert array["symmetric"] is False and array["non_owner_state"] == "standby"
    assert [d["owner"] for d in scenario["devices"]] == ["TPG1", "TPG1"]
    assert "Storage Array Type Device Config shows TPG_id=3,TPG_state=STBY: the array reports" in text
