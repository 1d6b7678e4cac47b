"""`pathlab import` for a Linux dm-multipath host: `multipath -ll` (maps, their path groups with
the selector and priority, each path's SCSI address), and optionally `/proc/diskstats` samples or
`iostat -x` reports of the dm devices (the workload). Every value the captures give carries a
comment naming the file and field; everything else is a stated default with a warning."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError
from pathlab.importer.captured_load import from_rates
from pathlab.importer.conf_precedence import ConfPrecedence, hwtable_sets
from pathlab.importer.host_tables import Element, HostTables
from pathlab.importer.imported import Imported, Undetermined
from pathlab.importer.iscsi_portals import Portal, portals_by_host
from pathlab.importer.linux_cut_owner import CutOwner, cut_map_owner
from pathlab.importer.linux_non_owner import linux_non_owner
from pathlab.importer.linux_preferred import preferred_bit
from pathlab.importer.linux_topology import (
    OWNERSHIP_HANDLERS,
    PRE_PREFERRED_BIT,
    MapTopology,
    alua_prioritized,
    cut_at,
    has_address,
    map_topology,
    ontap_prioritized,
    other_group_prios,
    reads_alua_states,
    scenario_path,
    unaveraged_groups,
)
from pathlab.importer.listed import listed_entries, multipath_map, multipath_path
from pathlab.importer.map_policy import grouping_beside, map_policy, prio_in_force
from pathlab.importer.map_weights import weights_part_groups
from pathlab.importer.path_down import down_from_start
from pathlab.importer.provenance import Assumed, Derived, Listed, Own, Provenance, Read
from pathlab.importer.same_host import refuse_other_hosts_rates
from pathlab.importer.values import (
    SAID,
    add_run,
    heading,
    idle_left_out_said,
    io_size,
    left_out_idle,
    saw_no_io,
    size_text,
    zero_load_assumed,
)

if TYPE_CHECKING:
    import pandas as pd

    from pathlab.finding import Finding
    from pathlab.importer.kind import Kind
    from pathlab.importer.rtpg_times import MapTransition

DEFAULT_ONE_WAY = "5us"  # a fabric within one room
DEFAULT_PORT_SERVICE_US = 20.0  # an array front-end port of the 2010s: about 50,000 I/O/s
DEFAULT_QUEUE_DEPTH = 32  # a SCSI disk's queue_depth as most FC drivers set it
DEFAULT_OUTSTANDING = 32


@dataclass
class LinuxCaptures:
    maps: pd.DataFrame
    paths: pd.DataFrame
    #: `multipath.conf` as `readers.multipath_conf` reads it: what `multipath -ll` does not show
    #: (failback, a number of no_path_retry retries, the grouping of a map of one group).
    conf: dict[str, pd.DataFrame] | None = None
    #: Each block device's mean rates over the capture (`device`, reads_per_s, writes_per_s,
    #: read_kib_per_s, write_kib_per_s, queue_length), from diskstats or iostat (`device_means`).
    rates: pd.DataFrame | None = None
    #: `iscsiadm -m session -P 3` as `readers.iscsi_sessions` reads it: the portal of each session.
    sessions: dict[str, pd.DataFrame] | None = None
    files: dict[str, str] = field(default_factory=dict)
    #: Each map's implicit transition time as `sg_rtpg -e` gives it (`rtpg_times.tied`), by map name.
    transitions: dict[str, MapTransition] = field(default_factory=dict)
    #: The paths' SCSI command timeout as sysfs gives it (`scsi_timeouts.tied`): `[host.stack] io_timeout`.
    io_timeout: tuple[str, Provenance] | None = None


def _mean(rates: pd.DataFrame | None, device: str, column: str) -> float | None:
    if rates is None or column not in rates.columns:
        return None
    values = rates.loc[rates["device"] == device, column].dropna()
    return float(values.mean()) if len(values) else None


@dataclass(frozen=True)
class ArrayKind:
    """What an array's maps show of it: whether it answers for TPGS (ALUA), whether any map parts
    the owning controller's paths from the others, and the ownership handlers it shows."""

    tpgs: bool
    owned: bool
    ownership: list[str]
    #: Every map that parts the owner's paths prints the ontap prioritizer's 4 and 1.
    ontap: bool = False


def _array_kind(shapes: list[tuple[MapTopology, bool]]) -> ArrayKind:
    """The kind of an array from each of its maps' topology and whether the map's priorities are
    the ontap prioritizer's (`ontap_prioritized`): maps that part the owner's paths answer for
    TPGS unless an ownership handler parts them, or every such map is ontap's (no TPGS)."""
    handlers = {t.handler for t, _ in shapes if t.handler is not None}
    owners = [ontap for t, ontap in shapes if t.groups_by_owner]
    ownership = sorted(handlers & set(OWNERSHIP_HANDLERS))
    return ArrayKind("alua" in handlers or (bool(owners) and not ownership and not all(owners)), bool(owners),
                     ownership, bool(owners) and all(owners))


def _tpgs_reason(alua: bool, ownership: list[str], weighted_by: tuple[str, ...] = (), ontap: bool = False) -> str:
    """Why the array is taken to answer for TPGS (ALUA) or not; `weighted_by`: the multipath.conf
    whose weightedpath parts some of its maps' groups (`map_weights.weights_part_groups`)."""
    if ownership:
        return f"hwhandler {ownership[0]}: LUN ownership without ALUA"
    if ontap and not alua:
        return ("groups at 4 and 1 and no alua hwhandler, the ontap prioritizer's (ontap.c: 4 the owner's paths, 1 proxy "
                "paths through its partner): multipath-tools takes it only for a LUN that does not report TPGS "
                "(detect_prio takes alua for one that does, and the kernel attaches its alua handler)")
    if alua:
        return "hwhandler alua, or path groups of different priorities"
    return "equal paths (one group, or groups of one priority" + (
        f", or of the priorities {weighted_by[0]}'s weightedpath gives)" if weighted_by else ")")


def listing_release(maps: list[Any], paths: list[Any]) -> tuple[str, str] | None:
    """The multipath-tools release whose printing the listing shows, where it is not today's, and
    the sign: the bracket layout (`[size=…][features=…]`) is 0.4.8's (9b2de924 replaced it in
    0.4.9), and a group `prio=-1` under `-l` (every checker state `undef`) is 0.4.9's average of
    PRIO_UNDEF (0.5.0 prints 0). `output/multipath.py` prints by the same rules."""
    if any(str(m.layout) == "brackets" for m in maps):
        return "0.4.8", "the bracket layout ([size=…][features=…]), printed before multipath-tools 0.4.9"
    unchecked = all(str(p.checker_state) in ("undef", "<NA>", "None", "nan") for p in paths)
    if unchecked and any(str(p.group_prio) == "-1" for p in paths):
        return "0.4.9", "prio=-1 under multipath -l: 0.4.9 averaged PRIO_UNDEF, 0.5.0 on print 0"
    return None


def build(c: LinuxCaptures) -> tuple[HostTables, list[tuple[str, str]], bool, list[Undetermined], list[Finding]]:
    """The scenario's TOML text, commented, the warnings for every value assumed, whether the
    rates gave any map's load, the settings the captures do not determine, and what the build's
    readings find (a preferred group above the optimized one: `linux_preferred`)."""
    mfile = c.files["multipath"]
    rfile = c.files.get("rates", "")
    warnings: list[tuple[str, str]] = []
    undetermined: list[Undetermined] = []
    findings: list[Finding] = []
    maps = list(c.maps.itertuples())
    sections = ConfPrecedence(c.conf)
    paths = [p for p in c.paths.itertuples() if has_address(p)]
    if not maps or not paths:
        raise ScenarioError(mfile, "", "no map with SCSI paths (H:C:T:L) to import" + _why_no_paths(maps, c.paths))
    if c.rates is not None:  # a map's device is dm-N, or its name with iostat -N; its paths are sdX
        listed = [*c.maps["name"], *c.maps["dm"].dropna(), *c.paths["device"].dropna()]
        refuse_other_hosts_rates(c.rates, rfile, f"the devices of {mfile}", listed)

    def hctl(p: Any) -> tuple[int, int, int, int]:
        h, ch, t, lun = (int(x) for x in p.hctl.split(":"))
        return h, ch, t, lun

    hosts = sorted({hctl(p)[0] for p in paths})
    for m in maps:
        cut = cut_at(m)
        if cut is not None:  # a paste cut short: what is there is imported, what is not is not guessed
            shown = any(p.map == m.name for p in paths)
            warnings.append((f"maps.{m.name}", f"{mfile}, line {cut}: the listing ends inside map {m.name}: "
                                               + ("imported from the paths listed before that; its other paths are "
                                                  "not known" if shown else "no path listed, left out of the scenario")))
        elif not any(p.map == m.name for p in paths):
            hangs = "; with queue_if_no_path its I/O waits until a path returns" if "queue_if_no_path" in str(m.features) else ""
            warnings.append((f"maps.{m.name}", f"{mfile}, line {m.line}: no path with a SCSI address (H:C:T:L), so "
                                               f"nothing to simulate: left out of the scenario{hangs}"))
    listing_order = {m.name: i for i, m in enumerate(maps)}
    left_out = [m for m in maps if not any(p.map == m.name for p in paths)]
    maps = [m for m in maps if any(p.map == m.name for p in paths)]
    # An array per vendor and set of target ports: maps whose paths reach ports another map of
    # the vendor already reached share its array; others (a SAS shelf's disks, a second array)
    # get their own, so that LUN numbers are unique per array as on the real ones.
    vendor_of: dict[str, str] = {}
    array_of_port: dict[tuple[int, int], str] = {}
    per_vendor: dict[str, int] = {}
    for m in maps:
        reached = [(hctl(p)[0], hctl(p)[2]) for p in paths if p.map == m.name]
        known = next((array_of_port[k] for k in reached if k in array_of_port), None)
        if known is None:
            vendor = re.sub(r"[^A-Za-z0-9_-]", "", str(m.vendor).strip()) or "UNKNOWN"
            per_vendor[vendor] = per_vendor.get(vendor, 0) + 1
            known = vendor if per_vendor[vendor] == 1 else f"{vendor}-{per_vendor[vendor]}"
        vendor_of[m.name] = known
        for k in reached:
            array_of_port.setdefault(k, known)
    # A port per SCSI target an HBA sees, or per iSCSI portal a session runs to; with ALUA, a
    # controller per priority rank: the paths of a map's best group lead to the controller that owns it.
    sfile = c.files.get("sessions", "")
    portals = portals_by_host(c.sessions, sfile, paths, mfile) if c.sessions is not None else {}
    ports: dict[tuple[int, int], str] = {}
    for p in paths:
        h, _, t, _ = hctl(p)
        ports.setdefault((h, t), portals[h].name if h in portals else f"H{h}T{t}")
    release = listing_release(maps, list(c.paths.itertuples()))
    of_release = release[0] if release is not None else None
    topology, kinds, weighted = _topologies(maps, paths, vendor_of, sections, of_release, {})
    # The prioritizer multipath.conf puts in force, where it is not alua's: its priorities are no
    # ALUA states, so the owner is the best group's (`linux_topology.reads_alua_states`).
    prio_found = {m.name: found for m in maps
                  if (found := prio_in_force(sections, m, kinds[vendor_of[m.name]].tpgs)) is not None}
    prio_of = {name: found[0] for name, found in prio_found.items()}
    if any(name != "alua" for name in prio_of.values()):
        topology, kinds, weighted = _topologies(maps, paths, vendor_of, sections, of_release, prio_of)
    if not any(t.checked for t in topology.values()):
        warnings.append(("paths", f"{mfile} shows no checker state (`multipath -l`): path states and priorities "
                                  "were not read, every path is taken as usable; `multipath -ll` shows them"))
    owner_of_port: dict[tuple[int, int], str] = {}
    owner_of_map: dict[str, str] = {}
    cut_owner: dict[str, CutOwner] = {}
    if any(kind.owned for kind in kinds.values()):
        for m in maps:
            shape = topology[m.name]
            if not shape.groups_by_owner:  # one group, or groups of one priority: no controller shown
                continue
            owners = {owner_of_port[k] for k in shape.owner_ports if k in owner_of_port}
            name = next(iter(owners)) if owners else ("A" if "A" not in owner_of_port.values() else "B")
            for k in shape.owner_ports:
                owner_of_port.setdefault(k, name)
            for k in shape.other_ports:
                owner_of_port.setdefault(k, "B" if name == "A" else "A")
            owner_of_map[m.name] = name
        for m in maps:  # a map cut after its one group: that group's controller (`linux_cut_owner`)
            if topology[m.name].cut_one_group is None or not kinds[vendor_of[m.name]].owned:
                continue
            cut_owner[m.name] = cut_map_owner(m, [p for p in paths if p.map == m.name], topology[m.name], mfile,
                                              owner_of_port, prio_of.get(m.name), of_release)
            for k in topology[m.name].owner_ports:
                owner_of_port.setdefault(k, cut_owner[m.name].controller)
            owner_of_map[m.name] = cut_owner[m.name].controller
        for k in sorted(k for k in set(ports) - set(owner_of_port) if kinds[array_of_port[k]].owned):
            warnings.append((f"arrays.ports.{ports[k]}", f"{mfile}: every path through SCSI host {k[0]}, target {k[1]} "
                                                        "failed, so its controller is not shown: taken as A"))

    out = heading([f"# Imported by `pathlab import` from {', '.join(dict.fromkeys(c.files.values()))}.", *SAID],
                  "imported-linux-host", "A Linux dm-multipath host as multipath -ll and its I/O statistics describe it.")
    add_run(out)
    host = out.table("host")
    host.key("name", "linux01", Assumed("pathlab's name for the host: no capture names it"))
    # Each SCSI host where the listing first shows it: the H of a path's H:C:T:L.
    first_path = {h: next(p for p in paths if hctl(p)[0] == h) for h in hosts}
    host.elements("adapters", [Element({"name": f"host{h}"}, Read(mfile, int(first_path[h].line),
                                                                  f"SCSI host {h} of {first_path[h].device} "
                                                                  f"({first_path[h].hctl})")) for h in hosts])
    if release is not None:
        host.key("multipath_tools", release[0], Derived(f"{mfile}: {release[1]}", (mfile,)))
    if c.io_timeout is not None:
        host.key("stack.io_timeout", *c.io_timeout)
    map_non_owner: dict[str, tuple[str, Provenance]] = {}  # a map's own state where the array's is another
    for array in dict.fromkeys(vendor_of.values()):
        # One line per port: the sessions to one portal share it; portals listed by portal group.
        first_key: dict[str, tuple[int, int]] = {}
        for k in sorted((k for k in ports if array_of_port.get(k) == array),
                        key=lambda k: portals[k[0]].group if k[0] in portals else ""):
            first_key.setdefault(ports[k], k)
        array_ports = list(first_key.values())
        first = next(m for m in maps if vendor_of[m.name] == array)
        product = str(first.product).strip()
        alua, owned, ownership = kinds[array].tpgs, kinds[array].owned, kinds[array].ownership
        a = out.table("arrays", array=True)
        a.key("name", array, Own("the array's name in the scenario: its vendor, as the map header shows it"))
        a.key("vendor", str(first.vendor).strip(), Read(mfile, text="map header"))
        a.key("model", product, Read(mfile, text="map header"))
        conf_used = (str(c.files["conf"]),) if any(vendor_of[m.name] == array for m in maps if m.name in weighted) else ()
        of_array = [m for m in maps if vendor_of[m.name] == array]
        # Maps the listing ends inside after one group say nothing of groups apart: where they are
        # all the array shows, its symmetry (and TPGS, without a handler to say it) is assumed.
        read_whole = [m for m in of_array if topology[m.name].cut_one_group is None]
        assumed = None if owned or read_whole else _cut_assumed(mfile, of_array, topology)
        if assumed is not None:
            warnings.append((f"arrays.{array}.symmetric", assumed))
        a.key("tpgs", alua, Assumed(assumed) if assumed is not None and not (alua or ownership or kinds[array].ontap)
              else Derived(f"{mfile}: " + _tpgs_reason(alua, ownership, conf_used, kinds[array].ontap), (mfile, *conf_used)))
        a.key("symmetric", not owned, Assumed(assumed) if assumed is not None else Derived(
            f"{mfile}: " + _symmetric_reason(of_array if owned else read_whole, topology, conf_used), (mfile, *conf_used)))
        mine_timed = [(c.transitions[m.name], m.name) for m in maps if vendor_of[m.name] == array
                      and m.name in c.transitions]
        if mine_timed:  # a transition may take the longest any of the array's LUNs reports
            timed, name = max(mine_timed, key=lambda x: x[0].seconds)
            a.key("implicit_transition_time", f"{timed.seconds}s",
                  Read(c.files["rtpg"], timed.line, f"Implicit transition time of {timed.device} (map {name})"))
            if not alua:  # the sg_rtpg output's port groups against a listing that shows no ALUA: said, not dropped
                warnings.append((f"arrays.{array}.tpgs", _rtpg_without_alua(c.files["rtpg"], mfile, mine_timed,
                                                                            _tpgs_reason(alua, ownership, conf_used))))
        a.key("service", {"fixed": f"{DEFAULT_PORT_SERVICE_US}us", "distribution": "exponential"},
              Assumed("the captures do not show a port at capacity"))
        warnings.append((f"arrays.{array}.service", f"a port's capacity is not in the captures: {DEFAULT_PORT_SERVICE_US} µs "
                                                    "per I/O assumed"))
        warnings.append(zero_load_assumed(array))
        if owned:
            owning = [m for m in maps if vendor_of[m.name] == array and topology[m.name].groups_by_owner]
            a.key("controllers", [{"name": "A"}, {"name": "B"}],
                  Derived(f"{mfile}: the owner's group and the others (map{'s' if len(owning) > 1 else ''} at "
                          f"{_lines(owning)})", (mfile,)))
        if ownership:
            a.key("non_owner_state", "standby", Derived(f"{mfile}: hwhandler {ownership[0]}: the other controller's paths "
                                                        "are passive until a failover moves the LUN", (mfile,)))
        elif owned and alua:
            of_map = {m.name: [p for p in paths if p.map == m.name] for m in maps if vendor_of[m.name] == array}
            # ontap's 1 is a proxy path, not standby; weightedpath's and the like's priorities are no states
            as_states = {name: listed for name, listed in of_map.items()
                         if alua_prioritized(listed) and prio_of.get(name, "alua") == "alua"}
            shown_beside = {name: other_group_prios(listed, topology[name]) for name, listed in as_states.items()}
            beside_owner = {name: prios for name, prios in shown_beside.items() if prios}
            unaveraged = {name: groups for name, listed in of_map.items() if prio_of.get(name, "alua") == "alua"
                          and (groups := unaveraged_groups(listed, topology[name]))}
            # maps that part the owner's paths by priorities read as no ALUA state: their other state is assumed
            no_states = {name: _no_alua_states(listed, topology[name], prio_found.get(name), c.files.get("conf", ""),
                                               of_release)
                         for name, listed in of_map.items()
                         if topology[name].groups_by_owner and name not in as_states and name not in unaveraged}
            said = linux_non_owner(array, mfile, beside_owner, maps, unaveraged, no_states)
            if said.array is not None:  # the default (non-optimized) too: a cluster tells it from a host that shows none
                a.key("non_owner_state", *said.array)
            map_non_owner.update(said.maps)
            warnings += said.warnings
            findings += said.findings
        a.elements("ports", [Element({"name": ports[k], **({"controller": owner_of_port.get(k, "A")} if owned else {})},
                                     _portal_source(k, ports, portals, sfile) if k[0] in portals
                                     else Read(mfile, text=f"SCSI host {k[0]}, target {k[1]}")) for k in array_ports])
    for h in hosts:
        targets = sorted({hctl(p)[2] for p in paths if hctl(p)[0] == h})
        names = [f"{array_of_port[(h, t)]}/{ports[(h, t)]}" for t in targets]
        f = out.table("fabric", array=True)
        f.key("adapters", [f"host{h}"], Own(f"the adapter whose paths this table lists: SCSI host {h}"))
        f.key("ports", names, Derived(f"{mfile}: the targets SCSI host {h}'s paths reach (the T of H:C:T:L)", (mfile,)))
        f.key("targets", targets, Read(mfile, text="the SCSI target numbers"))
        f.key("latency", DEFAULT_ONE_WAY, Assumed("one way, a fabric within one room"))
    warnings.append(("fabric.latency", f"the fabric's distance is not in the captures: {DEFAULT_ONE_WAY} one way assumed"))

    for m in maps:
        mine = [p for p in paths if p.map == m.name]
        if not mine:
            continue
        owned = kinds[vendor_of[m.name]].owned
        policy = map_policy(m, mine, topology[m.name], kinds[vendor_of[m.name]].tpgs, sections, c.files, release,
                            grouping_beside(m, maps, topology))
        warnings += policy.warnings
        shape = topology[m.name]
        failback = (policy.policy["failback"], policy.fields["failback"]) if "failback" in policy.policy else None
        raised = preferred_bit(m, mine, shape, mfile, failback, shape.handler == "alua" and reads_alua_states(
            prio_of.get(m.name), of_release)) if policy.policy.get("prio", "alua") == "alua" else None
        if raised is not None:
            warnings += raised.warnings
            findings += raised.findings
        undetermined += policy.undetermined
        dev = out.table("devices", array=True)
        dev.key("name", str(m.wwid), Read(mfile, text=f"WWID of map {m.name}" + (
            f"; the listing ends inside it (line {cut_at(m)}): its paths after that are not known"
            if cut_at(m) is not None else "")))
        dev.key("array", vendor_of[m.name], Derived(f"{mfile}: the array of the ports its paths reach", (mfile,)))
        dev.key("lun", hctl(mine[0])[3], Read(mfile, text="the L of the paths' H:C:T:L"))
        dev.key("queue_depth", DEFAULT_QUEUE_DEPTH, Assumed("the disks' queue_depth is in sysfs, not in these captures"))
        if owned and m.name in cut_owner:
            dev.key("owner", cut_owner[m.name].controller, cut_owner[m.name].source)
            if (said_cut := cut_owner[m.name].warning) is not None:
                warnings.append((f"devices.{m.wwid}.owner", said_cut))
        elif owned and m.name in owner_of_map:
            whose = (f"its optimized group's paths, {shape.owner_rule}" if shape.owner_rule else "its best group's paths")
            dev.key("owner", owner_of_map[m.name], Assumed(raised.owner_assumed)
                    if raised is not None and raised.owner_assumed is not None
                    else Derived(f"{mfile}: the controller of {whose}" + (f"; {shape.owner_open}" if shape.owner_open
                                                                            else ""), (mfile,)))
            if shape.owner_open:
                warnings.append((f"devices.{m.wwid}.owner", f"{mfile}, map at line {m.line}: {shape.owner_open}"))
            if raised is not None and raised.ports and raised.source is not None:
                dev.key("preferred", owner_of_port[next(iter(raised.ports))], raised.source)
        if m.name in map_non_owner:
            dev.key("non_owner_state", *map_non_owner[m.name])
        dev.key("policy", policy.policy, policy.source, policy.fields)
        lun = hctl(mine[0])[3]
        read_paths: dict[str, Any] = {}  # by the scenario's path name: two lines the model makes one path keep the first
        path_lines: dict[str, Any] = {}
        for order, p in enumerate(mine):
            read_paths.setdefault(scenario_path(p, lun), multipath_path(p, order))
            path_lines.setdefault(scenario_path(p, lun), p.line)
        dev.items += listed_entries(Listed(mfile, at=f"map at line {m.line}"), multipath_map(m), read_paths.items(),
                                    path_lines)
    warnings.append(("devices.queue_depth", f"the disks' queue_depth is not in the captures: {DEFAULT_QUEUE_DEPTH} assumed"))

    # Paths the capture shows failed stay failed: a path fault from the start.
    for p in paths:
        states = {str(p.dm_state), str(p.checker_state)}
        if states & {"failed", "faulty"}:
            down_from_start(out, scenario_path(p), Read(mfile, p.line, f"{p.device} is {p.dm_state}/{p.checker_state}"))

    any_measured = False
    for m in maps:
        dm = str(m.dm)
        if left_out_idle(c.rates, dm, str(m.name)):
            rule, warning = idle_left_out_said(str(m.name), dm, rfile)
            out.tables[-1].idle(f"{m.name} ({dm})", rule)
            warnings.append(warning)
            any_measured = True
            continue
        measured = [v for v in (_mean(c.rates, dm, "reads_per_s"), _mean(c.rates, dm, "writes_per_s")) if v is not None]
        any_measured = any_measured or bool(measured)
        if measured and not any(measured):  # captured, and idle: it stays idle in the scenario
            out.tables[-1].idle(f"{m.name} ({dm})", Read(rfile, text="no reads or writes"))
            continue
        cmds = sum(measured) or None
        w = out.table("workloads", array=True)
        w.key("name", str(m.name), Own("the workload's name: its map's"))
        w.key("devices", [str(m.wwid)], Own("the map's device"))
        queue = _mean(c.rates, dm, "queue_length")
        if not cmds or queue is None:
            w.key("outstanding", DEFAULT_OUTSTANDING, Assumed(f"no I/O statistics of {dm}"))
            w.key("block_size", "8KiB", Assumed())
            w.key("read_pct", 70, Assumed())
            warnings.append((f"workloads.{m.name}", f"no I/O statistics of {dm}: 32 outstanding 8 KiB I/Os, 70% reads assumed"))
            continue
        reads = _mean(c.rates, dm, "reads_per_s") or 0.0
        kib = (_mean(c.rates, dm, "read_kib_per_s") or 0.0) + (_mean(c.rates, dm, "write_kib_per_s") or 0.0)
        size = io_size(kib * 1024, cmds)
        w.key("outstanding", max(1, round(queue)),
              Derived(f"{rfile}: {dm}'s average queue (weighted I/O time per interval)", (rfile,)))
        w.key("block_size", size_text(size), Derived(f"{rfile}: {dm}'s KiB per I/O", (rfile,)))
        # The share as written with one decimal: the value is what the text says.
        w.key("read_pct", float(f"{100 * reads / cmds:.1f}"), Derived(f"{rfile}: {dm}'s reads over reads and writes", (rfile,)))
    for m in left_out:
        _unsimulated(out, m, [p for p in c.paths.itertuples() if p.map == m.name], listing_order[m.name], mfile)
    if not out.of("workloads"):
        raise saw_no_io(rfile, "", "every map's device is idle in it (no reads or writes, or left out by iostat -z)")
    return out, warnings, any_measured, undetermined, findings


def _topologies(maps: list[Any], paths: list[Any], vendor_of: dict[str, str], sections: ConfPrecedence,
                release: str | None, prio_of: dict[str, str],
                ) -> tuple[dict[str, MapTopology], dict[str, ArrayKind], set[str]]:
    """Each map's topology (`map_topology`, with the prioritizer multipath.conf puts in force for
    it where `prio_of` has one, and the listing's `release`), each array's kind, and the maps whose
    groups multipath.conf's weightedpath parts (`weights_part_groups`)."""
    topology = {m.name: map_topology(m.hwhandler, [p for p in paths if p.map == m.name], prio_of.get(m.name), release,
                                     cut_at(m)) for m in maps}
    if maps:
        topology[maps[-1].name] = _brackets_end(maps[-1], [p for p in paths if p.map == maps[-1].name],
                                                topology[maps[-1].name])
    # Groups that multipath.conf's weightedpath parts show no controller of the array.
    weighted = {m.name for m in maps if weights_part_groups(m, [p for p in paths if p.map == m.name], sections,
                                                            topology[m.name].checked)}
    topology = {name: replace(t, other_ports=frozenset()) if name in weighted else t for name, t in topology.items()}
    # What each array's maps show of it: an HP array of ALUA beside a Dell one of LUN ownership
    # keeps its ALUA (one host, two arrays).
    kinds = {array: _array_kind([(topology[m.name], ontap_prioritized([p for p in paths if p.map == m.name]))
                                 for m in maps if vendor_of[m.name] == array])
             for array in dict.fromkeys(vendor_of.values())}
    return topology, kinds, weighted


def _brackets_end(last: Any, listed: list[Any], shape: MapTopology) -> MapTopology:
    """The listing's last map with, where 0.4.8's bracket layout shows it with one group, the note
    that the layout cannot show a cut at a line's end: its `\\_` is drawn alike before every group
    and path (0.4.9's branches are not), so the map may go on past the paste."""
    if str(last.layout) != "brackets" or cut_at(last) is not None or not listed or len({p.group for p in listed}) != 1:
        return shape
    end = max(int(p.line) for p in listed)
    return replace(shape, cut_note=f"0.4.8's `\\_` is drawn alike before every group and path, so whether the paste "
                                   f"stops at line {end}, the listing's last, with other groups after it is not shown")


def _symmetric_reason(maps: list[Any], topology: dict[str, MapTopology], weighted_by: tuple[str, ...] = ()) -> str:
    """Why an array is taken as symmetric or as one whose controllers own LUNs (`ArrayKind.owned`),
    naming the maps' lines the rule read; `weighted_by` as `_tpgs_reason`'s."""
    owning = [m for m in maps if topology[m.name].groups_by_owner]
    shown = owning or maps
    cut = "".join(f"; map at line {m.line}: {topology[m.name].cut_note}" for m in shown if topology[m.name].cut_note)
    if owning:
        verb = "part" if len(owning) > 1 else "parts"
        return (f"the map{'s' if len(owning) > 1 else ''} at {_lines(shown)} {verb} the paths to the LUN's owner from "
                "the others (groups of different priorities, or an ownership handler's active group): LUNs owned by a "
                "controller, not symmetric" + cut)
    return (f"no map of the array parts its owner's paths from the others (map{'s' if len(maps) > 1 else ''} at "
            f"{_lines(shown)}: one group, groups of one priority, " + (
                "optimized groups apart only by alua.c's preferred bit (130 and 50), " if any(
                    topology[m.name].owner_rule for m in maps) else "") + (
                f"apart only by failed paths or by {weighted_by[0]}'s weightedpath" if weighted_by
                else "or apart only by failed paths") + "): symmetric" + cut)


def _no_alua_states(listed: list[Any], shape: MapTopology, prio: tuple[str, Any] | None, cfile: str,
                    release: str | None) -> str:
    """Why a map that parts its owner's paths from the others reads no ALUA state for the others:
    `multipath -l` ran no prioritizer, the prioritizer multipath.conf puts in force for it is not
    alua's, a 0.4.8 listing sums its groups' priorities, or its groups print no priority of
    alua.c's optimized (another prioritizer's, as ontap.c's 4 and 1)."""
    if not shape.checked:
        return "`multipath -l` runs no prioritizer: no priority of its groups is read, so no ALUA state is"
    if prio is not None and prio[0] != "alua":
        return (f"{cfile}, line {prio[1].line} puts prio {prio[0]} in force for it, whose priorities are no ALUA "
                "states (alua.c's)")
    if release in PRE_PREFERRED_BIT:
        return (f"multipath-tools {release} (the bracket layout) prints a group's priority as its paths' sum, so no "
                "one path's ALUA state is read from it")
    shown = sorted({int(str(p.group_prio)) for p in listed if str(p.group_prio).isdigit()})
    return (f"its groups print priorit{'ies' if len(shown) > 1 else 'y'} {', '.join(str(v) for v in shown)} and none alua.c's "
            "optimized (50, 130), so none is read as an ALUA state (another prioritizer's, as ontap.c's 4 and 1, or "
            "alua.c's beside no optimized group read)")


def _cut_assumed(mfile: str, maps: list[Any], topology: dict[str, MapTopology]) -> str:
    """What is assumed of an array every map of which the listing ends inside after one group
    (`MapTopology.cut_one_group`): the groups after the cut would show whether its controllers own
    its LUNs (paths apart), so the array is simulated as the paths listed show it, symmetric."""
    where = ", ".join(f"line {topology[m.name].cut_one_group} (map {m.name} at line {m.line})" for m in maps[:3])
    more = f" and {len(maps) - 3} more" if len(maps) > 3 else ""
    return (f"{mfile}, {where}{more}: the listing ends inside the array's map{'s' if len(maps) > 1 else ''} after the "
            "one group it shows, so whether other groups part the LUN owner's paths from the others is not known: "
            "symmetric assumed, as the paths listed show it; the whole `multipath -ll` would tell")


def _rtpg_without_alua(rfile: str, mfile: str, timed: list[tuple[MapTransition, str]], why: str) -> str:
    """The warning of an array the listing shows without ALUA whose devices `sg_rtpg` answered
    for: REPORT TARGET PORT GROUPS reports target port groups only of a LU that supports ALUA, so
    one of the two files is not what it seems (another host's output, or a listing whose
    prioritizer hides the groups); the transition time read is not used (no ALUA transition is
    simulated on an array without tpgs)."""
    devices = ", ".join(f"{t.device} (map {name}, line {t.line})" for t, name in timed)
    return (f"{rfile}: sg_rtpg reports target port groups for {devices}, an ALUA LU, but {mfile} shows the array "
            f"without ALUA ({why}); simulated without tpgs, so no ALUA transition is simulated and its implicit "
            "transition time is not used; give the sg_rtpg output of this host's paths, or set the array's tpgs = true "
            "if it reports port groups")


def _lines(maps: list[Any]) -> str:
    """The listing lines of these maps' headers, five at most said."""
    said = ", ".join(str(m.line) for m in maps[:5])
    return f"line{'s' if len(maps) > 1 else ''} {said}" + (f" and {len(maps) - 5} more" if len(maps) > 5 else "")


def _unsimulated(out: HostTables, m: Any, listed: list[Any], place: int, mfile: str) -> None:
    """A map the scenario cannot simulate (no path with a SCSI address) kept as read, for `show`:
    its header and properties with its place among the listing's maps, and its paths by their
    place in it."""
    u = out.table("unsimulated", array=True)
    u.key("name", str(m.wwid), Read(mfile, int(m.line), f"WWID of map {m.name}"))
    cut = cut_at(m)
    u.key("why", f"the listing ends inside it (line {cut})" if cut is not None and not listed
          else "no path with a SCSI address (H:C:T:L): nothing to simulate",
          Derived(f"{mfile}, map at line {m.line}: the paths listed under it", (mfile,)))
    u.items += listed_entries(Listed(mfile, at=f"map at line {m.line}"), multipath_map(m) | {"order": place},
                              [(str(i), multipath_path(p, i)) for i, p in enumerate(listed)],
                              {str(i): p.line for i, p in enumerate(listed)})


def _why_no_paths(maps: list[Any], paths: pd.DataFrame) -> str:
    """What each map of a listing with none to import shows instead of paths (three said, the
    rest counted): the listing ends inside it before any whole path (a group with none after it),
    no path line at all (the paste stops after its header), or only paths whose device is gone
    (print.c's `#:#:#:#`)."""
    said = []
    for m in maps:
        listed = paths[paths["map"] == m.name] if len(paths) else paths
        cut = cut_at(m)
        said.append(f"{m.name} (line {m.line}): " + (
            f"the listing ends inside it (line {cut}) before any whole path" if listed.empty and cut is not None
            else "no path group or path listed under it" if listed.empty
            else "its paths show no SCSI address (#:#:#:#: multipath knows no device for them)"))
    more = f"; and {len(said) - 3} more" if len(said) > 3 else ""
    return (": " + "; ".join(said[:3]) + more) if said else ""


def _portal_source(key: tuple[int, int], ports: dict[tuple[int, int], str], portals: dict[int, Portal],
                   sfile: str) -> Read:
    """Where an iSCSI portal's port comes from: the session listing's line, its portal group, and
    the SCSI hosts (sessions) that reach it."""
    portal = portals[key[0]]
    hosts = sorted({k[0] for k, name in ports.items() if name == ports[key]})
    return Read(sfile, portal.line, f"portal of target portal group {portal.group}, sessions of SCSI host "
                + ", ".join(str(h) for h in hosts))


#: Where each kind of Linux input goes.
SLOTS = {"multipath": "multipath", "multipath.conf": "conf", "iostat": "rates", "diskstats": "rates",
         "iscsi-sessions": "sessions", "sg-rtpg": "rtpg", "scsi-timeout": "timeouts"}


def import_host(found: dict[str, Kind]) -> Imported:
    """A dm-multipath host from `multipath -ll`, with multipath.conf and the devices' rates."""
    from pathlab.importer.capture_findings import multipath_findings
    from pathlab.importer.conf_findings import ineffective_settings
    from pathlab.importer.listing_findings import listing_findings
    from pathlab.importer.rtpg_times import tied
    from pathlab.importer.scsi_timeouts import ScsiTimeouts
    from pathlab.importer.scsi_timeouts import tied as tied_timeouts
    from pathlab.importer.timer_values import dm_timers

    tables: dict[str, Any] = {}
    names: dict[str, str] = {}
    for name, kind in found.items():
        if "linux" not in kind.stacks:
            raise ScenarioError(name, "", f"an ESXi capture ({kind.name}) given with `multipath -ll`: import one host at a time")
        slot = SLOTS[kind.name]
        tables[slot], names[slot] = kind.read(name), name
    listing = tables["multipath"]
    read_times, transitions, said = tied(tables["rtpg"], names["rtpg"], listing["paths"], names["multipath"]) \
        if "rtpg" in tables else ([], {}, [])
    timeouts = tied_timeouts(tables["timeouts"], names["timeouts"], listing["paths"], listing["maps"],
                             names["multipath"]) if "timeouts" in tables else ScsiTimeouts()
    host, warnings, measured, undetermined, built = build(LinuxCaptures(listing["maps"], listing["paths"], tables.get("conf"),
                                                   tables.get("rates"), tables.get("sessions"), names, transitions,
                                                   timeouts.io_timeout))
    warnings = [*warnings, *said, *timeouts.warnings]
    imported_maps = {str(p.map) for p in listing["paths"].itertuples() if has_address(p)}
    captured = [load for m in listing["maps"].itertuples() if str(m.name) in imported_maps
                if (load := from_rates(tables.get("rates"), str(m.dm), str(m.wwid), names.get("rates", ""))) is not None]
    return Imported(host, warnings, multipath_findings(listing["paths"], names["multipath"]) + built
                    + listing_findings(listing["maps"], listing["paths"], names["multipath"], tables.get("conf"),
                                       names.get("conf", ""))
                    + ineffective_settings(tables.get("conf"), names.get("conf", "")), measured_load=measured,
                    undetermined=undetermined,
                    timers=[*dm_timers(tables.get("conf"), names.get("conf", ""), listing["maps"], names["multipath"],
                                       hwtable_sets), *read_times, *timeouts.timers],
                    captured=captured)
