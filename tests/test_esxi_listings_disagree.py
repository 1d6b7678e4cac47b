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
from esxi_alua_listings import Reached, device_name, simulated_states, write

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


def test_a_group_whose_paths_show_two_states_is_said_with_the_state_run_and_the_path_run_otherwise(
        tmp_path: Path) -> None:
    # TPG 2's paths show ANO (vmhba1:C0:T1) and AO (vmhba2:C0:T0): the warning said the path list's
    # state was taken, where the group runs as the device list's ANO (TPG 1 owns the device).
    reached = [TWO_GROUPS[0], Reached("vmhba1", 1, "00b1", 2, "ANO"), Reached("vmhba2", 0, "00c1", 2, "AO")]
    scenario, text, warned = _import(tmp_path, [(1, "AO"), (2, "ANO")], reached)
    assert scenario["devices"][0]["owner"] == "TPG1"
    devices, paths = tmp_path / "devices.txt", tmp_path / "paths.txt"
    said = (f"{paths}: TPG_id=2's paths show ANO (line 10); AO (line 19); the device list shows TPG_state=ANO "
            f"({devices}, line 4): the path list disagrees with itself (a path whose state was not updated when esxcli "
            "printed it, or a transition under way), so no one state of the group is taken from it; the scenario runs "
            "the group's paths as a group that does not own the device (its owner is TPG_id=1, the group of its first "
            "active-optimized path, line 1): in the array's state for those, never active-optimized, so "
            "vmhba2:C0:T0:L1 (line 19) is run otherwise than shown")
    assert f"devices.{device_name(1)}.owner: {said}" in warned.replace("\n", " ")
    assert "in the path list: esxcli prints no time" not in warned  # the path list's state is not taken
    (finding,) = [f for f in lab.import_host(str(devices), str(paths)).findings if "more than one state" in f.title]
    assert finding.title == (f"{device_name(1)}: the path list shows its paths in TPG_id=2 in more than one state: "
                             "ANO (line 10); AO (line 19) (captured)")
    assert finding.evidence == said
    (tmp_path / "host.toml").write_text(text)
    assert simulated_states(tmp_path / "host.toml") == {"vmhba1:C0:T0:L1": "AO", "vmhba1:C0:T1:L1": "ANO", "vmhba2:C0:T0:L1": "ANO"}


def test_an_owning_group_whose_paths_show_two_states_runs_them_all_optimized_and_says_which_is_not(
        tmp_path: Path) -> None:
    reached = [TWO_GROUPS[0], Reached("vmhba2", 0, "00c1", 1, "ANO"), Reached("vmhba2", 1, "00b1", 2, "ANO")]
    scenario, text, warned = _import(tmp_path, [(1, "AO"), (2, "ANO")], reached)
    assert scenario["devices"][0]["owner"] == "TPG1"
    assert ("the scenario runs the group's paths active-optimized: its group owns the device in the scenario (the "
            "group of its first active-optimized path, line 1), so vmhba2:C0:T0:L1 (line 10) is run otherwise than "
            "shown") in warned.replace("\n", " ")
    (tmp_path / "host.toml").write_text(text)
    assert simulated_states(tmp_path / "host.toml") == {"vmhba1:C0:T0:L1": "AO", "vmhba2:C0:T0:L1": "AO", "vmhba2:C0:T1:L1": "ANO"}
