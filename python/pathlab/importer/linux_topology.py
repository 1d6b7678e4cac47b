"""What a `multipath -ll` map's groups say about the array behind it, as multipath-tools builds
them (libmultipath/pgpolicies.c, propsel.c) and the kernel's hardware handlers serve them:

* grouping: one group is built by `multibus`, and by `group_by_prio` when every path has one
  priority: not determined (`multibus` is kept to simulate the picture); a group per path with
  some priorities equal among the groups with a usable path is `failover` (one path carries I/O;
  group_by_prio would have grouped the equal ones), and with none equal it is not determined
  either (failed groups' priorities are 0 because the prioritizer did not reach them); other groupings by
  priority are `group_by_prio` (the default of every ALUA entry of the hardware table, and what
  detect_pgpolicy picks on TPGS arrays; `group_by_serial` and `group_by_node_name` build the same
  shape and are not told apart).
* the owner's groups: on a map the alua prioritizer ranks (`alua_prioritized`, no ownership handler), where every group
  with a `ready` or `ghost` path prints a priority of one ALUA state (`alua_state_of`) and one of
  them an optimized one, the optimized groups (`owner_by_state`): alua.c adds 80 for the preferred
  bit to a path that is not optimized (to an optimized one only with `exclusive_pref_bit`), so a
  non-optimized preferred group prints 90 above an optimized group's 50, and the best priority is
  not the owner's; elsewhere those at the best priority among groups with a usable path (groups
  of equal priority are paths in one ALUA state, whichever the kernel made active; a group at an
  average of several states' priorities leaves the states open, `MapTopology.owner_open`); where priorities were
  not read (`multipath -l` runs no prioritizer), the group multipathd marked `active`, the others
  another controller's where group_by_prio made them (groups of several paths) or an ownership
  handler serves the LUN (groups of one path under `-l` are failover's over any paths alike). A
  group whose every path failed says nothing of the array: its priority is 0 because the
  prioritizer could not reach the port, not because another controller stands there.
* the handler: `alua` (SCSI ALUA: the other controller's paths are active/non-optimized), or a
  LUN-ownership handler (`rdac`, `emc`, `hp_sw`: the other controller's paths are passive until a
  failover moves the LUN; `ghost` in the checker state), or none. A map of an ownership handler
  whose groups part the owner's paths is prioritized by the handler's own prioritizer
  (`OWNER_PRIORITIZER`), so that the simulation groups its paths as the listing does.
* `multipath -l`: no checker ran (every checker state `undef`), so path states and priorities are
  not known: the paths are taken as usable, and that is said."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

#: Handlers of arrays where one controller owns a LUN and the other's paths are passive.
OWNERSHIP_HANDLERS = ("rdac", "emc", "hp_sw")
#: Path states that carry no I/O.
DOWN = frozenset({"failed", "faulty", "shaky", "offline"})

Port = tuple[int, int]


@dataclass(frozen=True)
class MapTopology:
    grouping: str
    #: The ports of the owner's group, and of the other groups with a usable path.
    owner_ports: frozenset[Port]
    other_ports: frozenset[Port]
    #: `alua`, `rdac`, `emc`, `hp_sw` or None, from `hwhandler='1 rdac'`.
    handler: str | None
    #: False for `multipath -l`: no checker or prioritizer ran.
    checked: bool
    #: `const` when every group that was prioritized shows priority 1 (the const prioritizer's
    #: value for every path), else None: alua, emc and ontap come from the claim (TPGS, table).
    prioritizer: str | None = None
    #: Why the listing does not determine `grouping` (which then only builds the picture it
    #: shows, for the simulation), or None where it does.
    undetermined: str | None = None
    #: The rule by which the listing determines `grouping`, where it does.
    grouping_rule: str = ""
    #: The rule that took the owner's groups where it is not the best priority's: the optimized
    #: groups below a group alua.c's preferred bit raised (`owner_by_state`), else "".
    owner_rule: str = ""
    #: Why the ALUA states of the groups are not determined where the best group's priority is no
    #: optimized one (an average over paths of several states): the owner is then the best group's.
    owner_open: str | None = None
    #: The line the listing ends at inside this map where it shows one group (`cut_one_group`):
    #: whether other groups follow is not known, so the grouping and the array's symmetry are
    #: assumed from it, not read.
    cut_one_group: int | None = None
    #: What the rules read from this map's groups say of where the listing ends: after two or more
    #: groups inside it, "read from the N groups listed before the cut at line L"; else "".
    cut_note: str = ""

    @property
    def groups_by_owner(self) -> bool:
        """Whether the map shows controllers: paths to the owner apart from the others."""
        return bool(self.other_ports)


def handler_of(hwhandler: Any) -> str | None:
    """`1 alua` → alua; `0` or nothing → None."""
    words = str(hwhandler or "").strip().strip('"').split()
    return words[1] if len(words) >= 2 and re.fullmatch(r"\d+", words[0]) and words[0] != "0" else None


def table_features(features: Any) -> str | None:
    """A map's features as multipath.conf writes them: the listing's without `queue_if_no_path`
    (dm-mpath prints it while the map queues; `no_path_retry` sets it), recounted; None when the
    listing shows none or no count."""
    words = str(features or "").strip().strip("'\"").split()
    if not words or not words[0].isdigit():
        return None
    kept = [w for w in words[1:] if w != "queue_if_no_path"]
    return " ".join([str(len(kept)), *kept])


def has_address(path: Any) -> bool:
    """Whether a path still has its SCSI address (H:C:T:L); a path whose device is gone shows `#:#:#:#`."""
    return isinstance(path.hctl, str) and re.fullmatch(r"\d+:\d+:\d+:\d+", path.hctl) is not None


def port_of(path: Any) -> Port:
    """(SCSI host, target) of a path's H:C:T:L: the array port it reaches through that HBA."""
    h, _, t, _ = (int(x) for x in str(path.hctl).split(":"))
    return h, t


def scenario_path(path: Any, lun: int | None = None) -> str:
    """The scenario's name of a listed path: `host1:C0:T3:L7` from `1:0:3:7` (the model has one
    channel), the map's LUN `lun` where given (a map's paths are named by its first path's L)."""
    h, _, t, own = (int(x) for x in str(path.hctl).split(":"))
    return f"host{h}:C0:T{t}:L{own if lun is None else lun}"


def is_down(path: Any) -> bool:
    return bool({str(path.dm_state), str(path.checker_state)} & DOWN)


def map_topology(hwhandler: Any, paths: list[Any], in_force: str | None = None, release: str | None = None,
                 cut: int | None = None) -> MapTopology:
    """The topology of one map from its path rows (readers.multipath_ll's `paths` table); `in_force`:
    the prioritizer multipath.conf puts in force for it (`map_policy.conf_prio`; None where none
    is set or detect_prio picks), `release`: the multipath-tools release the listing's printing
    shows where it is not today's (`linux.listing_release`). The owner is read from the ALUA
    states only where the priorities are alua.c's of a release that has the preferred bit
    (`reads_alua_states`); `cut`: the line the listing ends at inside the map (`cut_at`), where a
    paste cut it: one group shown is then no one-group map read (`cut_one_group`)."""
    groups: dict[int, list[Any]] = {}
    for p in paths:
        groups.setdefault(int(p.group), []).append(p)
    checked = any(str(p.checker_state) not in ("undef", "None", "<NA>", "nan") for p in paths)
    live = {n: g for n, g in groups.items() if not all(is_down(p) for p in g)}
    grouping, rule = grouping_of(list(groups.values()), list(live.values()), handler_of(hwhandler) == "alua", checked)
    undetermined = rule if rule in UNDETERMINED else None
    cut_after_one = cut if cut is not None and len(groups) == 1 else None
    if cut_after_one is not None:
        undetermined = CUT_ONE_GROUP
    usable = live or groups

    def prio(group: list[Any]) -> int | None:
        value = group[0].group_prio
        return int(value) if checked and value is not None and str(value) not in ("<NA>", "nan") else None

    known = [value for value in (prio(g) for g in usable.values()) if value is not None]
    best = max(known, default=None)
    handler = handler_of(hwhandler)
    by_state, owner_open = (owner_by_state(list(usable.values()))
                            if best is not None and handler not in OWNERSHIP_HANDLERS and alua_prioritized(paths)
                            and reads_alua_states(in_force, release) else (None, None))
    if by_state is not None:
        owner = by_state
    elif best is not None:
        # Every group at the best priority: groups of one priority are paths in one ALUA state
        # (two prio-50 groups are all optimized), whichever of them the kernel made active.
        owner = [g for g in usable.values() if prio(g) == best]
    else:  # priorities were not read (`multipath -l`): the group multipathd made active
        owner = [next((g for g in usable.values() if str(g[0].group_status) == "active"), next(iter(usable.values())))]
    owner_ports = frozenset(port_of(p) for g in owner for p in g)
    other_ports = frozenset(port_of(p) for g in usable.values() for p in g) - owner_ports
    if checked:
        apart = best is not None and any(prio(g) != best for g in usable.values())
    else:  # groups of several paths: group_by_prio parted them by priority (one-path groups may be failover's)
        apart = len(usable) > 1 and grouping == "group_by_prio"
    if handler is None and not apart:
        other_ports = frozenset()  # equal paths and no handler: no controller to tell apart
    elif not checked and not apart and handler not in OWNERSHIP_HANDLERS:
        # `-l`'s groups of one path: failover's over any paths alike; only an ownership handler's
        # active group is the owner's (it sends I/O to the owning controller alone)
        other_ports = frozenset()
    prioritizer: str | None = None
    if handler in OWNERSHIP_HANDLERS and other_ports:
        prioritizer = handler  # OWNER_PRIORITIZER
    elif known and all(value == 1 for value in known):
        prioritizer = "const"
    owner_rule = ("" if by_state is None or all(prio(g) == best for g in by_state)
                  else OWNER_BELOW_AVERAGE if owner_open else OWNER_BY_STATE)
    cut_note = (f"read from the {len(groups)} groups listed before the cut at line {cut}"
                  if cut is not None and len(groups) > 1 else "")
    return MapTopology(grouping, owner_ports, other_ports, handler, checked, prioritizer, undetermined,
                       "" if undetermined else rule, owner_rule, owner_open if checked else None, cut_after_one,
                       cut_note)


#: What alua.c's 130 claims of the release: a preferred optimized path's, which 0.4.9 printed for
#: every one (b68400c7), 0.5.x for none (b330bf8a left the bit off optimized paths) and 0.6.0 on
#: only with `prio_args "exclusive_pref_bit"` (0a5c06fb).
PREFERRED_OPTIMIZED = ("130 a preferred optimized path's: multipath-tools 0.4.9's for every one, 0.6.0 on with "
                       "exclusive_pref_bit only (b330bf8a, 0a5c06fb), so read as of one of those releases")
#: The rules `owner_by_state` names: the optimized groups below one of a state alua.c's preferred
#: bit raised, or below an average of several states.
OWNER_BY_STATE = (f"the optimized groups (alua.c: 50; {PREFERRED_OPTIMIZED}), though another group prints a higher "
                  "priority: alua.c adds 80 for the preferred bit to a path that is not optimized")
OWNER_BELOW_AVERAGE = (f"the optimized groups (alua.c: 50; {PREFERRED_OPTIMIZED}), though a group at an average of "
                       "several states' priorities prints a higher one")


def alua_state_of(prio: int, group: list[Any]) -> str | None:
    """The ALUA state a group's priority decides: where a `ready` or `ghost` path of the group was
    averaged (`AVERAGED`; a group of none prints 0 from no path) and the priority reads as one
    state's that all of them can be in (`group_prio_reading`: group_by_prio groups paths of one
    priority), `ALUA_STATE_OF`; else None (an average over several states, or nothing read)."""
    if prio not in ALUA_STATE_OF or not any(str(p.checker_state) in AVERAGED for p in group if not is_down(p)):
        return None
    return ALUA_STATE_OF[prio] if group_prio_reading(prio, group) == ONE_PRIORITY else None


def read_groups(usable: list[list[Any]]) -> list[tuple[list[Any], int]]:
    """The groups whose printed priority averaged a path (a `ready` or `ghost` one, `AVERAGED`:
    a group of none prints 0 from no path), with that priority."""
    return [(g, int(str(g[0].group_prio))) for g in usable
            if str(g[0].group_prio).isdigit() and any(str(p.checker_state) in AVERAGED for p in g if not is_down(p))]


def reads_alua_states(prio: str | None, release: str | None) -> bool:
    """Whether a map's group priorities are read as the ALUA states alua.c's priorities encode:
    where the prioritizer in force is alua's (alua, sysfs, which gives alua.c's priorities, or
    none set, detect_prio's pick on a TPGS LUN: `map_policy.conf_prio`), and the listing's
    release averages its groups and has the preferred bit (0.4.8, the bracket layout, sums a
    group's paths and has no preferred bit: b68400c7 came in 0.4.9)."""
    return prio in (None, "alua") and release not in PRE_PREFERRED_BIT


#: The releases whose listings `reads_alua_states` leaves to the best priority.
PRE_PREFERRED_BIT = ("0.4.8",)


def owner_by_state(usable: list[list[Any]]) -> tuple[list[list[Any]] | None, str | None]:
    """The owner's groups by the ALUA states alua.c's priorities encode (`alua_state_of`): the
    optimized ones, where a group that averaged a path reads optimized, with why a group above
    them is not determined where one is an average over several states (`owner_open`); where none
    reads optimized, None, with why the states are not determined where that leaves the best
    group's priority no optimized one (then the best group is taken, today's rule for priorities
    not read)."""
    states = [(g, prio, alua_state_of(prio, g)) for g, prio in read_groups(usable)]
    optimized = [g for g, _, state in states if state == "active_optimized"]
    top = max((prio for _, prio, state in states if state == "active_optimized"), default=None)
    above = [prio for _, prio, state in states if state is None and top is not None and prio > top]
    if optimized:
        return optimized, (None if not above else (
            f"group priorit{'ies' if len(above) > 1 else 'y'} {', '.join(str(v) for v in above)} above the optimized "
            f"group's {top} {'are' if len(above) > 1 else 'is'} no one ALUA state's (alua.c) that "
            f"{'their' if len(above) > 1 else 'its'} paths' checker states allow: an average over paths of several "
            "states (switchgroup.c), whose port group is not determined; taken as the other controller's, and "
            "dm-multipath runs the highest group where the simulation ranks the groups by their states"))
    open_ = [prio for _, prio, state in states if state is None]
    best = max((prio for _, prio, _ in states), default=None)
    if open_ and best is not None and best not in ALUA_OPTIMIZED:
        return None, (f"group priorit{'ies' if len(open_) > 1 else 'y'} {', '.join(str(v) for v in open_)} "
                      f"{'are' if len(open_) > 1 else 'is'} no one ALUA state's (alua.c) that {'their' if len(open_) > 1 else 'its'} "
                      "paths' checker states allow: an average over paths of several states (switchgroup.c), so which "
                      "group is optimized is not determined; the owner is taken as the best group's")
    return None, None


#: Why a map of an ownership handler whose groups part the owner's paths from the others is
#: prioritized by the handler's own prioritizer: multipath-tools' hardware table pairs each of
#: these handlers' checkers with its prioritizer (0.14.3 `hwtable.c`: the 25 `rdac` entries,
#: `hp_sw` for HSG80 and MSA/HSV1x0, `emc` for DGC), and no other prioritizer of
#: `libmultipath/prioritizers/` reads the ownership these handlers serve.
OWNER_PRIORITIZER = ("prio {handler}: the {handler} handler's own prioritizer (multipath-tools' hardware table pairs every "
                     "{handler} array with it), the groups parting the owning controller's paths from the others")


#: The alua prioritizer's priorities of a path group whose paths share one state: optimized,
#: non-optimized, standby, each with and without the preferred bit (multipath-tools
#: `prioritizers/alua.c`). A group at another priority averages paths in several states.
ALUA_OPTIMIZED = (50, 130)
#: Non-optimized (AAS_NON_OPTIMIZED 10, +80 with the preferred bit).
ALUA_NON_OPTIMIZED = (10, 90)
#: Standby (AAS_STANDBY 1, +80 with the preferred bit).
ALUA_STANDBY = (1, 81)
ALUA_OTHER = ALUA_NON_OPTIMIZED + ALUA_STANDBY
#: Any other state (alua.c's `default:` 0, +80 with the preferred bit): unavailable, offline,
#: transitioning, or a code SPC reserves; none of them serves I/O, and the listing cannot tell
#: them apart.
ALUA_NO_SERVICE = (0, 80)
#: Logical-block dependent (AAS_LBA_DEPENDENT 5, +80 with the preferred bit): no state pathlab simulates.
ALUA_LBA_DEPENDENT = (5, 85)
#: The ALUA state alua.c's priority of one path decides, without and with the preferred bit
#: (`prioritizers/alua.c` getprio: 50 optimized, 10 non-optimized, 5 logical-block dependent, 1
#: standby, 0 any other; `rc += 80` where the preferred bit is set and the state is not optimized,
#: or `exclusive_pref_bit` is in prio_args), by pathlab's names for the states (`AluaState`).
ALUA_PRIOS = {"active_optimized": ALUA_OPTIMIZED, "active_non_optimized": ALUA_NON_OPTIMIZED,
              "lba_dependent": ALUA_LBA_DEPENDENT, "standby": ALUA_STANDBY, "unavailable": ALUA_NO_SERVICE}
ALUA_STATE_OF = {prio: state for state, prios in ALUA_PRIOS.items() for prio in prios}
#: Every priority alua.c gives one path: a group at another holds paths of several priorities.
ALUA_ONE_STATE = ALUA_OPTIMIZED + ALUA_OTHER + ALUA_LBA_DEPENDENT + ALUA_NO_SERVICE
#: The checker states whose paths multipathd averages into a group's priority (switchgroup.c's
#: `path_group_prio_update`: PATH_UP, PATH_GHOST); a group with none prints 0, read from no path.
AVERAGED = ("ready", "ghost")
#: The alua prioritizer's priorities a path can have in each checker state multipathd averages.
#: tur.c (multipath-tools c2fcdaf, checkers/tur.c lines 183-216; the checker a TPGS LUN gets)
#: prints `ready` (PATH_UP) for a TEST UNIT READY answered GOOD, which the port groups that serve
#: I/O do: optimized, non-optimized, logical-block dependent; `ghost` (PATH_GHOST) for NOT READY
#: 04h/0Bh, a port in standby; transitioning (04h/0Ah) is PATH_PENDING, and unavailable, offline
#: and any other NOT READY PATH_DOWN. rdac.c (the hardware table's checker of 25 arrays, which a
#: TPGS LUN keeps under `detect_checker no` while detect_prio gives it the alua prioritizer;
#: checkers/rdac.c lines 311-338) prints `ghost` for a port of the controller that does not own
#: the LUN (no owner bit, no I/O shipping), which serves I/O non-optimized: 10, 90 preferred.
#: (It also passes a path while both controllers report transitioning, lines 325-330, a moment
#: of an STPG, which the table leaves out.) So no `ready` or `ghost` path is at alua.c's 0 or 80.
ALUA_OF_CHECKER = {"ready": ALUA_OPTIMIZED + ALUA_NON_OPTIMIZED + ALUA_LBA_DEPENDENT,
                   "ghost": ALUA_STANDBY + ALUA_NON_OPTIMIZED}
#: prio const's priority of every path (multipath-tools prioritizers/const.c line 8): a group of
#: `ready` paths at 1 is one priority whatever their states (`listing_findings` reads const in force).
CONST_PRIO = 1


#: How a one-group map's priority reads (`group_prio_reading`).
ONE_PRIORITY, MIXED, UNATTAINABLE = "one priority", "mixed", "unattainable"


def attainable_means(states: list[str]) -> set[int]:
    """The group priorities multipathd can print over paths in checker `states` (each `ready` or
    `ghost`): switchgroup.c's `path_group_prio_update`, the integer division of the sum of the
    priorities alua.c can give them (`ALUA_OF_CHECKER`) by their count. (A path whose prioritizer
    failed, discovery.c's PRIO_UNDEF, is left out of the mean: the listing does not show which.)"""
    return {total // len(states) for total, _ in _sums(states)}


def optimized_in_every_mix(prio: int, states: list[str]) -> bool:
    """Whether every mix of priorities alua.c can give paths in checker `states` whose integer mean
    is `prio` holds an optimized path: 30 over four `ready` paths is (50 + 50 + 10 + 10) / 4, but
    also (90 + 10 + 10 + 10) / 4, with none."""
    return all(optimized for total, optimized in _sums(states) if total // len(states) == prio)


def _sums(states: list[str]) -> set[tuple[int, bool]]:
    """Each sum of priorities alua.c can give paths in checker `states`, with whether an optimized
    one is among its terms."""
    sums = {(0, False)}
    for state in states:
        sums = {(total + value, optimized or value in ALUA_OPTIMIZED)
                for total, optimized in sums for value in ALUA_OF_CHECKER[state]}
    return sums


def group_prio_reading(prio: int, paths: list[Any]) -> str:
    """How a group's priority reads over its paths' checker states. The rule: `ONE_PRIORITY` where
    alua.c gives a state every `ready` and `ghost` path of the group can be in that priority (1 is
    prio const's for every path, `CONST_PRIO`; a group of none averaged no path: alua.c's every
    one-path priority); else `MIXED`, an average of differing priorities (group_by_prio would have
    parted them), where it is an integer mean of priorities those paths can have
    (`attainable_means`: (50 + 90 + 90 + 90) / 4 = 80 over four `ready` paths); else
    `UNATTAINABLE`, read from no state of theirs: 0 over `ready` paths, whose least is 5."""
    averaged = [str(p.checker_state) for p in paths if str(p.checker_state) in ALUA_OF_CHECKER]
    if prio == CONST_PRIO:
        return ONE_PRIORITY
    if not averaged:
        return ONE_PRIORITY if prio in ALUA_ONE_STATE else UNATTAINABLE
    if all(prio in ALUA_OF_CHECKER[state] for state in averaged):
        return ONE_PRIORITY
    return MIXED if prio in attainable_means(averaged) else UNATTAINABLE


def other_group_prios(paths: list[Any], topology: MapTopology) -> set[int]:
    """The priorities the listing prints for a map's groups beside the owner's: groups with a
    usable path, every one of whose ports leads to another controller (none under `-l`). A 0 is
    the prioritizer's only where a path of the group is `ready` or `ghost` (`AVERAGED`): a group
    of paths only `i/o pending` prints 0 having averaged none."""
    return {int(str(g[0].group_prio)) for g in _beside_owner(paths, topology)
            if int(str(g[0].group_prio)) not in ALUA_NO_SERVICE or any(str(p.checker_state) in AVERAGED for p in g)}


def unaveraged_groups(paths: list[Any], topology: MapTopology) -> list[list[Any]]:
    """The usable paths of each group beside the owner's at 0 (80) none of which is `ready` or
    `ghost` (the groups `other_group_prios` leaves out): switchgroup.c's `path_group_prio_update` averages no path of
    theirs and prints 0 (`i/o pending` is tur.c's PATH_PENDING: a check not yet answered, or a
    port group in an ALUA transition, NOT READY 04h/0Ah), so the listing reads no state for them."""
    return [g for g in _beside_owner(paths, topology)
            if int(str(g[0].group_prio)) in ALUA_NO_SERVICE and not any(str(p.checker_state) in AVERAGED for p in g)]


def _beside_owner(paths: list[Any], topology: MapTopology) -> list[list[Any]]:
    """The usable paths of each group with a printed priority every one of whose ports leads to
    another controller than the owner's (none under `-l`)."""
    if not topology.checked:
        return []
    out = []
    for group in dict.fromkeys(int(p.group) for p in paths):
        members = [p for p in paths if int(p.group) == group and not is_down(p)]
        if members and str(members[0].group_prio).isdigit() and all(port_of(p) in topology.other_ports for p in members):
            out.append(members)
    return out


#: The ontap prioritizer's priorities of FC paths (multipath-tools `prioritizers/ontap.c`): 4 a
#: path to the LUN's owner, 1 a proxy path through its partner (iSCSI paths: 3 and 2, all alike).
ONTAP_FCP = (4, 1)


def ontap_prioritized(paths: list[Any]) -> bool:
    """Whether a map's usable groups print the ontap prioritizer's 4 and 1 and nothing else: the
    prioritizer NETAPP's hardware table entry names, which multipath-tools takes only for a LUN
    that does not report TPGS (`detect_prio`, on by default, takes alua for one that does)."""
    shown = {str(p.group_prio) for p in paths if not is_down(p)}
    return shown == {str(v) for v in ONTAP_FCP}


def alua_prioritized(paths: list[Any]) -> bool:
    """Whether a map's priorities are the alua prioritizer's: a group with a usable path prints an
    optimized one (`ALUA_OPTIMIZED`). Others give 1 to what is not standby: ontap.c 4 to a path
    to the LUN's owner and 1 to a proxy path through its partner, which serves I/O."""
    return any(str(p.group_prio).isdigit() and int(str(p.group_prio)) in ALUA_OPTIMIZED
               for p in paths if not is_down(p))


def grouping_of(groups: list[list[Any]], live: list[list[Any]], alua: bool = False,
                checked: bool = True) -> tuple[str, str]:
    """The grouping that builds the groups the listing shows, and the rule that gives it, or why
    the listing does not determine it (one of `UNDETERMINED`). Only the groups with a usable path say anything: a group
    whose every path failed shows priority 0 because the prioritizer could not reach its port.
    The grouping returned where it is not determined builds the same picture, for the simulation.
    One group of an ALUA map at an average of differing priorities of its paths (`group_prio_reading`)
    holds paths of several priorities: group_by_prio would have parted them, so it is multibus. Under `multipath -l`
    (not `checked`) no priority was read: a group per path is failover's or group_by_prio's alike."""
    if len(groups) == 1:
        prio = str(groups[0][0].group_prio)
        reading = group_prio_reading(int(prio), groups[0]) if alua and prio.isdigit() else ONE_PRIORITY
        return "multibus", {MIXED: MIXED_ONE_GROUP, UNATTAINABLE: ONE_GROUP_UNATTAINABLE}.get(reading, ONE_GROUP)
    if not all(len(g) == 1 for g in groups):
        return "group_by_prio", GROUPS_OF_SEVERAL
    prios = [str(g[0].group_prio) for g in live]
    if not checked and len(live) > 1:
        return "failover", ONE_PATH_GROUPS_UNCHECKED
    if len(set(prios)) < len(prios):
        return "failover", EQUAL_ONE_PATH_GROUPS
    if len(live) < 2:
        return "failover", ONE_PATH_GROUPS_FAILED
    return "group_by_prio", ONE_PATH_GROUPS_APART


#: Why the listing does not determine a map's grouping, per shape.
ONE_GROUP = "the listing shows one group: multibus or group_by_prio (all paths one priority) build it; not determined"
ONE_PATH_GROUPS_FAILED = ("the listing shows a group per path and every path but one at most failed (a failed path's "
                          "priority is not read): failover or group_by_prio build it; not determined")
ONE_PATH_GROUPS_UNCHECKED = ("the listing shows a group per path and no priority (`multipath -l` runs no prioritizer): "
                             "failover or group_by_prio build it; not determined")
ONE_PATH_GROUPS_APART = ("the listing shows a group per path, no two usable ones of one priority: failover or "
                         "group_by_prio build it; not determined")
ONE_GROUP_UNATTAINABLE = ("the listing shows one group at a priority that is neither alua.c's for a state its `ready` and "
                          "`ghost` paths can be in (tur.c, rdac.c) nor an integer mean of theirs (switchgroup.c): not "
                          "read from their states; multibus or group_by_prio build it; not determined")
#: A map the listing ends inside after one group: the groups after the cut are not known.
CUT_ONE_GROUP = ("the listing ends inside the map after the one group it shows, so whether other groups follow is not "
                 "known: one group (multibus's, or group_by_prio's of paths of one priority) is not read; simulated as "
                 "the one group listed (multibus), assumed")
#: The same, beside another map of the vendor and product whose groups read a grouping: that one's.
CUT_ONE_GROUP_BESIDE = ("the listing ends inside the map after the one group it shows, so whether other groups follow is "
                        "not known: one group is not read; simulated as {grouping}, the grouping map {other} (line "
                        "{line}) of the same vendor and product reads, assumed")
UNDETERMINED = (ONE_GROUP, CUT_ONE_GROUP, ONE_GROUP_UNATTAINABLE, ONE_PATH_GROUPS_FAILED, ONE_PATH_GROUPS_UNCHECKED, ONE_PATH_GROUPS_APART)
#: The rules by which the listing determines a map's grouping, per shape.
MIXED_ONE_GROUP = ("one group at a priority that is an integer mean (switchgroup.c) of priorities alua.c gives states its "
                   "`ready` and `ghost` paths can be in (tur.c, rdac.c), and no state's they could all be in: its paths' "
                   "priorities differ, which group_by_prio would have parted: multibus")
GROUPS_OF_SEVERAL = ("groups of several paths apart: group_by_prio (group_by_serial and group_by_node_name build the same "
                     "shape)")
EQUAL_ONE_PATH_GROUPS = ("a group per path, two usable ones of one priority, which group_by_prio would have put together: "
                         "failover")


def cut_at(m: Any) -> int | None:
    """The line a listing cut short inside map `m` ends at (`readers.multipath_ll`'s `cut`), or None."""
    import pandas as pd

    cut = getattr(m, "cut", None)
    return None if cut is None or pd.isna(cut) else int(cut)
