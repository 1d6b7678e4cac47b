"""An ESXi device list's SATP config against its path list's states (`esxi_listings_disagree`):
where the device list shows a group the paths reach in another state than the paths do, the two
listings were taken at different moments, which is said (both files, lines and states, and that
which is current is not determined), and the path list's state is taken for the groups its
paths reach. The device list decided silently where every path was AO."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pathlab as lab
from conftest import pathlab
from esxi_alua_listings import Reached, device_name, write

#: One path to each of the two SPs' groups.
TWO_GROUPS = [Reached("vmhba1", 0, "00a1", 1, "AO"), Reached("vmhba2", 1, "00b1", 2, "AO")]


def _import(tmp_path: Path, config: list[tuple[int, str]], reached: list[Reached]) -> tuple[dict, str, str]:
    listed, paths = write(tmp_path, [(1, config, reached)], vendor="DGC")
    done = pathlab("import", str(listed), str(paths))
    assert done.returncode == 0, done.stderr
    return tomllib.loads(done.stdout), done.stdout, done.stderr


def test_a_group_the_device_list_shows_non_optimized_and_its_paths_optimized_is_said_and_the_paths_taken(
        tmp_path: Path) -> None:
    scenario, _, warned = _import(tmp_path, [(1, "AO"), (2, "ANO")], TWO_GROUPS)
    # The device list had decided: owned by TPG1, vmhba2's path (AO in the path list) run non-optimized.
    (array,) = scenario["arrays"]
    assert array["symmetric"] is True
    assert "controllers" not in array and "owner" not in scenario["devices"][0]
    devices, paths = tmp_path / "devices.txt", tmp_path / "paths.txt"
    assert (f"devices.{device_name(1)}.owner: {devices}, line 4 and {paths}: TPG_id=2: TPG_state=ANO in the device list, "
            "AO in the path list: esxcli prints no time with either listing, so which is current is not determined "
            "(an ALUA transition between the two commands, or one listing a stale view); the scenario takes the path "
            "list's state for the groups the device's paths reach") in warned
    (finding,) = [f for f in lab.import_host(str(devices), str(paths)).findings if "disagree" in f.title]
    assert finding.title == (f"{device_name(1)}: the device list and the path list disagree on its target port groups' "
                             "states: TPG_id=2: TPG_state=ANO in the device list, AO in the path list (captured)")
    assert finding.evidence.startswith(f"{devices}, line 4: Storage Array Type Device Config {{TPG_id=2,TPG_state=ANO}}; "
                                       f"{paths}, line 10: TPG_id=2,TPG_state=AO (Group State active): esxcli prints no "
                                       "time with either listing")


def test_groups_swapped_between_the_listings_are_said_and_the_path_lists_owner_kept(tmp_path: Path) -> None:
    # A trespass between the two commands: the device list shows TPG 2 the owner, the path list TPG 1.
    swapped = [TWO_GROUPS[0], TWO_GROUPS[1]._replace(state="ANO")]
    scenario, _, warned = _import(tmp_path, [(1, "ANO"), (2, "AO")], swapped)
    assert scenario["devices"][0]["owner"] == "TPG1"
    assert scenario["arrays"][0]["non_owner_state"] == "active_non_optimized"
    assert ("TPG_id=1: TPG_state=ANO in the device list, AO in the path list; TPG_id=2: TPG_state=AO in the device "
            "list, ANO in the path list: esxcli prints no time") in warned


def test_listings_that_agree_say_nothing(tmp_path: Path) -> None:
    owned = [TWO_GROUPS[0], TWO_GROUPS[1]._replace(state="ANO")]
    scenario, _, warned = _import(tmp_path, [(1, "AO"), (2, "ANO")], owned)
    assert scenario["devices"][0]["owner"] == "TPG1"
    assert "in the path list" not in warned


def test_a_group_no_path_reaches_is_read_from_the_device_list(tmp_path: Path) -> None:
    # Zoned to SP A's port alone: the device list alone shows TPG 2 (session 26's rule, kept).
    scenario, _, warned = _import(tmp_path, [(1, "AO"), (2, "STBY")], TWO_GROUPS[:1])
    (array,) = scenario["arrays"]
    assert array["symmetric"] is False and array["non_owner_state"] == "standby"
    assert "in the path list" not in warned
