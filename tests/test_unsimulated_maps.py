"""A map the import cannot simulate (no path with a SCSI address) is kept as read in
`[[unsimulated]]`, on its host in a cluster, and `show` prints it back; a table naming a host the
scenario has not is one line. The listing is written from print.c's layout (the `#:#:#:#`, `-`
and `#:#` of a path whose device multipathd does not know); the property test is
`test_show_lossless.test_a_map_whose_paths_are_gone_is_shown_back_byte_for_byte`."""

from __future__ import annotations

import tomllib
from pathlib import Path

from conftest import one_error_line, pathlab

LISTING = """\
mpathg (36001405bbbbbbbbbbbbbbbbbbbbbbbb1) dm-2 LIO-ORG,block1
size=10G features='0' hwhandler='1 alua' wp=rw
`-+- policy='service-time 0' prio=50 status=active
  `- 2:0:0:0 sdb 8:16 active ready running
mpathh (36001405bbbbbbbbbbbbbbbbbbbbbbbb2) dm-3 LIO-ORG,block1
size=10G features='0' hwhandler='1 alua' wp=rw
`-+- policy='service-time 0' prio=0 status=enabled
  `- #:#:#:# - #:# failed faulty running
"""


def test_a_map_of_paths_without_address_is_kept_unsimulated_on_its_host_and_shown(tmp_path: Path) -> None:
    listing, other = tmp_path / "a.txt", tmp_path / "b.txt"
    listing.write_text(LISTING)
    other.write_text(LISTING.split("mpathh")[0].replace("bbbbbbbb1", "cccccccc1"))
    out = tmp_path / "cluster.toml"
    done = pathlab("import", "--host", f"a={listing}", "--host", f"b={other}", "-o", str(out))
    assert done.returncode == 0, done.stderr
    (kept,) = tomllib.loads(out.read_text())["unsimulated"]
    assert (kept["name"], kept["host"], kept["why"]) == (
        "36001405bbbbbbbbbbbbbbbbbbbbbbbb2", "a", "no path with a SCSI address (H:C:T:L): nothing to simulate")
    assert kept["listed"]["paths"] == {"0": {"order": "0", "group": "1", "selector": "service-time 0", "group_prio": "0",
                                             "group_status": "enabled", "hctl": "#:#:#:#", "dev": "-", "dev_t": "#:#",
                                             "dm_state": "failed", "checker_state": "faulty", "online_state": "running"}}
    shown = pathlab("show", "paths", str(out), "--style", "linux", "--host", "a")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == LISTING


def test_an_unsimulated_map_of_an_unknown_host_is_one_line(tmp_path: Path) -> None:
    listing, scenario = tmp_path / "mp.txt", tmp_path / "host.toml"
    listing.write_text(LISTING)
    assert pathlab("import", str(listing), "-o", str(scenario)).returncode == 0
    scenario.write_text(scenario.read_text().replace('[[unsimulated]]\n', '[[unsimulated]]\nhost = "elsewhere"\n'))
    # Refused where the scenario loads, so by every verb (a run would otherwise keep it silently).
    for verb in (("show", "paths", str(scenario), "--style", "linux"), ("run", str(scenario))):
        assert one_error_line(pathlab(*verb)) == (
            f'pathlab: error: {scenario}: unsimulated.0.host: unknown host "elsewhere"; defined: linux01')


def test_an_unsimulated_map_without_a_name_is_one_line(tmp_path: Path) -> None:
    listing, scenario = tmp_path / "mp.txt", tmp_path / "host.toml"
    listing.write_text(LISTING)
    assert pathlab("import", str(listing), "-o", str(scenario)).returncode == 0
    text = scenario.read_text()
    name = tomllib.loads(text)["unsimulated"][0]["name"]
    scenario.write_text(text.replace(f'name = "{name}"', 'name = ""', 1))
    assert one_error_line(pathlab("run", str(scenario))).startswith(
        f'pathlab: error: {scenario}: unsimulated.0.name: "": a device name is the name the host shows')
