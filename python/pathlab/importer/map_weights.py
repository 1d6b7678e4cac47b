"""A map's path priorities under `prio weightedpath` (multipath.conf's `prio_args` evaluated on
each listed path by `weightedpath.py`), checked against the group priorities the listing prints.

multipathd prints a group's priority as the integer average of its usable paths' priorities
(`path_group_prio_update`). Where a group the listing shows with a usable path prints another
priority than weightedpath gives its paths, the multipath.conf given is not the one multipathd
read (edited since, or another host's): the listing is what the kernel has, so each path takes
its group's printed priority, which rebuilds the listing's groups, and a warning says so. A
group whose every path failed prints 0 whatever the paths' priorities: it is not compared."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.api import ScenarioError
from pathlab.importer.conf_precedence import ConfPrecedence, InForce, hwtable_sets
from pathlab.importer.linux_topology import handler_of, is_down, scenario_path
from pathlab.importer.provenance import Derived
from pathlab.importer.weightedpath import Path, Unmatchable, weigh


@dataclass
class MapWeights:
    """Each path's priority by its scenario name, how it was given, and the warnings."""

    priorities: dict[str, int]
    source: Derived
    warnings: list[tuple[str, str]] = field(default_factory=list)


def map_weights(m: Any, paths: list[Any], args: InForce | None, prio: InForce, checked: bool,
                mfile: str, cfile: str) -> MapWeights:
    """The priorities of map `m`'s `paths` (rows of `readers.multipath_ll` with an address) under
    weightedpath with the `prio_args` line `args` (None: no arguments) beside the `prio` line in
    force; `checked`: the listing ran the prioritizer (`multipath -ll`, not `-l`)."""
    text = args.value if args is not None else ""
    said = (f"{cfile}, line {args.line}: prio_args \"{text}\" ({args.place})" if args is not None
            else f"{cfile}, line {prio.line}: prio weightedpath without prio_args")
    lun = int(str(paths[0].hctl).split(":")[3])
    try:
        computed, hows = _weighed(paths, text, lun)
    except Unmatchable as e:
        raise ScenarioError(cfile, f"line {args.line if args else prio.line}",
                            f"prio weightedpath for map {m.name}: {e}") from None
    rule = f"{said}: weightedpath.c, the first pattern that matches: " + "; ".join(
        f"{how} ({mfile}, line {line})" for how, line in hows)
    disagree = _disagreements(paths, computed, lun) if checked else []
    if not disagree:
        return MapWeights(computed, Derived(rule, (cfile, mfile)))
    kept = dict(computed)
    named: set[str] = set()
    for p in paths:
        name = scenario_path(p, lun)
        group = [q for q in paths if int(q.group) == int(p.group)]
        if name not in named and not all(is_down(q) for q in group):
            kept[name] = int(str(p.group_prio))
        named.add(name)
    groups = ", ".join(f"{where}: prio={shown} where weightedpath gives {mine}" for where, shown, mine in disagree)
    warning = (f"{mfile}: map {m.name}'s groups print other priorities than weightedpath over {said} ({groups}): "
               f"the listing's are simulated; the multipath.conf given may not be the one multipathd read")
    return MapWeights(kept, Derived(f"{mfile}: each path its group's printed priority ({groups}); {rule}",
                                    (mfile, cfile)), [(f"devices.{m.wwid}.policy.path_priorities", warning)])


def weights_part_groups(m: Any, paths: list[Any], conf: ConfPrecedence, checked: bool) -> bool:
    """Whether map `m`'s groups are weightedpath's: multipath.conf's `prio` in force for it is
    weightedpath and its `prio_args` give the listed paths the priorities their groups print, on
    a map with no hardware handler. Then its groups apart say nothing of the array: no ALUA, no
    controller owning the LUN (the importer takes groups of different priorities as those
    otherwise)."""
    if handler_of(m.hwhandler) is not None or not checked:
        return False
    vendor, product, wwid = str(m.vendor).strip(), str(m.product).strip(), str(m.wwid)
    prio = conf.in_force("prio", wwid, vendor, product, hwtable_sets(vendor, product, False))
    if prio is None or prio.value.strip('"') != "weightedpath":
        return False
    args = conf.beside(prio, "prio_args", wwid, vendor, product)
    lun = int(str(paths[0].hctl).split(":")[3])
    try:
        computed, _ = _weighed(paths, args.value if args is not None else "", lun)
    except Unmatchable:
        return False  # said where the map's policy is read, if multipathd uses weightedpath there
    return not _disagreements(paths, computed, lun)


def _weighed(paths: list[Any], args: str, lun: int) -> tuple[dict[str, int], list[tuple[str, Any]]]:
    """Each path's weightedpath priority by its scenario name, and how it was given with the
    path's line (two lines the model makes one path keep the first)."""
    computed: dict[str, int] = {}
    hows = []
    for p in paths:
        weight = weigh(args, Path(str(p.hctl), str(p.device)))
        if scenario_path(p, lun) not in computed:
            computed[scenario_path(p, lun)] = weight.priority
            hows.append((weight.how, p.line))
    return computed, hows


def _disagreements(paths: list[Any], computed: dict[str, int], lun: int) -> list[tuple[str, int, int]]:
    """The listed groups with a usable path whose printed priority is not the integer average of
    their usable paths' computed ones: (where the group's line is, printed, computed). A listing
    that prints no group priority is not compared."""
    out = []
    for group in dict.fromkeys(int(p.group) for p in paths):
        members = [p for p in paths if int(p.group) == group]
        up = [computed[scenario_path(p, lun)] for p in members if not is_down(p)]
        shown = str(members[0].group_prio)
        if not up or not shown.lstrip("-").isdigit():
            continue
        mine = sum(up) // len(up)
        if mine != int(shown):
            line = str(getattr(members[0], "group_line", ""))
            out.append((f"line {line}" if line.isdigit() else f"group {group}", int(shown), mine))
    return out
