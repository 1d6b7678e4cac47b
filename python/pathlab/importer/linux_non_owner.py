"""What a Linux host's `multipath -ll` shows an ALUA array reporting through the paths that do not
lead to a LUN's owner: the priority the alua prioritizer (alua.c) printed for each map's groups
beside the owner's, standby (1, 81 with the preferred bit), non-optimized (10, 90), or 0 (80),
which alua.c gives alike to unavailable, offline, transitioning and reserved states, as the
scenario's `non_owner_state`. The array takes the state most maps show and each other map's
device its own (`non_owner_majority`, the rule the ESXi import reads `TPG_state` by); a map whose
groups beside the owner print priorities of two states is said, and simulated as the array's; a
priority of no state the simulation has (5, logical-block dependent; an average) is said, not read.

A 0 is simulated `unavailable`, the one state of the simulation that serves no I/O and that the
alua prioritizer gives 0, so the simulated map groups as the listing; which of alua.c's four
states the port group was in is not determined, and said. Its paths print `ready` or `ghost` (a
group with neither prints 0 having averaged no path: `linux_topology.AVERAGED`), which tur.c
gives none of the four (a TEST UNIT READY answered NOT READY is PATH_DOWN, 04/0A in transition
PATH_PENDING), and tur is the checker multipath-tools picks for a TPGS LUN (propsel.c
`select_checker`, detect_checker on by default; rdac's own arrays aside): the checker read the
path at another moment, or another checker ran; that is said too.

A group beside the owner's none of whose usable paths is `ready` or `ghost` (`i/o pending`, tur.c's
PATH_PENDING: a check not answered yet, or a port group in an ALUA transition) prints 0 having
averaged no path (`linux_topology.unaveraged_groups`): the listing reads no state for it. A map
that reads none of its own runs the array's state, read from the other maps, and that is said as
an assumption of its device; where no map reads one, the array runs the simulation's default,
non-optimized, said as the array's assumption; and a finding names each such map and group. A
map whose priorities read as no ALUA state at all (`multipath -l`, another prioritizer's, 0.4.8's
sums) is said the same way, as an assumption of the array or of its device."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.finding import Finding
from pathlab.importer.linux_topology import ALUA_LBA_DEPENDENT, ALUA_OPTIMIZED, ALUA_PRIOS
from pathlab.importer.non_owner_majority import majority
from pathlab.importer.provenance import Assumed, Derived, Provenance

#: Each state with the alua prioritizer's priorities for it and what its paths do.
STATES = tuple((state, ALUA_PRIOS[state], meaning) for state, meaning in (
    ("standby", "are standby"), ("active_non_optimized", "serve I/O, forwarded"), ("unavailable", "serve no I/O")))
#: What a 5 says.
LBA_DEPENDENT = ("the alua prioritizer's logical-block dependent (alua.c: 5, 85 with the preferred bit), a state pathlab "
                 "does not simulate")
#: What a priority of no state says.
NO_STATE = "a priority alua.c gives no path alone (paths in several states averaged, or another prioritizer's)"
#: What a 0 says, and leaves open.
NOT_DETERMINED = ("alua.c's for a port group unavailable, offline, transitioning or in a reserved state alike (80 with "
                  "the preferred bit): which one is not determined; simulated unavailable, the simulation's state that "
                  "serves no I/O (the paths print `ready` or `ghost`, which tur.c gives none of the four: a check at "
                  "another moment, or another checker)")


@dataclass
class LinuxNonOwner:
    """The array's state with where it was read, the maps' devices' own where theirs differ (by
    map name), and what was said of maps that show no one state."""

    array: tuple[str, Provenance] | None = None
    maps: dict[str, tuple[str, Provenance]] = field(default_factory=dict)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


#: What tur.c's `i/o pending` stands for (checkers/tur.c lines 193-199, print.c `snprint_chk_state`).
PENDING = (", and `i/o pending` is tur.c's PATH_PENDING, a check not answered yet or a port group in an ALUA "
           "transition, NOT READY 04h/0Ah")
#: The simulation's state of the other controller's paths where the scenario gives none (schema.rs
#: `non_owner_default`).
DEFAULT_STATE = "active_non_optimized"
#: How an assumption of the array's state ends where no map reads one.
_DEFAULT_RUNS = ": the simulation's default, non-optimized, runs"


def linux_non_owner(array: str, mfile: str, beside_owner: dict[str, set[int]], maps: list[Any],
                    unaveraged: dict[str, list[list[Any]]] | None = None,
                    no_states: dict[str, str] | None = None) -> LinuxNonOwner:
    """`beside_owner`: each alua-prioritized map's priorities beside its owner's group (map name →
    priorities), `maps` the listing's maps (their header lines), `unaveraged`: each map's groups
    beside the owner's that averaged no path (`linux_topology.unaveraged_groups`), by map name;
    `no_states`: the maps that part the owner's paths by priorities read as no ALUA state (none
    printed under `-l`, another prioritizer's, 0.4.8's sums), each with why (by map name)."""
    out = _read_states(array, mfile, beside_owner, maps)
    _unaveraged_said(out, array, mfile, beside_owner, maps, unaveraged or {})
    _no_states_said(out, array, mfile, maps, no_states or {})
    return out


def _no_states_said(out: LinuxNonOwner, array: str, mfile: str, maps: list[Any], no_states: dict[str, str]) -> None:
    """What the maps whose priorities are no ALUA states run beside their owner's group, said as
    an assumption: the array's state where another map reads one (each such map's device), else
    the simulation's default, non-optimized (the array's, with what an earlier assumption said)."""
    if not no_states:
        return
    line = {str(m.name): m for m in maps}
    unread = "; ".join(f"map {name} (line {line[name].line}): {why}" for name, why in no_states.items())
    assumed = out.array[1] if out.array is not None and isinstance(out.array[1], Assumed) else None
    if out.array is None or assumed is not None:
        earlier = (assumed.why.removeprefix(f"{mfile}: ").removesuffix(_DEFAULT_RUNS) + "; " if assumed is not None
                   else "no map reads the other controller's ALUA state; ")
        out.array = (DEFAULT_STATE, Assumed(f"{mfile}: {earlier}{unread}{_DEFAULT_RUNS}"))
        out.warnings.append((f"arrays.{array}.non_owner_state", f"{mfile}: {unread}: the other controller's ALUA state "
                                                                f"is not read{_DEFAULT_RUNS}"))
        return
    for name, why in no_states.items():
        said = (f"{mfile}: map {name} (line {line[name].line}): {why}: the array's state, {state_words(out.array[0])}, read "
                "from its other maps, runs")
        out.maps.setdefault(name, (out.array[0], Assumed(said)))
        out.warnings.append((f"arrays.{array}.non_owner_state", said))


def _read_states(array: str, mfile: str, beside_owner: dict[str, set[int]], maps: list[Any]) -> LinuxNonOwner:
    """The states the maps' priorities beside their owners' read (`linux_non_owner`'s)."""
    out = LinuxNonOwner()
    line = {str(m.name): m for m in maps}
    shown: dict[str, str] = {}
    for name, prios in beside_owner.items():
        states = [(s, of_state) for s, of_state, _ in STATES if prios & set(of_state)]
        # (an optimized group beside a preferred owner's, 50 beside 130, is no other controller's state)
        unread = sorted(prios - {v for _, of_state, _ in STATES for v in of_state} - set(ALUA_OPTIMIZED))
        if unread:
            out.warnings.append((f"arrays.{array}.non_owner_state", f"{mfile}: the map at line {line[name].line} prints "
                                 f"priorit{'ies' if len(unread) > 1 else 'y'} {', '.join(str(v) for v in unread)} beside "
                                 "its owner's group, " + (LBA_DEPENDENT if set(unread) <= set(ALUA_LBA_DEPENDENT) else NO_STATE)
                                 + ": not read; its device runs the array's state (non-optimized where no map shows one)"))
        elif len(states) == 1:
            shown[name] = states[0][0]
        elif len(states) > 1:
            out.warnings.append((f"arrays.{array}.non_owner_state", f"{mfile}: the map at line {line[name].line} prints "
                                 f"priorities {', '.join(str(v) for v in sorted(prios))} beside its owner's group, the alua "
                                 f"prioritizer's {' and '.join(state_words(s) for s, _ in states)}: one state per device is "
                                 "simulated, the array's"))
    unserved = [line[n] for n, s in shown.items() if s == "unavailable"]
    if unserved:
        out.warnings.append((f"arrays.{array}.non_owner_state", f"{mfile}: the groups beside the owner's print priority 0 "
                             f"(map{'s' if len(unserved) > 1 else ''} at line{'s' if len(unserved) > 1 else ''} "
                             f"{_lines(unserved)}): {NOT_DETERMINED}"))
    found = majority(shown)
    if found is None:
        return out
    out.array = (found.state, _read(mfile, [line[n] for n, s in shown.items() if s == found.state], beside_owner,
                                    found.state, found.rule()))
    for name, state in found.apart.items():
        out.maps[name] = (state, _read(mfile, [line[name]], beside_owner, state, ""))
    return out


def _unaveraged_said(out: LinuxNonOwner, array: str, mfile: str, beside_owner: dict[str, set[int]], maps: list[Any],
                     unaveraged: dict[str, list[list[Any]]]) -> None:
    """What the maps whose groups beside the owner's averaged no path run, said: a finding and a
    warning per group; a map that reads no state of its own takes the array's (its device's
    assumption), and where no map reads one the array takes the default (the array's assumption)."""
    line = {str(m.name): m for m in maps}
    silent = [name for name in unaveraged if not beside_owner.get(name)]
    if silent and out.array is None:
        out.array = (DEFAULT_STATE, Assumed(f"{mfile}: no map reads the other controller's ALUA state; "
                                            + "; ".join(_unread(line[n], unaveraged[n]) for n in silent)
                                            + _DEFAULT_RUNS))
    elif silent and out.array is not None:
        for name in silent:
            out.maps.setdefault(name, (out.array[0], Assumed(f"{mfile}: {_unread(line[name], unaveraged[name])}: the "
                                                             f"array's state, {state_words(out.array[0])}, read from its other "
                                                             "maps, runs")))
    for name, groups in unaveraged.items():
        runs = out.maps[name][0] if name in out.maps else out.array[0] if out.array is not None else DEFAULT_STATE
        why = ("no state of the map's own is read: " + ("the array's" if name in out.maps else "the default")
               if name in silent else "the state its other groups beside the owner's read")
        for group in groups:
            states = ", ".join(sorted({f"`{p.checker_state}`" for p in group}))
            said = (f"{mfile}, line {group[0].group_line}: map {name}'s group {group[0].group} prints priority "
                    f"{group[0].group_prio} having averaged no path (switchgroup.c path_group_prio_update averages "
                    f"`ready` and `ghost` paths only; its paths are {states}"
                    + (PENDING if any(str(p.checker_state) == "i/o pending" for p in group) else "")
                    + f"): its ALUA state is not read; simulated {state_words(runs)}, {why}")
            out.findings.append(Finding(f"map {name}: the ALUA state of group {group[0].group}'s paths "
                                        f"({', '.join(str(p.device) for p in group)}) is not read; simulated "
                                        f"{state_words(runs)} (captured)",
                                        f"{said}; a `multipath -ll` once the checks answer, or `sg_rtpg` of these paths, "
                                        "would read it"))
            out.warnings.append((f"arrays.{array}.non_owner_state", said))


def _unread(m: Any, groups: list[list[Any]]) -> str:
    """A map's groups that averaged no path, as an assumption says them."""
    return (f"map {m.name} (line {m.line}): " + ", ".join(f"group {g[0].group} (line {g[0].group_line})" for g in groups)
            + (" beside the owner's prints" if len(groups) == 1 else " beside the owner's print")
            + " 0 having averaged no path (none `ready` or `ghost`: switchgroup.c), so the listing reads no state for "
            + ("it" if len(groups) == 1 else "them"))


def _read(mfile: str, seen_in: list[Any], beside_owner: dict[str, set[int]], state: str, rule: str) -> Derived:
    """Where a state was read: the maps' lines, the priorities they print, and alua.c's meaning."""
    prios = sorted(set().union(*(beside_owner[str(m.name)] for m in seen_in)))
    _, of_state, meaning = next(s for s in STATES if s[0] == state)
    said = NOT_DETERMINED if state == "unavailable" else (
        f"the alua prioritizer's {state_words(state)} (alua.c: {of_state[0]}, {of_state[1]} with the preferred bit): the other "
        f"controller's paths {meaning}")
    return Derived(f"{mfile}: the groups beside the owner's print priority {', '.join(str(v) for v in prios)} "
                   f"(map{'s' if len(seen_in) > 1 else ''} at line{'s' if len(seen_in) > 1 else ''} {_lines(seen_in)}), "
                   f"{said}{rule}", (mfile,))


def state_words(state: str) -> str:
    """A state as the alua prioritizer's words say it: `non-optimized`, `standby`, `unavailable`."""
    return state.replace("active_", "").replace("_", "-")


def _lines(maps: list[Any]) -> str:
    """The maps' header lines, the first five and how many more."""
    return ", ".join(str(m.line) for m in maps[:5]) + (f" and {len(maps) - 5} more" if len(maps) > 5 else "")
