"""The prioritizer multipath.conf sets, where multipath-tools uses it (`propsel.c` `select_prio`:
`detect_prio`, on by default, picks sysfs or alua for an array answering for TPGS first):
`sysfs` is simulated as `alua` by its named rule (sysfs.c gives alua.c's priorities from the
kernel's access_state), `weightedpath` gives each path the priority of its first matching pattern
(the listing's printed priorities win where they disagree), others are refused in one line, and a
`prio` that detect_prio overrides is not taken. The listing and the file are written here from
print.c's layout and multipath.conf(5)'s grammar."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import one_error_line, pathlab, quiet
from generated_multipath import tree
from pathlab.api import Scenario
from pathlab.importer import import_files
from pathlab.importer.map_policy import SYSFS_RULE
from pathlab.importer.provenance import Assumed, Derived, Read
from test_import_linux_cut_groups import two_group_map

#: An ALUA map of two one-path groups (optimized, non-optimized), as `multipath -ll` prints it.
LISTING = """\
mpathc (3600140500000000000000000000000c1) dm-4 LIO-ORG,disk1
size=20G features='0' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=50 status=active
| `- 7:0:0:3 sdh 8:112 active ready running
`-+- policy='service-time 0' prio=10 status=enabled
  `- 8:0:0:3 sdi 8:128 active ready running
"""


def _files(tmp_path: Path, *settings: str) -> tuple[Path, Path]:
    listing, conf = tmp_path / "multipath-ll.txt", tmp_path / "multipath.conf"
    listing.write_text(LISTING)
    conf.write_text('devices {\n    device {\n        vendor "LIO-ORG"\n        product ".*"\n'
                    + "".join(f"        {s}\n" for s in settings) + "    }\n}\n")
    return listing, conf


def _prio(listing: Path, conf: Path) -> tuple[str | None, object]:
    with quiet():
        done = import_files([str(listing), str(conf)])
    device = done.tables.of("devices")[0]
    return device.get("policy").get("prio"), device.source("policy.prio")


def test_prio_sysfs_is_simulated_as_alua_by_its_rule(tmp_path: Path) -> None:
    listing, conf = _files(tmp_path, "detect_prio no", "prio sysfs")
    assert _prio(listing, conf) == ("alua", Derived(f"{conf}, line 6: {SYSFS_RULE}", (str(conf),)))


def test_a_simulated_prio_in_force_is_read_with_its_line(tmp_path: Path) -> None:
    listing, conf = _files(tmp_path, "detect_prio no", "prio const")
    assert _prio(listing, conf) == ("const", Read(str(conf), 6, "prio const (devices entry LIO-ORG/.*)"))


#: Two one-path groups of weightedpath's priorities (40, 10), no handler.
WEIGHTED = """\
mpathw (36001405000000000000000000000e701) dm-5 LIO-ORG,disk2
size=20G features='0' hwhandler='0' wp=rw
|-+- policy='service-time 0' prio=40 status=active
| `- 7:0:0:3 sdh 8:112 active ready running
`-+- policy='service-time 0' prio=10 status=enabled
  `- 8:0:0:3 sdi 8:128 active ready running
"""


def _weighted(tmp_path: Path, listing_text: str, args: str) -> tuple[Path, Path, Any]:
    listing, conf = _files(tmp_path, "detect_prio no", "prio weightedpath", f'prio_args "{args}"',
                           "path_grouping_policy group_by_prio")
    listing.write_text(listing_text)
    with quiet():
        return listing, conf, import_files([str(listing), str(conf)])


def _groups(done: Any) -> list[tuple[int, list[str]]]:
    """The path groups the engine builds for the imported map: (priority, paths)."""
    device = Scenario.from_values(done.tables.values(), done.text, "t.toml").devices[0]
    return [(g["priority"], [p["path"] for p in g["paths"]]) for g in device.status["groups"]]


def test_prio_weightedpath_gives_each_path_its_first_matching_patterns_priority(tmp_path: Path) -> None:
    listing, conf, done = _weighted(tmp_path, WEIGHTED, "hbtl 7:.:.:. 40 .:0:0:3 10")
    policy = done.tables.of("devices")[0]
    assert policy.get("policy")["prio"] == "weightedpath"
    assert policy.get("policy")["path_priorities"] == {"host7:C0:T0:L3": 40, "host8:C0:T0:L3": 10}
    assert policy.source("policy.path_priorities") == Derived(
        f"{conf}, line 7: prio_args \"hbtl 7:.:.:. 40 .:0:0:3 10\" (devices entry LIO-ORG/.*): weightedpath.c, the "
        f"first pattern that matches: sdh 7:0:0:3: 7:0:0:3 matches '7:.:.:.' first: 40 ({listing}, line 4); "
        f"sdi 8:0:0:3: 8:0:0:3 matches '.:0:0:3' first: 10 ({listing}, line 6)", (str(conf), str(listing)))
    assert _groups(done) == [(40, ["host7:C0:T0:L3"]), (10, ["host8:C0:T0:L3"])]
    # Groups weightedpath parts are no sign of ALUA or of a controller owning the LUN.
    array = done.tables.of("arrays")[0]
    assert (array.get("tpgs"), array.get("symmetric"), array.get("controllers")) == (False, True, None)
    assert array.source("tpgs") == Derived(f"{listing}: equal paths (one group, or groups of one priority, or of the "
                                           f"priorities {conf}'s weightedpath gives)", (str(listing), str(conf)))


def test_a_listing_whose_group_priorities_weightedpath_does_not_give_is_trusted(tmp_path: Path) -> None:
    # The conf gives 7:0:0:3 20 and 8:0:0:3 0; the listing prints 50 and 10: the listing's are simulated.
    listing, conf, done = _weighted(tmp_path, LISTING, "hbtl 7:0:0:3 20")
    assert done.tables.of("devices")[0].get("policy")["path_priorities"] == {"host7:C0:T0:L3": 50, "host8:C0:T0:L3": 10}
    said = dict(done.warnings)["devices.3600140500000000000000000000000c1.policy.path_priorities"]
    assert said.startswith(f"{listing}: map mpathc's groups print other priorities than weightedpath over {conf}, "
                           "line 7: prio_args \"hbtl 7:0:0:3 20\" (devices entry LIO-ORG/.*) (line 3: prio=50 where "
                           "weightedpath gives 20, line 5: prio=10 where weightedpath gives 0): the listing's are simulated")
    assert _groups(done) == [(50, ["host7:C0:T0:L3"]), (10, ["host8:C0:T0:L3"])]


def test_prio_weightedpath_on_serials_is_refused_saying_which_file_would_settle_it(tmp_path: Path) -> None:
    listing, conf = _files(tmp_path, "detect_prio no", "prio weightedpath", 'prio_args "serial .*J1FR.* 20"')
    assert one_error_line(pathlab("import", str(listing), str(conf))) == (
        f"pathlab: error: {conf}: line 7: prio weightedpath for map mpathc: weightedpath matches the paths' SCSI "
        "serial, which the listing does not show; `multipathd show paths format \"%d %z\"` (or each path's "
        "/sys/block/sdX/device/vpd_pg80) would give them")


def test_prio_random_in_force_is_refused_in_one_line(tmp_path: Path) -> None:
    listing, conf = _files(tmp_path, "detect_prio no", "prio random")
    assert one_error_line(pathlab("import", str(listing), str(conf))) == (
        f"pathlab: error: {conf}: line 6: prio random (devices entry LIO-ORG/.*) is in force for map mpathc: "
        "not simulated; simulated: const, alua, emc, ontap, rdac, hp_sw, weightedpath, sysfs (as alua)")


def test_detect_prio_overrides_prio_on_an_alua_array(tmp_path: Path) -> None:
    # detect_prio left at its default (yes): the TPGS array's paths get sysfs or alua, whatever `prio` says.
    listing, conf = _files(tmp_path, "prio weightedpath", 'prio_args "hbtl 7:0:0:3 20"')
    assert _prio(listing, conf) == (None, None)


def test_prio_weightedpath_beside_a_listing_of_a_release_without_it_is_refused(tmp_path: Path) -> None:
    # The bracket layout is 0.4.8's; weightedpath.c came in 0.5.0 (c7057579).
    old = ("mpathw (36001405000000000000000000000e701) dm-5 LIO-ORG,disk2\n[size=20G][features=0][hwhandler=0][rw]\n"
           "\\_ round-robin 0 [prio=40][active]\n \\_ 7:0:0:3 sdh 8:112 [active][ready]\n"
           "\\_ round-robin 0 [prio=10][enabled]\n \\_ 8:0:0:3 sdi 8:128 [active][ready]\n")
    listing, conf = _files(tmp_path, "detect_prio no", "prio weightedpath", 'prio_args "hbtl 7:.:.:. 40 .* 10"')
    listing.write_text(old)
    assert one_error_line(pathlab("import", str(listing), str(conf))) == (
        f"pathlab: error: {conf}: line 6: prio weightedpath (devices entry LIO-ORG/.*) for map mpathw: {listing} is "
        "printed by multipath-tools 0.4.8 (the bracket layout ([size=…][features=…]), printed before multipath-tools "
        "0.4.9), which has no weightedpath (it came in 0.5.0): not the multipath.conf that host's multipathd read")


def _non_owner(done: Any) -> tuple[Any, list[Any], dict[str, str]]:
    """The array's `non_owner_state` entry, each device's, and the warnings by field."""
    (array,) = done.tables.of("arrays")
    return array.find("non_owner_state"), [d.find("non_owner_state") for d in done.tables.of("devices")], \
        dict(done.warnings)


def test_a_non_alua_prioritizer_s_map_runs_the_default_non_owner_state_said(tmp_path: Path) -> None:
    """prio const in force (detect_prio no): its priorities are no ALUA states, so the other
    controller's state is not read, and the default the simulation runs (non-optimized) is said."""
    listing, conf = _files(tmp_path, "detect_prio no", "prio const")
    with quiet():
        done = import_files([str(listing), str(conf)])
    array, devices, said = _non_owner(done)
    unread = (f"map mpathc (line 1): {conf}, line 6 puts prio const in force for it, whose priorities are no ALUA states "
              "(alua.c's)")
    assert (array.value, array.source) == ("active_non_optimized", Assumed(
        f"{listing}: no map reads the other controller's ALUA state; {unread}: the simulation's default, non-optimized, "
        "runs"))
    assert devices == [None]
    assert said["arrays.LIO-ORG.non_owner_state"] == (f"{listing}: {unread}: the other controller's ALUA state is not "
                                                       "read: the simulation's default, non-optimized, runs")


#: Beside LISTING's map, one whose groups print ontap.c's 4 and 1 under the alua handler.
ONTAP_PRIOS = """\
mpathd (3600140500000000000000000000000d1) dm-5 LIO-ORG,disk1
size=20G features='0' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=4 status=active
| `- 7:0:0:4 sdj 8:144 active ready running
`-+- policy='service-time 0' prio=1 status=enabled
  `- 8:0:0:4 sdk 8:160 active ready running
"""


def test_a_map_of_another_prioritizer_s_priorities_runs_the_state_its_array_s_maps_read_said(tmp_path: Path) -> None:
    """4 and 1 (no group at alua.c's 50 or 130) read no ALUA state: alone, the default is said as
    the array's; beside a map whose 10 reads non-optimized, that map's state, said as the device's."""
    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(ONTAP_PRIOS)
    with quiet():
        alone = import_files([str(listing)])
    array, _, _ = _non_owner(alone)
    unread = ("map mpathd (line 1): its groups print priorities 1, 4 and none alua.c's optimized (50, 130), so none is "
              "read as an ALUA state (another prioritizer's, as ontap.c's 4 and 1, or alua.c's beside no optimized group "
              "read)")
    assert (array.value, type(array.source)) == ("active_non_optimized", Assumed)
    assert array.source.why == (f"{listing}: no map reads the other controller's ALUA state; {unread}: the simulation's "
                                "default, non-optimized, runs")
    listing.write_text(LISTING + ONTAP_PRIOS)
    with quiet():
        both = import_files([str(listing)])
    array, devices, said = _non_owner(both)
    assert (array.value, type(array.source)) == ("active_non_optimized", Derived)
    assert devices[0] is None and (devices[1].value, type(devices[1].source)) == ("active_non_optimized", Assumed)
    assert devices[1].source.why == said["arrays.LIO-ORG.non_owner_state"] == (
        f"{listing}: {unread.replace('(line 1)', '(line 7)')}: the array's state, non-optimized, read from its other "
        "maps, runs")


def test_multipath_l_reads_no_non_owner_state_and_the_default_is_said(tmp_path: Path) -> None:
    """`multipath -l` (no checker, no prioritizer: checker states `undef`, priorities 0, as 0.5.0
    on print them) of an ALUA map whose groups of two paths part the controllers."""
    unchecked = two_group_map()
    for group in unchecked.groups:
        group.prio = 0
        for p in group.paths:
            p.states = ("active", "undef", "running")
    listing = tmp_path / "multipath-l.txt"
    listing.write_text(tree([unchecked]))
    with quiet():
        done = import_files([str(listing)])
    array, _, _ = _non_owner(done)
    assert (array.value, array.source) == ("active_non_optimized", Assumed(
        f"{listing}: no map reads the other controller's ALUA state; map mpatha (line 1): `multipath -l` runs no "
        "prioritizer: no priority of its groups is read, so no ALUA state is: the simulation's default, non-optimized, "
        "runs"))
