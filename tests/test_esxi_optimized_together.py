"""A uniform metro ESXi host reaching three target port groups, two active-optimized and one
not (`esxi_optimized_together`): both AO groups serve the device optimized, so neither owns it;
the import read the first AO group as the owner and ran the second's paths non-optimized."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from conftest import pathlab
from esxi_alua_listings import Reached, device_name, write

#: Both arrays' ports (TPG 1 on one array, TPG 2 on the other, no preferred array: both AO) and a
#: third group not optimized.
METRO = [Reached("vmhba1", 0, "00a1", 1, "AO"), Reached("vmhba1", 1, "00b1", 2, "AO"),
         Reached("vmhba2", 0, "00c1", 3, "ANO")]
METRO_CONFIG = [(1, "AO"), (2, "AO"), (3, "ANO")]
SHORT = ["--set", 'run.duration="1s"', "--set", 'run.warmup="0.5s"']


def _import(tmp_path: Path, devices: list) -> tuple[dict, str, str]:
    listed, paths = write(tmp_path, devices)
    done = pathlab("import", str(listed), str(paths), "-o", str(tmp_path / "host.toml"))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "host.toml").read_text()
    return tomllib.loads(text), text, done.stderr


def _simulated_states(toml: Path) -> dict[str, str]:
    """Each path's ALUA state as the simulation runs it (`pathlab run`'s path table)."""
    ran = pathlab("run", str(toml), *SHORT)
    assert ran.returncode == 0, ran.stderr
    return {m[1]: m[2] for m in re.finditer(r"^(vmhba\S+)\s+\S+\s+\S+\s+\w+\s+(AO|ANO|STBY|UNAV)\s", ran.stdout, re.M)}


def test_two_active_optimized_groups_both_serve_optimized_and_neither_owns(tmp_path: Path) -> None:
    scenario, text, warned = _import(tmp_path, [(1, METRO_CONFIG, METRO), (2, METRO_CONFIG, METRO)])
    (array,) = scenario["arrays"]
    assert array["symmetric"] is False
    assert array["controllers"] == [{"name": "TPG1+TPG2"}, {"name": "TPG3"}]
    assert [p["controller"] for p in array["ports"]] == ["TPG1+TPG2", "TPG1+TPG2", "TPG3"]
    assert array["non_owner_state"] == "active_non_optimized"
    assert [d["owner"] for d in scenario["devices"]] == ["TPG1+TPG2"] * 2  # was TPG1: the first AO group
    assert ('owner = "TPG1+TPG2"  # ' f"{tmp_path / 'paths.txt'}: its paths in TPG1 and TPG2 all active-optimized: each "
            "serves it optimized, none owns it") in text
    assert (f"arrays.PURE.controllers: {tmp_path / 'paths.txt'}: 2 device(s) active-optimized through more than one "
            "target port group (TPG1 and TPG2: lines 1, 10, 28, 37), beside TPG3 not: none of them owns those devices, "
            "so the groups active-optimized together are one controller of the scenario (TPG1+TPG2)") in warned
    assert "which array a group not optimized is of, and each group's distance are not determined" in warned
    # As run: vmhba1:C0:T1 (TPG 2) optimized, as its path block says; it ran ANO with TPG1 the owner.
    assert _simulated_states(tmp_path / "host.toml") == {
        f"vmhba1:C0:T0:L{lun}": "AO" for lun in (1, 2)} | {f"vmhba1:C0:T1:L{lun}": "AO" for lun in (1, 2)} | {
        f"vmhba2:C0:T0:L{lun}": "ANO" for lun in (1, 2)}


def test_a_device_whose_states_the_joined_groups_cannot_hold_is_left_out_and_said(tmp_path: Path) -> None:
    # LUN 2 prefers one array (TPG 1 AO, TPG 2 ANO): the scenario's controller TPG1+TPG2 would run
    # its TPG 2 paths optimized, which its paths do not show.
    preferred = [METRO[0], METRO[1]._replace(state="ANO"), METRO[2]]
    scenario, _, warned = _import(tmp_path, [(1, METRO_CONFIG, METRO), (2, [(1, "AO"), (2, "ANO"), (3, "ANO")], preferred)])
    assert [d["name"] for d in scenario["devices"]] == [device_name(1)]
    assert [d["owner"] for d in scenario["devices"]] == ["TPG1+TPG2"]
    assert (f"devices: {device_name(2)}: left out of the imported host: its paths' target port group states (TPG1 AO, "
            "TPG2 ANO, TPG3 ANO) cannot be simulated: TPG2 is joined with its active-optimized group") in warned


def test_one_active_optimized_group_per_device_keeps_a_controller_per_group(tmp_path: Path) -> None:
    owned = [METRO[0], METRO[1]._replace(state="ANO"), METRO[2]]
    scenario, _, warned = _import(tmp_path, [(1, [(1, "AO"), (2, "ANO"), (3, "ANO")], owned)])
    (array,) = scenario["arrays"]
    assert array["controllers"] == [{"name": "TPG1"}, {"name": "TPG2"}, {"name": "TPG3"}]
    assert [d["owner"] for d in scenario["devices"]] == ["TPG1"]
    assert "arrays.PURE.controllers" not in warned


@pytest.mark.xfail(strict=True, reason="cluster_merge keeps the first host's controller of each port: a second host "
                                       "that shows TPG 1 alone AO (a preferred array) owns the LUN by TPG1, a "
                                       "controller with no port in the merged array, so all its paths run ANO (the "
                                       "lead's file: refuse or say where a host's owner has no port)")
def test_a_cluster_of_a_metro_host_and_a_host_preferring_one_array_runs_each_as_shown(tmp_path: Path) -> None:
    preferred = [Reached({"vmhba1": "vmhba3", "vmhba2": "vmhba4"}[r.adapter], r.target, r.port, r.tpg,
                         "AO" if r.tpg == 1 else "ANO") for r in METRO]
    hosts = []
    for name, config, reached in (("esxa", METRO_CONFIG, METRO), ("esxb", [(1, "AO"), (2, "ANO"), (3, "ANO")], preferred)):
        (tmp_path / name).mkdir()
        listed, paths = write(tmp_path / name, [(1, config, reached)])
        hosts += ["--host", f"{name}={listed},{paths}"]
    done = pathlab("import", *hosts, "-o", str(tmp_path / "cluster.toml"))
    assert done.returncode == 0, done.stderr
    states = _simulated_states(tmp_path / "cluster.toml")
    assert states["vmhba3:C0:T0:L1"] == "AO"  # esxb's TPG 1 path, AO in its path list
