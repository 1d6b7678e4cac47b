"""`pathlab import` for a Linux host on native NVMe multipath: `nvme list-subsys` (text or JSON)
gives each subsystem's controllers (the paths), their transport addresses, state and ANA state,
and the iopolicy; `/proc/diskstats` or `iostat -x` of the namespace heads (`nvmeXnY`) give the
workload, or else the paths' sysfs `queue_depth` (one snapshot of the I/Os in flight), whose
diagnostic counters give health findings (`nvme_counters.py`). Every value the captures give
carries a comment naming the file and field; everything else is a stated default with a warning."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError, policy_choices
from pathlab.importer.captured_load import CapturedLoad, from_rates
from pathlab.importer.imported import Imported
from pathlab.importer.listed import listed_lines, nvme_controller, nvme_subsystem
from pathlab.importer.nvme_findings import UNUSABLE_ANA, usable
from pathlab.importer.nvme_namespaces import controllers, namespaces, nsid, text
from pathlab.importer.same_host import refuse_other_hosts_rates
from pathlab.importer.values import idle_left_out_said, io_size, iopolicy_assumed, left_out_idle, saw_no_io, size_text, zero_load_assumed
from pathlab.toml_values import to_toml

if TYPE_CHECKING:
    import pandas as pd

    from pathlab.importer.kind import Kind

DEFAULT_ONE_WAY = "10us"  # NVMe over TCP or FC within one room: a switch hop and the NIC/HBA
DEFAULT_PORT_SERVICE_US = 10.0  # an NVMe-oF target port: about 100,000 I/O/s
DEFAULT_OUTSTANDING = 32


def _field(address: str, key: str) -> str | None:
    """A field of a controller's address, `traddr=…,trsvcid=…` (nvme-cli 2) or blank-separated (1.x)."""
    match = re.search(rf"(?:^|[,\s]){key}=([^,\s]+)", address or "")
    return match.group(1) if match else None


#: The fields of a controller's address that name the host's side, in the kernel's order:
#: `nvmf_get_address` prints host_traddr and host_iface after traddr and trsvcid when the
#: connection was made with them, NVMe/TCP's `nvme_tcp_get_address` adds the source address.
HOST_FIELDS = ("host_traddr", "host_iface", "src_addr")


def _host_port(address: str) -> str:
    """The host port a controller was connected from, as its address prints it
    (`,host_traddr=192.168.1.22,host_iface=eth0,src_addr=192.168.1.22`), "" where it names none. An adapter's name
    has no `:` (runtime names are `ADAPTER:C0:T0:L1`): an FC port name's or IPv6 address's `:` is
    written `+`, which no address has, and `show` turns it back (`output.nvme.host_port`)."""
    return "".join(f",{key}={value.replace(':', '+')}" for key in HOST_FIELDS if (value := _field(address, key)))


def _target(address: str, controller: str) -> str:
    """The array port a controller reaches: its target address and service (TCP/RDMA port 4420 and
    4421 of one address are two ports), or the controller itself when no address is shown."""
    traddr = _field(address, "traddr")
    service = _field(address, "trsvcid")
    return f"{traddr}:{service}" if traddr and service else traddr or controller


def _port_name(address: str, transport: str, controller: str) -> str:
    """The array port a controller reaches; a PCIe drive's is its PCI address (`0000:3d:00.0`)."""
    return address.strip() if transport == "pcie" and address.strip() else _target(address, controller)


def _device_name(nqn: str, ns: int | None, several: bool) -> str:
    """A namespace's device: its subsystem's NQN, with `/nsN` where the subsystem shows several
    namespaces or the NQN is not one (`nvmet-test`: `show` keeps a name only as an NQN or with `/ns`)."""
    plain = nqn.startswith("nqn.") or ":" in nqn
    return f"{nqn}/ns{ns if ns is not None else 1}" if several or not plain else nqn


def _vendor(nqn: str) -> str:
    """`nqn.1992-08.com.netapp:sn…` → NETAPP, `nqn.2017-03.jp.co.toshiba:…` → TOSHIBA (the reversed
    domain's last part: the name the vendor registered)."""
    match = re.match(r"nqn\.\d{4}-\d{2}\.([^:]+)", nqn or "")
    parts = match.group(1).split(".") if match else []
    return re.sub(r"[^A-Za-z0-9]", "", parts[-1]).upper() if len(parts) > 1 else "NVME"


def build(table: pd.DataFrame, file: str, rates: pd.DataFrame | None, rates_file: str,
          snapshot: dict[str, tuple[float, str]] | None = None,
          iopolicies: dict[str, tuple[str, str]] | None = None,
          captured: list[CapturedLoad] | None = None) -> tuple[str, list[tuple[str, str]], bool]:
    """The scenario's TOML text, commented, the warnings for every value assumed, and whether a
    capture gave any head's load. `snapshot` is each namespace head's I/Os in flight from sysfs
    (`nvme_counters.snapshot_load`), used where `rates` has no figures of the head; `iopolicies`
    each subsystem's sysfs `iopolicy` and where it was read, used where the listing shows none;
    `captured` gets each head's rate and response from `rates` (a snapshot gives neither)."""
    rows = [r for r in table.itertuples() if isinstance(r.controller, str) and r.controller]
    if not rows:
        raise ScenarioError(file, "", "no subsystem with controllers to import")
    warnings: list[tuple[str, str]] = []
    subsystems = list(dict.fromkeys(text(r.subsystem) for r in rows))
    # Host side: one adapter per host port (the host_traddr, host_iface and src_addr a newer
    # nvme-cli prints, or the transport when none is shown), named by its transport (`tcp0`, `fc1`) and the host
    # fields as printed (`tcp0,host_traddr=192.168.1.22`): `show --style nvme` prints both back.
    adapter_of = {r.controller: _host_port(text(r.address)) or text(r.transport) or "fabric" for r in rows}
    transport_of = {adapter_of[r.controller]: text(r.transport) or "fc" for r in rows}
    adapters = {a: f"{transport_of[a]}{i}" + (a if a.startswith(",") else "")
                for i, a in enumerate(dict.fromkeys(adapter_of.values()))}
    # Array side: one port per target address, per vendor, named by that address (`10.0.0.1:4420`,
    # `nn-0x…:pn-0x…`) so that the scenario and `show` keep it.
    target_of = {r.controller: _port_name(text(r.address), text(r.transport), r.controller) for r in rows}
    vendor_of = {s: _vendor(next(text(r.nqn) for r in rows if text(r.subsystem) == s)) for s in subsystems}
    ports = {(vendor_of[text(r.subsystem)], target_of[r.controller]): target_of[r.controller] for r in rows}
    # ANA: ports grouped into controllers by their states over every namespace (`nvme_namespaces`).
    ana_of = {v: any(text(r.ana_state) == "non-optimized" for r in rows if vendor_of[text(r.subsystem)] == v)
              for v in vendor_of.values()}
    reported_by = {v: any(text(r.ana_state) for r in rows if vendor_of[text(r.subsystem)] == v) for v in vendor_of.values()}
    if not any(reported_by.values()):
        warnings.append(("arrays.symmetric", f"{file} shows no ANA state (nvme-cli 1.x, or a target without ANA): "
                                             "every path taken as optimized; `cat /sys/block/nvme*c*n*/ana_state` shows them"))
    sides = controllers(rows, {(text(r.subsystem), r.controller): (vendor_of[text(r.subsystem)], target_of[r.controller])
                               for r in rows})
    side = sides.of_port
    for s, ns in sides.split:
        warnings.append((f"devices.{s}", f"{file}: {s} namespace {ns}: its optimized paths lead to ports whose other "
                                         "namespaces' states differ: owned by the first one's controller, the other "
                                         "optimized paths taken as non-optimized"))

    lines = [
        f"# Imported by `pathlab import` from {file}" + (f" and {rates_file}" if rates_file else "") + ".",
        "# Values the captures give name their file and field; `default:` marks what they do not say:",
        "# confirm those (pathlab printed a warning for each).",
        'name = "imported-nvme-host"',
        'description = "A Linux host on native NVMe multipath as nvme list-subsys describes it."',
        "", "[run]", 'duration = "60s"', 'warmup = "10s"', 'interval = "5s"',
        "", "[host]", 'name = "linux01"',
        "adapters = [" + ", ".join(f'{{ name = "{n}" }}' for n in adapters.values()) + f"]  # {file}: host addresses "
        + ", ".join(adapters),
    ]
    for vendor in dict.fromkeys(vendor_of.values()):
        lines += ["", "[[arrays]]", f'name = "{vendor}"', f'vendor = "{vendor}"  # {file}: the subsystem NQN\'s domain',
                  f"symmetric = {to_toml(not ana_of[vendor])}  # {file}: " + _ana_reason(rows, ana_of[vendor]),
                  f"tpgs = {to_toml(reported_by[vendor])}  # {file}: "
                  + ("ANA states shown: the host sees each path's state" if reported_by[vendor] else "no ANA state shown"),
                  f'service = {to_toml({"fixed": f"{DEFAULT_PORT_SERVICE_US}us", "distribution": "exponential"})}'
                  "  # default: the captures do not show a port at capacity"]
        warnings.append(zero_load_assumed(vendor))
        if ana_of[vendor]:
            names = sorted({c for (v, _), c in side.items() if v == vendor} | {"A", "B"}
                           | {c for (sub, _), c in sides.owner.items() if vendor_of[sub] == vendor})
            lines.append("controllers = [" + ", ".join(f'{{ name = "{n}" }}' for n in names) + "]  # ports with the "
                         "same ANA state for every namespace on one")
        lines.append("ports = [")
        for (v, target), name in ports.items():
            if v == vendor:
                controller = f', controller = "{side.get((v, target), "A")}"' if ana_of[vendor] else ""
                lines.append(f'  {{ name = "{name}"{controller} }},  # {file}: traddr {target}')
        lines.append("]")
    warnings.append(("arrays.service", f"a port's capacity is not in the captures: {DEFAULT_PORT_SERVICE_US} µs per I/O assumed"))
    for host, adapter in adapters.items():
        reached = [r for r in rows if adapter_of[r.controller] == host]
        names = [f"{vendor_of[text(r.subsystem)]}/{ports[(vendor_of[text(r.subsystem)], target_of[r.controller])]}"
                 for r in reached]
        lines += ["", "[[fabric]]", f'adapters = ["{adapter}"]  # {file}: controllers from {host}',
                  "ports = [" + ", ".join(f'"{n}"' for n in dict.fromkeys(names)) + "]",
                  f'latency = "{DEFAULT_ONE_WAY}"  # default: one way, within one room']
    warnings.append(("fabric.latency", f"the fabric's distance is not in the captures: {DEFAULT_ONE_WAY} one way assumed"))
    # A path's T: its port's place among the ports its adapter's fabric table lists (controllers of
    # several subsystems through one port are one target: counting controllers named paths that are not).
    port_of = {r.controller: (vendor_of[text(r.subsystem)], target_of[r.controller]) for r in rows}
    ports_of_adapter: dict[str, dict[tuple[str, str], int]] = {}
    for c, port in port_of.items():
        seen = ports_of_adapter.setdefault(adapter_of[c], {})
        seen.setdefault(port, len(seen))
    target_number = {c: ports_of_adapter[adapter_of[c]][port] for c, port in port_of.items()}
    listed = namespaces(rows)
    heads = {(s, ns): _head(s, ns, i) for i, (s, ns) in enumerate(listed)}
    if rates is not None:
        refuse_other_hosts_rates(rates, rates_file, f"the namespace heads of {file}", heads.values())
    device_of = {}
    for lun, (s, ns) in enumerate(listed, start=1):
        own = [r for r in rows if text(r.subsystem) == s and nsid(r) == ns]
        several = sum(1 for k in listed if k[0] == s) > 1
        device_of[(s, ns)] = _device_name(_nqn(own[0]) or s, ns, several)
        policy = _policy(own[0], file, s, heads[(s, ns)], snapshot or {}, (iopolicies or {}).get(s), warnings)
        where = f"{s}" + (f" namespace {ns}" if ns is not None else "")
        lines += ["", "[[devices]]", f'name = "{device_of[(s, ns)]}"  # {file}: {where}', f'array = "{vendor_of[s]}"',
                  f"lun = {lun}", policy]
        if ana_of[vendor_of[s]]:
            owner = sides.owner.get((s, ns), "A")
            lines.append(f'owner = "{owner}"  # {file}: ' + ("no path of it optimized: a controller none leads to"
                                                           if (s, ns) in sides.unreached
                                                           else "the controller its optimized paths lead to"))
        path_of = {r.controller: f"{adapters[adapter_of[r.controller]]}:C0:T{target_number[r.controller]}:L{lun}"
                   for r in own}
        read_paths = {path_of[r.controller]: nvme_controller(r, order) for order, r in enumerate(own)}
        lines += listed_lines(f"{file}, line {own[0].line}", nvme_subsystem(own[0]), read_paths.items())
        down = [r for r in own if not usable(r)]
        for r in down:
            why = f"ANA {r.ana_state}" if text(r.ana_state) in UNUSABLE_ANA else str(r.state)
            lines += ["", "[[faults]]", 'kind = "path_down"', 'at = "0s"',
                      f'path = "{path_of[r.controller]}"  # {file}, line {r.line}: {r.controller} is {why}']
    measured = False
    for s, ns in listed:
        head = heads[(s, ns)]
        workload, from_capture = _workload(s if ns is None else f"{s}n{ns}", device_of[(s, ns)], head, rates,
                                           rates_file, warnings, (snapshot or {}).get(head))
        lines, measured = lines + workload, measured or from_capture
        load = from_rates(rates, head, device_of[(s, ns)], rates_file) if captured is not None else None
        if load is not None and captured is not None:
            captured.append(load)
    if "[[workloads]]" not in lines:  # every head idle in the rates or the sysfs snapshot
        captures = [rates_file] if rates is not None else sorted({w.split(":")[0] for _, w in (snapshot or {}).values()})
        raise saw_no_io(", ".join(captures), "", "every namespace head is idle in it (no reads or writes, no I/O in "
                                                 "flight, or left out by iostat -z)")
    return "\n".join(lines) + "\n", warnings, measured


def _policy(row: Any, file: str, subsystem: str, head: str, snapshot: dict[str, tuple[float, str]],
            in_sysfs: tuple[str, str] | None, warnings: list[tuple[str, str]]) -> str:
    """The device's `policy = …` line: the iopolicy the listing shows (its line named), else the
    subsystem's sysfs `iopolicy`, else the one the sysfs snapshot implies, else the kernel's
    default, said as assumed."""
    iopolicy = text(row.iopolicy)
    line = text(getattr(row, "iopolicy_line", None))
    where = f"{file}, line {line}: iopolicy={iopolicy}" if line else f"{file}: {subsystem}'s IOPolicy"
    if not iopolicy and in_sysfs is not None:
        iopolicy, where = in_sysfs
    if iopolicy and iopolicy not in policy_choices("nvme", "iopolicy"):
        raise ScenarioError(file, f"line {line}" if line else f"{subsystem} IOPolicy",
                            f"iopolicy={iopolicy}: not one of " + ", ".join(policy_choices("nvme", "iopolicy")))
    if iopolicy:
        return f'policy = {{ name = "nvme", iopolicy = "{iopolicy}" }}  # {where}'
    if head in snapshot:  # the kernel prints a path's queue_depth only under queue-depth
        shown = snapshot[head][1].split(":")[0]
        return (f'policy = {{ name = "nvme", iopolicy = "queue-depth" }}  # {shown}: the paths print queue_depth, '
                "which the kernel does only under iopolicy queue-depth")
    warnings.append(iopolicy_assumed(subsystem, file))
    return f'policy = {{ name = "nvme" }}  # default: {file} does not show the iopolicy: the kernel\'s numa assumed'


def _head(subsystem: str, ns: int | None, place: int) -> str:
    """The namespace head's block device, `nvmeXnY`: X the subsystem's instance (its place in
    the listing when its name has none), Y the namespace (1 when the listing shows none)."""
    instance = re.sub(r"[^0-9]", "", subsystem) or str(place)
    return f"nvme{instance}n{ns if ns is not None else 1}"


def _nqn(row: Any) -> str:
    """The subsystem's NQN, without the blanks a page left around it."""
    return row.nqn.strip() if isinstance(row.nqn, str) else ""


def _ana_reason(rows: list[Any], ana: bool) -> str:
    if ana:
        return "ANA optimized and non-optimized"
    shown = any(isinstance(r.ana_state, str) and r.ana_state for r in rows)
    return "every path optimized" if shown else "no ANA state shown: every path taken as optimized (default)"


def _workload(subsystem: str, device: str, head: str, rates: pd.DataFrame | None, rates_file: str,
              warnings: list[tuple[str, str]], snapshot: tuple[float, str] | None = None) -> tuple[list[str], bool]:
    """The head's workload lines, and whether a capture gave its load (the rates; a sysfs snapshot
    of the I/Os in flight is simulated but is no rate: advise predicts no gain from it, as from
    PowerPath's queued-IOs)."""
    out = ["", "[[workloads]]", f'name = "{re.sub(r"[^A-Za-z0-9]", "", subsystem)}"', f'devices = ["{device}"]']
    have = rates is not None and (rates["device"] == head).any()
    if left_out_idle(rates, head):
        comment, warning = idle_left_out_said(subsystem, head, rates_file)
        warnings.append(warning)
        return ["", comment], True
    if not have and snapshot is not None:
        in_flight, where = snapshot
        if round(in_flight) == 0:  # nothing in flight at that instant: idle, as far as one snapshot tells
            warnings.append((f"workloads.{subsystem}", f"{where}: no I/O in flight, taken as idle"))
            return ["", f"# {subsystem} ({head}): no I/O in flight in {where.split(':')[0]} (one snapshot): no workload"], False
        warnings.append((f"workloads.{subsystem}", "the sysfs snapshot gives the I/Os in flight at one instant, no rate "
                                                   "and not their size or read share: 4 KiB, 70% reads assumed; no gain "
                                                   "is predicted from it"))
        return out + [f"outstanding = {round(in_flight)}  # {where}",
                      'block_size = "4KiB"  # default', "read_pct = 70  # default"], False
    if not have:
        warnings.append((f"workloads.{subsystem}", f"no I/O statistics of {head}: 32 outstanding 4 KiB I/Os, 70% reads assumed"))
        return out + [f"outstanding = {DEFAULT_OUTSTANDING}  # default: no I/O statistics of {head}",
                      'block_size = "4KiB"  # default', "read_pct = 70  # default"], False
    assert rates is not None
    mine = rates[rates["device"] == head]
    reads, writes = float(mine["reads_per_s"].mean()), float(mine["writes_per_s"].mean())
    kib = float(mine["read_kib_per_s"].mean() + mine["write_kib_per_s"].mean())
    cmds = reads + writes
    if cmds == 0:  # captured, and idle: it stays idle in the scenario
        return ["", f"# {subsystem} ({head}): idle in {rates_file} (no reads or writes): no workload"], True
    size = io_size(kib * 1024, cmds)
    queue = float(mine["queue_length"].mean())
    return out + [f"outstanding = {max(1, round(queue))}  # {rates_file}: {head}'s average queue",
                  f'block_size = "{size_text(size)}"  # {rates_file}: {head}\'s KiB per I/O',
                  f"read_pct = {100 * reads / cmds:.1f}  # {rates_file}: {head}'s reads over reads and writes"], True


def import_host(found: dict[str, Kind]) -> Imported:
    """A host on native NVMe multipath: `nvme list-subsys`, and the namespaces' I/O statistics."""
    from pathlab.importer.nvme_counters import counter_findings, refuse_other_host, snapshot_load
    from pathlab.importer.nvme_findings import listing_findings
    from pathlab.importer.timer_values import nvme_timers

    subsys = [n for n, k in found.items() if k.name == "nvme"]
    sysfs = [n for n, k in found.items() if k.name == "nvme-sysfs"]
    stats = [n for n, k in found.items() if k.name not in ("nvme", "nvme-sysfs") and "nvme" in k.stacks]
    other = [n for n, k in found.items() if "nvme" not in k.stacks]
    if other or len(subsys) != 1 or len(stats) > 1:
        raise ScenarioError(", ".join(found), "", "give one `nvme list-subsys`, and at most one diskstats or iostat capture "
                                                  "and one capture of the paths' sysfs attributes, of the same host")
    rates = found[stats[0]].read(stats[0]) if stats else None
    attributes = found[sysfs[0]].read(sysfs[0]) if sysfs else None
    table = found[subsys[0]].read(subsys[0])
    if attributes is not None:
        refuse_other_host(attributes, sysfs[0], {text(c) for c in table["controller"]}, subsys[0])
    snapshot = snapshot_load(attributes, sysfs[0]) if attributes is not None else {}
    iopolicies = {str(r.name): (str(r.value), f"{sysfs[0]}, {r.where}: iopolicy {r.value}")
                  for r in attributes.itertuples() if r.attribute == "iopolicy"} if attributes is not None else {}
    captured: list[CapturedLoad] = []
    scenario, warnings, measured = build(table, subsys[0], rates, stats[0] if stats else "", snapshot, iopolicies, captured)
    found_here = listing_findings(table, subsys[0])
    found_here += counter_findings(attributes, sysfs[0]) if attributes is not None else []
    timers = nvme_timers(attributes, sysfs[0]) if attributes is not None else []
    return Imported(scenario, warnings, found_here, measured_load=measured, timers=timers, captured=captured)
