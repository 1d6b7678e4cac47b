"""Where alua.c's preferred bit raises a map's group above its optimized one: what dm-multipath
does with it, how the scenario runs it, and what the admin can do.

alua.c's `getprio` (multipath-tools c2fcdaf, `libmultipath/prioritizers/alua.c`) gives 50 to an
optimized path, 10 to a non-optimized one, and adds 80 where the port group has the preferred bit
(REPORT TARGET PORT GROUPS' PREF, SPC-4: a preferred primary target port group) and the path is
not optimized, or `prio_args "exclusive_pref_bit"` is set (b68400c7 "Honour ALUA preference
indicator", 0.4.9; b330bf8a not for optimized, 0.5.0; 0a5c06fb the argument, 0.6.0). So a
non-optimized group whose port group is preferred prints 90 above the optimized group's 50.
group_by_prio sorts the groups by priority and switchgroup.c's `select_path_group` makes the
highest active: I/O goes to the non-optimized paths, which the array forwards to the controller
that owns the LUN.

The owner is read from the states (`linux_topology.owner_by_state`). Where the raised group serves
I/O (90) and is the one the listing shows `active` (or none is), the device names its controller
`preferred` (the scenario's key for the port group with the preferred bit): the engine's alua
prioritizer adds 80 to its paths where they are not optimized, as alua.c does, so dm runs that
group, and a failure study re-ranks the groups as dm would. Where the listing shows the optimized
group `active` beside it (failback manual keeps it there after a failover: multipathd's checker
switches groups only under failback immediate), the host runs the optimized group: that is
simulated (no `preferred`: dm would start on the raised group) and said, with what a failback
would do. A raised group that serves no I/O (81 standby, 80, 85) is made active by dm, and
scsi_dh_alua's activation of it (pg_init, an STPG) is not simulated: its map runs the states, the
optimized group first, and that is said; so is a preferred optimized group (130) beside another
optimized one, which the engine's prioritizer (0.5.0 on, no exclusive_pref_bit) ranks alike.

Where a group the preferred bit raised (90) is the best and no group reads optimized, the rule
does not reach the owner: the optimized group's paths all failed (their group prints 0, read from
no path), or it prints an average of several states. The best group stays the owner's, its paths
simulated as the owner's, and a warning and a finding say so.

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
from pathlab.importer.linux_non_owner import state_words
from pathlab.importer.linux_topology import (
    ALUA_NON_OPTIMIZED,
    OWNER_BY_STATE,
    MapTopology,
    Port,
    alua_state_of,
    is_down,
    port_of,
    read_groups,
)
from pathlab.importer.provenance import Derived

#: What the admin can do, with sources (the module's note).
REMEDY = ("the array's preferred port group is not the one the LUN is optimized through: move the LUN back to its "
          "preferred controller, or set its preference on the owning controller (SPC-4's PREF bit is the array's to "
          "set); multipath.conf's prio_args \"exclusive_pref_bit\" does not help (alua.c adds 80 to a preferred "
          "non-optimized path whatever the argument; it only adds it to a preferred optimized one too: multipath-tools "
          "0a5c06fb), and no prio_args leaves the bit out; path_grouping_policy multibus would spread I/O over both groups")
#: What the listing's `active` group beside a higher usable one says of failback (multipathd's
#: checker loop switches to the highest group only under failback immediate: `need_switch_pathgroup`).
NOT_IMMEDIATE = ("a lower group active beside a usable higher one, which failback immediate would have switched "
                 "(multipathd's checker, need_switch_pathgroup): failback manual or followover, or a deferred failback")


@dataclass
class PreferredBit:
    """What a map whose group alua.c's preferred bit raised runs and says: the ports of the
    preferred port group, whose controller the device names `preferred`, with where that is read
    (None where the simulation leaves the key out), the findings and the warnings."""

    ports: frozenset[Port] | None = None
    source: Derived | None = None
    findings: list[Finding] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    #: Why the device's owner is assumed, not read, where the best group is taken as the owner's
    #: though no group reads optimized (`_unreached`, beside an average), else None.
    owner_assumed: str | None = None


def _groups(paths: list[Any]) -> dict[int, list[Any]]:
    groups: dict[int, list[Any]] = {}
    for p in paths:
        groups.setdefault(int(p.group), []).append(p)
    return groups


def _named(groups: dict[int, list[Any]], numbers: list[int], prio: dict[int, int]) -> str:
    return ", ".join(f"group {n}'s {prio[n]} (line {groups[n][0].group_line})" for n in numbers)


def _devices(group: list[Any]) -> str:
    return ", ".join(str(p.device) for p in group if not is_down(p))


def preferred_bit(m: Any, paths: list[Any], topology: MapTopology, mfile: str, failback: tuple[Any, Any] | None = None,
                  reads_states: bool = True) -> PreferredBit | None:
    """For map `m` over its addressed `paths`: where `linux_topology` took the owner by the states
    below a group alua.c's preferred bit raised (`OWNER_BY_STATE`), what the simulation runs and
    says; where such a group is the best and no group reads optimized (`_unreached`), what is
    said; else None. `failback`: multipath.conf's failback in force for the map and its source,
    where it sets one; `reads_states`: whether the priorities are read as ALUA states
    (`linux_topology.reads_alua_states`, with an alua hwhandler for the unreached cases)."""
    groups = _groups(paths)
    read = {int(g[0].group): prio for g, prio in read_groups(list(groups.values()))}
    if topology.owner_rule != OWNER_BY_STATE:
        return _unreached(m, groups, read, mfile) if reads_states else None
    top = max(read, key=lambda n: read[n])
    top_state = alua_state_of(read[top], groups[top]) or ""
    optimized = [n for n in read if n != top and read[n] < read[top] and
                 alua_state_of(read[n], groups[n]) == "active_optimized"]
    at = f"{mfile}, map {m.name} at line {m.line}"
    raised = (f"group {top} (line {groups[top][0].group_line}) prints priority {read[top]}, alua.c's "
              f"{state_words(top_state)} with the preferred bit, above the optimized " + _named(groups, optimized, read))
    if top_state == "active_optimized":
        said = (f"{at}: {raised}: dm-multipath runs the {read[top]} group alone; the simulation's alua prioritizer "
                "leaves the preferred bit off optimized paths (alua.c 0.5.0 on without exclusive_pref_bit), so the "
                "map's optimized paths are simulated at one priority, one group")
        return PreferredBit(warnings=[(f"devices.{m.wwid}.policy.prio", said)])
    if top_state != "active_non_optimized":
        said = (f"{mfile}: map {m.name} (line {m.line}): {raised}: dm-multipath makes it active (switchgroup.c), and "
                "scsi_dh_alua's activation of its port group (pg_init, an STPG) is not simulated: simulated by the "
                "states, I/O on the optimized group")
        return PreferredBit(warnings=[(f"devices.{m.wwid}.policy.prio", said)])
    running = [n for n, g in groups.items() if str(g[0].group_status) == "active"]
    if running and top not in running:
        return _optimized_running(m, groups, read, top, running, raised, mfile, failback)
    source = Derived(f"{mfile}, line {groups[top][0].group_line}: {raised}: its port group has the preferred bit; "
                     + ("the listing shows it active" if running else "dm-multipath makes it active (switchgroup.c "
                                                                      "select_path_group), no group shown active"),
                     (mfile,))
    finding = Finding(f"map {m.name}: I/O goes to non-optimized paths ({_devices(groups[top])}): the preferred bit puts "
                      "their group above the optimized one (captured)",
                      f"{at}: {raised}; group_by_prio makes the highest group active (switchgroup.c), so the array "
                      f"forwards this map's I/O to the controller that owns the LUN; {REMEDY}")
    return PreferredBit(frozenset(port_of(p) for p in groups[top] if not is_down(p)), source, [finding])


def _optimized_running(m: Any, groups: dict[int, list[Any]], read: dict[int, int], top: int, running: list[int],
                       raised: str, mfile: str, failback: tuple[Any, Any] | None) -> PreferredBit:
    """The listing shows another group than the raised one `active`: the host runs it now (the
    optimized group, after a failover that failback manual does not undo), simulated so, and what a
    failback would do said."""
    if failback is None:
        why = f"the listing shows {NOT_IMMEDIATE}"
    elif str(failback[0]) == "immediate":
        why = (f"{failback[1].comment()}: multipathd's checker switches to the highest group at its next check "
               "(need_switch_pathgroup), so the listing caught a moment after a failover")
    else:
        why = f"{failback[1].comment()}: multipathd does not switch back by itself"
    said = (f"{mfile}, map {m.name} at line {m.line}: {raised}, but the listing shows "
            f"{', '.join(f'group {n} (line {groups[n][0].group_line})' for n in running)} active: the host runs its "
            f"optimized group ({why}); simulated so, the device's `preferred` left out (dm would start on the raised "
            f"group); a failback (`multipathd switchgroup`, a reload, or failback immediate) would move the map's I/O "
            f"to the non-optimized paths ({_devices(groups[top])})")
    finding = Finding(f"map {m.name}: a failback would move I/O to non-optimized paths ({_devices(groups[top])}): the "
                      "preferred bit puts their group above the optimized one the host runs (captured)", f"{said}; {REMEDY}")
    return PreferredBit(findings=[finding], warnings=[(f"devices.{m.wwid}.policy.prio", said)])


def _unreached(m: Any, groups: dict[int, list[Any]], read: dict[int, int], mfile: str) -> PreferredBit | None:
    """A map whose best group prints 90 (non-optimized, the preferred bit's) with no group read
    optimized, because the other groups' paths all failed (their priority read from no path) or
    print an average of several states: the owner is not read from the states; said."""
    if not read:
        return None
    top = max(read, key=lambda n: read[n])
    if read[top] != ALUA_NON_OPTIMIZED[1] or alua_state_of(read[top], groups[top]) != "active_non_optimized":
        return None
    failed = [n for n, g in groups.items() if all(is_down(p) for p in g)]
    averaged = [n for n in read if n != top and alua_state_of(read[n], groups[n]) is None]
    if not failed and not averaged or any(alua_state_of(read[n], groups[n]) == "active_optimized" for n in read):
        return None
    why = "; ".join([*([f"group {', '.join(str(n) for n in failed)}'s paths all failed (line "
                        f"{', '.join(str(groups[n][0].group_line) for n in failed)}: a failed path's priority is not "
                        "read)"] if failed else []),
                     *([f"{_named(groups, averaged, read)} {'is an average' if len(averaged) == 1 else 'are averages'} "
                        "over paths of several states (switchgroup.c)"] if averaged else [])])
    top_at = f"group {top} (line {groups[top][0].group_line}) prints priority 90, alua.c's non-optimized with the preferred bit"
    said = (f"{mfile}, map {m.name} at line {m.line}: {top_at}, and no group reads optimized ({why}): the port group the "
            "LUN is optimized through is not read, so the owner is not read from the states; its paths are simulated as "
            + ("the owner's" if averaged else "the array's, every one alike (no controller shown)")
            + ", optimized, where the host's are non-optimized and forwarded")
    finding = Finding(f"map {m.name}: I/O goes to non-optimized paths ({_devices(groups[top])}): the preferred bit puts "
                      "their group first, and no optimized group is read (captured)",
                      f"{said}; dm-multipath runs the highest group (switchgroup.c); {REMEDY}")
    return PreferredBit(findings=[finding], warnings=[(f"devices.{m.wwid}.owner", said)],
                        owner_assumed=said if averaged else None)
