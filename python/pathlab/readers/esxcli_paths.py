"""Path listings, ESX 4 to ESXi 8: `esxcli storage nmp path list` (ESX 4.x: `esxcli nmp path
list`) and `esxcli storage core path list` (and `esxcfg-mpath -l`, which prints the same blocks
with adapter, channel, target and LUN on one line). One block per path under its name (the path
UID), `Key: value` lines, blank lines between (research/formats.md §2.2, §2.3).

`read` tells the two apart by their keys; `read_nmp` and `read_core` take only their own."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.readers import _esxcli_text as t
from pathlab.readers import esxcli_hpp
from pathlab.readers._listed_once import listed_once

if TYPE_CHECKING:
    import pandas as pd

NMP = "esxcli storage nmp path list"
CORE = "esxcli storage core path list"

#: nmp path list keys; `Array Priority` appeared in ESX 4.1.
NMP_KEYS = ("Runtime Name", "Device", "Device Display Name", "Group State", "Array Priority",
            "Storage Array Type Path Config", "Path Selection Policy Path Config")
NMP_REQUIRED = ("Runtime Name", "Device", "Device Display Name", "Group State",
                "Storage Array Type Path Config", "Path Selection Policy Path Config")
NMP_COLUMNS = {
    "path": "string", "runtime_name": "string", "adapter": "string", "channel": "Int64",
    "target": "Int64", "lun": "Int64", "device": "string", "display_name": "string",
    "group_state": "string", "array_priority": "Int64", "satp_config": "string", "tpg_id": "Int64",
    "tpg_state": "string", "rtp_id": "Int64", "rtp_health": "string", "psp_config": "string",
    "current": "boolean", "preferred": "boolean", "line": "Int64",
}
#: What an nmp path's block says of the host's settings and topology (`_listed_once`): the path
#: (its UID, runtime name and their parts: adapter, channel, target, LUN), its device, the
#: target port group and relative port it reaches (`TPG_id`, `RTP_id` in the SATP's config) and
#: FIXED's preferred path (`esxcli storage nmp psp fixed deviceconfig set --path`). Its group
#: state, health, array priority and `current` are of the listing's moment.
NMP_SETTINGS: dict[str, Callable[[Any], Any] | None] = {
    "path": t.target_named, "adapter": None, "channel": None, "target": None, "lun": None, "device": None,
    "display_name": None, "satp_config": t.satp_settings, "tpg_id": None, "rtp_id": None,
    "psp_config": t.psp_settings, "preferred": None,
}

#: core path list keys (`UID` and `Maximum IO Size` are ESXi 5+; `esxcfg-mpath -l` has neither).
CORE_KEYS = ("UID", "Runtime Name", "Device", "Device Display Name", "Adapter", "Channel", "Target",
             "LUN", "Plugin", "State", "Transport", "Adapter Identifier", "Target Identifier",
             "Adapter Transport Details", "Target Transport Details", "Maximum IO Size")
CORE_REQUIRED = ("Runtime Name", "Device", "Adapter", "Plugin", "State", "Transport",
                 "Adapter Identifier", "Target Identifier")
CORE_COLUMNS = {
    "uid": "string", "runtime_name": "string", "device": "string", "display_name": "string",
    "adapter": "string", "channel": "Int64", "target": "Int64", "lun": "Int64", "plugin": "string",
    "state": "string", "transport": "string", "adapter_identifier": "string",
    "target_identifier": "string", "adapter_transport_details": "string",
    "target_transport_details": "string", "max_io_size": "Int64", "line": "Int64",
}
#: What a core path's block says of the host's settings and topology (`_listed_once`): the path
#: (UID, runtime name, adapter, channel, target, LUN), its device, the plugin claiming it (claim
#: rules, `esxcli storage core claimrule`), its transport and the adapter's and target's
#: identifiers and transport details (WWNs, iSCSI names). Its state and maximum I/O size are not.
CORE_SETTINGS: dict[str, Callable[[Any], Any] | None] = {
    **dict.fromkeys(("device", "display_name", "adapter", "channel", "target", "lun", "plugin", "transport",
                     "adapter_identifier", "adapter_transport_details")),
    # A path that died between two runs prints its target as a placeholder (`t.target_named`).
    **dict.fromkeys(("uid", "target_identifier", "target_transport_details"), t.target_named)}
#: `esxcfg-mpath -l` (and ESX 4): `Adapter: vmhba37 Channel: 1 Target: 0 LUN: 0`.
_ONE_LINE = re.compile(r"^(\S+)\s+Channel:\s*(\S+)\s+Target:\s*(\S+)\s+LUN:\s*(\S+)$")
_NO_CONFIG = re.compile(r"does not support path configuration", re.IGNORECASE)


def read(path: str | Path) -> pd.DataFrame:
    """Either listing, told apart by its keys (`Group State` for nmp, `UID`, `Plugin` or
    `Adapter Identifier` for core, `Path State` for `esxcli storage hpp path list`);
    `df.attrs["listing"]` says which was read. A file that is none is refused with the line that
    shows it."""
    reader = t.Reader(path, f"{NMP}` or `{CORE}")
    found = t.listing(reader)
    first = found[0]
    if set(first.fields) & set(t.SIGNATURES[CORE]):
        return _core(reader.told_as(CORE), found)
    if set(first.fields) & set(t.SIGNATURES[NMP]):
        return _nmp(reader.told_as(NMP), found)
    if set(first.fields) & set(t.SIGNATURES[esxcli_hpp.PATHS]):
        return esxcli_hpp.paths_of(reader.told_as(esxcli_hpp.PATHS), found)
    t.check_listing(reader, first, ())
    reader.fail(first.line, f"{first.label} has neither `Group State` ({NMP}) nor `UID`, `Plugin` or "
                            f"`Adapter Identifier` ({CORE})")


def read_nmp(path: str | Path) -> pd.DataFrame:
    """`esxcli storage nmp path list`: one row per path, with the runtime name split into
    adapter, channel, target and LUN; the ALUA SATP's path config as `tpg_id`, `tpg_state` (AO,
    ANO, STBY, …), `rtp_id`, `rtp_health`; FIXED and MRU's as `current` and `preferred`
    (<NA> where the SATP or PSP has no path configuration, as round robin)."""
    reader = t.Reader(path, NMP)
    return _nmp(reader, t.listing(reader))


def read_core(path: str | Path) -> pd.DataFrame:
    """`esxcli storage core path list` (or `esxcfg-mpath -l`): one row per path with its UID,
    runtime name, device, adapter, channel, target, LUN, plugin (NMP, HPP, …), state, transport
    and the adapter and target identifiers."""
    reader = t.Reader(path, CORE)
    return _core(reader, t.listing(reader))


def _nmp(reader: t.Reader, found: list[t.Block]) -> pd.DataFrame:
    rows = []
    for block, name in t.named_blocks(reader, found, NMP_KEYS, "path name", "path UID"):
        t.require(reader, block, NMP_REQUIRED)
        row: dict[str, Any] = {"path": name, "line": block.line}
        runtime = block.fields["Runtime Name"][0]
        row["runtime_name"] = runtime
        row.update(t.runtime_name(reader, block, "Runtime Name", runtime))
        row["device"] = block.get("Device")
        row["display_name"] = block.get("Device Display Name")
        row["group_state"] = block.get("Group State")
        row["array_priority"] = t.integer(reader, block, "Array Priority")
        row.update(_satp_config(reader, block))
        row.update(_psp_config(reader, block))
        rows.append(row)
    return t.frame(listed_once(rows, "runtime_name", reader.name, NMP, NMP_SETTINGS), NMP_COLUMNS, NMP)


def _satp_config(reader: t.Reader, block: t.Block) -> dict[str, Any]:
    """`{TPG_id=1,TPG_state=AO,RTP_id=29,RTP_health=UP}`, or an SATP without path configuration."""
    key = "Storage Array Type Path Config"
    value = block.fields[key][0]
    out: dict[str, Any] = {"satp_config": value, "tpg_id": None, "tpg_state": None, "rtp_id": None,
                           "rtp_health": None}
    if _NO_CONFIG.search(value) or not value.startswith("{"):
        return out
    items = t.pairs(value)
    for name, column in (("TPG_id", "tpg_id"), ("RTP_id", "rtp_id")):
        if name in items:
            if not t.is_whole(items[name]):
                reader.fail(block.where(key), f"`{key}`: {name} should be a whole number, found {items[name]!r}")
            out[column] = t.within_column(reader.name, block.where(key), f"`{key}`: {name}", items[name])
    out["tpg_state"] = items.get("TPG_state")
    out["rtp_health"] = items.get("RTP_health")
    return out


def _psp_config(reader: t.Reader, block: t.Block) -> dict[str, Any]:
    """`{current: yes; preferred: no}` (FIXED, MRU), or a PSP without path configuration."""
    key = "Path Selection Policy Path Config"
    value = block.fields[key][0]
    out: dict[str, Any] = {"psp_config": value, "current": None, "preferred": None}
    if _NO_CONFIG.search(value) or not value.startswith("{"):
        return out
    for item in value.strip("{}").split(";"):
        name, sep, flag = item.partition(":")
        if not sep or name.strip() not in ("current", "preferred"):
            continue
        if flag.strip() not in ("yes", "no"):
            reader.fail(block.where(key), f"`{key}`: {name.strip()} should be yes or no, found {flag.strip()!r}")
        out[name.strip()] = flag.strip() == "yes"
    return out


def _core(reader: t.Reader, found: list[t.Block]) -> pd.DataFrame:
    rows = []
    for block, name in t.named_blocks(reader, found, CORE_KEYS, "path name", "path UID"):
        _split_adapter_line(reader, block)
        t.require(reader, block, CORE_REQUIRED + ("Channel", "Target", "LUN"))
        runtime = block.fields["Runtime Name"][0]
        t.runtime_name(reader, block, "Runtime Name", runtime)
        rows.append({
            "uid": block.get("UID") or name, "runtime_name": runtime,
            "device": block.get("Device"), "display_name": block.get("Device Display Name"),
            "adapter": block.get("Adapter"), "channel": t.integer(reader, block, "Channel"),
            "target": t.integer(reader, block, "Target"), "lun": t.integer(reader, block, "LUN"),
            "plugin": block.get("Plugin"), "state": block.get("State"),
            "transport": block.get("Transport"), "adapter_identifier": block.get("Adapter Identifier"),
            "target_identifier": block.get("Target Identifier"),
            "adapter_transport_details": block.get("Adapter Transport Details"),
            "target_transport_details": block.get("Target Transport Details"),
            "max_io_size": t.integer(reader, block, "Maximum IO Size"), "line": block.line,
        })
    return t.frame(listed_once(rows, "runtime_name", reader.name, CORE, CORE_SETTINGS), CORE_COLUMNS, CORE)


def _split_adapter_line(reader: t.Reader, block: t.Block) -> None:
    """`Adapter: vmhba37 Channel: 1 Target: 0 LUN: 0` (esxcfg-mpath -l) as four keys."""
    if "Adapter" not in block.fields or "Channel" in block.fields:
        return
    value, number = block.fields["Adapter"]
    match = _ONE_LINE.match(value)
    if match:
        for key, part in zip(("Adapter", "Channel", "Target", "LUN"), match.groups()):
            block.fields[key] = (part, number)
