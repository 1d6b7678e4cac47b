"""The scenario of a SCSI host whose multipathing listing names, per device, its paths (adapter,
array port, state) and the policy in force: PowerPath's `powermt display` (`powerpath.py`) and
Windows MPIO's `mpclaim -s -d N` (`mpio.py`). Each of those reads its listing into the neutral
host below, every value with the comment that says where it was read (or that it is assumed);
this module builds the host's typed tables once for both, with the defaults and warnings of what
no listing of theirs gives (the fabric's distance, a port's capacity, the load when none was
captured). The two readers give each value's source typed (`Read`, `Derived`, `Assumed`), as
every importer does."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from pathlab.importer.host_tables import Element, HostTables
from pathlab.importer.listed import listed_entries
from pathlab.importer.path_down import down_from_start
from pathlab.importer.provenance import Assumed, Derived, Listed, Own, Provenance, Read
from pathlab.importer.values import add_run, heading, zero_load_assumed

DEFAULT_ONE_WAY = "5us"  # a fabric within one room
DEFAULT_PORT_SERVICE_US = 20.0  # an array front-end port of the 2010s: about 50,000 I/O/s
DEFAULT_OUTSTANDING = 32


@dataclass(frozen=True)
class Port:
    name: str
    controller: str | None
    note: Provenance


@dataclass
class Array:
    name: str
    vendor: str
    model: str
    #: Where vendor and model come from (read, or the rule that gave them).
    vendor_note: Provenance
    symmetric: bool
    symmetric_note: Provenance
    tpgs: bool
    tpgs_note: Provenance
    #: The state of the other controller's paths on an array with LUN ownership (`standby` for
    #: an active-passive array), None for the default (active non-optimized).
    non_owner_state: str | None = None
    non_owner_note: Provenance | None = None
    ports: dict[str, Port] = field(default_factory=dict)


@dataclass(frozen=True)
class Path:
    adapter: str
    port: str
    target: int
    #: Why the path is down from the start (the listing's line), None when it works.
    down: Provenance | None = None
    #: What the listing printed of the path, word for word (`listed`), and its line.
    listed: dict[str, Any] | None = None
    line: int | None = None


@dataclass
class Device:
    name: str
    note: Provenance
    array: str
    lun: int
    lun_note: Provenance
    policy: dict[str, Any]
    policy_note: Provenance
    owner: str | None = None
    owner_note: Provenance | None = None
    paths: list[Path] = field(default_factory=list)
    #: I/Os in flight at the capture's instant (a snapshot), with where it was read; None when
    #: the listing shows none.
    in_flight: tuple[int, Read] | None = None
    #: What the listing printed of the device, word for word (`listed`, for `pathlab show`).
    listed: dict[str, Any] | None = None


@dataclass
class Host:
    kind: str
    description: str
    file: str
    #: Adapter name → where it was read.
    adapters: dict[str, Provenance]
    arrays: list[Array]
    devices: list[Device]
    warnings: list[tuple[str, str]] = field(default_factory=list)


def scenario(host: Host) -> tuple[HostTables, bool]:
    """The host's typed tables, and whether the listing gave any device's load (its I/Os in
    flight); the warnings of what it assumes are added to `host.warnings`."""
    file, warnings = host.file, host.warnings
    out = heading([f"# Imported by `pathlab import` from {file}.",
                   "# Values the listing gives name its file and line; `default:` marks what it does not say:",
                   "# confirm those (pathlab printed a warning for each)."], f"imported-{host.kind}-host", host.description)
    add_run(out)
    table = out.table("host")
    table.key("name", "host01", Assumed("pathlab's name for the host: no listing names it"))
    table.elements("adapters", [Element({"name": name}, note) for name, note in host.adapters.items()])
    for array in host.arrays:
        a = out.table("arrays", array=True)
        a.key("name", array.name, Own("the array's name in the scenario"))
        a.key("vendor", array.vendor, array.vendor_note)
        if array.model:
            a.key("model", array.model, array.vendor_note)
        a.key("symmetric", array.symmetric, array.symmetric_note)
        a.key("tpgs", array.tpgs, array.tpgs_note)
        a.key("service", {"fixed": f"{DEFAULT_PORT_SERVICE_US}us", "distribution": "exponential"},
              Assumed("the listing does not show a port at capacity"))
        warnings.append(zero_load_assumed(array.name))
        if not array.symmetric:
            # A LUN's owner may be a controller none of the host's paths lead to (zoned to the other SP only).
            owners = {d.owner for d in host.devices if d.array == array.name and d.owner}
            a.key("controllers", [{"name": n} for n in sorted({p.controller for p in array.ports.values() if p.controller}
                                                              | owners)],
                  Derived(f"{host.file}: the controllers the ports' paths lead to, and the LUNs' owners", (host.file,)))
        if array.non_owner_state:
            assert array.non_owner_note is not None, "a state given says where it comes from"
            a.key("non_owner_state", array.non_owner_state, array.non_owner_note)
        a.elements("ports", [Element({"name": port.name, **({"controller": port.controller}
                                                             if port.controller and not array.symmetric else {})},
                                     port.note) for port in array.ports.values()])
    warnings.append(("arrays.service", f"a port's capacity is not in the listing: {DEFAULT_PORT_SERVICE_US} µs per I/O "
                                       "assumed"))
    for adapter in host.adapters:
        reached = {(p.port, p.target) for d in host.devices for p in d.paths if p.adapter == adapter}
        by_target = sorted(reached, key=lambda pt: pt[1])
        f = out.table("fabric", array=True)
        f.key("adapters", [adapter], Own(f"the adapter whose paths this table lists: {adapter}"))
        reach = Derived(f"{host.file}: the array ports and targets {adapter}'s paths reach", (host.file,))
        f.key("ports", [port for port, _ in by_target], reach)
        f.key("targets", [t for _, t in by_target], reach)
        f.key("latency", DEFAULT_ONE_WAY, Assumed("one way, a fabric within one room"))
    warnings.append(("fabric.latency", f"the fabric's distance is not in the listing: {DEFAULT_ONE_WAY} one way assumed"))
    for device in host.devices:
        d = out.table("devices", array=True)
        d.key("name", device.name, device.note)
        d.key("array", device.array, Derived(f"{host.file}: the array of the ports its paths reach", (host.file,)))
        d.key("lun", device.lun, device.lun_note)
        if device.owner:
            assert device.owner_note is not None, "an owner given says where it comes from"
            d.key("owner", device.owner, device.owner_note)
        d.key("policy", device.policy, device.policy_note)
        if device.listed is not None:
            line = device.note.line if isinstance(device.note, Read) else None
            paths = [(path_name(device, p), p.listed) for p in device.paths if p.listed is not None]
            d.items += listed_entries(Listed(file, line), device.listed, paths,
                                      {path_name(device, p): p.line for p in device.paths})
    for device in host.devices:
        for path in device.paths:
            if path.down is not None:
                down_from_start(out, path_name(device, path), path.down)
    return out, _workloads(out, host)


def path_name(device: Device, path: Path) -> str:
    """A path's runtime name in the scenario: its adapter, target and the device's LUN."""
    return f"{path.adapter}:C0:T{path.target}:L{device.lun}"


def _workloads(out: HostTables, host: Host) -> bool:
    """Each device's workload: where the listing shows I/Os in flight on any device, that snapshot
    is the load simulated (a device with none in flight idle); else every device runs an assumed
    load. Never a measured load: one snapshot of the I/Os queued is no rate (advise predicts no
    gain from it, as from NVMe's sysfs `queue_depth`)."""
    snapshot = any(d.in_flight is not None and d.in_flight[0] > 0 for d in host.devices)
    for i, device in enumerate(host.devices):
        name = f"w{i + 1}"
        if snapshot:
            count, read = device.in_flight or (0, Read(host.file, text="no queued I/Os shown"))
            where = read.comment()
            if count == 0:
                out.tables[-1].idle(device.name, Read(read.file, read.line, "no I/O queued (one snapshot)", read.at))
                host.warnings.append((f"workloads.{device.name}", f"{where}: no I/O queued, taken as idle"))
                continue
            w = out.table("workloads", array=True)
            w.key("name", name, Own("the workload's name"))
            w.key("devices", [device.name], Own("the device it runs on"))
            w.key("outstanding", count, replace(read, text=f"{read.text} (one snapshot)"))
            host.warnings.append((f"workloads.{device.name}", f"{where}: the I/Os queued at one instant, no rate and "
                                                              "not their size or read share: 8 KiB, 70% reads assumed; "
                                                              "no gain is predicted from it"))
        else:
            w = out.table("workloads", array=True)
            w.key("name", name, Own("the workload's name"))
            w.key("devices", [device.name], Own("the device it runs on"))
            w.key("outstanding", DEFAULT_OUTSTANDING, Assumed(f"{host.file} shows no load"))
        w.key("block_size", "8KiB", Assumed())
        w.key("read_pct", 70, Assumed())
    if not snapshot:
        host.warnings.append(("workloads", f"{host.file} shows no load: {DEFAULT_OUTSTANDING} outstanding 8 KiB I/Os, "
                                           "70% reads assumed per device"))
    return False
