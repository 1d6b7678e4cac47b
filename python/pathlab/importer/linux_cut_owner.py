"""The owner of a map that a paste cut after its one group (`MapTopology.cut_one_group`), on an
array whose other maps show two controllers: the group shown is the map's first, and
group_by_prio (the grouping of every ALUA entry of multipath-tools' hardware table) prints the
best group first (pgpolicies.c sorts the groups by priority). Where that group's priority is
alua.c's optimized one (50, or 130 of a release with the preferred bit), its paths lead to the
owner whatever follows the cut: the owner is derived. Otherwise (another priority, an ownership
handler, priorities not read) the groups after the cut could hold the owner's: the group shown
is taken as the owner's, assumed and said."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pathlab.importer.linux_topology import (
    OWNERSHIP_HANDLERS,
    MapTopology,
    Port,
    alua_prioritized,
    alua_state_of,
    read_groups,
    reads_alua_states,
)
from pathlab.importer.provenance import Assumed, Derived, Provenance


@dataclass(frozen=True)
class CutOwner:
    controller: str
    source: Provenance
    #: The `devices.<wwid>.owner` warning where the owner is assumed, else None.
    warning: str | None


def cut_map_owner(m: Any, listed: list[Any], shape: MapTopology, mfile: str, owner_of_port: dict[Port, str],
                  prio: str | None, release: str | None) -> CutOwner:
    """The owner of map `m` (its path rows `listed`, all of its one group), cut at `shape.cut_one_group`:
    the controller other maps read for its group's ports (else the next one not taken), derived
    where the group's priority is an optimized one (`prio`: the prioritizer in force, `release`: the
    listing's, as `reads_alua_states` takes them)."""
    cut = shape.cut_one_group
    known = sorted({owner_of_port[k] for k in shape.owner_ports if k in owner_of_port})
    controller = known[0] if known else ("A" if "A" not in owner_of_port.values() else "B")
    read = read_groups([listed])
    group_line = int(listed[0].group_line)
    value = read[0][1] if read else None
    optimized = (value is not None and shape.handler not in OWNERSHIP_HANDLERS and alua_prioritized(listed)
                 and reads_alua_states(prio, release) and alua_state_of(value, read[0][0]) == "active_optimized")
    if optimized and len(known) <= 1:
        return CutOwner(controller, Derived(
            f"{mfile}: the controller of its one group's paths (line {group_line}, prio={value}: alua.c's optimized), "
            f"though the listing ends inside the map (line {cut}): group_by_prio prints the best group first, and an "
            "optimized group's paths lead to the owner whatever groups follow", (mfile,)), None)
    why = ("its paths lead to both controllers as the other maps show them" if len(known) > 1 else
           f"prio={value if value is not None else listed[0].group_prio} is no optimized one (alua.c: 50, 130) read as "
           "an ALUA state, so the owner's group may be among those after the cut")
    said = (f"{mfile}, line {cut} (map at line {m.line}): the listing ends inside the map after the one group it shows "
            f"(line {group_line}), whose {why}: the owner is taken as the controller of that group's paths ({controller}), "
            "assumed")
    return CutOwner(controller, Assumed(said), said)
