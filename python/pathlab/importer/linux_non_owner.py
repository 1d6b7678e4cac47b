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
path at another moment, or another checker ran; that is said too."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.importer.linux_topology import (
    ALUA_LBA_DEPENDENT,
    ALUA_NO_SERVICE,
    ALUA_NON_OPTIMIZED,
    ALUA_OPTIMIZED,
    ALUA_STANDBY,
)
from pathlab.importer.non_owner_majority import majority
from pathlab.importer.provenance import Derived, Provenance

#: Each state with the alua prioritizer's priorities for it and what its paths do.
STATES = (("standby", ALUA_STANDBY, "are standby"), ("active_non_optimized", ALUA_NON_OPTIMIZED, "serve I/O, forwarded"),
          ("unavailable", ALUA_NO_SERVICE, "serve no I/O"))
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


def linux_non_owner(array: str, mfile: str, beside_owner: dict[str, set[int]], maps: list[Any]) -> LinuxNonOwner:
    """`beside_owner`: each alua-prioritized map's priorities beside its owner's group (map name →
    priorities), `maps` the listing's maps (their header lines)."""
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
                                 f"prioritizer's {' and '.join(_said(s) for s, _ in states)}: one state per device is "
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


def _read(mfile: str, seen_in: list[Any], beside_owner: dict[str, set[int]], state: str, rule: str) -> Derived:
    """Where a state was read: the maps' lines, the priorities they print, and alua.c's meaning."""
    prios = sorted(set().union(*(beside_owner[str(m.name)] for m in seen_in)))
    _, of_state, meaning = next(s for s in STATES if s[0] == state)
    said = NOT_DETERMINED if state == "unavailable" else (
        f"the alua prioritizer's {_said(state)} (alua.c: {of_state[0]}, {of_state[1]} with the preferred bit): the other "
        f"controller's paths {meaning}")
    return Derived(f"{mfile}: the groups beside the owner's print priority {', '.join(str(v) for v in prios)} "
                   f"(map{'s' if len(seen_in) > 1 else ''} at line{'s' if len(seen_in) > 1 else ''} {_lines(seen_in)}), "
                   f"{said}{rule}", (mfile,))


def _said(state: str) -> str:
    """A state as the alua prioritizer's words say it: `non-optimized`, `standby`, `unavailable`."""
    return state.replace("active_", "").replace("_", "-")


def _lines(maps: list[Any]) -> str:
    """The maps' header lines, the first five and how many more."""
    return ", ".join(str(m.line) for m in maps[:5]) + (f" and {len(maps) - 5} more" if len(maps) > 5 else "")
