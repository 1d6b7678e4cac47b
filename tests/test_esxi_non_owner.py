"""An ESXi host's ALUA standby paths are imported as standby: the path list's `TPG_state` beside
the active-optimized group gives the array's `non_owner_state` (it was not written, so `STBY`
ran as the default, non-optimized), and a device whose paths show another state its own."""

from __future__ import annotations

import tomllib
from pathlib import Path

from conftest import pathlab

#: The CX4 scenario's array reporting its non-owning SP's ports as standby (an ALUA array in a
#: mode whose other group serves no I/O).
STANDBY = ["--set", 'arrays.0.non_owner_state="standby"']


def _listings(tmp_path: Path) -> tuple[Path, Path]:
    files = []
    for what in ("devices", "paths"):
        shown = pathlab("show", what, "cx4-alua-path-failure", *STANDBY)
        assert shown.returncode == 0, shown.stderr
        (tmp_path / f"{what}.txt").write_text(shown.stdout)
        files.append(tmp_path / f"{what}.txt")
    return files[0], files[1]


def test_standby_paths_are_imported_as_the_arrays_non_owner_state(tmp_path: Path) -> None:
    devices, paths = _listings(tmp_path)
    done = pathlab("import", str(devices), str(paths))
    assert done.returncode == 0, done.stderr
    (array,) = tomllib.loads(done.stdout)["arrays"]
    assert array["non_owner_state"] == "standby"
    assert (f'non_owner_state = "standby"  # {paths}: the paths beside the active-optimized group report '
            "TPG_state=STBY (lines 10, 28, 37, 55, 82 and 11 more)") in done.stdout
    owners = [d["owner"] for d in tomllib.loads(done.stdout)["devices"]]
    assert owners == ["TPG1", "TPG2"] * 4  # half the LUNs owned by each SP, as the scenario has them
    (tmp_path / "imported.toml").write_text(done.stdout)
    back = pathlab("show", "paths", str(tmp_path / "imported.toml"))
    assert back.returncode == 0, back.stderr
    assert back.stdout.count("TPG_state=STBY") == paths.read_text().count("TPG_state=STBY") == 16


def test_a_device_whose_paths_show_another_state_gets_its_own(tmp_path: Path) -> None:
    devices, paths = _listings(tmp_path)
    text = paths.read_text()
    first_device = text.split("\n\n")[:4]  # the first LUN's four paths
    mixed = "\n\n".join(block.replace("TPG_state=STBY", "TPG_state=ANO").replace("Group State: standby",
                                                                                   "Group State: active unoptimized")
                        for block in first_device) + "\n\n" + "\n\n".join(text.split("\n\n")[4:])
    paths.write_text(mixed)
    done = pathlab("import", str(devices), str(paths))
    assert done.returncode == 0, done.stderr
    scenario = tomllib.loads(done.stdout)
    assert scenario["arrays"][0]["non_owner_state"] == "standby"
    own = {d["name"]: d.get("non_owner_state") for d in scenario["devices"]}
    assert own == {"naa.6006016000000000000000000000a001": "active_non_optimized",
                   **{f"naa.6006016000000000000000000000a00{n}": None for n in range(2, 9)}}
    assert "(the state most of its devices show: 7 of 8)" in done.stdout
    assert (f'non_owner_state = "active_non_optimized"  # {paths}: its paths beside the active-optimized group '
            "report TPG_state=ANO (lines 10, 28)") in done.stdout


def test_a_state_pathlab_does_not_simulate_is_said_not_taken(tmp_path: Path) -> None:
    devices, paths = _listings(tmp_path)
    paths.write_text(paths.read_text().replace("TPG_state=STBY", "TPG_state=LBD", 1))
    done = pathlab("import", str(devices), str(paths))
    assert done.returncode == 0, done.stderr
    assert tomllib.loads(done.stdout)["arrays"][0]["non_owner_state"] == "standby"  # the device's other paths say it
    assert (f"arrays.DGC.non_owner_state: {paths}, line 10: naa.6006016000000000000000000000a001's path "
            "vmhba1:C0:T1:L1 has TPG_state=LBD, not a state pathlab simulates (AO, ANO, STBY, UNAV): not read"
            ) in done.stderr
