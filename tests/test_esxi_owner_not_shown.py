"""An ESXi device on an array owned by its controllers whose owner neither its paths nor its SATP
config shows (every path ANO or standby): the scenario has one owner per LUN and the simulator
takes the array's first controller where none is named (`model/build/devices.rs`), which the
import left unsaid; now it is written as assumed, with a warning and a finding naming the paths
that run otherwise than the listing shows."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import pathlab as lab
from conftest import pathlab
from esxi_alua_listings import Reached, device_name, simulated_states, write

METRO = [Reached("vmhba1", 0, "00a1", 1, "AO"), Reached("vmhba1", 1, "00b1", 2, "AO"),
         Reached("vmhba2", 0, "00c1", 3, "ANO")]


def _import(tmp_path: Path, devices: list) -> tuple[dict, str, str]:
    listed, paths = write(tmp_path, devices)
    done = pathlab("import", str(listed), str(paths), "-o", str(tmp_path / "host.toml"))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "host.toml").read_text()
    return tomllib.loads(text), text, done.stderr.replace("\n", " ")


def test_a_device_whose_paths_are_all_non_optimized_beside_a_metro_device_is_said_owned_by_the_first_controller(
        tmp_path: Path) -> None:
    every_ano = [r._replace(state="ANO") for r in METRO]
    scenario, text, warned = _import(tmp_path, [(1, [(1, "AO"), (2, "AO"), (3, "ANO")], METRO),
                                                (2, [(1, "ANO"), (2, "ANO"), (3, "ANO")], every_ano)])
    assert [d.get("owner") for d in scenario["devices"]] == ["TPG1+TPG2"] * 2
    assert ('owner = "TPG1+TPG2"  # default: no path or SATP config shows its owner: the array\'s first controller (a '
            "warning says which paths run otherwise than shown)") in text
    paths = tmp_path / "paths.txt"
    said = (f"{device_name(2)}: no owner shown (its paths show TPG_state ANO, none active-optimized beside a group not): "
            "simulated as owned by TPG1+TPG2, the array's first controller (assumed): "
            f"{paths}, lines 28, 37, 46: Storage Array Type Path Config: the scenario has one owner per LUN and neither "
            "listing shows this one's, so the array's first controller is taken: vmhba1:C0:T0:L2 (line 28), "
            "vmhba1:C0:T1:L2 (line 37) run otherwise than the listing shows; a capture once the array's ownership "
            "settles would tell")
    assert f"devices.{device_name(2)}.owner: {said}" in warned
    with pytest.warns(lab.PathlabWarning):
        found = [f for f in lab.import_host(str(tmp_path / "devices.txt"), str(paths)).findings if "no owner" in f.title]
    assert [f"{f.title}: {f.evidence}" for f in found] == [said]
    # As run: LUN 2's paths in TPG 1 and 2 optimized, as said (its listing shows them ANO).
    states = simulated_states(tmp_path / "host.toml")
    assert {k: v for k, v in states.items() if k.endswith("L2")} == {
        "vmhba1:C0:T0:L2": "AO", "vmhba1:C0:T1:L2": "AO", "vmhba2:C0:T0:L2": "ANO"}


def test_a_host_reaching_the_non_owning_group_alone_is_said_to_run_it_optimized(tmp_path: Path) -> None:
    # The SATP config shows TPG 1 owning the LUN; the host reaches TPG 2's port alone (ANO).
    scenario, _, warned = _import(tmp_path, [(1, [(1, "AO"), (2, "ANO")], [Reached("vmhba1", 0, "00b1", 2, "ANO")])])
    (array,) = scenario["arrays"]
    assert array["controllers"] == [{"name": "TPG2"}] and scenario["devices"][0]["owner"] == "TPG2"
    assert (f"simulated as owned by TPG2, the array's first controller (assumed): {tmp_path / 'paths.txt'}, line 1: "
            "Storage Array Type Path Config: the scenario has one owner per LUN and neither listing shows this one's, "
            "so the array's first controller is taken: vmhba1:C0:T0:L1 (line 1) runs otherwise than the listing "
            "shows") in warned
