"""An ESXi host's active/passive array (no target port groups; `Group State: active` on the owning
storage processor's paths, `standby` on the other's): imported as owned by two controllers with
each LUN's owner and its other controller's paths standby (it was imported symmetric: every
path carried I/O). The listings are `pathlab show`'s of the CX4 field test's host with its array
answering without ALUA (VMW_SATP_CX, as the default claim rules give a DGC LUN without TPGS)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from conftest import ROOT, quiet
from conftest import pathlab as command
from pathlab.importer import import_files
from pathlab.importer.esxi_active_passive import PathGroup, active_passive

CX4 = str(ROOT / "scenarios" / "cx4-alua-path-failure.toml")
NO_ALUA = "arrays.0.tpgs=false"


def _shown(tmp_path: Path, scenario: str = CX4) -> tuple[Path, Path]:
    for what in ("devices", "paths"):
        done = command("show", what, scenario, "--set", NO_ALUA)
        assert done.returncode == 0, done.stderr
        (tmp_path / f"{what}.txt").write_text(done.stdout)
    return tmp_path / "devices.txt", tmp_path / "paths.txt"


def test_an_active_passive_array_is_imported_owned_as_the_scenario_it_was_shown_from(tmp_path: Path) -> None:
    devices, paths = _shown(tmp_path)
    assert "Storage Array Type: VMW_SATP_CX" in devices.read_text()
    done = command("import", str(devices), str(paths), "-o", str(tmp_path / "imported.toml"))
    assert done.returncode == 0, done.stderr
    imported = tomllib.loads((tmp_path / "imported.toml").read_text())
    original = tomllib.loads(Path(CX4).read_text())
    (array,) = imported["arrays"]
    assert (array["symmetric"], array["non_owner_state"], [c["name"] for c in array["controllers"]]) == (
        False, "standby", ["A", "B"])
    # SPA's two ports on one controller, SPB's on the other; each LUN's owner the same SP as shown from.
    by_port = {p["name"]: p["controller"] for p in array["ports"]}
    assert sorted(by_port.values()) == ["A", "A", "B", "B"]
    sp_of = {"A": "SPA", "B": "SPB"}
    assert [sp_of[d["owner"]] for d in imported["devices"]] == [d["owner"] for d in original["devices"]]
    # Shown back, the imported host prints the same path list, Group States and all.
    again = command("show", "paths", str(tmp_path / "imported.toml"))
    assert again.stdout == paths.read_text()


def test_group_states_that_contradict_each_other_are_said_and_not_read_as_active_passive() -> None:
    # LUN 1 puts t1 beside t0 (both active), LUN 2 puts t1 against t0 (active against standby).
    paths = {"lun1": [PathGroup("t0", "active", 1), PathGroup("t1", "active", 2), PathGroup("t2", "standby", 3)],
             "lun2": [PathGroup("t0", "active", 7), PathGroup("t1", "standby", 8)]}
    found, why = active_passive(paths, "paths.txt")
    assert found is None
    assert why == ("paths.txt, line 8: lun2's path to t1 is standby where other LUNs' paths put its port beside t0's: "
                   "not read as an active/passive array")


def test_an_array_every_path_of_which_is_active_is_not_active_passive() -> None:
    paths = {"lun1": [PathGroup("t0", "active", 1), PathGroup("t1", "active", 2)]}
    assert active_passive(paths, "paths.txt") == (None, None)


def test_a_lun_whose_standby_paths_are_not_shown_takes_its_active_paths_controller() -> None:
    # lun2's standby paths are dead (not listed as standby): its active paths lead to t0's controller.
    paths = {"lun1": [PathGroup("t0", "active", 1), PathGroup("t1", "standby", 2)],
             "lun2": [PathGroup("t0", "active", 7), PathGroup("t1", "dead", 8)]}
    found, why = active_passive(paths, "paths.txt")
    assert why is None and found is not None
    assert found.owners == {"lun1": "A", "lun2": "A"} and found.port_controller == {"t0": "A", "t1": "B"}


def test_controller_names_never_repeat_past_the_alphabet() -> None:
    # Fourteen LUNs on port pairs no LUN relates to another: 28 controllers, each named once.
    paths = {f"lun{n}": [PathGroup(f"a{n}", "active", n), PathGroup(f"s{n}", "standby", n)] for n in range(14)}
    found, _ = active_passive(paths, "paths.txt")
    assert found is not None and len(found.controllers) == len(set(found.controllers)) == 28
    assert found.controllers[:2] == ["A", "B"] and found.controllers[26:] == ["A2", "B2"]
    assert len(found.warnings) == 13  # each pair past the first: which controllers it shares not determined


def test_a_luns_active_ports_are_its_owners_whatever_else_it_shows() -> None:
    # lun2 shows no standby path: its two active ports still lead to its owner (one storage
    # processor serves a LUN), so t2 is on t0's controller; it was a pair of its own (C, D).
    paths = {"lun1": [PathGroup("t0", "active", 1), PathGroup("t1", "standby", 2)],
             "lun2": [PathGroup("t0", "active", 7), PathGroup("t2", "active", 8)],
             "lun3": [PathGroup("t1", "standby", 13), PathGroup("t3", "standby", 14)]}
    found, why = active_passive(paths, "paths.txt")
    assert why is None and found is not None
    assert (found.controllers, found.warnings) == (["A", "B"], [])
    assert found.port_controller == {"t0": "A", "t1": "B", "t2": "A", "t3": "B"}
    assert found.owners == {"lun1": "A", "lun2": "A"}  # lun3 shows no active path: no owner read


def test_a_port_no_lun_relates_is_said_and_simulated_on_a_controller_of_its_own(tmp_path: Path) -> None:
    """The CX4 host with every path of one port dead: the port's controller is not determined
    (it was a pair of its own, C and D, one of which no port shows), said naming the port."""
    devices, paths = _shown(tmp_path)
    blocks = paths.read_text().split("\n\n")
    dead = [b.replace("Group State: active", "Group State: dead").replace("Group State: standby", "Group State: dead")
            if "Runtime Name: vmhba2:C0:T1:" in b else b for b in blocks]
    paths.write_text("\n\n".join(dead))
    with quiet():
        done = import_files([str(devices), str(paths)])
    (array,) = tomllib.loads(done.text)["arrays"]
    assert [c["name"] for c in array["controllers"]] == ["A", "B", "C"]
    assert {p["controller"] for p in array["ports"]} == {"A", "B", "C"}
    first = next(n for n, b in enumerate(dead) if "vmhba2:C0:T1:" in b)
    line = sum(b.count("\n") + 2 for b in dead[:first]) + 1
    assert dict(done.warnings)["arrays.DGC.controllers"] == (
        f"{paths}: no LUN's paths relate the port fc.5006016000000004:5006016100000004 (line {line}) to "
        "fc.5006016000000001:5006016100000001, fc.5006016000000003:5006016100000003, "
        "fc.5006016000000002:5006016100000002: which of the array's controllers it leads to is not determined; "
        "simulated on a controller of its own (C)")
