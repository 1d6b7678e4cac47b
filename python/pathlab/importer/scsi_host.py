"""The scenario of a SCSI host whose multipathing listing names, per device, its paths (adapter,
array port, state) and the policy in force: PowerPath's `powermt display` (`powerpath.py`) and
Windows MPIO's `mpclaim -s -d N` (`mpio.py`). Each of those reads its listing into the neutral
host below, every value with the comment that says where it was read (or that it is assumed);
this module writes the TOML once for both, with the defaults and warnings of what no listing of
theirs gives (the fabric's distance, a port's capacity, the load when none was captured)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.importer.values import zero_load_assumed
from pathlab.toml_values import to_toml

DEFAULT_ONE_WAY = "5us"  # a fabric within one room
DEFAULT_PORT_SERVICE_US = 20.0  # an array front-end port of the 2010s: about 50,000 I/O/s
DEFAULT_OUTSTANDING = 32


@dataclass(frozen=True)
class Port:
    name: str
    controller: str | None
    note: str


@dataclass
class Array:
    name: str
    vendor: str
    model: str
    #: Where vendor and model come from (read, or the rule that gave them).
    vendor_note: str
    symmetric: bool
    symmetric_note: str
    tpgs: bool
    #: The state of the other controller's paths on an array with LUN ownership (`standby` for
    #: an active-passive array), None for the default (active non-optimized).
    non_owner_state: str | None = None
    non_owner_note: str = ""
    ports: dict[str, Port] = field(default_factory=dict)


@dataclass(frozen=True)
class Path:
    adapter: str
    port: str
    target: int
    #: Why the path is down from the start (the listing's line), None when it works.
    down: str | None = None


@dataclass
class Device:
    name: str
    note: str
    array: str
    lun: int
    lun_note: str
    policy: dict[str, Any]
    policy_note: str
    owner: str | None = None
    owner_note: str = ""
    paths: list[Path] = field(default_factory=list)
    #: I/Os in flight at the capture's instant (a snapshot), with where it was read; None when
    #: the listing shows none.
    in_flight: tuple[int, str] | None = None


@dataclass
class Host:
    kind: str
    description: str
    file: str
    #: Adapter name → where it was read.
    adapters: dict[str, str]
    arrays: list[Array]
    devices: list[Device]
    warnings: list[tuple[str, str]] = field(default_factory=list)


def scenario(host: Host) -> tuple[str, bool]:
    """The scenario's TOML text, commented, and whether the listing gave any device's load (its
    I/Os in flight); the warnings of what it assumes are added to `host.warnings`."""
    file, warnings = host.file, host.warnings
    lines = [
        f"# Imported by `pathlab import` from {file}.",
        "# Values the listing gives name its file and line; `default:` marks what it does not say:",
        "# confirm those (pathlab printed a warning for each).",
        f'name = "imported-{host.kind}-host"', f"description = {to_toml(host.description)}",
        "", "[run]", 'duration = "60s"', 'warmup = "10s"', 'interval = "5s"',
        "", "[host]", 'name = "host01"', "adapters = [",
    ]
    lines += [f'  {{ name = "{name}" }},  # {note}' for name, note in host.adapters.items()] + ["]"]
    for array in host.arrays:
        lines += ["", "[[arrays]]", f'name = "{array.name}"', f'vendor = "{array.vendor}"  # {array.vendor_note}',
                  *([f'model = "{array.model}"'] if array.model else []),
                  f"symmetric = {to_toml(array.symmetric)}  # {array.symmetric_note}",
                  f"tpgs = {to_toml(array.tpgs)}",
                  f'service = {to_toml({"fixed": f"{DEFAULT_PORT_SERVICE_US}us", "distribution": "exponential"})}'
                  "  # default: the listing does not show a port at capacity"]
        warnings.append(zero_load_assumed(array.name))
        if not array.symmetric:
            names = sorted({p.controller for p in array.ports.values() if p.controller})
            lines.append("controllers = [" + ", ".join(f'{{ name = "{n}" }}' for n in names) + "]")
        if array.non_owner_state:
            lines.append(f'non_owner_state = "{array.non_owner_state}"  # {array.non_owner_note}')
        lines.append("ports = [")
        for port in array.ports.values():
            controller = f', controller = "{port.controller}"' if port.controller and not array.symmetric else ""
            lines.append(f'  {{ name = "{port.name}"{controller} }},  # {port.note}')
        lines.append("]")
    warnings.append(("arrays.service", f"a port's capacity is not in the listing: {DEFAULT_PORT_SERVICE_US} µs per I/O "
                                       "assumed"))
    for adapter in host.adapters:
        reached = {(p.port, p.target) for d in host.devices for p in d.paths if p.adapter == adapter}
        by_target = sorted(reached, key=lambda pt: pt[1])
        lines += ["", "[[fabric]]", f'adapters = ["{adapter}"]',
                  "ports = [" + ", ".join(f'"{port}"' for port, _ in by_target) + "]",
                  f"targets = {to_toml([t for _, t in by_target])}",
                  f'latency = "{DEFAULT_ONE_WAY}"  # default: one way, a fabric within one room']
    warnings.append(("fabric.latency", f"the fabric's distance is not in the listing: {DEFAULT_ONE_WAY} one way assumed"))
    for device in host.devices:
        lines += ["", "[[devices]]", f'name = "{device.name}"  # {device.note}', f'array = "{device.array}"',
                  f"lun = {device.lun}  # {device.lun_note}"]
        if device.owner:
            lines.append(f'owner = "{device.owner}"  # {device.owner_note}')
        lines.append(f"policy = {to_toml(device.policy)}  # {device.policy_note}")
    for device in host.devices:
        for path in device.paths:
            if path.down is not None:
                lines += ["", "[[faults]]", 'kind = "path_down"', 'at = "0s"',
                          f'path = "{path.adapter}:C0:T{path.target}:L{device.lun}"  # {path.down}']
    workloads, measured = _workloads(host)
    return "\n".join(lines + workloads) + "\n", measured


def _workloads(host: Host) -> tuple[list[str], bool]:
    """Each device's workload: where the listing shows I/Os in flight on any device, that snapshot
    is the load simulated (a device with none in flight idle); else every device runs an assumed
    load. Never a measured load: one snapshot of the I/Os queued is no rate (advise predicts no
    gain from it, as from NVMe's sysfs `queue_depth`)."""
    snapshot = any(d.in_flight is not None and d.in_flight[0] > 0 for d in host.devices)
    lines: list[str] = []
    for i, device in enumerate(host.devices):
        name = f"w{i + 1}"
        if snapshot:
            count, where = device.in_flight or (0, f"{host.file}: no queued I/Os shown")
            if count == 0:
                lines += ["", f"# {device.name}: no I/O queued in {where} (one snapshot): no workload"]
                host.warnings.append((f"workloads.{device.name}", f"{where}: no I/O queued, taken as idle"))
                continue
            lines += ["", "[[workloads]]", f'name = "{name}"', f'devices = ["{device.name}"]',
                      f"outstanding = {count}  # {where} (one snapshot)",
                      'block_size = "8KiB"  # default', "read_pct = 70  # default"]
            host.warnings.append((f"workloads.{device.name}", f"{where}: the I/Os queued at one instant, no rate and "
                                                              "not their size or read share: 8 KiB, 70% reads assumed; "
                                                              "no gain is predicted from it"))
        else:
            lines += ["", "[[workloads]]", f'name = "{name}"', f'devices = ["{device.name}"]',
                      f"outstanding = {DEFAULT_OUTSTANDING}  # default: {host.file} shows no load",
                      'block_size = "8KiB"  # default', "read_pct = 70  # default"]
    if not snapshot:
        host.warnings.append(("workloads", f"{host.file} shows no load: {DEFAULT_OUTSTANDING} outstanding 8 KiB I/Os, "
                                           "70% reads assumed per device"))
    return lines, False
