"""What a Linux host's `multipath -ll` shows an ALUA array reporting through the paths that do not
lead to a LUN's owner: the priority the alua prioritizer (alua.c) printed for each map's groups
beside the owner's, standby (1, 81 with the preferred bit) or non-optimized (10, 90), as the
scenario's `non_owner_state`. The array takes the state most maps show and each other map's
device its own (`non_owner_majority`, the rule the ESXi import reads `TPG_state` by); a map whose
groups beside the owner print both is said, and simulated as the array's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.importer.linux_topology import ALUA_NON_OPTIMIZED, ALUA_STANDBY
from pathlab.importer.non_owner_majority import majority
from pathlab.importer.provenance import Derived, Provenance

#: Each state with the alua prioritizer's priorities for it and what its paths do.
STATES = (("standby", ALUA_STANDBY, "are standby"), ("active_non_optimized", ALUA_NON_OPTIMIZED, "serve I/O, forwarded"))


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
        state = next((s for s, of_state, _ in STATES if prios <= set(of_state)), None)
        if state is not None:
            shown[name] = state
        elif prios & set(ALUA_STANDBY) and prios & set(ALUA_NON_OPTIMIZED):
            out.warnings.append((f"arrays.{array}.non_owner_state", f"{mfile}: the map at line {line[name].line} prints "
                                 f"priorities {', '.join(str(v) for v in sorted(prios))} beside its owner's group, the alua "
                                 "prioritizer's standby and non-optimized: one state per device is simulated, the array's"))
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
    lines = ", ".join(str(m.line) for m in seen_in[:5]) + (f" and {len(seen_in) - 5} more" if len(seen_in) > 5 else "")
    return Derived(f"{mfile}: the groups beside the owner's print priority {', '.join(str(v) for v in prios)} "
                   f"(map{'s' if len(seen_in) > 1 else ''} at line{'s' if len(seen_in) > 1 else ''} {lines}), the alua "
                   f"prioritizer's {state.replace('active_', '').replace('_', '-')} (alua.c: {of_state[0]}, "
                   f"{of_state[1]} with the preferred bit): the other controller's paths {meaning}{rule}", (mfile,))
