"""What a `multipath -ll` listing shows by itself, with no performance counter: maps with no
usable path (and whether their I/O waits or fails), a map the listing ends inside (a paste cut
short: its paths after the cut are not known, so none of the above is judged), lost redundancy (one path, one HBA), a
failover grouping over paths the array serves alike, `multipath -l`, which shows no state to
judge, and a handler, grouping or prioritizer that contradicts an ALUA array (with multipath.conf
when given). Each finding names the line of the listing (or of multipath.conf) that shows it.

An array is ALUA when the kernel attached its ALUA handler (`hwhandler='1 alua'`) or when the
groups' priorities are the alua prioritizer's (50 active/optimized, 10 non-optimized, 1 standby;
+80 with the preferred bit): no other prioritizer of multipath-tools gives those pairs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pathlab.finding import Finding
from pathlab.importer.conf_precedence import ConfPrecedence
from pathlab.importer.linux_topology import (
    ALUA_OF_CHECKER,
    ALUA_OPTIMIZED,
    ALUA_OTHER,
    ALUA_STANDBY,
    MIXED,
    cut_at,
    group_prio_reading,
    has_address,
    is_down,
    map_topology,
    optimized_in_every_mix,
)

if TYPE_CHECKING:
    import pandas as pd




def listing_findings(maps: pd.DataFrame, paths: pd.DataFrame, file: str,
                     conf: dict[str, pd.DataFrame] | None = None, conf_file: str = "") -> list[Finding]:
    found: list[Finding] = []
    rows = list(paths.itertuples())
    if rows and all(str(p.checker_state) == "undef" for p in rows):
        found.append(Finding("no path state to judge: `multipath -l` runs no path checker or prioritizer (captured)",
                             f"{file}, line {rows[0].line}: checker state undef on every path; `multipath -ll` shows them"))
    lookup = None if conf is None else ConfPrecedence(conf)
    for m in maps.itertuples():
        mine = [p for p in rows if p.map == m.name]
        found += _map_findings(m, mine, file) + _alua_findings(m, mine, file, lookup, conf_file)
        if cut_at(m) is None:  # a map cut by the paste: its other groups are not known
            found += _standby_findings(m, mine, file)
    return found


def _prio(path: Any) -> int | None:
    try:
        return int(path.group_prio)
    except (TypeError, ValueError):  # not read (`multipath -l`, old brackets without one)
        return None


def _standby_findings(m: Any, mine: list[Any], file: str) -> list[Finding]:
    """The paths of an ALUA map's groups at the alua prioritizer's standby priority (1, 81: a
    gateway's or controller's ports in ALUA Standby, as a Ceph iSCSI gateway that does not own the
    LUN shows them) whose checker says `ready`: how the array works while an optimized path
    serves, said as normal; a finding once none does. Ghost paths are said by
    `capture_findings.multipath_findings`. A map whose every group is at 1 is the const
    prioritizer's, or shows no owner: nothing is said."""
    groups = {p.group: _prio(p) for p in mine}
    alua_prios = bool(set(groups.values()) & set(ALUA_OPTIMIZED)) and set(groups.values()) <= set(ALUA_OPTIMIZED + ALUA_OTHER)
    if not ("alua" in str(m.hwhandler) or alua_prios) or all(v in ALUA_STANDBY for v in groups.values()):
        return []
    live = [p for p in mine if has_address(p) and not is_down(p)]
    standby = [p for p in live if groups[p.group] in ALUA_STANDBY and str(p.checker_state) != "ghost"]
    if not standby:
        return []
    optimized = [p for p in live if groups[p.group] in ALUA_OPTIMIZED]
    other = [p for p in live if p not in standby and p not in optimized and str(p.checker_state) != "ghost"]
    devices = ", ".join(str(p.device) for p in standby)
    where = (f"{file}, line {standby[0].line}: {devices} in the group at priority {standby[0].group_prio}, the alua "
             "prioritizer's standby (alua.c: 1, 81 with the preferred bit)")
    if optimized:
        return [Finding(f"map {m.name}: {len(standby)} path(s) in ALUA standby, used when the array makes their ports "
                        f"active, as the array works; {len(optimized)} optimized path(s) serve it (captured)", where, normal=True)]
    now = (f"I/O runs on {len(other)} non-optimized path(s)" if other
           else "I/O waits for a failover to make one active")
    return [Finding(f"map {m.name}: no optimized path is left, {len(standby)} in ALUA standby: {now} (captured)",
                    where + "; no usable path in an optimized group (priority 50, 130)")]


def _alua_findings(m: Any, mine: list[Any], file: str, conf: ConfPrecedence | None, conf_file: str) -> list[Finding]:
    """A grouping, handler or prioritizer that contradicts an ALUA array."""
    usable = [p for p in mine if has_address(p) and not is_down(p)]
    groups = {p.group: p for p in mine}
    prios = {v for v in (_prio(p) for p in groups.values()) if v is not None}
    alua_handler = "alua" in str(m.hwhandler)
    alua_prios = bool(prios & set(ALUA_OPTIMIZED)) and bool(prios & set(ALUA_OTHER)) and \
        prios <= set(ALUA_OPTIMIZED + ALUA_OTHER)
    out = []
    if alua_prios and not alua_handler:
        first = min(groups.values(), key=lambda p: p.line)
        out.append(Finding(f"map {m.name}: an ALUA array without the `1 alua` hardware handler (captured)",
                           f"{file}, line {m.line}: hwhandler='{m.hwhandler}', while the groups' priorities "
                           f"{sorted(prios, reverse=True)} (first path at line {first.line}) are the alua prioritizer's: the "
                           "kernel does not follow the array's ALUA state changes; `hardware_handler \"1 alua\"` (or "
                           "a kernel that attaches scsi_dh_alua) would"))
    if alua_handler and len(groups) == 1 and len(usable) > 1:
        prio = next(iter(prios)) if len(prios) == 1 else None
        if prio is not None and group_prio_reading(prio, mine) == MIXED:
            why = ("is no ALUA state's that all its paths' checker states allow (tur.c, rdac.c), and an integer mean "
                   "of priorities alua.c gives them")
            states = [str(p.checker_state) for p in mine if str(p.checker_state) in ALUA_OF_CHECKER]
            # Optimized paths named only where every mix of priorities that averages this holds one.
            if optimized_in_every_mix(prio, states):
                over, best = "optimized and non-optimized paths", "the optimized ones"
            else:
                over, best = "paths of differing ALUA priorities", "the best of them"
            out.append(Finding(f"map {m.name}: one path group over {over} of an ALUA array "
                               "(multibus): non-optimized paths carry I/O (captured)",
                               f"{file}, line {usable[0].line}: the group's priority {prio} {why}: an average over paths "
                               "of differing priorities (switchgroup.c: a group's priority is the mean of its `ready` "
                               f"and `ghost` paths'); group_by_prio would keep I/O on {best}"))
    if conf is None or not alua_handler:
        return out
    # multipathd's detect_prio and detect_pgpolicy can overrule multipath.conf on an ALUA array: a
    # setting is a finding only where the listing shows it took effect.
    in_force = {"path_grouping_policy": len(groups) == 1 and len(usable) > 1 and not out, "prio": prios == {1}}
    for keyword, wrong, why in (("path_grouping_policy", "multibus", "every path in one group: non-optimized paths carry "
                                 "I/O; group_by_prio keeps it on the optimized ones"),
                                ("prio", "const", "every path the same priority (1): the array's optimized paths are not "
                                 "preferred; prio alua reads them")):
        setting = configured(conf, m, keyword)
        if setting is not None and setting[0] == wrong and in_force[keyword]:
            out.append(Finding(f"map {m.name}: {keyword} {wrong} on an ALUA array (captured)",
                               f"{conf_file}, line {setting[1]}: {keyword} {wrong}; {file}, line {m.line}: "
                               f"hwhandler='{m.hwhandler}', and the listing shows it in force: {why}"))
    return out


def configured(conf: ConfPrecedence, m: Any, keyword: str) -> tuple[str, int] | None:
    """The value multipath.conf gives `keyword` for map `m` of an ALUA array, and its line, by
    multipath-tools' precedence (`conf_precedence`; the hardware table's entry for the array wins
    over `defaults`)."""
    from pathlab.importer.conf_precedence import hwtable_sets

    vendor, product = str(m.vendor).strip(), str(m.product).strip()
    found = conf.in_force(keyword, str(m.wwid), vendor, product, hwtable_sets(vendor, product, True))
    return None if found is None else (found.value, found.line)


def _map_findings(m: Any, mine: list[Any], file: str) -> list[Finding]:
    cut = cut_at(m)
    if cut is not None:  # what the paste left out is not known: not a path failure
        return [Finding(f"map {m.name}: the listing ends inside this map (line {cut}): its paths after that are not "
                        "known (captured)",
                        f"{file}, line {m.line}: map {m.name}, {len(mine)} path(s) listed before the end at line {cut}; "
                        "paste the whole `multipath -ll` to judge it")]
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

