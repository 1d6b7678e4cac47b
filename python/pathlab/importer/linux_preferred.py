"""Where alua.c's preferred bit raises a map's group above its optimized one: what dm-multipath
does with it, how the scenario runs it, and what the admin can do.

alua.c's `getprio` (multipath-tools c2fcdaf, `libmultipath/prioritizers/alua.c`) gives 50 to an
optimized path, 10 to a non-optimized one, and adds 80 where the port group has the preferred bit
(REPORT TARGET PORT GROUPS' PREF, SPC-4: a preferred primary target port group) and the path is
not optimized, or `prio_args "exclusive_pref_bit"` is set (b68400c7 "Honour ALUA preference
indicator", b330bf8a not for optimized, 0a5c06fb the argument). So a non-optimized group whose
port group is preferred prints 90 above the optimized group's 50. group_by_prio sorts the groups
by priority and switchgroup.c's `select_path_group` makes the highest active: I/O goes to the
non-optimized paths, which the array forwards to the controller that owns the LUN.

The owner is read from the states (`linux_topology.owner_by_state`). The simulation's alua
prioritizer has no preferred bit (a scenario's path has none to give), so where the group alua.c
raised serves I/O (90 non-optimized, 130 optimized with exclusive_pref_bit) each path takes its
group's printed priority, weightedpath's way (`path_priorities`): the groups the listing shows,
the one it shows active first. A raised group that serves no I/O (81 standby, 80 unavailable, 85
logical-block dependent) is made active by dm, and scsi_dh_alua's activation of it (pg_init, an
STPG) is not simulated: its map runs the states, the optimized group first, and that is said.

What the admin can do, and what does not help:
* the array: its preferred port group is not the one the LUN is optimized through (the LUN is on
  the controller that is not its preferred one, or the preference is set on the other): move the
  LUN back to its preferred controller, or set its preference on the owning controller (SPC-4
  PREF is the array's to set; each vendor names the setting its own way);
* multipath.conf: no `prio_args` makes alua.c or sysfs.c leave the bit out of a non-optimized path
  (`exclusive_pref_bit` only adds it to an optimized preferred one too: 0a5c06fb,
  multipath.conf.5 "paths with the preferred path bit set will always be in their own path
  group"); `path_grouping_policy multibus` spreads I/O over both groups, non-optimized paths still
  carrying part."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.finding import Finding
from pathlab.importer.linux_topology import AVERAGED, MapTopology, alua_state_of, is_down, scenario_path
from pathlab.importer.provenance import Derived

#: The states of a raised group that serve I/O: its priority is given per path.
SERVES = ("active_non_optimized", "active_optimized")
#: What the admin can do, with sources (the module's note).
REMEDY = ("the array's preferred port group is not the one the LUN is optimized through: move the LUN back to its "
          "preferred controller, or set its preference on the owning controller (SPC-4's PREF bit is the array's to "
          "set); multipath.conf's prio_args \"exclusive_pref_bit\" does not help (alua.c adds 80 to a preferred "
          "non-optimized path whatever the argument; it only adds it to a preferred optimized one too: multipath-tools "
          "0a5c06fb), and no prio_args leaves the bit out; path_grouping_policy multibus would spread I/O over both groups")


@dataclass
class PreferredBit:
    """What a map whose preferred group sits above its optimized one runs: each path's priority
    (by scenario name; empty where the raised group serves no I/O), where that comes from, the
    finding and the warnings."""

    priorities: dict[str, int]
    source: Derived
    findings: list[Finding] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)


def _state_words(state: str) -> str:
    return state.replace("active_", "").replace("_", "-")


def preferred_bit(m: Any, paths: list[Any], topology: MapTopology, mfile: str, lun: int) -> PreferredBit | None:
    """For map `m` over its addressed `paths` where `linux_topology` took the owner by the states
    (`MapTopology.owner_rule`): the raised group and what the simulation does with it; else None."""
    if not topology.owner_rule:
        return None
    groups: dict[int, list[Any]] = {}
    for p in paths:
        groups.setdefault(int(p.group), []).append(p)
    read = {n: int(str(g[0].group_prio)) for n, g in groups.items() if str(g[0].group_prio).isdigit()
            and any(str(p.checker_state) in AVERAGED for p in g if not is_down(p))}
    top = max(read, key=lambda n: read[n])
    top_state = alua_state_of(read[top], groups[top]) or ""
    optimized = [n for n in read if n != top and read[n] < read[top] and
                 alua_state_of(read[n], groups[n]) == "active_optimized"]
    at = f"{mfile}, map {m.name} at line {m.line}"
    raised = (f"group {top} (line {groups[top][0].group_line}) prints priority {read[top]}, alua.c's "
              f"{_state_words(top_state)} with the preferred bit, above the optimized "
              + ", ".join(f"group {n}'s {read[n]} (line {groups[n][0].group_line})" for n in optimized))
    if top_state not in SERVES:
        said = (f"{mfile}: map {m.name} (line {m.line}): {raised}: dm-multipath makes it active (switchgroup.c), and "
                "scsi_dh_alua's activation of its port group (pg_init, an STPG) is not simulated: simulated by the "
                "states, I/O on the optimized group")
        return PreferredBit({}, Derived(said, (mfile,)), warnings=[(f"devices.{m.wwid}.policy.prio", said)])
    priorities: dict[str, int] = {}
    for p in paths:
        priorities.setdefault(scenario_path(p, lun), int(str(p.group_prio)) if str(p.group_prio).isdigit() else 0)
    source = Derived(f"{mfile}, map at line {m.line}: {raised}; the simulation's alua prioritizer has no preferred bit, "
                     "so each path takes its group's printed priority (weightedpath's way): the groups the listing shows, "
                     f"dm-multipath's active one the highest (switchgroup.c select_path_group)", (mfile,))
    if top_state != "active_non_optimized":
        return PreferredBit(priorities, source)
    paths_of = ", ".join(str(p.device) for p in groups[top] if not is_down(p))
    finding = Finding(f"map {m.name}: I/O goes to non-optimized paths ({paths_of}): the preferred bit puts their group "
                      f"above the optimized one (captured)",
                      f"{at}: {raised}; group_by_prio makes the highest group active (switchgroup.c), so the array "
                      f"forwards this map's I/O to the controller that owns the LUN; {REMEDY}")
    return PreferredBit(priorities, source, [finding])

