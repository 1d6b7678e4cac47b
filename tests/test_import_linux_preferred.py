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
import warnings
from pathlib import Path
from typing import Any

import pytest

from conftest import RUNS_AT_ALL
from pathlab import Scenario
from pathlab.api import PathlabWarning
from pathlab.importer import import_files

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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PathlabWarning)
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
    """dm makes the highest group active (switchgroup.c): the simulation's alua prioritizer has no
    preferred bit, so the paths take their groups' printed priorities; I/O runs on the non-optimized
    paths, and a finding names the map, the groups and what the admin can do."""
    done = _import(tmp_path, TWO_GROUPS.format(top=90, low=50))
    policy = tomllib.loads(done.text)["devices"][0]["policy"]
    assert (policy["prio"], policy["path_priorities"]) == ("weightedpath", dict.fromkeys(RAISED, 90)
                                                           | dict.fromkeys(OPTIMIZED, 50))
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


def test_an_optimized_preferred_group_of_exclusive_pref_bit_is_the_owners_with_the_other_optimized_one(
        tmp_path: Path) -> None:
    """130 above 50 (`exclusive_pref_bit`): both groups optimized, no second controller; dm runs
    the 130 group, as simulated; nothing to find."""
    done = _import(tmp_path, TWO_GROUPS.format(top=130, low=50))
    scenario = tomllib.loads(done.text)
    assert "controllers" not in scenario["arrays"][0] and "owner" not in scenario["devices"][0]
    assert _groups(done) == [(130, "active", RAISED), (50, "enabled", OPTIMIZED)]
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
    assert "prio" not in scenario["devices"][0]["policy"]
    assert any("pg_init, an STPG) is not simulated" in message for message in said)


def test_a_group_at_an_average_of_several_states_keeps_the_best_group_as_owner_and_says_it(tmp_path: Path) -> None:
    """70 over two `ready` paths is (50 + 90) / 2: no one state; the owner stays the best group's,
    said as not determined."""
    listing = tmp_path / "mp.txt"
    listing.write_text(TWO_GROUPS.format(top=70, low=50))
    done = import_files([str(listing)])
    said = [message for _, message in done.warnings]
    scenario = tomllib.loads(done.text)
    assert {_controllers(scenario)[p] for p in ("H1T1", "H2T1")} == {scenario["devices"][0]["owner"]}
    assert any("group priority 70 is no one ALUA state's (alua.c)" in message for message in said)


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
