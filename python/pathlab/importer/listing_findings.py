"""What a `multipath -ll` listing shows by itself, with no performance counter: maps with no
usable path (and whether their I/O waits or fails), lost redundancy (one path, one HBA), a
failover grouping over paths the array serves alike, and `multipath -l`, which shows no state to
judge. Each finding names the line of the listing that shows it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pathlab.finding import Finding
from pathlab.importer.linux_topology import has_address, is_down, map_topology

if TYPE_CHECKING:
    import pandas as pd


def listing_findings(maps: pd.DataFrame, paths: pd.DataFrame, file: str) -> list[Finding]:
    found: list[Finding] = []
    rows = list(paths.itertuples())
    if rows and all(str(p.checker_state) == "undef" for p in rows):
        found.append(Finding("no path state to judge: `multipath -l` runs no path checker or prioritizer (captured)",
                             f"{file}, line {rows[0].line}: checker state undef on every path; `multipath -ll` shows them"))
    for m in maps.itertuples():
        mine = [p for p in rows if p.map == m.name]
        found += _map_findings(m, mine, file)
    return found


def _map_findings(m: Any, mine: list[Any], file: str) -> list[Finding]:
    addressed = [p for p in mine if has_address(p)]
    usable = [p for p in addressed if not is_down(p)]
    queues = "queue_if_no_path" in str(m.features)
    if not usable:
        fate = "its I/O waits until a path returns (queue_if_no_path)" if queues else "its I/O fails"
        return [Finding(f"map {m.name} has no usable path: {fate} (captured)",
                        f"{file}, line {m.line}: " + (f"{len(mine)} path(s), none usable" if mine else "no path listed"))]
    out = []
    if len(usable) == 1:
        out.append(Finding(f"map {m.name} runs on one path: no redundancy left (captured)",
                           f"{file}, line {usable[0].line}: {usable[0].device} is its only usable path of {len(mine)}"))
    else:
        hbas = {str(p.hctl).split(":")[0] for p in usable}
        if len(hbas) == 1:
            out.append(Finding(f"map {m.name}: every usable path goes through one HBA (SCSI host {hbas.pop()}) (captured)",
                               f"{file}, line {usable[0].line}: {len(usable)} usable paths, one adapter"))
    shape = map_topology(m.hwhandler, addressed)
    if shape.grouping == "failover" and not shape.other_ports and len(usable) > 1:
        out.append(Finding(f"map {m.name}: failover grouping, one path carries I/O while {len(usable) - 1} wait, although "
                           "the array serves every path alike (equal priorities, no hardware handler) (captured)",
                           f"{file}, line {m.line}: {len(mine)} groups of one path; path_grouping_policy multibus "
                           "(or group_by_prio on ALUA) would use them all"))
    return out

