"""An ESXi path the listing shows dead (or turned off) stays so in the imported host: a path fault
from the start and a finding (`importer/esxi_dead_paths.py`), where it used to be imported live."""

from __future__ import annotations

import tomllib
from pathlib import Path

from conftest import ROOT, SCENARIOS, pathlab
from pathlab import Scenario, import_host
from pathlab.importer.esxi_dead_paths import out_of_use
from pathlab.importer.frame_rows import rows_of
from pathlab.readers import esxcli_paths

FAILED = SCENARIOS / "cx4-alua-path-failure.toml"  # vmhba1:C0:T0 lost at 120 s


def _listings(tmp_path: Path) -> tuple[Path, Path, str, list[str]]:
    """The host's device and path lists after the fault (as `pathlab show` prints them), the path
    list's text and the runtime names it shows dead."""
    devices, paths = tmp_path / "devices.txt", tmp_path / "paths.txt"
    devices.write_text(pathlab("show", "devices", str(FAILED), "--at", "150s").stdout)
    shown = pathlab("show", "paths", str(FAILED), "--at", "150s").stdout
    paths.write_text(shown)
    blocks = [b for b in shown.split("\n\n") if "Runtime Name:" in b]
    dead = sorted(b.split("Runtime Name: ")[1].split("\n")[0] for b in blocks if "Group State: dead" in b)
    assert len(dead) == 8 and all(name.startswith("vmhba1:C0:T0:") for name in dead)  # the fault's, one per LUN
    return devices, paths, shown, dead


def test_the_paths_pathlab_shows_dead_are_imported_down_and_carry_no_io(tmp_path: Path) -> None:
    devices, paths, shown, dead = _listings(tmp_path)
    done = pathlab("import", str(devices), str(paths))
    assert done.returncode == 0, done.stderr
    faults = tomllib.loads(done.stdout)["faults"]
    assert sorted(f["path"] for f in faults) == dead
    assert {(f["kind"], f["at"]) for f in faults} == {("path_down", "0s")}
    line = shown[:shown.index(f"Runtime Name: {dead[0]}")].count("\n")  # its block's first line, the path's UID
    assert f'path = "{dead[0]}"  # {paths}, line {line}: {dead[0]}: Group State: dead' in done.stdout
    # Simulated, the imported host shows them dead, as the listing did, and sends them nothing.
    run = Scenario.from_text(done.stdout, "imported.toml", set={"run.duration": "1s", "run.warmup": "0s"}).run()
    rows = list(zip(run.paths["name"], run.paths["state"], run.paths["cmds_s"], strict=True))
    assert sorted(name for name, state, _ in rows if state == "dead") == dead
    assert all(rate == 0 for name, _, rate in rows if name in dead) and sum(rate for *_, rate in rows) > 0


def test_a_dead_path_is_said_a_finding_of_the_capture(tmp_path: Path) -> None:
    devices, paths, _, dead = _listings(tmp_path)
    host = import_host(str(devices), str(paths))
    said = sorted(f.title.split(": path ")[1] for f in host.findings if f.title.endswith(" is dead (captured)"))
    assert said == [f"{name} is dead (captured)" for name in dead]


def test_the_core_path_lists_dead_and_disabled_states_are_out_of_use(tmp_path: Path) -> None:
    """`esxcli storage core path list` prints `State:`; a path there dead or disabled is out of use,
    an active or standby one not (ALUA's standby is simulated from the target port groups)."""
    listing = (ROOT / "tests" / "data" / "esxcli" / "core-path-list-localcli-compellent-iscsi.txt").read_text()
    for state, expected in (("dead", ("State", "dead")), ("disabled", ("State", "disabled")), ("standby", None),
                            ("active", None)):
        path = tmp_path / f"{state}.txt"
        path.write_text(listing.replace("   State: active", f"   State: {state}", 1))
        first = next(iter(rows_of(esxcli_paths.read(path))))
        assert out_of_use(first) == expected, state


def test_the_hpp_path_lists_path_state_is_said_as_it_printed_it(tmp_path: Path) -> None:
    """`esxcli storage hpp path list` prints `Path State:` (its rows carry it as `group_state` too):
    a dead path there is said with the field the file has, never a `Group State` it did not print."""
    listing = (ROOT / "tests" / "data" / "esxcli" / "hpp-path-list-handmade.txt").read_text()
    for state, expected in (("dead", ("Path State", "dead")), ("active", None)):
        path = tmp_path / f"hpp-{state}.txt"
        path.write_text(listing.replace("   Path State: active", f"   Path State: {state}", 1))
        first = next(iter(rows_of(esxcli_paths.read(path))))
        assert out_of_use(first) == expected, state
