"""`pathlab import` for a Linux host on native NVMe multipath: `nvme list-subsys` (text or JSON)
gives each subsystem's controllers (the paths), their transport addresses, state and ANA state,
and the iopolicy; `/proc/diskstats` or `iostat -x` of the namespace heads (`nvmeXnY`) give the
workload, or else the paths' sysfs `queue_depth` (one snapshot of the I/Os in flight), whose
diagnostic counters give health findings (`nvme_counters.py`). Every value the captures give
carries a comment naming the file and field; everything else is a stated default with a warning."""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError, policy_choices
from pathlab.importer.captured_load import CapturedLoad, from_rates
from pathlab.importer.host_tables import Element, HostTables, Table
from pathlab.importer.imported import Imported, Undetermined
from pathlab.importer.listed import listed_entries, nvme_controller, nvme_subsystem
from pathlab.importer.nvme_anatt import SubsystemAnatt
from pathlab.importer.nvme_findings import UNUSABLE_ANA, usable
from pathlab.importer.nvme_keep_alive import SubsystemKeepAlive
from pathlab.importer.nvme_namespaces import controllers, namespaces, nsid, text
from pathlab.importer.path_down import down_from_start
from pathlab.importer.provenance import Assumed, Derived, Listed, Own, Provenance, Read
from pathlab.importer.same_host import refuse_other_hosts_rates
from pathlab.importer.values import (
    SAID,
    add_run,
    heading,
    idle_left_out_said,
    io_size,
    iopolicy_assumed,
    iopolicy_file,
    iopolicy_open,
    left_out_idle,
    saw_no_io,
    size_text,
    zero_load_assumed,
)
from pathlab.readers.nvme_subsys import NO_NAME

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


#: A target address as the kernel prints it (`nvmf_get_address`): an IP address for TCP and
#: RDMA (`%pISc`), `nn-0x…:pn-0x…` for FC.
_FC_ADDRESS = re.compile(r"nn-0x[0-9a-fA-F]+:pn-0x[0-9a-fA-F]+")


#: An IP address whose digits a page masked (`xxx.xxx.xxx.xxx`, `10.0.x.x`, `fe80::*`).
_MASKED = re.compile(r"(?=[^xX*]*[xX*])[0-9a-fA-FxX*]+(?:[.:]+[0-9a-fA-FxX*]*)+")


def is_masked(traddr: str) -> bool:
    """Whether `traddr` is an IP address a page masked: it names no port (two controllers showing
    it may reach two). Anything else is read as the port's name, as the listing prints it."""
    try:
        ipaddress.ip_address(traddr.split("%")[0])
    except ValueError:
        return _FC_ADDRESS.fullmatch(traddr) is None and _MASKED.fullmatch(traddr) is not None
    return False


def _target(address: str, controller: str) -> str:
    """The array port a controller reaches: its target address and service (TCP/RDMA port 4420 and
    4421 of one address are two ports), or the controller itself when no address is shown or
    the address shown is none (masked)."""
    traddr = _field(address, "traddr")
    service = _field(address, "trsvcid")
    if traddr and is_masked(traddr):
        return controller
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
          snapshot: dict[str, tuple[float, Read]] | None = None,
          iopolicies: dict[str, tuple[str, Read]] | None = None,
          captured: list[CapturedLoad] | None = None,
          anatt: dict[str, SubsystemAnatt] | None = None,
          undetermined: list[Undetermined] | None = None,
          keep_alive: dict[str, SubsystemKeepAlive] | None = None) -> tuple[HostTables, list[tuple[str, str]], bool]:
    """The host's typed tables, the warnings for every value assumed, and whether a
    capture gave any head's load. `snapshot` is each namespace head's I/Os in flight from sysfs
    (`nvme_counters.snapshot_load`), used where `rates` has no figures of the head; `iopolicies`
    each subsystem's sysfs `iopolicy` and where it was read, used where the listing shows none;
    `captured` gets each head's rate and response from `rates` (a snapshot gives neither);
    `anatt` each subsystem NQN's ANATT as `nvme id-ctrl` gives it (`nvme_anatt.tied`);
    `undetermined` gets each device whose iopolicy no capture shows; `keep_alive` each subsystem
    NQN's traffic-based keep-alive as `nvme id-ctrl`'s ctratt gives it (`nvme_keep_alive.read`)."""
    rows = [r for r in table.itertuples() if isinstance(r.controller, str) and r.controller]
    warnings: list[tuple[str, str]] = []
    for r in [r for r in rows if r.controller == NO_NAME and not text(r.address)]:
        # No name and no address: no port or host side of it is known, and none is made up.
        warnings.append((f"devices.{text(r.subsystem)}", f"{file}, line {r.line}: a controller without a name or address "
                                                         f"({NO_NAME}): nothing of its path is known, left out"))
        rows.remove(r)
    if not rows:
        raise ScenarioError(file, "", "no subsystem with controllers to import")
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
    masked = [r for r in rows if (shown := _field(text(r.address), "traddr")) and text(r.transport) != "pcie"
              and is_masked(shown)]
    if masked:
        warnings.append(("arrays.ports", f"{file}, line {masked[0].line}: traddr {_field(text(masked[0].address), 'traddr')} "
                                         "is no address (masked): each controller showing one taken as its own port"))
    vendor_of = {s: _vendor(next(text(r.nqn) for r in rows if text(r.subsystem) == s)) for s in subsystems}
    nqn_of = {s: _nqn(next(r for r in rows if text(r.subsystem) == s)) for s in subsystems}
    _one_subsystem_per_nqn(rows, nqn_of, file)
    ports = {(vendor_of[text(r.subsystem)], target_of[r.controller]): target_of[r.controller] for r in rows}
    # ANA: ports grouped into controllers by their states over every namespace (`nvme_namespaces`).
    ana_of = {v: any(text(r.ana_state) == "non-optimized" for r in rows if vendor_of[text(r.subsystem)] == v)
              for v in vendor_of.values()}
    reported_by = {v: any(text(r.ana_state) for r in rows if vendor_of[text(r.subsystem)] == v) for v in vendor_of.values()}
    if not any(reported_by.values()):
        warnings.append(("arrays.symmetric", f"{file} shows no ANA state (nvme-cli 1.x, `nvme list -v`, or a target without ANA): "
                                             "every path taken as optimized; `cat /sys/block/nvme*c*n*/ana_state` shows them"))
    if not any(text(r.state) for r in rows):
        warnings.append(("faults", f"{file} shows no controller state (`nvme list -v`, or nvme-cli's oldest list-subsys): "
                                   "every controller taken as live; `nvme list-subsys` shows them"))
    sides = controllers(rows, {(text(r.subsystem), r.controller): (vendor_of[text(r.subsystem)], target_of[r.controller])
                               for r in rows})
    side = sides.of_port
    for s, ns in sides.split:
        warnings.append((f"devices.{s}", f"{file}: {s} namespace {ns}: its optimized paths lead to ports whose other "
                                         "namespaces' states differ: owned by the first one's controller, the other "
                                         "optimized paths taken as non-optimized"))

    out = heading([f"# Imported by `pathlab import` from {file}" + (f" and {rates_file}" if rates_file else "") + ".",
                   *SAID], "imported-nvme-host", "A Linux host on native NVMe multipath as nvme list-subsys describes it.")
    add_run(out)
    host_table = out.table("host")
    host_table.key("name", "linux01", Assumed("pathlab's name for the host: no capture names it"))
    # Each adapter where the listing first shows it: a controller reached from its host address.
    first_row = {a: next(r for r in rows if adapter_of[r.controller] == a) for a in adapters}

    def adapter_read(a: str) -> Read:
        r = first_row[a]
        line = int(r.line) if text(r.line) else None  # a JSON listing has no line per controller
        said = (f"{r.controller}'s host address {a.lstrip(',')}" if a != text(r.transport)
                else f"{r.controller}: no host address shown, one adapter per transport ({a})")
        return Read(file, line, said, "" if line is not None else f"subsystem {text(r.subsystem)}")

    host_table.elements("adapters", [Element({"name": n}, adapter_read(a)) for a, n in adapters.items()])
    for vendor in dict.fromkeys(vendor_of.values()):
        a = out.table("arrays", array=True)
        a.key("name", vendor, Own("the array's name in the scenario: its vendor"))
        a.key("vendor", vendor, Derived(f"{file}: the subsystem NQN's domain", (file,)))
        a.key("symmetric", not ana_of[vendor], Derived(f"{file}: " + _ana_reason(
            [r for r in rows if vendor_of[text(r.subsystem)] == vendor], ana_of[vendor]), (file,)))
        a.key("tpgs", reported_by[vendor], Read(file, text="ANA states shown: the host sees each path's state"
                                                if reported_by[vendor] else "no ANA state shown"))
        a.key("service", {"fixed": f"{DEFAULT_PORT_SERVICE_US}us", "distribution": "exponential"},
              Assumed("the captures do not show a port at capacity"))
        warnings.append(zero_load_assumed(vendor))
        reported = [(anatt or {})[nqn_of[s]] for s in subsystems if vendor_of[s] == vendor and nqn_of[s] in (anatt or {})]
        if reported:  # the longest of the array's subsystems: a change may last that long
            longest = max(reported, key=lambda r: r.seconds)
            a.key("anatt", f"{longest.seconds}s", Read(longest.file, longest.line, longest.said))
        read_tbkas = [(keep_alive or {})[nqn_of[s]] for s in subsystems
                      if vendor_of[s] == vendor and nqn_of[s] in (keep_alive or {})]
        if read_tbkas:  # one of the array's subsystems advertising it: its paths run it
            one = next((k for k in read_tbkas if k.traffic_based), read_tbkas[0])
            a.key("traffic_based_keep_alive", one.traffic_based, Read(one.file, one.line, one.said))
        if ana_of[vendor]:
            names = sorted({c for (v, _), c in side.items() if v == vendor} | {"A", "B"}
                           | {c for (sub, _), c in sides.owner.items() if vendor_of[sub] == vendor})
            a.key("controllers", [{"name": n} for n in names],
                  Derived("ports with the same ANA state for every namespace on one", (file,)))
        a.elements("ports", [Element({"name": name, **({"controller": side.get((v, target), "A")} if ana_of[vendor]
                                                        else {})}, Read(file, text=f"traddr {target}"))
                             for (v, target), name in ports.items() if v == vendor])
    warnings.append(("arrays.service", f"a port's capacity is not in the captures: {DEFAULT_PORT_SERVICE_US} µs per I/O assumed"))
    for host, adapter in adapters.items():
        reached = [r for r in rows if adapter_of[r.controller] == host]
        names = [f"{vendor_of[text(r.subsystem)]}/{ports[(vendor_of[text(r.subsystem)], target_of[r.controller])]}"
                 for r in reached]
        f = out.table("fabric", array=True)
        f.key("adapters", [adapter], Read(file, text=f"controllers from {host}"))
        f.key("ports", list(dict.fromkeys(names)), Derived(f"{file}: the addresses {host}'s controllers reach", (file,)))
        f.key("latency", DEFAULT_ONE_WAY, Assumed("one way, within one room"))
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
        if isinstance(policy[1], Assumed) and undetermined is not None:  # never compared, never the host's setting
            undetermined.append(Undetermined(device_of[(s, ns)], "iopolicy", iopolicy_open(file),
                                             f"{iopolicy_file(s)} would tell"))
        where = f"{s}" + (f" namespace {ns}" if ns is not None else "")
        dev = out.table("devices", array=True)
        dev.key("name", device_of[(s, ns)], Read(file, text=where))
        dev.key("array", vendor_of[s], Derived(f"{file}: the array of its subsystem NQN's domain", (file,)))
        dev.key("lun", lun, Own("a number for the namespace in the scenario (NVMe has no LUN): its place in the listing"))
        dev.key("policy", *policy)
        if ana_of[vendor_of[s]]:
            owner = sides.owner.get((s, ns), "A")
            dev.key("owner", owner, Derived(f"{file}: " + ("no path of it optimized: a controller none leads to"
                                                            if (s, ns) in sides.unreached
                                                            else "the controller its optimized paths lead to"), (file,)))
        path_of = {r.controller: f"{adapters[adapter_of[r.controller]]}:C0:T{target_number[r.controller]}:L{lun}"
                   for r in own}
        read_paths = {path_of[r.controller]: nvme_controller(r, order) for order, r in enumerate(own)}
        at = int(own[0].line) if text(own[0].line) else None  # a JSON listing has no lines
        dev.items += listed_entries(Listed(file, at, at="" if at is not None else f"subsystem {s}"),
                                    nvme_subsystem(own[0]), read_paths.items(),
                                    {path_of[r.controller]: r.line for r in own})
        down = [r for r in own if not usable(r)]
        for r in down:
            why = f"ANA {r.ana_state}" if text(r.ana_state) in UNUSABLE_ANA else str(r.state)
            down_from_start(out, path_of[r.controller], Read(file, r.line, f"{r.controller} is {why}") if why != NO_NAME
                            else Assumed(f"{file}, line {r.line}: a controller printed without a name or state "
                                         f"({NO_NAME}): taken as not live"))
    measured = False
    for s, ns in listed:
        head = heads[(s, ns)]
        from_capture = _workload(out, s if ns is None else f"{s}n{ns}", device_of[(s, ns)], head, rates,
                                 rates_file, warnings, (snapshot or {}).get(head))
        measured = measured or from_capture
        load = from_rates(rates, head, device_of[(s, ns)], rates_file) if captured is not None else None
        if load is not None and captured is not None:
            captured.append(load)
    if not out.of("workloads"):  # every head idle in the rates or the sysfs snapshot
        captures = [rates_file] if rates is not None else sorted({w.file for _, w in (snapshot or {}).values()})
        raise saw_no_io(", ".join(captures), "", "every namespace head is idle in it (no reads or writes, no I/O in "
                                                 "flight, or left out by iostat -z)")
    return out, warnings, measured


def _policy(row: Any, file: str, subsystem: str, head: str, snapshot: dict[str, tuple[float, Read]],
            in_sysfs: tuple[str, Read] | None, warnings: list[tuple[str, str]]) -> tuple[dict[str, str], Provenance]:
    """The device's policy and where it comes from: the iopolicy the listing shows (its line
    named), else the subsystem's sysfs `iopolicy`, else the one the sysfs snapshot implies, else
    the kernel's default, said as assumed (and not determined: `build` records it)."""
    iopolicy = text(row.iopolicy)
    line = text(getattr(row, "iopolicy_line", None))
    where = Read(file, int(line), f"iopolicy={iopolicy}") if line else Read(file, text=f"{subsystem}'s IOPolicy")
    if not iopolicy and in_sysfs is not None:
        iopolicy, where = in_sysfs
    if iopolicy and iopolicy not in policy_choices("nvme", "iopolicy"):
        raise ScenarioError(file, f"line {line}" if line else f"{subsystem} IOPolicy",
                            f"iopolicy={iopolicy}: not one of " + ", ".join(policy_choices("nvme", "iopolicy")))
    if iopolicy:
        return {"name": "nvme", "iopolicy": iopolicy}, where
    if head in snapshot:  # the kernel prints a path's queue_depth only under queue-depth
        shown = snapshot[head][1].file
        return ({"name": "nvme", "iopolicy": "queue-depth"},
                Derived(f"{shown}: the paths print queue_depth, which the kernel does only under iopolicy queue-depth",
                        (shown,)))
    warnings.append(iopolicy_assumed(subsystem, file))
    return {"name": "nvme"}, Assumed(f"{file} does not show the iopolicy: not determined; simulated as the kernel's "
                                     f"default numa; {iopolicy_file(subsystem)} would tell")


def _head(subsystem: str, ns: int | None, place: int) -> str:
    """The namespace head's block device, `nvmeXnY`: X the subsystem's instance (its place in
    the listing when its name has none), Y the namespace (1 when the listing shows none)."""
    instance = re.sub(r"[^0-9]", "", subsystem) or str(place)
    return f"nvme{instance}n{ns if ns is not None else 1}"


def _one_subsystem_per_nqn(rows: list[Any], nqn_of: dict[str, str], file: str) -> None:
    """Refuses two subsystems of one NQN, naming both with their first controllers' lines: a
    device is named by its subsystem's NQN, and one host's kernel keeps an NQN's controllers in
    one subsystem; two hosts' listings (or two host NQNs' subsystems) in one file show so."""
    first: dict[str, str] = {}
    for s, nqn in nqn_of.items():
        seen = first.setdefault(nqn, s) if nqn else s
        if seen != s:
            line = {sub: next((int(r.line) for r in rows if text(r.subsystem) == sub and text(r.line)), None)
                    for sub in (seen, s)}
            at = {sub: f" (from line {n})" if n is not None else "" for sub, n in line.items()}
            raise ScenarioError(file, f"line {line[s]}" if line[s] is not None else s,
                                f"{s}{at[s]} has the NQN of {seen}{at[seen]}, {nqn}: a device is named by its "
                                "subsystem's NQN; two hosts' listings in one file? give one host's")


def _nqn(row: Any) -> str:
    """The subsystem's NQN, without the blanks a page left around it."""
    return row.nqn.strip() if isinstance(row.nqn, str) else ""


def _ana_reason(rows: list[Any], ana: bool) -> str:
    """Why an array's controllers are taken as symmetric or not, naming the controller lines read
    (a JSON listing has none)."""
    lines = [str(r.line) for r in rows if text(r.line)]
    where = f" (controller lines {', '.join(lines[:5])}{' and more' if len(lines) > 5 else ''})" if lines else ""
    if ana:
        return f"ANA optimized and non-optimized{where}"
    shown = any(isinstance(r.ana_state, str) and r.ana_state for r in rows)
    return f"every path optimized{where}" if shown else f"no ANA state shown{where}: every path taken as optimized (default)"


def _workload(out: HostTables, subsystem: str, device: str, head: str, rates: pd.DataFrame | None, rates_file: str,
              warnings: list[tuple[str, str]], snapshot: tuple[float, Read] | None = None) -> bool:
    """The head's workload added to the host's tables, and whether a capture gave its load (the
    rates; a sysfs snapshot of the I/Os in flight is simulated but is no rate: advise predicts no
    gain from it, as from PowerPath's queued-IOs)."""
    have = rates is not None and (rates["device"] == head).any()

    def idle(why: Provenance) -> None:
        out.tables[-1].idle(f"{subsystem} ({head})", why)

    def workload() -> Table:
        w = out.table("workloads", array=True)
        w.key("name", re.sub(r"[^A-Za-z0-9]", "", subsystem), Own("the workload's name: its subsystem's"))
        w.key("devices", [device], Own("the namespace it runs on"))
        return w

    if left_out_idle(rates, head):
        why, warning = idle_left_out_said(subsystem, head, rates_file)
        warnings.append(warning)
        idle(why)
        return True
    if not have and snapshot is not None:
        in_flight, read = snapshot
        where = read.comment()
        if round(in_flight) == 0:  # nothing in flight at that instant: idle, as far as one snapshot tells
            warnings.append((f"workloads.{subsystem}", f"{where}: no I/O in flight, taken as idle"))
            idle(Read(read.file, read.line, "no I/O in flight (one snapshot)", read.at))
            return False
        warnings.append((f"workloads.{subsystem}", "the sysfs snapshot gives the I/Os in flight at one instant, no rate "
                                                   "and not their size or read share: 4 KiB, 70% reads assumed; no gain "
                                                   "is predicted from it"))
        w = workload()
        w.key("outstanding", round(in_flight), Derived(where, (read.file,)))
        w.key("block_size", "4KiB", Assumed())
        w.key("read_pct", 70, Assumed())
        return False
    if not have:
        warnings.append((f"workloads.{subsystem}", f"no I/O statistics of {head}: 32 outstanding 4 KiB I/Os, 70% reads assumed"))
        w = workload()
        w.key("outstanding", DEFAULT_OUTSTANDING, Assumed(f"no I/O statistics of {head}"))
        w.key("block_size", "4KiB", Assumed())
        w.key("read_pct", 70, Assumed())
        return False
    assert rates is not None
    mine = rates[rates["device"] == head]
    reads, writes = float(mine["reads_per_s"].mean()), float(mine["writes_per_s"].mean())
    kib = float(mine["read_kib_per_s"].mean() + mine["write_kib_per_s"].mean())
    cmds = reads + writes
    if cmds == 0:  # captured, and idle: it stays idle in the scenario
        idle(Read(rates_file, text="no reads or writes"))
        return True
    size = io_size(kib * 1024, cmds)
    queue = float(mine["queue_length"].mean())
    w = workload()
    w.key("outstanding", max(1, round(queue)), Derived(f"{rates_file}: {head}'s average queue", (rates_file,)))
    w.key("block_size", size_text(size), Derived(f"{rates_file}: {head}'s KiB per I/O", (rates_file,)))
    # The share as written with one decimal: the value is what the text says.
    w.key("read_pct", float(f"{100 * reads / cmds:.1f}"),
          Derived(f"{rates_file}: {head}'s reads over reads and writes", (rates_file,)))
    return True


def import_host(found: dict[str, Kind]) -> Imported:
    """A host on native NVMe multipath: `nvme list-subsys`, and the namespaces' I/O statistics."""
    from pathlab.importer.nvme_anatt import tied
    from pathlab.importer.nvme_counters import counter_findings, refuse_other_host, snapshot_load
    from pathlab.importer.nvme_findings import listing_findings
    from pathlab.importer.nvme_keep_alive import read as read_keep_alive
    from pathlab.importer.nvme_models import controller_models
    from pathlab.importer.timer_values import TimerValue, nvme_timers

    subsys = [n for n, k in found.items() if k.name == "nvme"]
    sysfs = [n for n, k in found.items() if k.name == "nvme-sysfs"]
    id_ctrl = [n for n, k in found.items() if k.name == "nvme-id-ctrl"]
    stats = [n for n, k in found.items() if k.name not in ("nvme", "nvme-sysfs", "nvme-id-ctrl") and "nvme" in k.stacks]
    other = [n for n, k in found.items() if "nvme" not in k.stacks]
    if other or len(subsys) != 1 or len(stats) > 1:
        raise ScenarioError(", ".join(found), "", "give one `nvme list-subsys`, and at most one diskstats or iostat capture "
                                                  "and one capture of the paths' sysfs attributes, of the same host, "
                                                  "with any `nvme id-ctrl` outputs of its controllers")
    rates = found[stats[0]].read(stats[0]) if stats else None
    attributes = found[sysfs[0]].read(sysfs[0]) if sysfs else None
    table = found[subsys[0]].read(subsys[0])
    if attributes is not None:
        refuse_other_host(attributes, sysfs[0], {text(c) for c in table["controller"]}, subsys[0])
    snapshot = snapshot_load(attributes, sysfs[0]) if attributes is not None else {}
    iopolicies = {str(r.name): (str(r.value), Read(sysfs[0], text=f"iopolicy {r.value}", at=str(r.where)))
                  for r in attributes.itertuples() if r.attribute == "iopolicy"} if attributes is not None else {}
    captured: list[CapturedLoad] = []
    # One file at most (`import_files` refuses a second): its controllers' outputs are tied together,
    # so that one that reports no change state leaves its subsystem none.
    anatt_timers: list[TimerValue]
    anatt: dict[str, SubsystemAnatt]
    tie_warnings: list[tuple[str, str]]
    outputs = found[id_ctrl[0]].read(id_ctrl[0]) if id_ctrl else []
    anatt_timers, anatt, tie_warnings = tied(outputs, id_ctrl[0], table, subsys[0]) if id_ctrl else ([], {}, [])
    ka_timers, keep_alive, ka_warnings = read_keep_alive(outputs, id_ctrl[0]) if id_ctrl else ([], {}, [])
    undetermined: list[Undetermined] = []
    host, warnings, measured = build(table, subsys[0], rates, stats[0] if stats else "", snapshot, iopolicies, captured,
                                     anatt, undetermined, keep_alive)
    warnings += tie_warnings + ka_warnings
    found_here = listing_findings(table, subsys[0])
    found_here += counter_findings(attributes, sysfs[0]) if attributes is not None else []
    timers = [*(nvme_timers(attributes, sysfs[0]) if attributes is not None else []), *anatt_timers, *ka_timers,
              *controller_models(table, subsys[0], outputs, id_ctrl[0] if id_ctrl else "", attributes,
                                 sysfs[0] if sysfs else "")]
    return Imported(host, warnings, found_here, measured_load=measured, timers=timers, captured=captured,
                    undetermined=undetermined)
