"""A dm-multipath map's policy as `multipath -ll` and multipath.conf give it, each key with its own
provenance: the selector read on its group's line, features and hardware handler on the map's
properties line, the grouping and no_path_retry derived by their named rules (or read in
multipath.conf, by multipath-tools' precedence: `conf_precedence`), the prioritizer derived from
the groups or read in multipath.conf.

The prioritizer multipath.conf names (0.14.3 `propsel.c` `select_prio`): with `detect_prio` on
(its default) a path of an array that answers for TPGS gets `sysfs` where the kernel shows its
`access_state`, else `alua`, whatever `prio` says; otherwise the `prio` in force is used.
`sysfs` (`prioritizers/sysfs.c`) gives alua's priorities (`prioritizers/alua.c`: 50 optimized, 10
non-optimized, 5 LBA-dependent, 1 standby, +80 for the preferred bit) from the kernel's copy of
the ALUA state, so it is simulated as `alua`; a prioritizer the simulation does not run
(`random`, `path_latency`, …) is refused naming its line rather than simulated as another.
`weightedpath` gives each path the priority of the first `prio_args` pattern its H:C:T:L or
device name matches (`weightedpath.py`), checked against the group priorities the listing
prints (`map_weights.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.api import ScenarioError, policy_choices
from pathlab.importer.conf_precedence import ConfPrecedence, InForce, hwtable_sets
from pathlab.importer.imported import Undetermined
from pathlab.importer.linux_topology import (
    CUT_ONE_GROUP,
    CUT_ONE_GROUP_BESIDE,
    OWNER_PRIORITIZER,
    OWNERSHIP_HANDLERS,
    MapTopology,
    is_down,
    table_features,
)
from pathlab.importer.map_weights import map_weights
from pathlab.importer.provenance import Assumed, Derived, Provenance, Read

#: multipath -ll's selector words → pathlab's dm selector names.
SELECTORS = {"service-time": "service-time", "round-robin": "round-robin", "queue-length": "queue-length",
             "historical-service-time": "historical-service-time", "io-affinity": "io-affinity"}
#: What multipath.conf adds to what `multipath -ll` shows, as pathlab's dm-multipath parameters.
CONF_KEYS = ("failback", "no_path_retry", "path_grouping_policy")
#: The groupings pathlab simulates (group_by_serial and group_by_node_name are not).
GROUPINGS = ("failover", "multibus", "group_by_prio")
#: What `sysfs` is simulated as, and why.
SYSFS_AS = "alua"
SYSFS_RULE = ("prio sysfs: prioritizers/sysfs.c gives alua.c's priorities (50, 10, 5, 1, +80 preferred) from the "
              "kernel's access_state: simulated as alua")
SETTLE = "multipath.conf or `multipathd show config` would tell"


def conf_settings(conf: ConfPrecedence, wwid: str, vendor: str, product: str,
                  tpgs: bool = False) -> dict[str, InForce]:
    """The failback, no_path_retry and path_grouping_policy in force for a map, with the line
    that sets them, by multipath-tools' precedence (`conf_precedence`). What the hardware table
    sets is left out: the scenario's claim tables give it (`_core.linux_claim`)."""
    hwtable = hwtable_sets(vendor, product, tpgs)
    found = {key: conf.in_force(key, wwid, vendor, product, hwtable) for key in CONF_KEYS}
    return {key: f for key, f in found.items() if f is not None}


def conf_value(value: Any) -> Any:
    """A multipath.conf word or number as the scenario writes it (`queue`, `manual`, 30)."""
    text = str(value).strip()
    return int(text) if text.isdigit() else text


def retry_from_features(m: Any, paths: list[Any], table_retries: str) -> tuple[str | None, str | None, str | None]:
    """What a map's features say of its no_path_retry: the value to simulate (None: the claim's),
    why it is derived, and why it is not determined. With paths up, multipathd sets
    queue_if_no_path for `queue` and for a number of retries alike, and neither for `fail`: a map
    whose features show none does not queue now, whatever the built-in table would set; one that
    shows it queues by `queue` or by N retries (the table's number where it sets one, for the claim)."""
    line = f"(map at line {m.line})"
    default = f"; the built-in default would be {table_retries}" if table_retries else ""
    if "queue_if_no_path" in str(m.features):
        return ("queue" if not table_retries.isdigit() else None, None,
                f"the listing's features show queue_if_no_path {line}: no_path_retry queue or a number of retries "
                f"sets it; not determined{default}")
    if table_features(m.features) is not None and not all(is_down(p) for p in paths):  # retries run out drop it too
        return "fail", f"the listing's features show no queue_if_no_path {line}{default}", None
    return None, None, None


@dataclass
class MapPolicy:
    """A map's `policy` table, where each key comes from (`fields`), the sentence the table's own
    line says, and what the captures leave open (each also a warning)."""

    policy: dict[str, Any]
    fields: dict[str, Provenance]
    source: Derived
    undetermined: list[Undetermined] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)


def grouping_beside(m: Any, maps: list[Any], topology: dict[str, MapTopology]) -> tuple[str, Any] | None:
    """For a map the listing ends inside after one group (`MapTopology.cut_one_group`): the grouping
    the other maps of its vendor and product read (multipath.conf's device section and the
    hardware table set one per vendor and product), with the first of them, where all that read
    one read the same; else None (none reads one, or they read different ones)."""
    if topology[m.name].cut_one_group is None:
        return None
    model = (str(m.vendor).strip(), str(m.product).strip())
    read = [o for o in maps if o.name != m.name and (str(o.vendor).strip(), str(o.product).strip()) == model
            and topology[o.name].cut_one_group is None and topology[o.name].undetermined is None]
    groupings = {topology[o.name].grouping for o in read}
    return (groupings.pop(), read[0]) if len(groupings) == 1 else None


def map_policy(m: Any, paths: list[Any], topology: MapTopology, alua: bool, conf: ConfPrecedence,
               files: dict[str, str], release: tuple[str, str] | None = None,
               beside: tuple[str, Any] | None = None) -> MapPolicy:
    """The policy of map `m` (a row of `readers.multipath_ll`'s maps) over its `paths` with an
    address, its array answering for TPGS or not (`alua`), the listing printed by an old
    multipath-tools `release` where it shows one (`linux.listing_release`: the release, the sign),
    the grouping another map of its vendor and product reads where the listing ends inside this one
    after one group (`grouping_beside`: the grouping, that map)."""
    mfile, cfile = files["multipath"], str(files.get("conf"))
    vendor, product, wwid = str(m.vendor).strip(), str(m.product).strip(), str(m.wwid)
    props = int(m.props_line) if _known(getattr(m, "props_line", None)) else None
    out = MapPolicy({"name": "dm-multipath"}, {"name": Derived(f"{mfile}: a `multipath -ll` map is dm-multipath's",
                                                                (mfile,))}, Derived(""))

    def put(key: str, value: Any, source: Provenance) -> None:
        out.policy[key], out.fields[key] = value, source

    # A selector the listing does not name is left to the claim (the hwtable or defaults).
    selector = SELECTORS.get(str(paths[0].selector).split(" ")[0])
    if selector:
        line: Any = getattr(paths[0], "group_line", None)
        put("selector", selector, Read(mfile, int(line) if _known(line) else None, f"policy='{paths[0].selector}'",
                                       f"map at line {m.line}"))
    grouping_open = topology.undetermined
    if topology.cut_one_group is not None and beside is not None:  # cut after one group, beside a map that reads one
        grouping, other = beside
        grouping_open = (f"{mfile}, line {topology.cut_one_group} (map at line {m.line}): "
                         + CUT_ONE_GROUP_BESIDE.format(grouping=grouping, other=other.name, line=other.line))
        put("path_grouping_policy", grouping, Assumed(grouping_open))
    elif topology.cut_one_group is not None:  # a paste cut after one group: no grouping is read from it
        grouping_open = f"{mfile}, line {topology.cut_one_group} (map at line {m.line}): {CUT_ONE_GROUP}"
        put("path_grouping_policy", topology.grouping, Assumed(grouping_open))
    else:
        put("path_grouping_policy", topology.grouping,
            Derived(f"{mfile}, map at line {m.line}: {grouping_open or topology.grouping_rule}"
                    + (f"; {topology.cut_note}" if topology.cut_note else ""), (mfile,)))
    table_retries = hwtable_sets(vendor, product, alua).get("no_path_retry", "")
    retry, retry_note, retry_open = retry_from_features(m, paths, table_retries)
    if retry is not None:
        put("no_path_retry", retry, Derived(f"{mfile}: {retry_note or retry_open}", (mfile,)))
    for key, value, source in _listed_table(m, topology, mfile, props, out.warnings):
        put(key, value, source)
    from_conf = conf_settings(conf, wwid, vendor, product, alua)
    conf_grouping = from_conf.get("path_grouping_policy")
    if conf_grouping and grouping_open is not None and conf_value(conf_grouping.value) not in GROUPINGS:
        grouping_open = (f"{cfile} ({conf_grouping.section}) sets {conf_grouping.value}, a grouping pathlab does not "
                         f"simulate: the listing's groups are simulated as {topology.grouping}")
        out.fields["path_grouping_policy"] = Derived(f"{mfile}, map at line {m.line}: {grouping_open}", (mfile, cfile))
    if topology.undetermined is None or conf_value(conf_grouping.value if conf_grouping else "") not in GROUPINGS:
        from_conf.pop("path_grouping_policy", None)  # the listing's groups are what the kernel has
    for key, found in from_conf.items():
        put(key, conf_value(found.value), _conf_read(cfile, key, found))
    prio = _conf_prio(conf, m, alua, cfile) if "prio" not in out.policy else None
    if prio is not None:
        put("prio", prio.name, prio.source)
        if prio.name == "weightedpath":
            if release is not None:  # weightedpath.c came in 0.5.0 (c7057579, 2011)
                raise ScenarioError(cfile, f"line {prio.line.line}", f"prio weightedpath ({prio.line.place}) for map {m.name}: "
                                    f"{mfile} is printed by multipath-tools {release[0]} ({release[1]}), which has no "
                                    "weightedpath (it came in 0.5.0): not the multipath.conf that host's multipathd read")
            args = conf.beside(prio.line, "prio_args", wwid, vendor, product)
            weights = map_weights(m, paths, args, prio.line, topology.checked, mfile, cfile)
            put("path_priorities", weights.priorities, weights.source)
            out.warnings += weights.warnings
    for setting, why in {"path_grouping_policy": grouping_open, "no_path_retry": retry_open}.items():
        if why is not None and setting not in from_conf:
            out.undetermined.append(Undetermined(wwid, setting, why, SETTLE))
            # said with the other values the captures do not give: a prediction rests on it too
            out.warnings.append((f"devices.{wwid}.policy.{setting}", f"{why}; {SETTLE}"))
    used = (mfile, *([cfile] if from_conf or prio is not None else []))
    out.source = Derived(f"{' and '.join(used)}: each key's source on the lines below", used)
    return out


def _known(value: Any) -> bool:
    return value is not None and str(value) not in ("<NA>", "nan", "None")


def _conf_read(cfile: str, key: str, found: InForce) -> Read:
    return Read(cfile, found.line, f"{key} {found.value} ({found.place})" + (f": {found.note}" if found.note else ""))


def _listed_table(m: Any, topology: MapTopology, mfile: str, props: int | None,
                  warnings: list[tuple[str, str]]) -> list[tuple[str, Any, Provenance]]:
    """The prioritizer, hardware handler and features the listing shows for a map, as policy keys
    (they win over the hardware table, as multipath.conf's do), each with where it comes from."""
    at = f"map at line {m.line}"
    keys: list[tuple[str, Any, Provenance]] = []
    if topology.prioritizer in OWNERSHIP_HANDLERS:
        keys.append(("prio", topology.prioritizer,
                     Derived(f"{mfile}, {at}: " + OWNER_PRIORITIZER.format(handler=topology.prioritizer), (mfile,))))
    elif topology.prioritizer:
        keys.append(("prio", topology.prioritizer, Derived(f"{mfile}, {at}: every group prioritized shows priority 1, "
                                                           "the const prioritizer's", (mfile,))))
    features = table_features(m.features)
    if features is not None:
        keys.append(("features", features, Read(mfile, props, f"features='{m.features}'"
                                                + (" (queue_if_no_path is no_path_retry's)" if features != m.features
                                                   else ""), at)))
    handler = " ".join(str(m.hwhandler or "").strip("'\"").split())
    if handler in policy_choices("dm-multipath", "hardware_handler"):
        keys.append(("hardware_handler", handler, Read(mfile, props, f"hwhandler='{m.hwhandler}'", at)))
    elif handler:
        warnings.append(("devices.policy.hardware_handler",
                         f"{mfile}: map {m.name}: hwhandler '{handler}' is not a handler pathlab models: the claim's used"))
    return keys


@dataclass(frozen=True)
class ConfPrio:
    """The prioritizer multipath.conf sets for a map, as simulated, where that comes from, and
    the line in force."""

    name: str
    source: Provenance
    line: InForce


def prio_in_force(conf: ConfPrecedence, m: Any, alua: bool) -> tuple[str, InForce] | None:
    """The prioritizer multipath.conf sets for a map where it is in force (see the module's note),
    by the name the simulation runs it as (sysfs as alua), with its line; None where none is set
    or detect_prio picks (alua or sysfs, on an array that answers for TPGS: `alua`)."""
    vendor, product, wwid = str(m.vendor).strip(), str(m.product).strip(), str(m.wwid)
    hwtable = hwtable_sets(vendor, product, alua)
    found = conf.in_force("prio", wwid, vendor, product, hwtable)
    if found is None:
        return None
    detect = conf.in_force("detect_prio", wwid, vendor, product, hwtable)
    if alua and (detect is None or detect.value not in ("no", "0")):
        return None  # detect_prio picks sysfs or alua for a TPGS array: `prio` is not used
    name = found.value.strip('"')
    return (SYSFS_AS if name == "sysfs" else name), found


def _conf_prio(conf: ConfPrecedence, m: Any, alua: bool, cfile: str) -> ConfPrio | None:
    """The prioritizer multipath.conf sets for a map where it is in force (`prio_in_force`), as
    simulated, with where it comes from; a prioritizer the simulation does not run is refused."""
    in_force = prio_in_force(conf, m, alua)
    if in_force is None:
        return None
    found = in_force[1]
    name = found.value.strip('"')
    if name == "sysfs":
        return ConfPrio(SYSFS_AS, Derived(f"{cfile}, line {found.line}: {SYSFS_RULE}", (cfile,)), found)
    simulated = policy_choices("dm-multipath", "prio")
    if name not in simulated:
        raise ScenarioError(cfile, f"line {found.line}", f"prio {name} ({found.place}) is in force for map {m.name}: "
                                                         f"not simulated; simulated: {', '.join(simulated)}, sysfs (as alua)")
    return ConfPrio(name, _conf_read(cfile, "prio", found), found)
