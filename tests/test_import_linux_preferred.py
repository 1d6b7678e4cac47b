"""`pathlab import` of `multipath -ll` maps whose group priorities alua.c's preferred bit raised,
and of groups beside the owner's whose paths no check answered: the owner read from the ALUA
states the priorities encode (alua.c: 50/130 optimized, 10/90 non-optimized, 1/81 standby, +80
for the preferred bit on a path not optimized, or on any with `exclusive_pref_bit`), dm-multipath's
active group simulated as the host runs it, and what the listing leaves open said.

The listings are written in the grammar multipath-tools 0.14.3's print.c prints for
`multipath -ll` (`snprint_multipath_topology`: the map line `%n (%w) %d %s`, the properties line,
`policy='%s' prio=%p status=%t` per group, `%i %d %D %t %T %o` per path), not copied from a sample."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import RUNS_AT_ALL, quiet
from pathlab import Scenario
from pathlab.api import ScenarioError
from pathlab.importer import import_files
from pathlab.importer.provenance import Assumed

#: One map, two groups of two paths through SCSI hosts 1 and 2: group 1 to targets 1 (the other
#: controller's ports), group 2 to targets 0; `{top}` and `{low}` are the groups' priorities.
TWO_GROUPS = """\
mpathb (3600a098038303053453f463045727a41) dm-1 NETAPP,LUN C-Mode
size=20G features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio={top} status=active
| |- 1:0:1:3 sdc 8:32 active ready running
| `- 2:0:1:3 sde 8:64 active ready running
`-+- policy='service-time 0' prio={low} status=enabled
  |- 1:0:0:3 sdb 8:16 active ready running
  `- 2:0:0:3 sdd 8:48 active ready running
"""
RAISED = ["host1:C0:T1:L3", "host2:C0:T1:L3"]
OPTIMIZED = ["host1:C0:T0:L3", "host2:C0:T0:L3"]


def _import(tmp_path: Path, text: str) -> Any:
    listing = tmp_path / "mp.txt"
    listing.write_text(text)
    with quiet():
        return import_files([str(listing)])


def _controllers(scenario: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: p["controller"] for p in scenario["arrays"][0]["ports"]}


def _groups(done: Any) -> list[tuple[int, str, list[str]]]:
    """The path groups the engine builds for the imported map: (priority, state, paths)."""
    device = Scenario.from_values(done.tables.values(), done.text, "t.toml").devices[0]
    return [(g["priority"], g["state"], [p["path"] for p in g["paths"]]) for g in device.status["groups"]]


def test_a_non_optimized_preferred_group_above_the_optimized_one_is_not_the_owners(tmp_path: Path) -> None:
    """90 above 50: the optimized ports (the 50 group's, targets 0) are the owner's, the 90 group's
    the other controller's, non-optimized (the best priority had taken the 90 group for the owner)."""
    done = _import(tmp_path, TWO_GROUPS.format(top=90, low=50))
    scenario = tomllib.loads(done.text)
    (device,) = scenario["devices"]
    controllers = _controllers(scenario)
    assert {controllers["H1T0"], controllers["H2T0"]} == {device["owner"]}
    assert {controllers["H1T1"], controllers["H2T1"]} == {"B" if device["owner"] == "A" else "A"}
    assert scenario["arrays"][0]["non_owner_state"] == "active_non_optimized"
    assert "the controller of its optimized group's paths" in done.text


def test_dm_multipath_runs_the_preferred_non_optimized_group_and_that_is_found(tmp_path: Path) -> None:
    """dm makes the highest group active (switchgroup.c): the device names the controller whose port
    group has the preferred bit (`preferred`), the engine's alua prioritizer adds 80 to its
    non-optimized paths as alua.c does, and the admin's `prio alua` stays the scenario's; I/O runs
    on the non-optimized paths, and a finding names the map, the groups and what the admin can do."""
    done = _import(tmp_path, TWO_GROUPS.format(top=90, low=50))
    scenario = tomllib.loads(done.text)
    (device,) = scenario["devices"]
    assert {_controllers(scenario)[p] for p in ("H1T1", "H2T1")} == {device["preferred"]} != {device["owner"]}
    assert "prio" not in device["policy"] and "path_priorities" not in device["policy"]
    assert _groups(done) == [(90, "active", RAISED), (50, "enabled", OPTIMIZED)]
    result = Scenario.from_text(done.text, "t.toml", set=RUNS_AT_ALL).run()
    carried = {row["name"]: (row["alua"], row["cmds_s"]) for row in result.data["paths"]}
    assert all(carried[p][0] == "ANO" and carried[p][1] > 0 for p in RAISED)
    assert all(carried[p] == ("AO", 0.0) for p in OPTIMIZED)
    (finding,) = [f for f in done.findings if "non-optimized paths" in f.title]
    assert finding.title == ("map mpathb: I/O goes to non-optimized paths (sdc, sde): the preferred bit puts their group "
                             "above the optimized one (captured)")
    assert "group 1 (line 3) prints priority 90, alua.c's non-optimized with the preferred bit, above the optimized " \
           "group 2's 50 (line 6)" in finding.evidence
    # exclusive_pref_bit does not lower a preferred non-optimized path (alua.c adds 80 whatever the argument)
    assert "prio_args \"exclusive_pref_bit\" does not help" in finding.evidence


def test_the_preferred_key_ranks_the_groups_as_dm_does_and_an_unknown_controller_is_refused(tmp_path: Path) -> None:
    """The scenario's `preferred` is what raises the group: left out, the optimized group runs; a
    failed preferred path is re-ranked by its state, not frozen at a printed priority (the I/O
    moves to the optimized group); a controller the array lacks is one line naming the field."""
    text = _import(tmp_path, TWO_GROUPS.format(top=90, low=50)).text
    preferred = next(line for line in text.splitlines() if line.startswith("preferred = "))
    without = Scenario.from_text(text.replace(preferred + "\n", ""), "t.toml")
    assert [(g["priority"], g["state"]) for g in without.devices[0].status["groups"]] == [(50, "active"), (10, "enabled")]
    down = "".join(f'\n[[faults]]\nkind = "path_down"\nat = "0s"\npath = "{p}"\n' for p in RAISED)
    result = Scenario.from_text(text + down, "t.toml", set=RUNS_AT_ALL).run()
    carried = {row["name"]: row["cmds_s"] for row in result.data["paths"]}
    assert all(carried[p] > 0 for p in OPTIMIZED) and all(carried[p] == 0.0 for p in RAISED)
    with pytest.raises(ScenarioError) as refused:
        Scenario.from_text(text.replace(preferred, 'preferred = "C"'), "t.toml")
    assert refused.value.args[1] == "devices.0.preferred"
    assert '"C"' in refused.value.args[2] and "controller" in refused.value.args[2]


@pytest.mark.parametrize("conf", ["", "manual"])
def test_the_optimized_group_the_listing_shows_active_is_what_runs_and_a_failback_is_said(tmp_path: Path,
                                                                                         conf: str) -> None:
    """90 above 50, the 50 group `status=active` (failback manual keeps it after a failover): the
    host runs the optimized group: simulated so (no `preferred`: dm would start on the raised
    group), said with what a failback would do, and found; no finding that I/O goes to them now."""
    listing = tmp_path / "mp.txt"
    listing.write_text(TWO_GROUPS.format(top=90, low=50).replace("prio=90 status=active", "prio=90 status=enabled")
                       .replace("prio=50 status=enabled", "prio=50 status=active"))
    files = [str(listing)]
    if conf:
        (tmp_path / "multipath.conf").write_text(f'devices {{\n    device {{\n        vendor "NETAPP"\n'
                                                 f'        product "LUN.*"\n        failback {conf}\n    }}\n}}\n')
        files.append(str(tmp_path / "multipath.conf"))
    with quiet():
        done = import_files(files)
    assert "preferred" not in tomllib.loads(done.text)["devices"][0]
    assert _groups(done) == [(50, "active", OPTIMIZED), (10, "enabled", RAISED)]
    (said,) = [message for key, message in done.warnings if key.endswith(".policy.prio")]
    assert "but the listing shows group 2 (line 6) active: the host runs its optimized group (" + (
        f"{tmp_path / 'multipath.conf'}, line 5: failback manual" if conf else "the listing shows a lower group active "
        "beside a usable higher one, which failback immediate would have switched") in said
    assert "a failback (`multipathd switchgroup`, a reload, or failback immediate) would move the map's I/O to the " \
           "non-optimized paths (sdc, sde)" in said
    assert [f.title for f in done.findings if "preferred bit" in f.title] == [
        "map mpathb: a failback would move I/O to non-optimized paths (sdc, sde): the preferred bit puts their group "
        "above the optimized one the host runs (captured)"]


def test_weightedpath_priorities_are_no_alua_states(tmp_path: Path) -> None:
    """multipath.conf puts weightedpath in force (detect_prio no): its 90 and 50 are the admin's
    weights, not alua.c's states: the owner is the best group's (the one dm runs), no state of the
    other controller is read from them (the default it runs is said), nothing preferred, nothing found."""
    listing = tmp_path / "mp.txt"
    listing.write_text(TWO_GROUPS.format(top=90, low=50))
    conf = tmp_path / "wp.conf"
    conf.write_text('devices {\n    device {\n        vendor "NETAPP"\n        product "LUN.*"\n'
                    '        path_grouping_policy group_by_prio\n        detect_prio no\n        prio weightedpath\n'
                    '        prio_args "hbtl [0-9]*:0:1:[0-9]* 90 [0-9]*:0:0:[0-9]* 50"\n    }\n}\n')
    with quiet():
        done = import_files([str(listing), str(conf)])
    scenario = tomllib.loads(done.text)
    (device,) = scenario["devices"]
    assert {_controllers(scenario)[p] for p in ("H1T1", "H2T1")} == {device["owner"]}
    assert scenario["arrays"][0]["non_owner_state"] == "active_non_optimized" and "preferred" not in device
    assert (f"non_owner_state = \"active_non_optimized\"  # default: {listing}: no map reads the other controller's ALUA "
            f"state; map mpathb (line 1): {conf}, line 7 puts prio weightedpath in force for it, whose priorities are no "
            "ALUA states (alua.c's): the simulation's default, non-optimized, runs") in done.text
    assert device["policy"]["prio"] == "weightedpath"
    assert not [f for f in done.findings if "preferred bit" in f.title]


def test_an_optimized_preferred_group_beside_another_optimized_one_is_the_owners_and_its_rank_said(
        tmp_path: Path) -> None:
    """130 above 50 (0.4.9's preferred optimized path, or exclusive_pref_bit from 0.6.0): both groups
    optimized, no second controller; dm runs the 130 group alone, which the engine's prioritizer
    (no preferred bit on an optimized path) does not rank apart: said; nothing to find."""
    done = _import(tmp_path, TWO_GROUPS.format(top=130, low=50))
    scenario = tomllib.loads(done.text)
    assert "controllers" not in scenario["arrays"][0] and "owner" not in scenario["devices"][0]
    assert _groups(done) == [(50, "active", sorted(RAISED + OPTIMIZED))]
    assert any("dm-multipath runs the 130 group alone; the simulation's alua prioritizer leaves the preferred bit off "
               "optimized paths" in message for _, message in done.warnings)
    assert not [f for f in done.findings if "non-optimized paths" in f.title]


def test_a_standby_preferred_group_above_the_optimized_one_is_said_not_simulated_active(tmp_path: Path) -> None:
    """81 above 50: the 81 group is standby (the other controller's); dm makes it active and
    scsi_dh_alua activates its port group, which is not simulated: the states run, and that is said."""
    listing = tmp_path / "mp.txt"
    listing.write_text(TWO_GROUPS.format(top=81, low=50).replace("active ready running\n| `", "active ghost running\n| `")
                       .replace("sde 8:64 active ready", "sde 8:64 active ghost"))
    done = import_files([str(listing)])
    said = [message for _, message in done.warnings]
    scenario = tomllib.loads(done.text)
    assert scenario["arrays"][0]["non_owner_state"] == "standby"
    assert {_controllers(scenario)[p] for p in ("H1T0", "H2T0")} == {scenario["devices"][0]["owner"]}
    assert "prio" not in scenario["devices"][0]["policy"] and "preferred" not in scenario["devices"][0]
    assert any("pg_init, an STPG) is not simulated" in message for message in said)


def test_a_group_at_an_average_above_a_read_optimized_group_is_left_open_and_the_optimized_one_owns(
        tmp_path: Path) -> None:
    """70 over two `ready` paths is (50 + 90) / 2: no one state; the 50 group reads optimized and is
    the owner's, only the averaged group is left open, said."""
    listing = tmp_path / "mp.txt"
    listing.write_text(TWO_GROUPS.format(top=70, low=50))
    done = import_files([str(listing)])
    said = [message for _, message in done.warnings]
    scenario = tomllib.loads(done.text)
    assert {_controllers(scenario)[p] for p in ("H1T0", "H2T0")} == {scenario["devices"][0]["owner"]}
    assert "preferred" not in scenario["devices"][0]
    assert any("group priority 70 above the optimized group's 50 is no one ALUA state's (alua.c)" in message
               and "whose port group is not determined; taken as the other controller's" in message for message in said)


def test_a_listing_of_multipath_tools_0_4_8_keeps_the_best_group(tmp_path: Path) -> None:
    """0.4.8 (the bracket layout) sums a group's paths and has no preferred bit (b68400c7 came in
    0.4.9): its 90 over nine paths and 50 over one are not read as states; the best group is the
    owner's, as before, and the import is not refused."""
    listing = tmp_path / "old.txt"
    listing.write_text("mpathb (3600a098038303053453f463045727a41) dm-1 NETAPP,LUN\n"
                       "[size=20G][features=1 queue_if_no_path][hwhandler=1 alua][rw]\n"
                       "\\_ round-robin 0 [prio=90][active]\n"
                       + "".join(f" \\_ {h}:0:{t}:3 sd{h}{t} 8:{16 * h + t}  [active][ready]\n"
                                 for t in (1, 2, 3) for h in (1, 2, 3))
                       + "\\_ round-robin 0 [prio=50][enabled]\n \\_ 1:0:0:3 sdb 8:16  [active][ready]\n")
    with quiet():
        done = import_files([str(listing)])
    scenario = tomllib.loads(done.text)
    (device,) = scenario["devices"]
    assert scenario["host"]["multipath_tools"] == "0.4.8"
    assert _controllers(scenario)["H1T1"] == device["owner"] != _controllers(scenario)["H1T0"]
    assert "preferred" not in device and "prio" not in device["policy"]
    assert not [f for f in done.findings if "preferred bit" in f.title]


@pytest.mark.parametrize("other", ["failed", "average"])
def test_a_preferred_non_optimized_group_with_no_optimized_group_read_is_said_and_found(tmp_path: Path,
                                                                                       other: str) -> None:
    """90 beside a group whose paths all failed (0, read from no path) or beside 30, an average of
    several states: no group reads optimized, so the owner is not read from the states; the 90
    group's paths run as optimized, which a warning and a finding say."""
    text = TWO_GROUPS.format(top=90, low=0 if other == "failed" else 30)
    if other == "failed":
        text = text.replace("sdb 8:16 active ready", "sdb 8:16 failed faulty").replace("sdd 8:48 active ready",
                                                                                        "sdd 8:48 failed faulty")
    done = _import(tmp_path, text)
    said = [message for key, message in done.warnings if key.endswith(".owner")]
    why = ("group 2's paths all failed (line 6: a failed path's priority is not read)" if other == "failed"
           else "group 2's 30 (line 6) is an average over paths of several states (switchgroup.c)")
    assert any(f"group 1 (line 3) prints priority 90, alua.c's non-optimized with the preferred bit, and no group reads "
               f"optimized ({why})" in message and "where the host's are non-optimized and forwarded" in message
               for message in said)
    assert [f.title for f in done.findings if "preferred bit" in f.title] == [
        "map mpathb: I/O goes to non-optimized paths (sdc, sde): the preferred bit puts their group first, and no "
        "optimized group is read (captured)"]
    # beside an average the 90 group's controller is the owner the simulation takes: assumed, as said
    owner = done.tables.of("devices")[0].find("owner")
    if other == "average":
        assert (owner.value, owner.source) == ("A", Assumed(said[0]))
    else:  # the failed paths' group shows no controller: no owner
        assert owner is None


#: A map whose group beside the owner's has only `i/o pending` paths (print.c's PATH_PENDING):
#: switchgroup.c averaged none of them, so it prints 0.
PENDING = """\
mpathc (36001405aaaaaaaaaaaaaaaaaaaaaaaa1) dm-2 LIO-ORG,disk01
size=10G features='0' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=50 status=active
| `- 3:0:0:1 sdf 8:80 active ready running
`-+- policy='service-time 0' prio=0 status=enabled
  `- 4:0:0:1 sdg 8:96 active i/o pending running
"""
#: A second map of the array whose other group reads standby (1).
STANDBY = """\
mpathd (36001405aaaaaaaaaaaaaaaaaaaaaaaa2) dm-3 LIO-ORG,disk01
size=10G features='0' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=50 status=active
| `- 3:0:0:2 sdh 8:112 active ready running
`-+- policy='service-time 0' prio=1 status=enabled
  `- 4:0:0:2 sdi 8:128 active ghost running
"""


def test_a_pending_group_alone_runs_the_default_said_as_assumed_and_found(tmp_path: Path) -> None:
    done = _import(tmp_path, PENDING)
    line = next(x for x in done.text.splitlines() if x.startswith("non_owner_state"))
    assert line.startswith('non_owner_state = "active_non_optimized"  # default: ')
    assert "map mpathc (line 1): group 2 (line 5) beside the owner's prints 0 having averaged no path" in line
    (finding,) = [f for f in done.findings if "is not read" in f.title]
    assert finding.title == ("map mpathc: the ALUA state of group 2's paths (sdg) is not read; simulated non-optimized "
                             "(captured)")
    assert "its paths are `i/o pending`, and `i/o pending` is tur.c's PATH_PENDING" in finding.evidence


@pytest.mark.parametrize("first", [True, False])
def test_a_pending_group_beside_a_map_that_reads_the_state_runs_the_arrays_said_on_its_device(
        tmp_path: Path, first: bool) -> None:
    done = _import(tmp_path, PENDING + STANDBY if first else STANDBY + PENDING)
    scenario = tomllib.loads(done.text)
    assert scenario["arrays"][0]["non_owner_state"] == "standby"
    own = {d["name"][-1]: d.get("non_owner_state") for d in scenario["devices"]}
    assert own == {"1": "standby", "2": None}
    line = next(x for x in done.text.splitlines() if x.startswith('non_owner_state = "standby"  # default'))
    assert "the array's state, standby, read from its other maps, runs" in line
    assert any(f.title.endswith("is not read; simulated standby (captured)") for f in done.findings)


@pytest.mark.parametrize(("array_key", "why"), [
    ("symmetric = true", "is symmetric: one port group for every controller, none preferred over another"),
    ("tpgs = false", "reports no ALUA/ANA states (tpgs = false): no port group reports the preferred bit"),
])
def test_preferred_on_an_array_with_no_port_group_to_prefer_is_refused(array_key: str, why: str) -> None:
    """`preferred` names the port group that reports ALUA's preferred bit: an array with one port
    group for every controller, or no ALUA states at all, has none to prefer, so the key would be
    read by nothing (the review's probe ran it silently)."""
    text = "\n".join([
        '[run]\nduration = "10ms"',
        '[host]\nadapters = [{ name = "vmhba1", queue_depth = 64 }]',
        f'[[arrays]]\nname = "array"\n{array_key}\nservice = {{ fixed = "25us" }}\nports = [{{ name = "P0" }}]',
        '[[fabric]]\nadapters = ["vmhba1"]\nports = ["array/P0"]\nlatency = "50us"',
        '[[devices]]\nname = "naa.1"\narray = "array"\nlun = 1\npreferred = "CT0"',
        '[policy]\nname = "VMW_PSP_RR"',
        '[[workloads]]\nname = "reads"\ndevices = ["naa.1"]\noutstanding = 1\nblock_size = "8KiB"\nread_pct = 100',
    ])
    with pytest.raises(ScenarioError) as refused:
        Scenario.from_text(text, "t.toml")
    assert refused.value.args[1:] == ("devices.0.preferred", f'array "array" {why}')
