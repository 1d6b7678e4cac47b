"""`pathlab import`: a scenario of an ESXi host built from what the host prints: `esxcli storage
nmp device list` (devices, SATP, the policy in force), `esxcli storage nmp path list` or `core
path list` (paths, their targets and ALUA states) and an `esxtop -b` capture (queue depths, the
workload, the array ports' capacity). Every value the captures give carries a comment naming the
file and the counter; every value they do not give is a stated default with a warning, so that
the admin sees what to confirm."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError, warn
from pathlab.finding import Finding
from pathlab.importer.captured_load import from_esxtop
from pathlab.importer.esxi_active_passive import PathGroup, active_passive
from pathlab.importer.esxi_dead_paths import dead_path_faults
from pathlab.importer.esxi_listing_findings import esxi_listing_findings
from pathlab.importer.esxi_listings_disagree import reconciled
from pathlab.importer.esxi_non_owner import CONFIGS, PathState, lines_of, non_owner_states
from pathlab.importer.esxi_optimized_together import Together, optimized_together
from pathlab.importer.esxi_timers import adapter_element, esxi_timers
from pathlab.importer.esxi_tpg_config import not_optimized, tpg_states, undecided
from pathlab.importer.esxi_unknown_targets import placed
from pathlab.importer.frame_rows import cell as _value
from pathlab.importer.frame_rows import cell_int as _int_or_none
from pathlab.importer.frame_rows import rows_of
from pathlab.importer.host_tables import Element, HostTables
from pathlab.importer.imported import Imported
from pathlab.importer.listed import esxcli_device, esxcli_path, listed_entries
from pathlab.importer.provenance import Assumed, Derived, Listed, Own, Provenance, Read, Unknown
from pathlab.importer.shorter_first import shorter_first
from pathlab.importer.values import add_run, heading, io_size, saw_no_io, size_text, zero_load_assumed

if TYPE_CHECKING:
    import pandas as pd

    from pathlab.importer.kind import Kind
    from pathlab.readers.esxcli_advanced import Setting
    from pathlab.readers.esxcli_iscsi_params import AdapterParams
    from pathlab.readers.esxtop_summary import Summary, TableSummary

#: A round robin limit at or above this many I/Os keeps a device on one path for long stretches.
LARGE_RR_LIMIT = 100
#: Outstanding I/Os from which one path's port is taken to be saturated when it works alone: deep
#: enough that the port's queue, not the round trip, bounds the rate (C1's field run had 128;
#: at 8, as in the CX4 runs, the round trip can bound it and nothing is inferred).
SATURATING_OUTSTANDING = 32
#: A device's paths are lightly loaded when fewer I/Os than this are on each on average (its
#: active commands over its busy paths): their DAVG is then round trip plus service, not queueing.
LIGHT_PATH_OUTSTANDING = 4.0
#: Defaults for what no capture says (each one is warned about).
DEFAULT_ONE_WAY_US = 5.0  # a fabric within one room: a few metres of fibre and one switch hop
DEFAULT_ONE_WAY = f"{DEFAULT_ONE_WAY_US:g}us"
DEFAULT_PORT_SERVICE_US = 20.0  # an array front-end port of the 2010s: about 50,000 I/O/s
DEFAULT_DQLEN = 32
DEFAULT_AQLEN = 4096
DEFAULT_OUTSTANDING = 32


#: The PSPs that keep to active-optimized paths while there is one.
FOLLOW_ALUA = ("VMW_PSP_RR", "VMW_PSP_MRU")

#: Where each kind of ESXi input goes in `Captures` (the timer listings, of which a host may give
#: several, one per iSCSI adapter, go in its lists).
SLOTS = {"esxtop": "esxtop", "devices": "devices", "hpp-devices": "devices", "paths": "paths"}


@dataclass
class Captures:
    """What was given, read; `files` names the file each came from (for the comments)."""

    devices: pd.DataFrame | None = None
    paths: pd.DataFrame | None = None
    esxtop: Summary | None = None
    files: dict[str, str] = field(default_factory=dict)
    #: `esxcli iscsi adapter param get` listings, and advanced settings listings with their file.
    iscsi: list[AdapterParams] = field(default_factory=list)
    advanced: list[tuple[str, list[Setting]]] = field(default_factory=list)


def hpp_devices(name: str) -> pd.DataFrame:
    """`esxcli storage hpp device list` as the device table `build` takes (policy HPP, no SATP),
    with the paths it lists by runtime name in `attrs["paths"]` (for hosts with no path list)."""

    from pathlab.readers import esxcli_hpp

    hpp = esxcli_hpp.read_devices(name)
    devices = hpp.assign(psp="HPP", satp=None, rr_type=None)
    devices.attrs["paths"] = _runtime_paths(hpp, "paths")
    return devices


def _runtime_paths(devices: pd.DataFrame, column: str) -> pd.DataFrame:
    """The paths a device listing names by runtime name (`vmhba2:C0:T1:L4`) in `column`, as the
    path table `build` takes, with no state of their own."""
    import pandas as pd

    rows = []
    for d in devices.itertuples():
        tpg_id, tpg_state, assumed = _working_tpg(d)
        for runtime in (getattr(d, column) if isinstance(getattr(d, column), list) else []):
            match = re.fullmatch(r"(\w+):C(\d+):T(\d+):L(\d+)", runtime)
            if match:
                rows.append({"path": None, "runtime_name": runtime, "adapter": match[1], "channel": int(match[2]),
                             "target": int(match[3]), "lun": int(match[4]), "device": d.device,
                             "tpg_state": tpg_state, "tpg_id": tpg_id, "tpg_assumed": assumed,
                             "line": getattr(d, f"{column}_line", None)})  # where the listing names it
    return pd.DataFrame(rows)


def _working_tpg(device: Any) -> tuple[int | None, str | None, bool]:
    """The target port group a device's working paths are in, where its SATP config shows it, and
    whether that is assumed. Round robin (without useANO) and MRU keep to active-optimized paths,
    so with one AO group among the device's `{TPG_id=…,TPG_state=…}` that group is theirs; where
    every group is AO (an all-active array) the listing does not say which path is in which, and
    the first is taken: every path is AO either way. Fixed runs on its preferred path whatever
    its ALUA state, so the listing does not say where that path is: with one AO group it is taken
    to be there (assumed, and said: the path list's `TPG_state` shows it)."""
    groups = tpg_states(device)
    optimized = [tpg for tpg, state in groups if state == "AO"]
    policy = str(_value(getattr(device, "psp", None)) or "")
    if not optimized or policy not in FOLLOW_ALUA + ("VMW_PSP_FIXED",) or getattr(device, "use_ano", False) is True:
        return None, None, False
    if len(optimized) > 1 and len(optimized) < len(groups):
        return None, None, False
    return optimized[0], "AO", policy not in FOLLOW_ALUA and len(optimized) < len(groups)


#: Why an `sg_rtpg` output is not read with an ESXi host's listings, and what to do with its time.
RTPG_ON_ESXI = ("ESXi has no sg_rtpg, so its /dev/sdX is another host's disk, and its output names no LUN to tie to "
                "an ESXi device; write its Implicit transition time as implicit_transition_time in the imported "
                "scenario's [[arrays]] table of the same array")


def import_host(found: dict[str, Kind]) -> Imported:
    """An ESXi host from its listings and capture, each read by the reader of its kind."""
    out = Captures()
    esxi_given = any("esxi" in kind.stacks for kind in found.values())
    for name, kind in found.items():
        if kind.name == "sg-rtpg" and esxi_given:  # the array's time, read on another host: no ESXi device to tie it to
            raise ScenarioError(name, "", f"sg_rtpg output given with an ESXi host's listings: {RTPG_ON_ESXI}")
        if "esxi" not in kind.stacks:
            raise ScenarioError(name, "", f"a Linux capture ({kind.name}) given without `multipath -ll`")
        if kind.name == "iscsi-params":
            out.iscsi.append(kind.read(name))
            continue
        if kind.name == "esxi-advanced":
            out.advanced.append((name, kind.read(name)))
            continue
        slot = SLOTS[kind.name]
        setattr(out, slot, kind.read(name))
        out.files[slot] = name
    files = list(found)
    if out.devices is None:
        raise ScenarioError(", ".join(files), "", "`esxcli storage nmp device list` (or `hpp device list`) is needed: it "
                                                  "names the devices and the policy in force")
    if out.paths is None and "paths" in out.devices.attrs:
        out.paths, out.files["paths"] = out.devices.attrs["paths"], out.files["devices"]
    if out.paths is None and "working_paths" in out.devices.columns:
        out.paths, out.files["paths"] = _runtime_paths(out.devices, "working_paths"), out.files["devices"]
        warn(out.files["devices"], "Working Paths", "no path list given: the paths are the devices' Working Paths, "
                                                    "those carrying I/O now (standby and non-optimized paths are not "
                                                    "listed there), their states taken as active; `esxcli storage nmp "
                                                    "path list` shows every path and its ALUA state")
        for p in out.paths[out.paths["tpg_assumed"]].itertuples() if not out.paths.empty else ():
            warn(out.files["devices"], f"{p.device}: Working Paths",
                 f"which target port group {p.runtime_name} is in is not in the device list (Fixed runs on its "
                 f"preferred path, optimized or not): taken as the active-optimized TPG {p.tpg_id}; `esxcli storage "
                 "nmp path list` shows its TPG_state")
    if out.paths is None or out.paths.empty:
        raise ScenarioError(", ".join(files), "", "`esxcli storage nmp path list` (or `core path list`) is needed: it "
                                                  "names the paths")
    return build(out)


#: The SATP ESXi claims a host's own disks with (one path, no array): not multipathing's subject.
LOCAL_SATP = "VMW_SATP_LOCAL"


def _san_devices(devices: pd.DataFrame, dev_file: str) -> tuple[pd.DataFrame, list[str]]:
    """The devices of arrays, and the names of the local disks left out; a list of local disks
    alone is refused."""
    if "satp" not in devices.columns:  # `hpp device list`: no SATP, and HPP claims local NVMe as well as SAN
        return devices, []
    is_local = devices["satp"].astype(str) == LOCAL_SATP
    if is_local.all() and len(devices):
        raise ScenarioError(dev_file, "Storage Array Type", f"every device is a local disk ({LOCAL_SATP}): no SAN "
                                                            "device to advise on; list the host's SAN devices")
    return devices[~is_local], [str(name) for name in devices["device"][is_local]]


#: The path selection plug-ins pathlab simulates (`_policy`); a device claimed by another (a
#: vendor's PSP under NMP: NIMBLE_PSP_DIRECTED, DELL_PSP_EQL_ROUTED; ESX 4.1's VMW_PSP_FIXED_AP)
#: is left out of the host, said, and a list of such devices alone refused.
IMPORTED_PSPS = ("VMW_PSP_RR", "VMW_PSP_FIXED", "VMW_PSP_MRU", "HPP")


def _simulated_devices(devices: pd.DataFrame, dev_file: str) -> tuple[pd.DataFrame, dict[str, str]]:
    """The devices claimed by a plug-in pathlab simulates, and the others' names with their PSP;
    a list of the others alone is refused naming the first one's PSP."""
    imported = devices["psp"].astype(str).isin(IMPORTED_PSPS)
    if not imported.all() and not imported.any():
        first = devices[~imported].iloc[0]
        raise ScenarioError(dev_file, f"{first['device']}: Path Selection Policy",
                            f"{first['psp']} is not a policy pathlab imports; supported: {', '.join(IMPORTED_PSPS)}")
    return devices[imported], {str(d): str(psp) for d, psp in zip(devices["device"][~imported],
                                                                  devices["psp"][~imported])}


def _some(names: list[str]) -> str:
    """Up to three names, and how many more."""
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


@dataclass
class Port:
    array: str
    name: str
    target: str
    #: Its target port group (`TPG_id`), or on NVMe its ANA group and the state it shows through
    #: this port (`6-ANO`: `esxcli_hpp.read_paths`' `port_group`).
    tpg: str | None = None


def _port_group(p: Any) -> str | None:
    """The port group a path's port is in: its `port_group` where the listing gives one (an hpp
    path list), else its `TPG_id`."""
    group = _value(getattr(p, "port_group", None))
    if group is not None:
        return str(group)
    tpg = _value(getattr(p, "tpg_id", None))
    return None if tpg is None else str(int(tpg))


def _vendor(display_name: str) -> str:
    """`EMC Fibre Channel Disk (naa.…)` → EMC."""
    return (display_name or "").split(" ")[0] or "UNKNOWN"


#: An FC path's name in `nmp path list`: `fc.<adapter WWNN:WWPN>-fc.<target WWNN:WWPN>-<device>`.
FC_PATH_NAME = re.compile(r"^fc\.[0-9A-Fa-f:]+-(fc\.[0-9A-Fa-f:]+)-")
#: An iSCSI path's name in `nmp path list`: `<initiator IQN>[-<ISID>],<target IQN>,t,<portal group
#: tag>-<device>` (the IQNs have dashes of their own; ESX 4 names no ISID), and `core path list`'s
#: Target Identifier `<ISID>,<target IQN>,t,<tag>`: the session, and the target portal group it
#: logged in to.
ISCSI_PATH_NAME = re.compile(r"^iqn\.[^,]*?(?:-([0-9A-Fa-f]{12}))?,([^,]+,t,\d+)-")
ISCSI_TARGET_ID = re.compile(r"^(?:([0-9A-Fa-f]{12}),)?([^,]+,t,\d+)$")


def iscsi_session(row: Any) -> tuple[str | None, str] | None:
    """An iSCSI path's session (its ISID, None where the listing names none) and target portal
    group (`<target IQN>,t,<tag>`); None for any other transport."""
    match = (ISCSI_PATH_NAME.match(str(_value(getattr(row, "path", None)) or ""))
             or ISCSI_TARGET_ID.match(str(_value(getattr(row, "target_identifier", None)) or "")))
    return (match.group(1), match.group(2)) if match else None


def _target_of(row: Any) -> str:
    """The target port a path reaches: the target's WWNN:WWPN in an FC path's name; for iSCSI the
    portal its session reached, named by the session and its target portal group (each session
    logs in to one portal; which address is not in the path listings), or the portal group where
    no session is named; else its Target Identifier (core path list), else its adapter and target
    number."""
    match = FC_PATH_NAME.match(str(_value(getattr(row, "path", None)) or ""))
    if match:
        return match.group(1)
    session = iscsi_session(row)
    if session:
        return ",".join(part for part in session if part)
    target = _value(getattr(row, "target_identifier", None))
    if isinstance(target, str) and target:
        return target
    # A session of its own per channel (iSCSI port binding), the listing naming neither.
    return f"{row.adapter}:C{_channel(row)}:T{row.target}" if _channel(row) else f"{row.adapter}:T{row.target}"


def _one_path_per_runtime_name(paths: list[Any], path_file: str) -> None:
    """Refuses a runtime name listed twice, naming both lines: a host lists each path once (two
    hosts' device lists in one file would make two paths of one name; a path list's reader
    already reads a repeat once, takes the later where only its moment moved, or refuses one whose
    settings or topology differ: `readers/_listed_once.py`)."""
    first: dict[str, Any] = {}
    for p in paths:
        seen = first.setdefault(str(p.runtime_name), p)
        if seen is not p:
            line, seen_line = (_int_or_none(getattr(q, "line", None)) for q in (p, seen))
            raise ScenarioError(path_file, f"line {line}", f"{p.runtime_name} listed a second time (line {seen_line}): "
                                "a host lists each path once (two hosts' listings in one file?)")


def _one_array_per_target(paths: list[Any], vendor_of: dict[str, str], device_line: dict[str, int | None],
                          path_file: str) -> None:
    """Refuses, naming both paths' lines (a device list's paths: their device's), two arrays (the
    vendors of their devices' Display Names) behind one target of one adapter: a target number
    is one array port. Two hosts' listings in one file, or a renamed Display Name, show so."""
    first: dict[tuple[str, int, int], Any] = {}
    for p in paths:
        seen = first.setdefault((str(p.adapter), _channel(p), int(p.target)), p)
        if vendor_of[seen.device] != vendor_of[p.device]:
            line, seen_line = (_int_or_none(getattr(q, "line", None)) or device_line.get(str(q.device)) for q in (p, seen))
            raise ScenarioError(path_file, f"line {line}", f"{p.runtime_name} ({p.device}, array {vendor_of[p.device]}) "
                                f"and {seen.runtime_name} (line {seen_line}: {seen.device}, array "
                                f"{vendor_of[seen.device]}) reach one target of {p.adapter}: a target is one array's "
                                "port (arrays are told apart by the vendor in each device's Display Name: a renamed "
                                "device, or two hosts' listings?)")


def _channel(row: Any) -> int:
    channel = _value(getattr(row, "channel", None))
    return int(channel) if channel is not None else 0


def _portal_groups(paths: list[Any], path_file: str) -> list[tuple[str, str]]:
    """What the import cannot say of iSCSI portals, one warning per target portal group: its
    sessions are ports of their own, but the portal each reached (address:port) is not in the
    path listings, and pathlab models no portal group (two sessions to one portal are two ports)."""
    groups: dict[str, set[str | None]] = {}
    for p in paths:
        session = iscsi_session(p)
        if session:
            groups.setdefault(session[1], set()).add(session[0])
    said = []
    for group, sessions in groups.items():
        ports = (f"{len(sessions)} session(s), each taken as its own array port" if None not in sessions
                 else "no session named (ESX 4): one array port for the whole group")
        said.append((f"arrays.ports.{group}", f"{path_file}: iSCSI target portal group {group}: {ports}; the portals' "
                                              "addresses are not in the path listings (`esxcli iscsi session connection "
                                              "list` shows them) and a portal group is not represented"))
    return said


def _mean(table: TableSummary | None, name: str, counter: str) -> float | None:
    # The first value of a capture covers the time before esxtop started: `mean` leaves it out.
    return table.mean(name, counter) if table is not None else None


def _policy(row: Any) -> dict[str, Any]:
    psp = row.psp
    if psp == "VMW_PSP_RR":
        policy: dict[str, Any] = {"name": psp}
        rr_type = {"rr": "default", None: "default"}.get(_value(row.rr_type), _value(row.rr_type))
        if rr_type != "default":
            policy["type"] = rr_type
        for key in ("iops", "bytes"):
            value = _value(getattr(row, key))
            if value is not None:
                policy[key] = int(value)
        if _value(row.use_ano):
            policy["use_ano"] = True
        return policy
    if psp in ("VMW_PSP_FIXED", "VMW_PSP_MRU"):
        return {"name": psp}
    if psp == "HPP":
        hpp: dict[str, Any] = {"name": "HPP", "scheme": str(row.scheme)}
        for key in ("iops", "bytes"):
            value = _value(getattr(row, key, None))
            if value is not None and row.scheme in ("LB-IOPS", "LB-BYTES"):
                hpp[key] = int(value)
        preferred = _value(getattr(row, "preferred", None))
        if preferred and row.scheme == "FIXED":
            hpp["preferred"] = str(preferred)
        return hpp
    raise AssertionError(f"{psp}: left out by `_simulated_devices`")


def _port_source(p: Port, together: Together | None, array: str, path_file: str) -> Provenance:
    """Where a port and its controller come from: its target, read; a controller of groups
    active-optimized together, derived (`esxi_optimized_together`; None: no controller written)."""
    joined = together.of(array, p.tpg) if together is not None and p.tpg is not None else ""
    if together is None or "+" not in joined:
        return Read(path_file, text=f"target {p.target}")
    # (The comment ends in the target, as a read port's does: a cluster knows the port by it, `port_identity`.)
    return Derived(f"{path_file}, its group TPG{p.tpg} in the controller {joined} (esxi_optimized_together: "
                   f"{together.lines[array]}): target {p.target}", (path_file,))


def _first_taken(device: str, first: str, own: list[Any], path_file: str) -> Finding:
    """A device on an array owned by its controllers whose owner neither its paths (no group
    active-optimized beside one not: every path ANO or standby, a transition or a host zoned to
    the non-owning controllers) nor its SATP config shows: the scenario has one owner per LUN and
    takes the array's first controller where none is named, so that is written and said, with the
    paths it runs otherwise than they show."""
    states = sorted({str(s) for p in own if (s := _value(getattr(p, "tpg_state", None))) is not None})
    joined = first.split("+")
    otherwise = [p for p in own if ((g := _port_group(p)) is not None and f"TPG{g}" in joined)
                 != (_value(getattr(p, "tpg_state", None)) == "AO")]
    return Finding(f"{device}: no owner shown (its paths show TPG_state {'/'.join(states) or 'none'}, none active-optimized "
                   f"beside a group not): simulated as owned by {first}, the array's first controller (assumed)",
                   f"{path_file}, {lines_of(own)}: Storage Array Type Path Config: the scenario has one owner per LUN "
                   "and neither listing shows this one's, so the array's first controller is taken: "
                   + (f"{', '.join(f'{p.runtime_name} ({lines_of([p])})' for p in otherwise)} run"
                      f"{'' if len(otherwise) > 1 else 's'} otherwise than the listing shows" if otherwise else
                      "each path runs as the listing shows")
                   + "; a capture once the array's ownership settles would tell")


def build(c: Captures) -> Imported:
    """The scenario's TOML text, commented, and the warnings for every value assumed."""
    assert c.devices is not None and c.paths is not None
    dev_file, path_file = c.files["devices"], c.files["paths"]
    warnings: list[tuple[str, str]] = []
    esx = c.esxtop
    esx_file = c.files.get("esxtop", "")

    c.devices, local = _san_devices(c.devices, dev_file)
    c.devices, other_psp = _simulated_devices(c.devices, dev_file)
    devices = list(rows_of(c.devices))
    if local:
        warnings.append(("devices", f"{len(local)} local disk(s) left out ({LOCAL_SATP}: {_some(local)}): "
                                    "multipathing is about the SAN's devices"))
    for psp in dict.fromkeys(other_psp.values()):
        claimed = [d for d, p in other_psp.items() if p == psp]
        warnings.append(("devices", f"{len(claimed)} device(s) left out ({_some(claimed)}): claimed by "
                                    f"{psp}, a path selection plug-in pathlab does not simulate"))
    vendor_of = {d.device: _vendor(d.display_name) for d in devices}
    listed_paths = list(rows_of(c.paths))  # (every path listed: the listing's findings read them all)
    paths = [p for p in listed_paths if p.device in vendor_of]
    if not paths:
        raise ScenarioError(path_file, "", f"no path of the devices in {dev_file}")

    _one_path_per_runtime_name(paths, path_file)
    _one_array_per_target(paths, vendor_of, {d.device: _int_or_none(getattr(d, "line", None)) for d in devices},
                          path_file)
    # Each path's target port, worked out once (the ports, the fabric and the active/passive
    # controllers each ask it of every path); runtime names are unique, checked above.
    target_of = {p.runtime_name: _target_of(p) for p in paths}
    # A path whose target is printed unknown: the target its adapter, channel and target number's
    # other paths name, else it is left out (said), and a device left with none too (its esxtop
    # rows, as a local disk's, make no workload).
    place = placed(paths, target_of, path_file, warnings)
    paths, left_out = place.paths, place.found
    # Groups a device's paths show active-optimized together: one controller of the scenario, no
    # one of them the owner; a device whose states the joined controllers cannot hold left out.
    together = optimized_together(paths_of(paths), vendor_of, _port_group, path_file)
    if together.left_out:
        paths = [p for p in paths if str(p.device) not in together.left_out]
        left_out += together.left_out.values()
        warnings += [("devices", f"{f.title} ({f.evidence})") for f in together.left_out.values()]
        if not paths:
            raise ScenarioError(path_file, "", "no device left: " + "; ".join(f.title for f in together.left_out.values()))
    left = place.devices_left_out | set(together.left_out)
    if left:
        devices = [d for d in devices if str(d.device) not in left]
        vendor_of = {d.device: vendor_of[d.device] for d in devices}
    # Ports: one per target the paths reach, per array (named by vendor), with its TPG.
    ports: dict[tuple[str, str], Port] = {}
    for p in paths:
        key = (vendor_of[p.device], target_of[p.runtime_name])
        port = ports.setdefault(key, Port(key[0], f"P{sum(1 for k in ports if k[0] == key[0])}", key[1]))
        tpg = _port_group(p)
        if tpg is not None:
            port.tpg = tpg
    adapters = sorted({p.adapter for p in paths}, key=shorter_first)
    warnings_of_portals = _portal_groups(paths, path_file)

    satps = {(vendor_of[d.device], d.satp) for d in devices if _value(d.satp)}
    given = [*c.files.values(), *(listing.file for listing in c.iscsi), *(file for file, _ in c.advanced)]
    host = heading([f"# Imported by `pathlab import` from {', '.join(dict.fromkeys(given))}.",
                    "# Values the captures give name their file and counter; `default:` marks what they do not",
                    "# say: confirm those (pathlab printed a warning for each)."],
                   "imported-host", "An ESXi host as its esxcli listings and esxtop capture describe it.")
    if satps:
        host.top.line("# The array-type plugin each device is claimed by, as the host shows it.")
        host.top.elements("esxcli", [Element(f"esxcli storage nmp satp rule add -s {satp} -V {vendor}"
                                             + (" -c tpgs_on" if "ALUA" in str(satp) else ""),
                                             Read(dev_file, text="Storage Array Type")) for vendor, satp in sorted(satps)])
    add_run(host)
    timers = esxi_timers(c.iscsi, c.advanced, adapters)
    host_table = host.table("host")
    host_table.elements("adapters", [
        Element(value, Read(path_file, text="runtime names"), {"queue_depth": Assumed("AQLEN is not in the captures"),
                                                                **sources})
        for a in adapters for value, sources in [adapter_element(a, DEFAULT_AQLEN, timers)]])
    for stack_key, stack_value, source in timers.stack:
        host_table.key(f"stack.{stack_key}", stack_value, source)
    warnings.append(("host.adapters.queue_depth", f"AQLEN is not in the captures: {DEFAULT_AQLEN} assumed"))
    warnings += warnings_of_portals

    # The device rows of the capture, per device, for the workload and the port capacity.
    dev_rows = esx["devices"] if esx is not None else None
    rates = {d.device: _mean(dev_rows, d.device, "Commands/sec") for d in devices} if dev_rows is not None else {}
    outstanding = {}
    for d in devices:
        actv = _mean(dev_rows, d.device, "Active Commands")
        qued = _mean(dev_rows, d.device, "Queued Commands")
        if actv is not None:
            outstanding[d.device] = actv + (qued or 0.0)

    services = {array: _port_service([d for d in devices if vendor_of[d.device] == array], rates, outstanding,
                                     esx_file, warnings, array) for array in dict.fromkeys(vendor_of.values())}
    service_us = {a: us for a, (us, _) in services.items()}
    latency = _latencies(paths, vendor_of, esx, esx_file, devices, service_us)
    of_device = paths_of(paths)
    # The path list's state of each group a device's paths reach, taken over its SATP config's (said where they differ).
    agreed = reconciled(devices, of_device, _port_group, dev_file, path_file)
    warnings += agreed.warnings
    taken = agreed.taken
    device_non_owner: dict[str, tuple[str, Provenance]] = {}
    passive_owner: dict[str, str] = {}  # an active/passive array's LUN → the controller of its active paths
    controllers_of: dict[str, set[str]] = {}  # an owned ALUA array's controllers (its TPGs) on this host
    first_controller: dict[str, str] = {}  # the simulator's owner of a LUN that names none (`_first_taken`)
    for array in dict.fromkeys(vendor_of.values()):
        array_ports = [p for p in ports.values() if p.array == array]
        tpgs = sorted({p.tpg for p in array_ports if p.tpg is not None}, key=shorter_first)
        states = [_value(getattr(p, "tpg_state", None)) for p in paths if vendor_of[p.device] == array]
        # A device list's SATP config that shows a TPG not active-optimized: the array owns its LUNs
        # by controller, whatever paths this host has (`esxi_tpg_config`).
        by_config = next((shown for d in devices if vendor_of[d.device] == array
                          and (shown := not_optimized(d, taken.get(d.device))) is not None), None) if tpgs else None
        every_path_ao = all(s in (None, "AO") for s in states)
        symmetric = every_path_ao and by_config is None
        if symmetric and tpgs:  # a config showing a TPG not AO that decides nothing: said, the paths' reading kept
            why = next((reason for d in devices if vendor_of[d.device] == array
                        and (reason := undecided(d, dev_file, taken.get(d.device))) is not None), None)
            if why is not None:
                warnings.append((f"arrays.{array}.symmetric", f"{why}: the paths' own reading stands, every path of "
                                                              f"this host ({path_file}) active-optimized"))
        passive, contradiction = (None, None) if tpgs else active_passive(
            {d.device: [PathGroup(target_of[p.runtime_name], _value(getattr(p, "group_state", None)),
                                  _int_or_none(getattr(p, "line", None)))
                        for p in of_device.get(d.device, [])] for d in devices if vendor_of[d.device] == array}, path_file)
        if contradiction:
            warnings.append((f"arrays.{array}.symmetric", contradiction))
        us, service_source = services[array]
        t = host.table("arrays", array=True)
        t.key("name", array, Own("the array's name in the scenario: its display name's vendor"))
        t.key("vendor", array, Read(dev_file, text="Device Display Name"))
        t.key("model", "", Unknown("not in the listings (esxcli storage core device list shows it)"))
        t.key("tpgs", bool(tpgs), Read(path_file, text="TPG_id in Storage Array Type Path Config" if tpgs
                                       else "no TPG in the path configs"))
        if passive is not None and passive.source is not None:
            t.key("symmetric", False, passive.source)
        elif by_config is not None and every_path_ao:
            t.key("symmetric", False, Derived(f"{by_config.said(dev_file)}: the array reports a target port group "
                                              f"not active-optimized, so it owns LUNs by controller, though every path "
                                              f"of this host ({path_file}) is active-optimized", (dev_file, path_file)))
        else:
            t.key("symmetric", symmetric or not tpgs,
                  Derived(f"{path_file}: " + ("every path active-optimized" if symmetric or not tpgs
                                              else "paths active-optimized and not, by TPG"), (path_file,)))
        t.key("service", {"fixed": f"{us:.1f}us", "distribution": "exponential"}, service_source)
        if array in latency.array_ms:
            ms = latency.array_ms[array]
            t.key("read_latency", f"{ms * 1000:.0f}us", Derived(latency.notes[array], (esx_file,)))
            t.key("write_latency", f"{ms * 1000:.0f}us", Derived("the same: one figure for both", (esx_file,)))
        else:
            warnings.append(zero_load_assumed(array))
        if tpgs and not symmetric:
            controllers = list(dict.fromkeys(together.of(array, g) for g in tpgs))
            t.key("controllers", [{"name": c} for c in controllers],
                  Derived(f"{path_file}: one per target port group, those active-optimized together as one "
                          f"(esxi_optimized_together: {together.lines[array]})", (path_file,))
                  if array in together.lines else Read(path_file, text="one per target port group"))
            controllers_of[array] = set(controllers)
            first_controller[array] = controllers[0]
            if array in together.said:
                warnings.append((f"arrays.{array}.controllers", together.said[array]))
            beside = non_owner_states(array, {d.device: [PathState(str(p.runtime_name), _value(getattr(p, "tpg_state", None)),
                                                                   _int_or_none(getattr(p, "line", None)))
                                                         for p in of_device.get(d.device, [])]
                                              for d in devices if vendor_of[d.device] == array}, path_file)
            if beside.array is None and not beside.devices and by_config is not None:
                # No path beside an owner's group: the SATP configs show the groups this host does not reach.
                said = beside.warnings
                beside = non_owner_states(array, {d.device: [PathState(f"TPG_id={tpg}", state, _int_or_none(getattr(
                    d, "satp_config_line", None))) for tpg, state in tpg_states(d, taken.get(d.device))] for d in devices
                    if vendor_of[d.device] == array}, dev_file, CONFIGS)
                beside.warnings[:0] = said
            if beside.array is not None:
                t.key("non_owner_state", *beside.array)
            device_non_owner.update(beside.devices)
            warnings += beside.warnings
        elif passive is not None and passive.source is not None:
            t.key("controllers", [{"name": c} for c in passive.controllers], passive.source)
            t.key("non_owner_state", "standby", passive.source)
            passive_owner.update(passive.owners)
            warnings += [(f"arrays.{array}.controllers", said) for said in passive.warnings]
        t.elements("ports", [Element({"name": p.name, **({"controller": together.of(array, p.tpg)} if tpgs and not symmetric
                                                         and p.tpg is not None else {}),
                                      **({"controller": passive.port_controller[p.target]}
                                         if passive is not None and p.target in passive.port_controller else {})},
                                     _port_source(p, together if tpgs and not symmetric else None, array, path_file))
                             for p in array_ports])

    on_adapter: dict[str, list[Any]] = {}  # each adapter's paths, in the listing's order
    for p in paths:
        on_adapter.setdefault(p.adapter, []).append(p)
    for a in adapters:
        reached = sorted({(_channel(p), p.target, target_of[p.runtime_name], vendor_of[p.device]) for p in on_adapter[a]},
                         key=lambda t: (t[0], t[1]))
        # One zoning table per port, in C and T order (runtime names number an adapter's ports in
        # order of appearance; iSCSI port binding puts each bound port's sessions on a channel of
        # its own), each with the distance its paths' DAVG shows.
        for channel, target_number, target, arr in dict.fromkeys(reached):
            name = str(next(p.runtime_name for p in on_adapter[a] if _channel(p) == channel and p.target == target_number))
            extra = latency.extra_one_way_us.get(name)
            f = host.table("fabric", array=True)
            f.key("adapters", [a], Read(path_file, text=f"C{channel}:T{target_number} of {a}"))
            reach = Read(path_file, text=f"C{channel}:T{target_number} of {a}: target {target}")
            f.key("ports", [f"{arr}/{ports[(arr, target)].name}"], reach)
            f.key("targets", [int(target_number)], reach)
            if channel:
                f.key("channel", channel, reach)
            if extra is None:
                f.key("latency", DEFAULT_ONE_WAY, Assumed("one way, a fabric within one room"))
            else:
                f.key("latency", f"{DEFAULT_ONE_WAY_US + extra:.0f}us",
                      Derived(f"one way: {DEFAULT_ONE_WAY} by default, plus {extra:.0f} µs from {latency.notes[name]}",
                              (esx_file,)))
    warnings.append(("fabric.latency", f"the fabric's distance is not in the captures: {DEFAULT_ONE_WAY} one way assumed "
                                       "(plus what lightly loaded paths' DAVG shows beyond their device's best path)"))

    taken_first: list[Finding] = []  # the devices whose owner is the array's first controller, assumed
    for d in devices:
        own = of_device.get(d.device, [])
        lun = own[0].lun if own else 0
        dqlen = _mean(dev_rows, d.device, "Device Q Depth")
        t = host.table("devices", array=True)
        t.key("name", d.device, Read(dev_file, text="the device's name"))
        t.key("array", vendor_of[d.device], Derived(f"{dev_file}: the array of its Display Name's vendor", (dev_file,)))
        t.key("lun", int(lun), Read(path_file, text="runtime names"))
        if dqlen:
            t.key("queue_depth", round(dqlen), Read(esx_file, text="Device Q Depth (DQLEN)"))
        else:
            t.key("queue_depth", DEFAULT_DQLEN, Assumed("DQLEN is not in the captures"))
            warnings.append((f"devices.{d.device}.queue_depth", f"DQLEN is not in the captures: {DEFAULT_DQLEN} assumed"))
        state = lambda p: _value(getattr(p, "tpg_state", None))  # noqa: E731
        array_of_device = vendor_of[d.device]
        owning = next((together.of(array_of_device, group) for p in own if state(p) == "AO"
                       and (group := _port_group(p)) is not None), None)
        if owning and any(state(p) not in (None, "AO") for p in own):
            t.key("owner", owning, Derived(together.owned.get(d.device, f"{path_file}: the TPG whose paths are "
                                                                        "active-optimized"), (path_file,)))
        elif ((shown := not_optimized(d, taken.get(d.device))) is not None and shown.optimized is not None
              and (config_owner := together.of(array_of_device, str(shown.optimized))) in controllers_of.get(
                  array_of_device, ())):
            # Its paths all active-optimized (this host reaches the owner's ports alone): the SATP's.
            t.key("owner", config_owner, Derived(f"{shown.said(dev_file)} and TPG_id={shown.optimized},"
                                                            "TPG_state=AO, its one active-optimized group", (dev_file,)))
        elif d.device in passive_owner:
            t.key("owner", passive_owner[d.device], Derived(f"{path_file}: the controller of its paths in Group State "
                                                            "active", (path_file,)))
        elif array_of_device in first_controller:
            unshown = _first_taken(d.device, first_controller[array_of_device], own, path_file)
            t.key("owner", first_controller[array_of_device], Assumed("no path or SATP config shows its owner: the "
                                                                      "array's first controller (a warning says which "
                                                                      "paths run otherwise than shown)"))
            warnings.append((f"devices.{d.device}.owner", f"{unshown.title}: {unshown.evidence}"))
            taken_first.append(unshown)
        if d.device in device_non_owner:
            t.key("non_owner_state", *device_non_owner[d.device])
        policy = _policy(d)
        t.key("policy", policy, Read(dev_file, text="Path Selection Policy (Device Config)"))
        line = _value(getattr(d, "line", None))
        t.items += listed_entries(Listed(dev_file, None if line is None else int(line)), esxcli_device(d),
                                  [(str(p.runtime_name), esxcli_path(p)) for p in own],
                                  {str(p.runtime_name): _value(getattr(p, "line", None)) for p in own}, path_file)

    _workload(host, devices, dev_rows, esx_file, outstanding, warnings)
    found = esxi_listing_findings(devices, listed_paths, vendor_of, dev_file, path_file) + left_out + agreed.found + taken_first
    found += dead_path_faults(host, paths, path_file)  # the paths the list shows dead or turned off stay so
    if c.esxtop is not None:
        from pathlab.importer.capture_findings import esxtop_findings

        path_device = {str(p.runtime_name): str(p.device) for p in paths}
        found += esxtop_findings(c.esxtop, path_device, esx_file)
    # The capture measured the load where it has a figure of a device's commands (idle ones too).
    measured = any(cmds is not None for cmds in rates.values())
    captured = [load for d in devices if (load := from_esxtop(dev_rows, d.device, esx_file)) is not None]
    return Imported(host, warnings, found, measured_load=measured, captured=captured, timers=timers.timers)


def paths_of(paths: list[Any]) -> dict[Any, list[Any]]:
    """Each device's paths, in the listing's order (looked up once: a host lists thousands)."""
    out: dict[Any, list[Any]] = {}
    for p in paths:
        out.setdefault(p.device, []).append(p)
    return out


@dataclass
class Latencies:
    """What the DAVG of lightly loaded paths says: each path's extra one-way distance (µs) beyond
    its device's best path, and the array's own latency (ms) on the best path."""

    extra_one_way_us: dict[str, float]
    array_ms: dict[str, float]
    notes: dict[str, str]


def _latencies(paths: list[Any], vendor_of: dict[str, str], esx: Summary | None, esx_file: str,
               devices: list[Any], service_us: dict[str, float]) -> Latencies:
    """Per path, the DAVG beyond the device's best path is distance: a read pays it on two
    one-way trips, a write on four (command, transfer-ready, data, status): one-way extra =
    (DAVG - best) / (2 + 2 x write share). The best path's DAVG less its default trips and the
    port's service is the array's own latency. Only where the device's paths are lightly loaded
    (its active commands over its busy paths below `LIGHT_PATH_OUTSTANDING`, and no long turns
    on one path)."""
    out = Latencies({}, {}, {})
    if esx is None or "Average Driver MilliSec/Command" not in esx["paths"].counters:
        return out
    table, dev_rows = esx["paths"], esx["devices"]
    of_device = paths_of(paths)
    for d in devices:
        # A path used in long turns (round robin at a large limit) is loaded while its turn lasts,
        # whatever its average says: only devices spread over their paths I/O by I/O qualify
        # (told first: their paths' figures are not asked for nothing).
        if d.psp == "VMW_PSP_RR" and (_value(d.iops) or 0) >= LARGE_RR_LIMIT:
            continue
        names = [str(p.runtime_name) for p in of_device.get(d.device, [])]
        davg = {n: _mean(table, n, "Average Driver MilliSec/Command") for n in names}
        rate = {n: _mean(table, n, "Commands/sec") for n in names}
        busy = {n: v for n, v in davg.items() if v and rate[n]}
        active = _mean(dev_rows, d.device, "Active Commands")
        if not busy or active is None or active / len(busy) >= LIGHT_PATH_OUTSTANDING:
            continue
        cmds = _mean(dev_rows, d.device, "Commands/sec") or 0.0
        writes = (_mean(dev_rows, d.device, "Writes/sec") or 0.0) / cmds if cmds else 0.0
        best = min(busy.values())
        for n, v in busy.items():
            out.extra_one_way_us[n] = 1000 * (v - best) / (2 + 2 * writes)
            out.notes[n] = f"{esx_file}: {n} Average Driver MilliSec/Command {v:.2f} against {best:.2f} on its device's best path"
        array = vendor_of[d.device]
        trips_ms = (2 + 2 * writes) * DEFAULT_ONE_WAY_US / 1000
        own = max(0.0, best - trips_ms - service_us.get(array, DEFAULT_PORT_SERVICE_US) / 1000)
        out.array_ms[array] = min(out.array_ms.get(array, own), own)
        out.notes[array] = (f"{esx_file}: {d.device}'s best path answers in {best:.2f} ms, less {trips_ms * 1000:.0f} µs of "
                            "default trips and the port's service")
    return out


def _port_service(devices: list[Any], rates: dict[str, float | None], outstanding: dict[str, float], esx_file: str,
                  warnings: list[tuple[str, str]], array: str) -> tuple[float, Provenance]:
    """The array's port service time: from the capture where the array's one busy device works
    one path at a time under a deep queue (round robin at a large limit: the device's rate is
    then one port's capacity), else a stated default."""
    busy = [d for d in devices if rates.get(d.device)]
    for d in busy if len(busy) == 1 else []:
        rate = rates.get(d.device)
        if (d.psp == "VMW_PSP_RR" and (_value(d.iops) or 0) >= LARGE_RR_LIMIT and rate
                and outstanding.get(d.device, 0) >= SATURATING_OUTSTANDING):
            return (round(1e6 / rate, 1),
                    Derived(f"{esx_file}: {d.device} Commands/sec {rate:,.0f} with {outstanding[d.device]:.0f} "
                            f"outstanding and round robin switching every {int(d.iops)} I/Os: one path at a time, so one "
                            "port's capacity (exponential: assumed)", (esx_file,)))
    warnings.append((f"arrays.{array}.service", f"no capture shows a port at capacity: {DEFAULT_PORT_SERVICE_US} µs per I/O assumed"))
    return DEFAULT_PORT_SERVICE_US, Assumed("no capture shows a port at capacity")


def _workload(host: HostTables, devices: list[Any], dev_rows: TableSummary | None, esx_file: str,
              outstanding: dict[str, float], warnings: list[tuple[str, str]]) -> None:
    """One closed-loop workload per device: outstanding = ACTV + QUED, the read share and the
    bytes per I/O of the capture."""
    loaded = False
    for d in devices:
        cmds = _mean(dev_rows, d.device, "Commands/sec")
        if cmds == 0:  # captured, and idle: it stays idle in the scenario
            host.tables[-1].idle(d.device, Read(esx_file, text="0 Commands/sec"))
            continue
        loaded = True
        t = host.table("workloads", array=True)
        t.key("name", re.sub(r"[^A-Za-z0-9]", "", d.device)[-12:], Own("the workload's name: its device's last 12 characters"))
        t.key("devices", [d.device], Own("the device it runs on"))
        if not cmds or d.device not in outstanding:
            t.key("outstanding", DEFAULT_OUTSTANDING, Assumed("no esxtop capture of this device"))
            t.key("block_size", "8KiB", Assumed())
            t.key("read_pct", 70, Assumed())
            warnings.append((f"workloads.{d.device}", "no esxtop figures for this device: 32 outstanding 8 KiB I/Os, "
                                                      "70% reads assumed"))
            continue
        reads = _mean(dev_rows, d.device, "Reads/sec") or 0.0
        mb = (_mean(dev_rows, d.device, "MBytes Read/sec") or 0.0) + (_mean(dev_rows, d.device, "MBytes Written/sec") or 0.0)
        size = io_size(mb * 2**20, cmds)
        t.key("outstanding", max(1, round(outstanding[d.device])), Read(esx_file, text="Active Commands + Queued Commands"))
        t.key("block_size", size_text(size),
              Derived(f"{esx_file}: MBytes Read/sec + MBytes Written/sec over Commands/sec", (esx_file,)))
        # The share as written with one decimal: the value is what the text says.
        t.key("read_pct", float(f"{100 * reads / cmds:.1f}"), Derived(f"{esx_file}: Reads/sec over Commands/sec", (esx_file,)))
        t.key("range", "1GiB", Assumed("the capture does not say how far apart the I/Os fall"))
        warnings.append((f"workloads.{d.device}.range", "the span of the I/Os is not in the captures: 1 GiB assumed"))
    if devices and not loaded:
        # Every device captured idle: a scenario without load is no host to advise on.
        raise saw_no_io(esx_file, "Commands/sec", "0 for every device", " (a first sample alone counts none)")
