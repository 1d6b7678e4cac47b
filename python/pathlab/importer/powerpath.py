"""`pathlab import` for a host on Dell PowerPath: `powermt display dev=all` (Linux, Solaris, AIX)
or `rpowermt display dev=all host=…` (PowerPath/VE on ESXi). Each pseudo device becomes a device
under pathlab's `powerpath` policy with the policy the listing shows, its paths' adapters and
array ports, the LUN's owner SP and failover mode (CLARiiON, VNX, Unity), dead paths as faults
from the start, and the queued I/Os as a snapshot of the load. Values read name their line; the
rules that derive others are named where they are used; everything else is said as assumed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError
from pathlab.finding import Finding
from pathlab.importer import scsi_host as s
from pathlab.importer.imported import Imported
from pathlab.importer.listed import powermt_device, powermt_path
from pathlab.importer.provenance import Assumed, Derived, Provenance, Read

if TYPE_CHECKING:
    from pathlab.importer.kind import Kind
    from pathlab.readers.powermt import Device, PathRow

#: The policies `powermt display` shows → pathlab's PowerPath model, with the rule when the model
#: stands in for the policy. The CLI reference defines adaptive, CLARiiON-, Symmetrix- and
#: XtremIO-optimize all by the load queued on each path; pathlab simulates them as its adaptive.
SIMULATED = {
    "ADaptive": ("adaptive", ""),
    "LeastIos": ("least_ios", ""),
    "LeastBlocks": ("least_blocks", ""),
    "RoundRobin": ("round_robin", ""),
    "BasicFailover": ("basic_failover", ""),
    "SymmOpt": ("adaptive", "simulated as adaptive: the CLI reference defines Symmetrix optimization by the load "
                            "queued on each path, as it does adaptive"),
    "CLAROpt": ("adaptive", "simulated as adaptive: the CLI reference defines CLARiiON optimization by path load and "
                            "the device's priority, as it does adaptive"),
    "XtremIO": ("adaptive", "simulated as adaptive: the CLI reference defines XtremIO optimization by path load"),
}
#: The SCSI vendor and product each array class answers an inquiry with (the classes' own inquiry
#: data: CLARiiON, VNX and Unity answer DGC VRAID; Symmetrix, VMAX and PowerMax EMC SYMMETRIX).
INQUIRY = {"CLARiiON": ("DGC", "VRAID"), "VNX": ("DGC", "VRAID"), "Unity": ("DGC", "VRAID"),
           "Symmetrix": ("EMC", "SYMMETRIX"), "XtremIO": ("XtremIO", "XtremApp"), "VPLEX": ("EMC", "Invista"),
           "Invista": ("EMC", "Invista")}
#: `Array failover mode` → the state of the non-owning SP's paths: 4 is ALUA (active
#: non-optimized, forwarded), 1 is PNR (passive until PowerPath trespasses the LUN).
FAILOVER_MODES = {4: None, 1: "standby"}
_WORD = re.compile(r"^[A-Za-z0-9_.-]+$")
_ESXI_PATH = re.compile(r"^C(\d+):T(\d+):L(\d+)$")
_LUN_LABEL = re.compile(r"^LUN (\d+)\b")


def import_host(found: dict[str, Kind]) -> Imported:
    """A PowerPath host from one `powermt display dev=all`."""
    listings = [n for n, k in found.items() if k.name == "powermt"]
    if len(found) != 1 or len(listings) != 1:
        raise ScenarioError(", ".join(found), "", "give one `powermt display dev=all` (or `rpowermt display dev=all`) "
                                                  "alone: pathlab reads no other capture of a PowerPath host yet")
    file = listings[0]
    devices = found[file].read(file)
    host = _host(file, devices)
    tables, measured = s.scenario(host)
    return Imported(tables, host.warnings, _findings(file, devices), measured_load=measured)


def _host(file: str, devices: list[Device]) -> s.Host:
    warnings: list[tuple[str, str]] = []
    adapters = _adapters(file, devices)
    arrays: dict[str, s.Array] = {}
    out = []
    targets = _targets(devices, adapters)
    read = [_read_lun(file, d) for d in devices]
    # pathlab's own numbers skip those the listing gives other LUNs of the array (two LUNs of one
    # array with one number would be one LUN to the scenario).
    taken = {(_array_name(d), found[0]) for d, found in zip(devices, read) if found is not None}
    for place, d in enumerate(devices, start=1):
        if _array_name(d) not in arrays:  # built once: its warnings said once
            arrays[_array_name(d)] = _array(file, d, warnings)
        array = arrays[_array_name(d)]
        esxi = [_ESXI_PATH.match(p.io_path) for p in d.paths]
        if (found := read[place - 1]) is not None:
            lun, lun_note = found
        else:
            lun = place
            while (_array_name(d), lun) in taken:
                lun += 1
            taken.add((_array_name(d), lun))
            lun_note = Derived("pathlab's numbering: the listing gives no LUN number")
        paths: list[s.Path] = []
        for p, m in zip(d.paths, esxi, strict=True):
            port = _port(file, p, array)
            adapter = adapters[p.hba][0]
            target = int(m.group(2)) if m else targets[(adapter, p.interface)]
            down = Read(file, p.line, f"{p.io_path} is dead") if p.state == "dead" else None
            paths.append(s.Path(adapter, f"{array.name}/{port}", target, down, powermt_path(p, len(paths)), p.line))
        policy, note = _policy(file, d, warnings)
        owner = d.owner_current.replace(" ", "") if d.owner_current else None
        where = Read(file, d.line, f"Pseudo name={d.name}, Logical device ID={d.logical_id}")
        in_flight = (d.queued, Read(file, d.policy_line, f"queued-IOs={d.queued}")) if d.queued is not None else None
        out.append(s.Device(d.name, where, array.name, lun, lun_note, policy, note, owner,
                            Read(file, d.owner_line, f"current={d.owner_current}"), paths, in_flight, powermt_device(d)))
    description = "A host on Dell PowerPath as powermt display dev=all describes it."
    return s.Host("powerpath", description, file, {name: note for name, note in adapters.values()},
                  list(arrays.values()), out, warnings)


def _read_lun(file: str, d: Device) -> tuple[int, Provenance] | None:
    """The LUN number the listing gives a device, and where: the L of its PowerPath/VE paths, else
    its `[LUN n]` label; None where it gives none."""
    esxi = [_ESXI_PATH.match(p.io_path) for p in d.paths]
    luns = {int(m.group(3)) for m in esxi if m}
    label = _LUN_LABEL.match(d.logical_label)
    if len(luns) == 1 and all(esxi):
        return luns.pop(), Read(file, text="the L of its I/O paths")
    if label:
        return int(label.group(1)), Read(file, d.logical_line, f"[{d.logical_label}]")
    return None


def _adapters(file: str, devices: list[Device]) -> dict[int, tuple[str, Read]]:
    """Each `###` (PowerPath's HBA number) → the adapter's name and where it was read: the HW
    path itself where it is one word naming one HBA (`vmhba2`, `fscsi0`), else `hbaNNN`."""
    hw_of: dict[int, tuple[str, int]] = {}
    for d in devices:
        for p in d.paths:
            hw_of.setdefault(p.hba, (p.hw_path, p.line))
    words = [hw for hw, _ in hw_of.values()]
    named = all(_WORD.match(hw) for hw in words) and len(set(words)) == len(words)
    return {hba: (hw if named else f"hba{hba}", Read(file, line, f"### {hba}, HW path {hw}"))
            for hba, (hw, line) in hw_of.items()}


def _array_name(d: Device) -> str:
    return f"{d.array_class}-{d.array_id}".replace(" ", "-") if d.array_class else "array"


def _array(file: str, d: Device, warnings: list[tuple[str, str]]) -> s.Array:
    name = _array_name(d)
    vendor, model = INQUIRY.get(d.array_class, (d.array_class or "unknown", ""))
    vendor_note = (Derived(f"{file}, line {d.array_line}: {d.array_class} ID: the class's SCSI inquiry vendor and "
                           "product", (file,))
                   if d.array_class in INQUIRY else Read(file, text="the array class as printed (its inquiry data is not "
                                                                    "shown)"))
    if not d.owner_current:
        no_owner = Derived(f"{file}: no `Owner:` line: no LUN ownership shown", (file,))
        return s.Array(name, vendor, model, vendor_note, True, no_owner, False, no_owner)
    mode = d.failover_mode
    if mode is not None and mode not in FAILOVER_MODES:
        raise ScenarioError(file, f"line {d.owner_line}", f"Array failover mode: {mode}: pathlab simulates modes 4 (ALUA) "
                                                          "and 1 (PNR, active-passive)")
    if mode is None:
        warnings.append((f"arrays.{name}.non_owner_state", f"{file}, line {d.owner_line} shows no `Array failover mode`: "
                                                           "the other SP's paths taken as ALUA non-optimized (mode 4)"))
    note = Read(file, d.owner_line, f"Array failover mode: {mode}") if mode is not None else Assumed("mode not shown")
    tpgs_note = Derived(f"{file}, line {d.owner_line}: " + (f"Array failover mode {mode}: " + ("ALUA" if mode == 4 else "no ALUA")
                                                            if mode is not None else "no `Array failover mode`: no ALUA shown"),
                        (file,))
    return s.Array(name, vendor, model, vendor_note, False, Read(file, d.owner_line, "Owner: an SP owns each LUN"),
                   mode == 4, tpgs_note, FAILOVER_MODES.get(mode) if mode is not None else None, note)


def _port(file: str, p: PathRow, array: s.Array) -> str:
    """The array port as the `Interf.` column prints it (`SP A2` → `SP-A2`), on its SP where the
    array has LUN ownership (`SP A2` is on SP A)."""
    name = p.interface.replace(" ", "-")
    sp = re.match(r"^SP ([A-Z])\d*$", p.interface)
    if not array.symmetric and not sp:
        raise ScenarioError(file, f"line {p.line}", f"Interf. {p.interface!r}: an array with an `Owner:` line has SP "
                                                    "ports (`SP A2`)")
    controller = f"SP{sp.group(1)}" if sp else None
    array.ports.setdefault(name, s.Port(name, controller, Read(file, p.line, f"Interf. {p.interface}")))
    return name


def _targets(devices: list[Device], adapters: dict[int, tuple[str, Read]]) -> dict[tuple[str, str], int]:
    """The T of each (adapter, port) where the listing prints no runtime name: the port's place
    among the ports its adapter reaches, in the order the listing first shows them (made once:
    per path it was a scan of every path)."""
    reached: dict[str, dict[str, int]] = {}
    for d in devices:
        for q in d.paths:
            ports = reached.setdefault(adapters[q.hba][0], {})
            ports.setdefault(q.interface, len(ports))
    return {(adapter, port): t for adapter, ports in reached.items() for port, t in ports.items()}


def _policy(file: str, d: Device, warnings: list[tuple[str, str]]) -> tuple[dict[str, object], Read]:
    where = f"policy={d.policy}"
    if d.policy not in SIMULATED:
        raise ScenarioError(file, f"line {d.policy_line}", f"policy={d.policy}: pathlab does not simulate PowerPath's "
                                                           f"{d.policy} policy (it simulates "
                                                           f"{', '.join(SIMULATED)})")
    name, rule = SIMULATED[d.policy]
    policy: dict[str, object] = {"name": "powerpath", "policy": name}
    standby = sorted({p.mode for p in d.paths if p.mode.startswith("asb:")})
    if len(standby) == 1:
        policy["autostandby"] = standby[0].removeprefix("asb:")
        where += f"; autostandby {policy['autostandby']}: a path in {standby[0]} (line " \
                 f"{next(p.line for p in d.paths if p.mode == standby[0])}) is put there by it"
    for p in d.paths:
        if p.mode != "active":
            warnings.append((f"devices.{d.name}.paths", f"{file}, line {p.line}: {p.io_path} is in mode {p.mode}: "
                                                        "simulated as active from the start (pathlab's PowerPath puts "
                                                        "paths in standby only by its own autostandby)"))
    if rule:
        warnings.append((f"devices.{d.name}.policy", f"{file}, line {d.policy_line}: {where}: {rule}"))
    return policy, Read(file, d.policy_line, where + (f"; {rule}" if rule else ""))


def _findings(file: str, devices: list[Device]) -> list[Finding]:
    """What the listing itself shows: dead paths and devices, errors counted on a path, a LUN off
    its default SP, one path only, and standby paths said as normal."""
    found = []
    for d in devices:
        alive = [p for p in d.paths if p.state == "alive"]
        if d.state == "dead" or not alive:
            found.append(Finding(f"{d.name} has no live path: its I/O fails (captured)",
                                 f"{file}, line {d.policy_line}: state={d.state}"))
        for p in d.paths:
            if p.state == "dead":
                found.append(Finding(f"{d.name}: path {p.io_path} ({p.hw_path}, {p.interface}) is dead (captured)",
                                     f"{file}, line {p.line}"))
            if p.errors:
                found.append(Finding(f"{d.name}: PowerPath counted {p.errors} error(s) on path {p.io_path} "
                                     f"({p.interface}) (captured)", f"{file}, line {p.line}: Errors {p.errors}"))
        if d.owner_current and d.owner_default != d.owner_current:
            found.append(Finding(f"{d.name} is trespassed: {d.owner_current} owns it, its default owner is "
                                 f"{d.owner_default} (captured)", f"{file}, line {d.owner_line}"))
        if len(alive) == 1 and d.state != "dead":
            found.append(Finding(f"{d.name}: one live path: no redundancy left (captured)",
                                 f"{file}, line {alive[0].line}"))
        standby = [p for p in alive if p.mode != "active"]
        if standby and len(standby) < len(alive):
            found.append(Finding(f"{d.name}: {len(standby)} path(s) in standby ({', '.join(sorted({p.mode for p in standby}))}"
                                 "): used only when no active path is left", f"{file}, line {standby[0].line}",
                                 normal=True))
    return found
