"""`pathlab import` for a Windows host on MPIO with the Microsoft DSM: `mpclaim -s -d N` for each
disk (its policy, paths, their states, SCSI addresses, weights and ALUA target port groups), and
optionally `Get-MPIOSetting` (PDORemovePeriod) and `Get-MSDSMGlobalDefaultLoadBalancePolicy`.
Each disk becomes a device under pathlab's `mpio` policy with the policy mpclaim shows; values
read name their line, the rules that derive others are named, the rest is said as assumed."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError
from pathlab.finding import Finding
from pathlab.importer import scsi_host as s
from pathlab.importer.imported import Imported
from pathlab.importer.joined import Joined
from pathlab.importer.listed import mpclaim_disk, mpclaim_host, mpclaim_path
from pathlab.importer.provenance import Derived, Provenance, Read
from pathlab.importer.timer_values import TimerValue

if TYPE_CHECKING:
    from pathlab.importer.kind import Kind
    from pathlab.readers.mpclaim import Mpclaim, MpioDisk, MpioPath
    from pathlab.readers.mpio_settings import Settings

#: mpclaim's short names → pathlab's `mpio` policies (mpclaim -l -m 1 to 6).
POLICIES = {"FOO": "failover_only", "RR": "round_robin", "RRWS": "round_robin_with_subset",
            "LQD": "least_queue_depth", "WP": "weighted_paths", "LB": "least_blocks"}
#: mpclaim -l -m's numbers of the same policies, for the commands advise prints.
NUMBERS = {"FOO": 1, "RR": 2, "RRWS": 3, "LQD": 4, "WP": 5, "LB": 6}
DSM = "Microsoft DSM"
#: Path states in which a path carries no I/O and is no standby either.
DOWN = ("Failed", "Unavailable")
PDO_DEFAULT = 20  # Windows' PDORemovePeriod, seconds (Get-MPIOSetting's default)


def import_host(found: dict[str, Kind]) -> Imported:
    """A Windows MPIO host from `mpclaim -s -d N` output, with Get-MPIOSetting beside it."""
    listings = [n for n, k in found.items() if k.name == "mpclaim"]
    settings_files = [n for n, k in found.items() if k.name == "mpio-settings"]
    if len(listings) != 1 or len(found) != len(listings) + len(settings_files) or len(settings_files) > 1:
        raise ScenarioError(", ".join(found), "", "give one file of `mpclaim -s -d N` output (every disk's, one after "
                                                  "the other) and at most one of Get-MPIOSetting: pathlab reads no "
                                                  "other capture of a Windows host yet")
    file = listings[0]
    listing: Mpclaim = found[file].read(file)
    settings: Settings = listing.settings
    settings_file = file
    if settings_files:
        settings_file = settings_files[0]
        settings = found[settings_file].read(settings_file)
    if not listing.disks:
        raise ScenarioError(file, "", "no disk's paths: `mpclaim -s -d` lists the disks; `mpclaim -s -d N` for each "
                                      "disk N shows its paths, which a scenario needs")
    host = _host(file, listing, settings, settings_file)
    tables, measured = s.scenario(host)
    return Imported(tables, host.warnings, _findings(file, listing, settings, settings_file), measured_load=measured,
                    timers=_timers(settings, settings_file))


#: Get-MPIOSetting's failure timers (`advise --failures` runs them; the scenario keeps only
#: PDORemovePeriod, the policy's).
TIMERS = ("PDORemovePeriod", "RetryCount", "RetryInterval", "DiskTimeoutValue")


def _timers(settings: Settings, settings_file: str) -> list[TimerValue]:
    """MPIO's timers as Get-MPIOSetting prints them, each with its line: they apply to the host."""
    read = ((key, settings.integer(settings_file, key)) for key in TIMERS)
    return [TimerValue(key, str(value), "host", f"{settings_file}, line {line}")
            for key, got in read if got is not None for value, line in (got,)]


def device_name(disk: int) -> str:
    """The scenario's name of MPIO disk N: advise's commands (`mpclaim -l -d N`) read N back."""
    return f"MPIODisk{disk}"


def disk_number(name: str) -> int | None:
    m = re.fullmatch(r"MPIODisk(\d+)", name.split("/")[-1])
    return int(m.group(1)) if m else None


def _host(file: str, listing: Mpclaim, settings: Settings, settings_file: str) -> s.Host:
    warnings: list[tuple[str, str]] = []
    adapters: dict[str, Provenance] = {}
    for d in listing.disks:
        for p in d.paths:
            adapters.setdefault(f"port{p.port}", Read(file, p.line, f"SCSI port {p.port} of the path's address"))
    arrays: dict[str, s.Array] = {}
    devices: list[s.Device] = []
    pdo = settings.integer(settings_file, "PDORemovePeriod")
    if pdo is None:
        warnings.append(("devices.policy.pdo_remove_period", f"no Get-MPIOSetting given: PDORemovePeriod {PDO_DEFAULT} s "
                                                             "(Windows' default) assumed"))
    array_of = _arrays_by_target(listing)
    for d in listing.disks:
        if d.dsm != DSM:
            raise ScenarioError(file, f"line {d.line}", f"MPIO Disk{d.number} is controlled by {d.dsm or 'no DSM shown'}: "
                                                        "pathlab simulates the Microsoft DSM's policies only")
        if d.policy not in POLICIES:
            raise ScenarioError(file, f"line {d.line}", f"MPIO Disk{d.number}: {d.policy_text}: pathlab simulates "
                                                        "the Microsoft DSM's FOO, RR, RRWS, LQD, WP and LB")
        array = _array(file, d, arrays, array_of[d.number])
        order = sorted(d.paths, key=lambda p: (list(adapters).index(f"port{p.port}"), p.target))
        paths: list[s.Path] = []
        for p in d.paths:
            port = f"p{p.port}t{p.target}"
            controller = f"tpg{p.tpg_id}" if p.tpg_id is not None and not array.symmetric else None
            array.ports.setdefault(port, s.Port(port, controller, Read(file, p.line, f"SCSI port {p.port}, target "
                                                                       f"{p.target} (mpclaim does not name the array's "
                                                                       "ports: one per adapter and target)")))
            down = Read(file, p.line, f"path {p.path_id} is {p.state}") if p.state in DOWN else None
            paths.append(s.Path(f"port{p.port}", f"{array.name}/{port}", p.target, down, mpclaim_path(p, len(paths)),
                                p.line))
        policy, note = _policy(file, d, order, pdo, settings_file)
        owner = _owner(d) if not array.symmetric else None
        devices.append(s.Device(device_name(d.number), Read(file, d.line, f"MPIO Disk{d.number}, SN {d.serial}"),
                                array.name, d.paths[0].lun, Read(file, d.paths[0].line, "the LUN of its SCSI address"),
                                policy, note, owner,
                                Derived(f"{file}: the target port group of its Active/Optimized paths", (file,)), paths,
                                listed=mpclaim_disk(d) | (mpclaim_host(listing, settings) if not devices else {})))
    for row in listing.listed:
        if row.number not in {d.number for d in listing.disks}:
            warnings.append((f"devices.MPIODisk{row.number}", f"{file}, line {row.line}: MPIO Disk{row.number} is listed "
                                                              f"without its paths: left out; `mpclaim -s -d {row.number}` "
                                                              "shows them"))
    description = "A Windows host on MPIO (Microsoft DSM) as mpclaim -s -d describes it."
    return s.Host("windows", description, file, adapters, list(arrays.values()), devices, warnings)


def _oui(serial: str) -> str:
    """The IEEE OUI an NAA-6 serial carries (its 2nd to 7th digits, the vendor's registered
    number), else empty."""
    return serial[1:7].upper() if re.fullmatch(r"6[0-9A-Fa-f]{31}|6[0-9A-Fa-f]{15,}", serial) else ""


def _arrays_by_target(listing: Mpclaim) -> dict[int, str]:
    """Each disk's array, by disk number: disks reached through a common SCSI port and target are
    on one array (a target is one of the array's ports), so the disks fall into arrays by the
    targets they share; mpclaim prints no vendor or array name, so each is named by its disks'
    serials' OUI (`oui-0002AC`), numbered where one vendor has several (`oui-0002AC-2`)."""
    joined: Joined[int] = Joined()
    for d in listing.disks:
        joined.add(d.number)
    first_on: dict[tuple[int, int], int] = {}
    for d in listing.disks:
        for p in d.paths:
            joined.join(d.number, first_on.setdefault((p.port, p.target), d.number))
    root = joined.root
    roots = list(dict.fromkeys(root(d.number) for d in listing.disks))
    oui = {r: _oui(next(d.serial for d in listing.disks if d.number == r)) for r in roots}
    names = {}
    for r in roots:
        base = f"oui-{oui[r]}" if oui[r] else "array"
        alike = [x for x in roots if oui[x] == oui[r]]
        names[r] = base if len(alike) == 1 else f"{base}-{alike.index(r) + 1}"
    return {d.number: names[root(d.number)] for d in listing.disks}


def _array(file: str, d: MpioDisk, arrays: dict[str, s.Array], name: str) -> s.Array:
    """The array a disk is on (`name`, from `_arrays_by_target`), made from the first disk on it:
    its vendor the serial's OUI, its ALUA as that disk shows it."""
    oui = _oui(d.serial)
    alua = any(p.tpg_id is not None for p in d.paths)
    owned = alua and len({p.tpg_state for p in d.paths}) > 1
    if name in arrays:
        return arrays[name]
    where = f"{file}, line {d.serial_line}: SN {d.serial}" if oui else f"{file}: no NAA serial shown"
    note = Derived(f"{file}, line {d.line}: TPG states differ: a controller owns each LUN" if owned
                   else f"{file}, line {d.line}: {d.alua}, every path in one state group", (file,))
    standby = any(p.tpg_state == "Standby" for p in d.paths)
    array = s.Array(name, f"OUI {oui}" if oui else "unknown", "",
                    Derived(f"{where}: the serial's IEEE OUI (mpclaim prints no vendor; disks on common SCSI targets are "
                            "one array)", (file,)), not owned, note, alua,
                    Derived(f"{file}, line {d.line}: " + ("TPG_Id lines: the array answers for ALUA" if alua
                                                          else "no TPG_Id line: no ALUA shown"), (file,)),
                    "standby" if owned and standby else None,
                    Read(file, d.line, "TPG_State Standby on the other group's paths"))
    arrays[name] = array
    return array


def _owner(d: MpioDisk) -> str | None:
    optimized = [p.tpg_id for p in d.paths if p.tpg_state == "Active/Optimized"]
    return f"tpg{optimized[0]}" if optimized else None


def _policy(file: str, d: MpioDisk, order: list[MpioPath], pdo: tuple[int, int] | None,
            settings_file: str) -> tuple[dict[str, object], Provenance]:
    """The disk's `mpio` policy: mpclaim's policy, the paths it keeps in standby (FOO, RRWS: a path
    whose State is Standby though its group's ALUA state is not) as `active_paths`, the weights of
    weighted paths, in the order pathlab discovers the paths (by adapter, then target)."""
    policy: dict[str, object] = {"name": "mpio", "policy": POLICIES[d.policy]}
    note = f"{d.policy_text}"
    held = [p for p in order if p.state == "Standby" and p.tpg_state != "Standby"]
    if d.policy in ("FOO", "RRWS") and held:
        policy["active_paths"] = [i for i, p in enumerate(order) if p.state.startswith("Active/")]
        note += f"; active_paths: the paths not in Standby (lines {', '.join(str(p.line) for p in held)} stand by)"
    if d.policy == "WP":
        policy["weights"] = [p.weight for p in order]
        note += "; weights: the Weight column"
    if pdo is None:
        return policy, Read(file, d.line, note)
    policy["pdo_remove_period"] = pdo[0]
    note += f"; pdo_remove_period: {settings_file}, line {pdo[1]}"
    return policy, Derived(f"{file}, line {d.line}: {note}", (file, settings_file))


def _findings(file: str, listing: Mpclaim, settings: Settings, settings_file: str) -> list[Finding]:
    """What the listing shows: failed paths, a disk with one working path, standby paths said as
    normal, and the MSDSM default where a disk runs another policy."""
    found = []
    for d in listing.disks:
        working = [p for p in d.paths if p.state not in DOWN]
        for p in d.paths:
            if p.state in DOWN:
                found.append(Finding(f"MPIO Disk{d.number}: path {p.path_id} ({p.port}|{p.bus}|{p.target}|{p.lun}) is "
                                     f"{p.state} (captured)", f"{file}, line {p.line}"))
        if not working:
            found.append(Finding(f"MPIO Disk{d.number} has no working path: I/O is held for PDORemovePeriod, then "
                                 "fails (captured)", f"{file}, line {d.line}"))
        elif len(working) == 1:
            found.append(Finding(f"MPIO Disk{d.number}: one working path: no redundancy left (captured)",
                                 f"{file}, line {working[0].line}"))
        standby = [p for p in working if p.state == "Standby"]
        if standby and len(standby) < len(working):
            why = "its ALUA standby group" if all(p.tpg_state == "Standby" for p in standby) else \
                f"{d.policy_text}'s standby paths"
            found.append(Finding(f"MPIO Disk{d.number}: {len(standby)} path(s) in Standby ({why}): used only when the "
                                 "active ones fail", f"{file}, line {standby[0].line}", normal=True))
    default = settings.default_policy
    if default is not None and default[0] != "None":
        other = [d for d in listing.disks if d.policy != default[0]]
        if other:
            found.append(Finding(f"the MSDSM default policy is {default[0]}, but "
                                 + ", ".join(f"MPIO Disk{d.number} runs {d.policy}" for d in other)
                                 + ": set per disk (mpclaim -l -d) or claimed before the default was set",
                                 f"{settings_file}, line {default[1]}", normal=True))
    return found
