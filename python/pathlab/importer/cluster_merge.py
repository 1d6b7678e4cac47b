"""Several hosts' imports made one scenario: each host keeps its adapters, paths, queue depths,
policies and measured load (its `[host]` becomes one of the scenario's hosts, its names written
`HOST/NAME`), and what the hosts share is one object. A device is one LUN on several hosts when
its name (the NAA, WWID or NQN the host reads) is the same on their arrays; an array port is one
port when its identity matches (`port_identity`: a target WWN, an iSCSI portal, an NVMe target
address). An array is one array when the hosts share a device or a port on it; otherwise each
host's is an array of its own. The merge works on the hosts' typed tables (`host_tables.py`): every
value keeps its provenance; what the merge itself decides is `Derived` (its comment says so) or a
warning. A LUN numbered otherwise on the cluster's array has its paths' `listed` keys renamed with
it (`L<n>` of the cluster's number), as its faults' paths are."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from pathlab.api import ScenarioError
from pathlab.importer.host_tables import KEPT, Element, Elements, Entry, HostTables, Table
from pathlab.importer.port_identity import port_identity
from pathlab.importer.provenance import Assumed, Derived, Noted, OfHost, Own, Provenance, Read
from pathlab.toml_values import to_toml

#: The tables of a host's import that stay that host's, in the order they are written.
HOST_TABLES = ("fabric", "devices", "faults", "workloads", "unsimulated")
#: An array's keys that are the array's own, not one host's reading of it.
ARRAY_KEYS_MERGED = ("name", "ports", "controllers")
#: An array's keys it may answer each host with its own value of (an ALUA or failover mode set
#: per initiator): where two hosts read different values, each host's devices keep the host's.
ARRAY_KEYS_PER_HOST = ("non_owner_state",)


@dataclass(frozen=True)
class Member:
    """One host of the cluster: its name and where the name comes from, its stack, its files
    (for messages), and the tables of its own import (left as they are: the merge edits a copy)."""

    name: str
    #: Where the name comes from: the capture's file and line (`Read`), or `Given`.
    name_source: Provenance
    stack: str
    files: tuple[str, ...]
    tables: HostTables


@dataclass
class ClusterPort:
    """A port of a cluster's array: its name there, its identity (None: one host's alone), the
    controller the first host gave it, and each host's comment on it."""

    name: str
    identity: str | None
    controller: str | None
    seen: list[tuple[str, Provenance | None]] = field(default_factory=list)


@dataclass
class ClusterArray:
    """An array of the cluster: the first host's table of it (named `origin` there), its ports,
    controllers and LUNs."""

    name: str
    origin: str
    table: Table
    ports: list[ClusterPort] = field(default_factory=list)
    controllers: list[str] = field(default_factory=list)
    #: Device name → (LUN number, first host).
    luns: dict[str, tuple[int, str]] = field(default_factory=dict)
    #: Device name → (its owning controller, the first host that names one).
    owners: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: Each host's reading of the controller of each cluster port it reaches (`_cluster_owner`).
    host_controllers: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Device name → host → (its device table, the owner it shows), for a refusal to name.
    owner_shown: dict[str, dict[str, tuple[Table, str]]] = field(default_factory=dict)
    #: Each host's reading of each `ARRAY_KEYS_PER_HOST` key, in the hosts' order: the host, the
    #: value it read with its source (None where its captures give none, or a default), and the
    #: host's device tables on the array; decided once every host is in (`_per_host_keys`).
    readings: dict[str, list[tuple[str, tuple[Any, Provenance] | None, list[Table]]]] = field(default_factory=dict)
    #: Each host's reading of whether the array is symmetric: (host, value, source), in the hosts' order.
    symmetry: list[tuple[str, Any, Provenance | None]] = field(default_factory=list)

    @property
    def vendor_note(self) -> str:
        """The first host's comment on the array's vendor (the file that shows it)."""
        return _said(self.table.source("vendor"))


@dataclass
class Merged:
    """The cluster's scenario as typed tables, the warnings of what the merge assumed, and what
    the hosts share: each device name's hosts, each port's (`ARRAY/PORT`) hosts."""

    tables: HostTables
    warnings: list[tuple[str, str]]
    device_hosts: dict[str, list[str]]
    port_hosts: dict[str, list[str]]
    #: Each port's identity (`port_identity`), None for a port of one host's alone.
    port_ids: dict[str, str | None]

    @property
    def text(self) -> str:
        """The scenario as `pathlab import --host …` writes it."""
        return self.tables.render()


class Merging:
    """The cluster put together one host at a time (`add`, in the hosts' order), as each host's
    import arrives from its worker: `merged()` once the last is added is the scenario of them all."""

    def __init__(self) -> None:
        self.members: list[Member] = []
        self.arrays: list[ClusterArray] = []
        self.warnings: list[tuple[str, str]] = []
        self.device_hosts: dict[str, list[str]] = {}
        self.host_tables: list[Table] = []
        self.own_tables: list[list[Table]] = []  # each member's, in `members`' order
        self.claims: dict[str, tuple[str, Provenance]] = {}  # each claim rule → the first host that shows it, and where
        self.run: Table | None = None

    def add(self, m: Member) -> None:
        """The next host merged into the cluster (its tables copied first, `HostTables.copy`: the
        host's stay as they are)."""
        parts = m.tables.copy().tables
        _claims(m, _elements(parts[0], "esxcli"), self.claims, self.warnings)
        kinds = {t.kind for t in parts[1:]} - {"run", "host", "arrays", *HOST_TABLES}
        if kinds:
            raise ScenarioError(", ".join(m.files), "", f"the import of host {m.name} has a table a cluster is not put "
                                                        f"together from ({', '.join(sorted(str(k) for k in kinds))})")
        self.run = self.run or next(t for t in parts if t.kind == "run")
        host = next(t for t in parts if t.kind == "host")
        if self.members:
            host.kind, host.array = "hosts", True
        host.set("name", m.name, m.name_source)
        _name_first(host)
        self.host_tables.append(host)
        renamed = _merge_arrays(m, [t for t in parts if t.kind == "arrays"], parts, self.arrays, self.warnings)
        own = [t for t in parts[1:] if t.kind in HOST_TABLES]
        moved: dict[int, int] = {}
        for t in own:
            _own_table(m, t, renamed, self.arrays, self.warnings, self.device_hosts, moved)
            # The lines of the entries the merge made (its names for the host's paths, ports and
            # devices), rendered now while the workers read the later hosts rather than after the
            # last: an entry keeps its line (`Entry.rendered`) and is never edited in place.
            t.lines()
        self.own_tables.append(own)
        self.members.append(m)

    def merged(self) -> Merged:
        """The cluster of the hosts added (two or more)."""
        members, arrays = self.members, self.arrays
        port_hosts = {f"{a.name}/{p.name}": list(dict.fromkeys(h for h, _ in p.seen)) for a in arrays for p in a.ports}
        port_ids = {f"{a.name}/{p.name}": p.identity for a in arrays for p in a.ports}
        assert self.run is not None
        cluster = HostTables()
        top = cluster.top
        for line in [f"# Imported by `pathlab import` from {len(members)} hosts' captures, put together as one cluster:",
                     *(f"#   {m.name}: {', '.join(m.files)}" for m in members),
                     "# Values the captures give name their file and field; `default:` marks what they do not say:",
                     "# confirm those (pathlab printed a warning for each). A device several hosts list (one NAA, WWID",
                     "# or NQN) is one LUN of their array, a port several reach (one WWN, portal or NVMe address) one port."]:
            top.line(line)
        top.key("name", "imported-cluster", Own("the scenario's name"))
        top.key("description", f"{len(members)} hosts as their captures describe them, sharing their arrays.",
                Own("the scenario's description"))
        if self.claims:
            top.line("# The array-type plugins the hosts claim their devices with, as they show them (on every host).")
            top.elements("esxcli", [Element(c, source) for c, (_, source) in self.claims.items()])
        cluster.tables += [self.run, *self.host_tables]
        for a in arrays:
            _refuse_read_apart(a, {m.name: m.stack for m in members})
            _per_host_keys(a, self.warnings)
            _write_ports(a)
            cluster.tables.append(a.table)
        for m, own in zip(members, self.own_tables):
            _tidy(cluster.tables[-1]).items += ["", f"# {m.name}'s own paths, devices and load: {', '.join(m.files)}"]
            cluster.tables += own
        for t in cluster.tables[:-1]:
            _tidy(t).items.append("")
        _tidy(cluster.tables[-1])
        return Merged(cluster, self.warnings, self.device_hosts, port_hosts, port_ids)


def _tidy(t: Table) -> Table:
    """The table with one blank line where it had several, and none at its end (a blank line is
    put between tables, and one only)."""
    items: list = []
    after_blank = False
    for item in t.items:
        # (`type() is str` first: `==` of an entry, a dataclass, with "" costs a call each, and a
        # cluster's tables hold 400,000 items: 0.21 s of the 1.8 s after 32 hosts' last arrived, now 0.13.)
        blank = type(item) is str and not item
        if not (blank and after_blank):
            items.append(item)
        after_blank = blank
    while items and items[-1] == "":
        items.pop()
    t.items = items
    return t


def _claims(m: Member, own: list[tuple[Any, Provenance | None]], claims: dict[str, tuple[str, Provenance]],
            warnings: list[tuple[str, str]]) -> None:
    """The host's claim rules added to the cluster's, which every host takes, each with the host
    that gave it first and where; a vendor that two hosts claim with different rules is said (the
    first rule listed wins on every host)."""
    for rule, source in own:
        vendor = _claimed_vendor(rule)
        other = next((r for r in claims if r != rule and vendor and _claimed_vendor(r) == vendor), None)
        if other is not None:
            warnings.append(("esxcli", f"{m.name} claims vendor {vendor} with `{rule}`, {claims[other][0]} with `{other}`: "
                                       "the hosts disagree; the rules apply to every host of the scenario, the first "
                                       "listed first"))
        claims.setdefault(rule, (m.name, OfHost(m.name, source) if source is not None else Noted(m.name)))


def _claimed_vendor(rule: str) -> str | None:
    """The vendor (`-V`) of a `satp rule add`."""
    match = re.search(r" -V (\S+)", rule)
    return match.group(1) if match else None


def _name_first(host: Table) -> None:
    """The host's `name` first in its table (where the importers write it)."""
    found = host.find("name")
    host.items.insert(0, host.items.pop(host.items.index(found)))  # type: ignore[arg-type]


def _file_of(source: Provenance | None) -> str:
    """The file a value was read from, or the first its rule used; "" where none (assumed, or
    said in words only)."""
    if isinstance(source, Read):
        return source.file
    if isinstance(source, Derived):
        return source.used[0] if source.used else ""
    if isinstance(source, OfHost):
        return _file_of(source.source)
    return ""


def _said(source: Provenance | None) -> str:
    return source.comment() if source is not None else ""


def _elements(t: Table, key: str) -> list[tuple[dict, Provenance | None]]:
    """An array of inline tables of the table: each element and its provenance (a whole array on
    one line: the line's)."""
    found = t.find(key)
    if isinstance(found, Elements):
        return [(e.value, e.source) for e in found.elements]
    return [(element, found.source) for element in found.value] if found is not None else []


def _merge_arrays(m: Member, own: list[Table], parts: list[Table], arrays: list[ClusterArray],
                  warnings: list[tuple[str, str]]) -> dict[str, tuple[str, dict[str, str]]]:
    """Each of the host's arrays as an array of the cluster: the one of that name it shares a
    device or a port with, else a new one. Returns the host's array name → (the cluster's name,
    the host's port names → the cluster's)."""
    renamed: dict[str, tuple[str, dict[str, str]]] = {}
    devices = [_keys(t, ("name", "array")) for t in parts if t.kind == "devices"]
    for t in own:
        name = str(t.get("name"))
        ports = [(ClusterPort(str(e["name"]), port_identity(m.stack, name, str(e["name"]), _said(note)),
                              str(e["controller"]) if "controller" in e else None), note) for e, note in _elements(t, "ports")]
        identities = {p.identity for p, _ in ports if p.identity}
        names = {str(d["name"]) for d in devices if d.get("array") == name}
        target = next((a for a in arrays if a.origin == name
                       and ({p.identity for p in a.ports if p.identity} & identities or names & set(a.luns))), None)
        if target is None:
            taken = {a.name for a in arrays}
            fresh = name if name not in taken else next(f"{name}-{k}" for k in range(2, 10_000) if f"{name}-{k}" not in taken)
            target = ClusterArray(fresh, name, t)
            if fresh != name:
                t.set("name", fresh, Derived(f"derived: {m.name}'s {name} shares no device or port with the other hosts' "
                                             f"{name}: another array"))
            arrays.append(target)
        else:
            _agree(m, name, t, target, warnings)
            if not identities and len(target.ports) and not ({p.identity for p in target.ports} - {None}):
                warnings.append((f"arrays.{target.name}.ports",
                                 f"{m.name} shares LUNs of {target.name} with other hosts, but neither its captures nor "
                                 "theirs name the array ports (multipath -ll shows no target WWN): its ports are taken "
                                 "as its own, not as ports another host reaches"))
        mine = [d for d in parts if d.kind == "devices" and d.get("array") == name]
        if (symmetric := t.find("symmetric")) is not None and isinstance(symmetric, Entry):
            target.symmetry.append((m.name, symmetric.value, symmetric.source))
        for key in ARRAY_KEYS_PER_HOST:
            entry = t.find(key)
            got = (entry.value, entry.source) if isinstance(entry, Entry) and entry.source is not None \
                and not isinstance(entry.source, Assumed) else None  # a default is no reading
            target.readings.setdefault(key, []).append((m.name, got, mine))
        port_names: dict[str, str] = {}
        shared = {id(port): found for port, _ in ports
                  if (found := next((p for p in target.ports if port.identity and p.identity == port.identity), None))}
        # The cluster's controller of each of the host's controllers that leads to ports other hosts
        # gave one: a port the host alone reaches takes it (its own name only where it leads to none
        # or to several, which `_cluster_owner` refuses where an owner's paths would run otherwise).
        cluster_of: dict[str, set[str | None]] = {}
        for port, _ in ports:
            if port.controller and id(port) in shared:
                cluster_of.setdefault(port.controller, set()).add(shared[id(port)].controller)
        for port, note in ports:
            found = shared.get(id(port)) or next((p for p in target.ports  # (or one of the host's own, listed twice)
                                                  if port.identity and p.identity == port.identity), None)
            if found is None:
                joined = cluster_of.get(port.controller or "", set())
                controller = next(iter(joined)) if len(joined) == 1 else port.controller
                if controller != port.controller:
                    first = next(p for q, _ in ports if id(q) in shared and q.controller == port.controller
                                 for p in [shared[id(q)]])
                    note = Derived(f"{_said(note)}; {m.name}'s controller {port.controller}, the cluster's {controller}: "
                                   f"the controller {first.seen[0][0]} reads port {first.name} as, which {m.name} reads "
                                   f"as {port.controller} too (derived: one controller per port)", (_file_of(note),))
                found = ClusterPort(_free_port_name(port.name, m.name, {p.name for p in target.ports}), port.identity,
                                    controller)
                target.ports.append(found)
                if controller and controller not in target.controllers:
                    target.controllers.append(controller)
            found.seen.append((m.name, note))
            port_names[port.name] = found.name
            if port.controller:
                target.host_controllers.setdefault(m.name, {})[found.name] = port.controller
        translated = {c for c, joined in cluster_of.items() if len(joined) == 1 and c not in joined}
        for c in t.get("controllers", []):
            if c["name"] not in target.controllers and c["name"] not in translated:
                target.controllers.append(str(c["name"]))
        renamed[name] = (target.name, port_names)
    return renamed


def _free_port_name(port: str, host: str, taken: set[str]) -> str:
    """The port's name in the cluster's array: its own where free; a `P<n>` (the ESXi importer's
    numbering) the next number free; else after its host."""
    if port not in taken:
        return port
    if re.fullmatch(r"P\d+", port):
        return next(f"P{k}" for k in range(len(taken) + 1) if f"P{k}" not in taken)
    return f"{host}-{port}"


def _agree(m: Member, name: str, t: Table, a: ClusterArray, warnings: list[tuple[str, str]]) -> None:
    """The host's reading of an array another host already gave: vendor and model must agree
    (else they are not one array); another value is taken from this host where the first host's
    is a default and this host's is not, and where both read different values the first's is
    kept, and that is said. A key the array may answer each host with its own value of
    (`ARRAY_KEYS_PER_HOST`) is decided once every host is in (`_per_host_keys`)."""
    theirs = a.table.values()
    for key in ("vendor", "model"):
        mine, first = str(t.get(key, "")), str(theirs.get(key, ""))
        if mine and first and mine != first:
            raise ScenarioError(_file_of(t.source(key)) or ", ".join(m.files), key,
                                f"{m.name} reads array {name}'s {key} as {mine!r}, {_file_of(a.table.source(key))} as "
                                f"{first!r}, though they share its devices or ports: not one array; give the "
                                "captures of hosts of one cluster")
    for key, value in t.values().items():
        if key in ARRAY_KEYS_MERGED or key in ARRAY_KEYS_PER_HOST or theirs.get(key) == value:
            continue
        entry, first_source = t.find(key), a.table.source(key)
        mine_source = entry.source if isinstance(entry, Entry) else None
        if key not in theirs or (isinstance(first_source, Assumed) and not isinstance(mine_source, Assumed)):
            a.table.set(key, value, OfHost(m.name, mine_source) if mine_source else Noted(m.name),
                        literal=entry.literal if isinstance(entry, Entry) else None)
        elif not isinstance(mine_source, Assumed):
            warnings.append((f"arrays.{a.name}.{key}", f"{m.name} gives {to_toml(value)} ({_said(mine_source)}), another "
                                                       f"host {to_toml(theirs[key])} ({_said(first_source)}): the first kept"))


#: Per stack, the listing that shows whether a host reads an array symmetric or owned by its controllers.
SYMMETRY_SHOWN_BY = {
    "esxi": "the TPG states of `esxcli storage nmp device list` (Storage Array Type Device Config: every target "
            "port group the array reports, reached or not) and `nmp path list` (`hpp path list` under HPP)",
    "linux": "`multipath -ll` (its paths' priorities: `-l` shows none)",
    "nvme": "the ANA states (`nvme list-subsys`, or /sys/block/nvme*c*n*/ana_state)",
    "powerpath": "`powermt display dev=all` (its Owner lines)",
    "windows": "`mpclaim -s -d N` (its paths' TPG states)",
}


def _refuse_read_apart(a: ClusterArray, stacks: dict[str, str]) -> None:
    """Refuses an array one host reads symmetric and another owned by its controllers, whichever
    host comes first. The scenario holds one `symmetric` per array (a device's own state is a
    non-owner's, never active-optimized), so either reading kept simulates the other host against
    what it printed; the first host's was kept where the ports all had a controller, and the
    hosts' order decided between that and a refusal. A listing may mislead (`multipath -l` shows
    no priorities, a host may reach one controller only) or the array answer the hosts apart (a
    mode set per host): which, the merge cannot tell; the message says what settles it, for each
    host's stack (`SYMMETRY_SHOWN_BY`)."""
    read = [(h, v, s) for h, v, s in a.symmetry if s is not None and not isinstance(s, Assumed)]
    symmetric = next(((h, s) for h, v, s in read if v), None)
    owned = next(((h, s) for h, v, s in read if not v), None)
    if symmetric is None or owned is None:
        return
    raise ScenarioError(_file_of(symmetric[1]) or a.name, "symmetric",
                        f"{symmetric[0]} reads array {a.name} as symmetric ({_said(symmetric[1])}), {owned[0]} as owned "
                        f"by its controllers ({_said(owned[1])}): the scenario has one reading of an array, so the hosts "
                        "cannot be simulated together as each shows it; give "
                        + ", ".join(f"{h}'s {SYMMETRY_SHOWN_BY[stacks[h]]}" for h in (symmetric[0], owned[0]))
                        + ", or, where the array answers the hosts apart (a mode set per host), import each host alone")


def _per_host_keys(a: ClusterArray, warnings: list[tuple[str, str]]) -> None:
    """Each `ARRAY_KEYS_PER_HOST` key of the array from every host's reading, whatever the hosts'
    order: a value read wins over a host's default; where hosts read different values the array
    takes the one most read (among equals the first in the scenario's order of values, so the
    hosts' order does not decide), each host that read another keeps its own on its devices, and
    both readings are said, with what a host that read none runs."""
    for key, readings in a.readings.items():
        read = [(host, value, source) for host, got, _ in readings if got is not None for value, source in [got]]
        if not read:
            continue
        counts = Counter(to_toml(value) for _, value, _ in read)
        chosen = min(counts, key=lambda v: (-counts[v], v))
        host, value, source = next(r for r in read if to_toml(r[1]) == chosen)
        rule = "" if len(counts) == 1 else f"; the value most hosts read ({counts[chosen]} of {len(read)})"
        a.table.set(key, value, OfHost(host, source) if not rule else Derived(f"derived: {host}'s reading "
                                                                             f"({_said(source)}){rule}"))
        for other, got, devices in readings:
            if got is not None and to_toml(got[0]) != chosen:
                for d in devices:
                    if d.find(key) is None:  # a device that read a state of its own keeps it
                        d.set(key, got[0], got[1], after="owner" if d.find("owner") else None)
                warnings.append((f"arrays.{a.name}.{key}", f"{other} gives {to_toml(got[0])} ({_said(got[1])}), {host} "
                                                           f"{chosen} ({_said(source)}): the array answers the hosts "
                                                           f"apart; {other}'s devices keep its own"))
        silent = [h for h, got, devices in readings if got is None and devices]
        if silent and len(counts) == 1:
            readers = ", ".join(dict.fromkeys(h for h, _, _ in read))
            warnings.append((f"arrays.{a.name}.{key}", f"{', '.join(silent)} show{'s' if len(silent) == 1 else ''} no "
                                                       f"{key} of {a.name}: {'its' if len(silent) == 1 else 'their'} "
                                                       f"devices run {chosen.strip(chr(34))}, as {readers} read, "
                                                       f"which no capture of {'its' if len(silent) == 1 else 'their'} "
                                                       "own settles"))
        if silent and len(counts) > 1:
            warnings.append((f"arrays.{a.name}.{key}", f"{', '.join(silent)} show{'s' if len(silent) == 1 else ''} no "
                                                       f"{key} of {a.name}, which the other hosts read apart "
                                                       f"({', '.join(v.strip(chr(34)) for v in sorted(counts))}): "
                                                       f"{'its' if len(silent) == 1 else 'their'} devices run "
                                                       f"{chosen.strip(chr(34))}, "
                                                       "the value most hosts read, which no capture of theirs settles"))


def _write_ports(a: ClusterArray) -> None:
    """The array's ports and controllers as the cluster has them, each port's comment naming every
    host's source of it."""
    bare = [p for p in a.ports if not p.controller]
    if a.controllers and bare:  # no two readings to name (`_refuse_read_apart`): the ports' hosts
        hosts = sorted({h for p in bare for h, _ in p.seen})
        # a host whose symmetry is assumed (its listing cut after one group) says why it shows no controller
        assumed = [f"{h}'s symmetric is assumed: {s.why}" for h, _, s in a.symmetry if h in hosts and isinstance(s, Assumed)]
        raise ScenarioError(_file_of(a.table.source("vendor")) or a.name, "ports",
                            f"{', '.join(hosts)} reach array {a.name} through ports without a controller, other hosts "
                            "through its controllers' ports" + "".join(f" ({said})" for said in assumed)
                            + ": give every host's listing with its paths' states")
    elements = []
    for p in a.ports:
        value = {"name": p.name, **({"controller": p.controller} if p.controller else {})}
        hosts = list(dict.fromkeys(h for h, _ in p.seen))
        if len(hosts) > 1:
            files = tuple(dict.fromkeys(f for _, note in p.seen if (f := _file_of(note))))
            elements.append(Element(value, Derived(f"derived: one port of {', '.join(hosts)}, by its {p.identity} "
                                                   f"({', '.join(files)})", files)))
        else:
            elements.append(Element(value, p.seen[0][1]))
    found = a.table.find("ports")
    assert found is not None
    a.table.replace(found, Elements("ports", elements))
    if a.controllers:  # the first host's, or (its array shown symmetric) the ones later hosts' ports lead to
        a.table.set("controllers", [{"name": c} for c in a.controllers],
                    KEPT if a.table.find("controllers") else Derived("derived: the controllers the hosts' ports lead to"))


def _own_table(m: Member, t: Table, renamed: dict[str, tuple[str, dict[str, str]]], arrays: list[ClusterArray],
               warnings: list[tuple[str, str]], device_hosts: dict[str, list[str]], moved: dict[int, int]) -> None:
    """One of the host's own tables with its names written as the cluster's: `HOST/NAME` for its
    adapters, devices and paths, the cluster's arrays and ports, the LUN the cluster has (`moved`:
    the host's LUN numbers the cluster numbers otherwise, for its faults' path names)."""
    # A device's few keys the merge reads, not its every value (its `listed` tables are most of a host's).
    values = _keys(t, ("name", "lun", "array", "owner")) if t.kind == "devices" else t.values()
    if t.kind == "fabric":
        t.set("adapters", [f"{m.name}/{a}" for a in values["adapters"]])
        t.set("ports", [_port_ref(p, renamed) for p in values["ports"]])
    elif t.kind == "devices":
        _own_device(m, t, values, renamed, arrays, warnings, device_hosts, moved)
    elif t.kind == "faults":
        if "path" in values:
            path = re.sub(r":L(\d+)$", lambda x: f":L{moved.get(int(x[1]), int(x[1]))}", str(values["path"]))
            t.set("path", f"{m.name}/{path}")
        if "device" in values:
            t.set("device", f"{m.name}/{values['device']}")
    elif t.kind == "unsimulated":  # printed back by its host's view
        t.set("host", m.name, Own("the host whose listing it is"), after="name")
    elif t.kind == "workloads":
        t.set("name", f"{m.name}-{values['name']}")
        t.set("devices", [f"{m.name}/{d}" for d in values["devices"]])


def _keys(t: Table, keys: tuple[str, ...]) -> dict[str, Any]:
    """The table's values of these top-level keys (those it has), as `t.values()` has them."""
    return {k: found.value for k in keys if (found := t.find(k)) is not None}


def _port_ref(ref: str, renamed: dict[str, tuple[str, dict[str, str]]]) -> str:
    array, _, port = ref.partition("/")
    name, ports = renamed[array]
    return f"{name}/{ports[port]}"


def _own_device(m: Member, t: Table, values: dict[str, object], renamed: dict[str, tuple[str, dict[str, str]]],
                arrays: list[ClusterArray], warnings: list[tuple[str, str]], device_hosts: dict[str, list[str]],
                moved: dict[int, int]) -> None:
    """The host's device as one of the cluster's: its host named, its array the cluster's, its LUN
    the one the hosts sharing it have (the first host's number), a number another device of the
    array has moved to a free one."""
    name, lun = str(values["name"]), int(str(values["lun"]))
    a = next(x for x in arrays if x.name == renamed[str(values["array"])][0])
    elsewhere = next((x for x in arrays if x is not a and name in x.luns), None)
    if elsewhere is not None:
        raise ScenarioError(_file_of(a.table.source("vendor")) or ", ".join(m.files), name,
                            f"{m.name} has it on array {a.origin} ({a.vendor_note}), {elsewhere.luns[name][1]} on "
                            f"{elsewhere.origin} ({elsewhere.vendor_note}): one NAA, WWID or NQN on two arrays is not one "
                            "LUN; give the captures of hosts of one cluster")
    t.set("host", m.name, Own("the host whose device it is"), after="name")
    t.set("array", a.name)
    if name in a.luns:
        first, first_host = a.luns[name]
        t.set("host", m.name, Derived(f"derived: the LUN {first_host} has too (the same name)"))
        if first != lun:
            t.set("lun", first, Derived(f"{first_host}'s number of the LUN; {m.name} shows {lun} "
                                        f"({_said(t.source('lun'))})"))
            _renumber_listed(t, lun, first)
            warnings.append((f"devices.{m.name}/{name}.lun", f"{m.name} numbers the LUN {lun}, {first_host} {first}: "
                                                             f"the scenario's number is the array's, {first} taken (its "
                                                             f"paths on {m.name} are named L{first})"))
            moved[lun] = first
    else:
        used = {n for n, _ in a.luns.values()}
        if lun in used:
            new = next(k for k in range(1, len(used) + 2) if k not in used)
            t.set("lun", new, Derived(f"derived: {m.name} shows {lun} ({_said(t.source('lun'))}), another LUN's "
                                      "number on another host"))
            _renumber_listed(t, lun, new)
            warnings.append((f"devices.{m.name}/{name}.lun", f"LUN {lun} of {a.name} is another device on another "
                                                             f"host: {new} taken (its paths on {m.name} are named L{new})"))
            moved[lun], lun = new, new
        a.luns[name] = (lun, m.name)
    if values.get("owner") is not None:
        owner = _cluster_owner(m, t, name, str(values["owner"]), a)
        first_owner, by = a.owners.setdefault(name, (owner, m.name))
        if first_owner != owner:
            warnings.append((f"devices.{m.name}/{name}.owner",
                             f"{m.name} shows controller {owner} owning it ({_said(t.source('owner'))}), {by} {first_owner}: "
                             "one LUN has one owner; each host's owner is the cluster's controller of the ports it "
                             "shows it through (a Linux host names them A and B by its paths' priorities), so each "
                             "host is simulated as it shows it"))
    device_hosts.setdefault(name, []).append(m.name)


def _cluster_owner(m: Member, t: Table, name: str, owner: str, a: ClusterArray) -> str:
    """The host's owner of the device as the cluster's controller: the one whose ports the host
    reads as its owner's (a port's controller is the first host's reading of it). A host names
    controllers its own way (a Linux host A and B by its first map's priorities; an ESXi host
    `TPG1+TPG2` where its paths show two groups optimized together), so the name is translated
    (`Derived`, said); where no controller of the cluster leads to exactly the ports the host shows
    optimized, the host would run other paths optimized than it shows: refused, naming both
    readings. A port leads to one controller, a device has one owner per host."""
    read = a.host_controllers.get(m.name, {})
    a.owner_shown.setdefault(name, {})[m.name] = (t, owner)
    led = [p for p, c in read.items() if c == owner]
    if not led:  # no port of this host leads to its owner: no path of it runs optimized, here or in the cluster
        return owner
    cluster = {p.name: p for p in a.ports}
    controllers = [cluster[p].controller for p in led]
    if None in controllers:  # a port without a controller beside controllers' ports: `_write_ports` refuses it
        return owner
    named = {c for c in controllers if c is not None}
    wrong = [p for p in read if (cluster[p].controller in named) != (read[p] == owner)]
    if len(named) > 1 or wrong:
        _refuse_controllers_apart(m, name, read, [cluster[p] for p in sorted({*led, *wrong})], a)
    (joined,) = named
    if joined != owner:
        readers = ", ".join(dict.fromkeys(h for p in led for h, _ in cluster[p].seen[:1] if h != m.name))
        t.set("owner", joined, Derived(f"{_said(t.source('owner'))}; {m.name}'s {owner}, the cluster's {joined}: the "
                                       f"controller of its port{'s' if len(led) > 1 else ''} {', '.join(led)} there "
                                       f"({readers}'s reading; derived: one controller per port)"))
    return joined


def _shown_at(t: Table, owner: str) -> str:
    """Where the host shows the device's owner: its comment and the lines of its listed paths."""
    listed = [s for item in t.items if isinstance(item, Entry) and item.key[:2] == ("listed", "paths")
              and isinstance(s := item.source, Read) and s.line is not None]
    lines = sorted({s.line for s in listed if s.line is not None})
    at = (f"; its paths at {listed[0].file}, line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines[:6]))}"
          f"{' and more' if len(lines) > 6 else ''}") if listed else ""
    return f"owned by {owner}: {_said(t.source('owner'))}{at}"


def _refuse_controllers_apart(m: Member, name: str, read: dict[str, str], ports: list[ClusterPort],
                              a: ClusterArray) -> None:
    """Refuses a host whose reading of which ports are one controller cannot hold beside an earlier
    host's (a metro host showing two arrays' groups optimized together, `TPG1+TPG2`, and one
    preferring an array, TPG 1 alone): the scenario has one controller per port, so one of them
    would run paths in a state its listing does not show."""
    first, note = next(((h, s) for p in ports for h, s in p.seen[:1] if h != m.name), (m.name, None))
    theirs_ports = [p for p in ports if p.seen[0][0] == first]
    theirs = a.owner_shown.get(name, {}).get(first)
    raise ScenarioError(", ".join(m.files), f"devices.{name}.owner",
                        f"{m.name} reads ports {', '.join(p.name for p in ports)} of array {a.name} as controllers "
                        f"{', '.join(f'{p.name} {read[p.name]}' for p in ports)} ({name} "
                        f"{_shown_at(*a.owner_shown[name][m.name])}), {first} as "
                        f"{', '.join(f'{p.name} {p.controller}' for p in theirs_ports)}"
                        + (f" ({name} {_shown_at(*theirs)})" if theirs else f" ({_said(note)})" if note else "")
                        + ": the scenario has one controller per port and one owner per device, so one of the hosts "
                        "would run paths in a state its listing does not show; import the hosts apart, or take the "
                        "captures again after aligning the array's preferences for them (a preferred array set for "
                        "every host, or for none)")


def _renumber_listed(t: Table, old: int, new: int) -> None:
    """The device's listed paths named by the LUN's number in the cluster (`…:L<new>`, as the
    scenario names its paths there); what the host printed of each path is kept as printed."""
    t.items = [replace(item, key=(*item.key[:2], re.sub(rf":L{old}$", f":L{new}", item.key[2])))
               if isinstance(item, Entry) and item.key[:2] == ("listed", "paths") else item for item in t.items]
