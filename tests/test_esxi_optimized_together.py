"""A uniform metro ESXi host reaching three target port groups, two active-optimized and one
not (`esxi_optimized_together`): both AO groups serve the device optimized, so neither owns it;
the import read the first AO group as the owner and ran the second's paths non-optimized."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

import pathlab as lab
from conftest import pathlab
from esxi_alua_listings import Reached, device_name, simulated_states, write
from pathlab.importer.host_tables import Elements
from pathlab.importer.provenance import Derived, Read

#: Both arrays' ports (TPG 1 on one array, TPG 2 on the other, no preferred array: both AO) and a
#: third group not optimized.
METRO = [Reached("vmhba1", 0, "00a1", 1, "AO"), Reached("vmhba1", 1, "00b1", 2, "AO"),
         Reached("vmhba2", 0, "00c1", 3, "ANO")]
METRO_CONFIG = [(1, "AO"), (2, "AO"), (3, "ANO")]


def _import(tmp_path: Path, devices: list) -> tuple[dict, str, str]:
    listed, paths = write(tmp_path, devices)
    done = pathlab("import", str(listed), str(paths), "-o", str(tmp_path / "host.toml"))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "host.toml").read_text()
    return tomllib.loads(text), text, done.stderr


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
    assert simulated_states(tmp_path / "host.toml") == {
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


#: A host preferring one array (TPG 1 alone AO) on the metro host's ports, through its own adapters.
PREFERRING = [Reached({"vmhba1": "vmhba3", "vmhba2": "vmhba4"}[r.adapter], r.target, r.port, r.tpg,
                      "AO" if r.tpg == 1 else "ANO") for r in METRO]
PREFERRING_CONFIG = [(1, "AO"), (2, "ANO"), (3, "ANO")]


def _cluster(tmp_path: Path, hosts: dict[str, tuple[list, list]]) -> tuple[subprocess.CompletedProcess, list[str]]:
    given = []
    for name, (config, reached) in hosts.items():
        (tmp_path / name).mkdir()
        listed, paths = write(tmp_path / name, [(1, config, reached)])
        given += ["--host", f"{name}={listed},{paths}"]
    return pathlab("import", *given, "-o", str(tmp_path / "cluster.toml")), given


@pytest.mark.parametrize("order", [("esxa", "esxb"), ("esxb", "esxa")])
def test_a_cluster_of_a_metro_host_and_a_host_preferring_one_array_on_its_ports_is_refused(
        tmp_path: Path, order: tuple[str, str]) -> None:
    # esxa shows P0 and P1 one controller (TPG1+TPG2, both AO), esxb P0 TPG1 AO and P1 TPG2 ANO:
    # one controller per port cannot run both; main (and the first mend) ran one host's paths wrong.
    readings = {"esxa": (METRO_CONFIG, METRO), "esxb": (PREFERRING_CONFIG, PREFERRING)}
    done, _ = _cluster(tmp_path, {h: readings[h] for h in order})
    assert done.returncode == 2 and not (tmp_path / "cluster.toml").exists()
    (line,) = [x for x in done.stderr.splitlines() if "error" in x]
    second, first = order[1], order[0]
    metro = (f"naa.624a9370a1b2c3d4e5f6071800000001 owned by TPG1+TPG2: {tmp_path}/esxa/paths.txt: its paths in TPG1 "
             "and TPG2 all active-optimized: each serves it optimized, none owns it (esxi_optimized_together); its paths "
             f"at {tmp_path}/esxa/paths.txt, lines 1, 10, 19")
    preferring = (f"naa.624a9370a1b2c3d4e5f6071800000001 owned by TPG1: {tmp_path}/esxb/paths.txt: the TPG whose paths "
                  f"are active-optimized; its paths at {tmp_path}/esxb/paths.txt, lines 1, 10, 19")
    shown = {"esxa": ("P0 TPG1+TPG2, P1 TPG1+TPG2", metro), "esxb": ("P0 TPG1, P1 TPG2", preferring)}
    assert line == (f"pathlab: error: {tmp_path}/{second}/devices.txt, {tmp_path}/{second}/paths.txt: "
                    f"devices.{device_name(1)}.owner: {second} reads ports P0, P1 of array PURE as controllers "
                    f"{shown[second][0]} ({shown[second][1]}), {first} as {shown[first][0]} ({shown[first][1]}): the "
                    "scenario has one controller per port and one owner per device, so one of the hosts would run "
                    "paths in a state its listing does not show; import the hosts apart, or take the captures again "
                    "after aligning the array's preferences for them (a preferred array set for every host, or for "
                    "none)")
    assert "simulated as it shows it" not in done.stderr


@pytest.mark.parametrize("order", [("esxa", "esxb"), ("esxb", "esxa")])
def test_a_host_reaching_one_of_the_joined_groups_owns_by_the_clusters_controller_of_its_ports(
        tmp_path: Path, order: tuple[str, str]) -> None:
    # esxb reaches TPG 1's port (AO) and TPG 3's (ANO) alone: its TPG1 is, on the ports it reaches,
    # the metro host's TPG1+TPG2, so both hosts run as they show (esxb's TPG1 had no port: all ANO).
    alone = [PREFERRING[0], PREFERRING[2]]
    readings = {"esxa": (METRO_CONFIG, METRO), "esxb": (PREFERRING_CONFIG, alone)}
    done, _ = _cluster(tmp_path, {h: readings[h] for h in order})
    assert done.returncode == 0, done.stderr
    cluster = tomllib.loads((tmp_path / "cluster.toml").read_text())
    joined = "TPG1+TPG2" if order[0] == "esxa" else "TPG1"  # the first host's name of the ports' controller
    assert {d["host"]: d["owner"] for d in cluster["devices"]} == {"esxa": joined, "esxb": joined}
    assert {c["name"] for c in cluster["arrays"][0]["controllers"]} == {joined, "TPG3"}
    text = (tmp_path / "cluster.toml").read_text()
    renamed = "esxb's TPG1, the cluster's TPG1+TPG2" if order[0] == "esxa" else "esxa's TPG1+TPG2, the cluster's TPG1"
    assert renamed in text
    assert simulated_states(tmp_path / "cluster.toml") == {
        "vmhba1:C0:T0:L1": "AO", "vmhba1:C0:T1:L1": "AO", "vmhba2:C0:T0:L1": "ANO",
        "vmhba3:C0:T0:L1": "AO", "vmhba4:C0:T0:L1": "ANO"}


def test_a_device_active_optimized_in_one_joined_group_alone_is_said_from_its_own_groups(tmp_path: Path) -> None:
    # LUN 2 reaches TPG 1 (AO) and TPG 3 (ANO) alone: owned by the joined controller, but its
    # comment said its paths in TPG1 and TPG2 all AO, and the array's warning counted it.
    scenario, text, warned = _import(tmp_path, [(1, METRO_CONFIG, METRO),
                                                (2, [(1, "AO"), (3, "ANO")], [METRO[0], METRO[2]])])
    assert [d["owner"] for d in scenario["devices"]] == ["TPG1+TPG2"] * 2
    paths = tmp_path / "paths.txt"
    assert (f'owner = "TPG1+TPG2"  # {paths}: owned by the joined controller TPG1+TPG2 (esxi_optimized_together), '
            "its paths active-optimized in TPG1 only\n") in text
    assert text.count("its paths in TPG1 and TPG2 all active-optimized") == 1  # LUN 1's alone
    assert (f"arrays.PURE.controllers: {paths}: 1 device(s) active-optimized through more than one target port group "
            "(TPG1 and TPG2: lines 1, 10), beside TPG3 not") in warned
    assert ("; 1 device(s) active-optimized in one of those groups alone, with no path in the others "
            f"({device_name(2)}), owned by the joined controller too") in warned


def test_the_joined_controller_is_derived_by_the_rule_not_read(tmp_path: Path) -> None:
    listed, paths = write(tmp_path, [(1, METRO_CONFIG, METRO)])
    with pytest.warns(lab.PathlabWarning):
        (array,) = lab.import_host(str(listed), str(paths)).tables.of("arrays")
    controllers = array.source("controllers")
    assert controllers == Derived(f"{paths}: one per target port group, those active-optimized together as one "
                                  "(esxi_optimized_together: lines 1, 10)", (str(paths),))
    ports = array.find("ports")
    assert isinstance(ports, Elements)
    assert [e.source for e in ports.elements] == [
        Derived(f"{paths}, its group TPG1 in the controller TPG1+TPG2 (esxi_optimized_together: lines 1, 10): "
                "target fc.524a937000a1:524a937100a1", (str(paths),)),
        Derived(f"{paths}, its group TPG2 in the controller TPG1+TPG2 (esxi_optimized_together: lines 1, 10): "
                "target fc.524a937000b1:524a937100b1", (str(paths),)),
        Read(str(paths), text="target fc.524a937000c1:524a937100c1")]
