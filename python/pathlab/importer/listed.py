"""What a listing printed of a device and its paths, word for word, as the scenario's `listed`
table (`listed.device = {…}` and `listed.paths."PATH" = {…}`, keys of the device's own table):
`pathlab show` prints these back as read instead of values of its own (`Scenario.listed` gives them
to the renderers in `output/`; "What a host's admin sees" in the docs names each field). The
simulation does not read them: what it simulates comes from the rest of the device's table, each
value commented with its file and line."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pathlab.importer.host_tables import Entry
from pathlab.importer.provenance import Listed


def _text(value: Any) -> str | None:
    """A value the reader gave, as text; None where the listing printed none."""
    if type(value) is str:  # (most values: a listing's words, themselves unless a missing value's)
        return None if value in ("<NA>", "nan") else value
    if value is None:
        return None
    if isinstance(value, str) and value == "None":  # a word a listing printed (Get-MSDSMGlobalDefaultLoadBalancePolicy)
        return value
    text = str(value)
    return None if text in ("<NA>", "nan", "None") else text


def listed_entries(source: Listed, device: Mapping[str, Any],
                   paths: Iterable[tuple[str, Mapping[str, Any]]], lines: Mapping[str, Any] | None = None,
                   paths_file: str | None = None) -> list[Entry]:
    """The `listed` keys of a device's table (dotted keys: the table stays whole), read where
    `source` says: `device`'s values and each path's (its scenario name, its values, read at its
    line in `lines` where the listing has one, in `paths_file` where the paths are listed in
    another file than the device), the fields the listing printed none of left out."""
    own = {k: t for k, v in device.items() if (t := _text(v)) is not None}
    out = [Entry(("listed", "device"), own, source)]
    file = paths_file or source.file
    for name, values in paths:
        line = _text((lines or {}).get(name))
        out.append(Entry(("listed", "paths", name), {k: t for k, v in values.items() if (t := _text(v)) is not None},
                         Listed(file, int(line)) if line is not None else Listed(file, at=f"path {name}")))
    return out


def multipath_map(m: Any) -> dict[str, Any]:
    """A `multipath -ll` map's header and properties as read (`readers.multipath_ll`'s columns)."""
    return {"name": m.name, "dm": m.dm, "vendor": m.vendor, "product": m.product, "revision": m.revision,
            "action": m.action, "size": m.size, "features": m.features, "hwhandler": m.hwhandler, "wp": m.wp}


def multipath_path(p: Any, order: int) -> dict[str, Any]:
    """A `multipath -ll` path line and its group's line as read, with its place in the map."""
    return {"order": order, "group": p.group, "selector": p.selector, "group_prio": p.group_prio,
            "group_status": p.group_status, "hctl": p.hctl, "dev": p.device, "dev_t": p.dev_t,
            "dm_state": p.dm_state, "checker_state": p.checker_state, "online_state": p.online_state}


def nvme_subsystem(r: Any) -> dict[str, Any]:
    """An `nvme list-subsys` subsystem's lines as read: its name, NQN, host NQN and iopolicy (the
    last two only where the listing printed them: nvme-cli 1.x prints neither)."""
    return {"subsystem": r.subsystem, "nqn": r.nqn, "hostnqn": r.hostnqn, "iopolicy": r.iopolicy,
            **_shown(r, "device")}


def _shown(r: Any, part: str) -> dict[str, Any]:
    """What `nvme list -v` printed of the namespace (`device`) or controller (`path`) beyond the
    rows' columns (`readers.nvme_subsys.COLUMNS`' `shown`)."""
    shown = getattr(r, "shown", None)
    return dict(shown[part]) if isinstance(shown, dict) else {}


def nvme_controller(r: Any, order: int) -> dict[str, Any]:
    """An `nvme list-subsys` controller row as read: name, transport, address, state, ANA state."""
    return {"order": order, "controller": r.controller, "transport": r.transport, "address": r.address,
            "state": r.state, "ana_state": r.ana_state, **_shown(r, "path")}


def hpp_device(d: Any) -> dict[str, Any]:
    """An `esxcli storage hpp device list` block as read, by the listing's keys (its flags as
    ESXi prints them, `true`/`false`; its path lists `, `-separated)."""
    def flag(value: Any) -> str | None:
        return None if not isinstance(value, bool) and _text(value) is None else str(bool(value)).lower()

    def paths(value: Any) -> str | None:
        return ", ".join(value) if isinstance(value, list) else None

    return {"Device Display Name": d.display_name, "Path Selection Scheme": d.scheme,
            "Path Selection Scheme Config": d.scheme_config, "Current Path": d.current_path,
            "Working Path Set": paths(d.working_paths), "Is SSD": flag(d.is_ssd), "Is Local": flag(d.is_local),
            "Paths": paths(d.paths), "Use ANO": flag(d.use_ano)}


def esxcli_device(d: Any) -> dict[str, Any]:
    """An `esxcli storage nmp device list` block as read, by the listing's keys; the keys past
    the modelled ones in the listing's order (`Other Keys`, one a line); an `hpp device list`
    block by its own keys (`hpp_device`)."""
    if isinstance(getattr(d, "scheme", None), str):
        return hpp_device(d)
    others = getattr(d, "others", None)
    others = others if isinstance(others, dict) else {}
    paths = d.working_paths if isinstance(d.working_paths, list) else []
    return {"Device Display Name": getattr(d, "display_name", None), "Storage Array Type": getattr(d, "satp", None),
            "Storage Array Type Device Config": getattr(d, "satp_config", None),
            "Path Selection Policy": getattr(d, "psp", None),
            "Path Selection Policy Device Config": getattr(d, "psp_config", None),
            "Working Paths": ", ".join(paths), **others, "Other Keys": "\n".join(others) or None}


def esxcli_path(p: Any) -> dict[str, Any]:
    """An `esxcli storage nmp path list` block as read (the path's UID names it); an `hpp path
    list` block by its own keys (its name line, `Path State`, `Path Config`)."""
    if isinstance(getattr(p, "path_state", None), str):
        return {"Path Name": getattr(p, "path", None), "Device Display Name": getattr(p, "display_name", None),
                "Path State": p.path_state, "Path Config": getattr(p, "path_config", None)}
    return {"UID": getattr(p, "path", None), "Device Display Name": getattr(p, "display_name", None),
            "Group State": getattr(p, "group_state", None), "Array Priority": getattr(p, "array_priority", None),
            "Storage Array Type Path Config": getattr(p, "satp_config", None),
            "Path Selection Policy Path Config": getattr(p, "psp_config", None)}


def powermt_device(d: Any) -> dict[str, Any]:
    """A `powermt display` device's lines as read (`readers.powermt.Device`): its pseudo name, the
    array line (class, ID, label), the logical device and WWN lines, the state line's values and
    their order (`state_keys`), and the `Owner:` line."""
    return {"Pseudo name": d.name, "class": d.array_class or None, "ID": d.array_id or None,
            "ID label": d.array_label or None, "Logical device ID": d.logical_id or None,
            "Logical device label": d.logical_label or None, "WWN key": d.wwn_key or None, "WWN": d.wwn or None,
            "state keys": ",".join(d.state_keys), "type": d.type or None, "state": d.state or None,
            "policy": d.policy, "priority": d.priority or None, "queued-IOs": d.queued,
            "Owner default": d.owner_default or None, "Owner current": d.owner_current or None,
            "Array failover mode": d.failover_mode}


def powermt_path(p: Any, order: int) -> dict[str, Any]:
    """A `powermt display` path row as read, with its place under its device."""
    return {"order": order, "###": p.hba, "HW Path": p.hw_path, "I/O Paths": p.io_path,
            "Interf.": p.interface_text or p.interface, "Mode": p.mode, "State": p.state, "Q-IOs": p.queued,
            "Errors": p.errors}


def mpclaim_disk(d: Any) -> dict[str, Any]:
    """An `mpclaim -s -d N` disk's lines as read (`readers.mpclaim.MpioDisk`): the disk line's
    number, path count, policy and ALUA support, the DSM, serial and supported policies."""
    return {"MPIO Disk": d.number, "Paths": d.path_count, "policy": d.policy_text, "ALUA": d.alua,
            "Controlling DSM": d.dsm or None, "SN": d.serial or None,
            "Supported Load Balance Policies": " ".join(d.supported) or None}


def mpclaim_host(listing: Any, settings: Any) -> dict[str, Any]:
    """What the host's MPIO files print of no one disk: each row of `mpclaim -s -d` (`list N` =
    `System Disk|LB Policy|DSM Name`, in the listing's order as `list order`), each Get-MPIOSetting
    value and Get-MSDSMGlobalDefaultLoadBalancePolicy's word. Kept in the first disk's table: the
    scenario has no table of the host's own listing."""
    out: dict[str, Any] = {f"list {row.number}": f"{row.system_disk}|{row.policy}|{row.dsm}" for row in listing.listed}
    if listing.listed:
        out["list order"] = ",".join(str(row.number) for row in listing.listed)
    out |= {f"Get-MPIOSetting {key}": value for key, (value, _) in settings.values.items()}
    if settings.values:
        out["Get-MPIOSetting order"] = ",".join(settings.values)
    if settings.default_policy is not None:
        out["Get-MSDSMGlobalDefaultLoadBalancePolicy"] = settings.default_policy[0]
    return out


def mpclaim_path(p: Any, order: int) -> dict[str, Any]:
    """An `mpclaim -s -d N` path row and its `TPG_State` line as read, with its place in the table."""
    return {"order": order, "Path ID": p.path_id, "State": p.state,
            "SCSI Address": p.address, "Weight": p.weight,
            "TPG_State": p.tpg_state, "TPG_Id": p.tpg_id, "relative port": p.relative_port}
