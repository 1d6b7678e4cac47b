"""The High Performance Plugin's listings (ESXi 6.7 and later; multipath from 7.0):
`esxcli storage hpp device list` and `esxcli storage hpp path list`, `Key: value` blocks under
the device or path name, blank lines between.

The device list is pinned down by real outputs (Device Display Name, Path Selection Scheme,
Path Selection Scheme Config, Current Path, Working Path Set, Is SSD, Is Local, Paths, Use ANO;
tests/data/esxcli/README.md). So is the path list (NetApp's ONTAP SAN host guides for ESXi 7 and
8, `tests/data/corpus/esxcli-hpp-path-list`): each block under the path's name
(`<adapter's id>-<target's id>-<device>`: `fc.<WWNN>:<WWPN>-fc.<WWNN>:<WWPN>-uuid.…`,
`tcp.<vmnic and MAC>-tcp.<address>:<port>-uuid.…`), then `Runtime Name`, `Device`, `Device
Display Name`, `Path State` (`active`, `active unoptimized`, `standby`, `dead`) and `Path
Config`: ESXi 7 prints the ALUA form `{TPG_id=0,TPG_state=AO,RTP_id=0,health=UP}`, ESXi 8 on
NVMe its ANA group `{ANA_GRP_id=4,ANA_GRP_state=ANO,health=UP}`, read as the target port group
(`tpg_id`, `tpg_state`) the path is in, and the ports a state is seen through (`port_group`: see
`paths_of`). `Path Name`, or a name line that is a runtime name, is
taken for `Runtime Name`; `Adapter`, `Target` and `LUN` where printed."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.readers import _esxcli_text as t
from pathlab.readers._listed_once import listed_once

if TYPE_CHECKING:
    import pandas as pd

DEVICES = "esxcli storage hpp device list"
PATHS = "esxcli storage hpp path list"
SCHEMES = ("FIXED", "LB-RR", "LB-IOPS", "LB-BYTES", "LB-Latency")

DEVICE_KEYS = ("Device Display Name", "Path Selection Scheme", "Path Selection Scheme Config",
               "Current Path", "Working Path Set", "Is SSD", "Is Local", "Paths", "Use ANO")
DEVICE_REQUIRED = ("Device Display Name", "Path Selection Scheme", "Path Selection Scheme Config",
                   "Current Path", "Working Path Set", "Paths")
DEVICE_COLUMNS = {
    "device": "string", "display_name": "string", "scheme": "string", "scheme_config": "string",
    "preferred": "string", "iops": "Int64", "bytes": "Int64", "current_path": "string",
    "working_paths": "object", "paths": "object", "is_ssd": "boolean", "is_local": "boolean",
    "use_ano": "boolean", "line": "Int64",
}
#: What a device's block says of the host's settings and topology (`_listed_once`): what
#: `esxcli storage hpp device set` sets (`--pss`, and the scheme's config: `--path` printed as
#: `preferred=`, `--iops`, `--bytes`, `--latency-eval-time`, `--sampling-ios-per-path`, the
#: vSphere API's HppLogicalUnitPolicy; `--use-ano`, `--mark-device-ssd`, `--mark-device-local`),
#: its display name and its paths. `Current Path` and `Working Path Set` are of the listing's
#: moment: a failover or the scheme moves them.
DEVICE_SETTINGS: dict[str, Callable[[Any], Any] | None] = dict.fromkeys((
    "display_name", "scheme", "scheme_config", "preferred", "iops", "bytes", "paths", "is_ssd", "is_local", "use_ano"))

PATH_KEYS = ("Runtime Name", "Path Name", "Device", "Device Display Name", "Path State", "Path Config",
             "Adapter", "Target", "LUN")
PATH_COLUMNS = {
    "path": "string", "runtime_name": "string", "adapter": "string", "channel": "Int64",
    "target": "Int64", "lun": "Int64", "device": "string", "display_name": "string",
    "path_state": "string", "path_config": "string", "group_state": "string", "tpg_id": "Int64",
    "tpg_state": "string", "port_group": "string", "target_identifier": "string", "line": "Int64",
}
#: What a path's block says of the host's topology (`_listed_once`): the path (its name, runtime
#: name and their parts), its device, and the group it reaches (`TPG_id` or `ANA_GRP_id`, and
#: `RTP_id`, in its config). Its state and its group's (`Path State`, `TPG_state`,
#: `ANA_GRP_state`, `health`) are of the listing's moment: a failover moves them.
PATH_SETTINGS: dict[str, Callable[[Any], Any] | None] = {
    **dict.fromkeys(("adapter", "channel", "target", "lun", "device", "display_name", "tpg_id")),
    # A path that died between two runs prints its target as a placeholder (`t.target_named`).
    **dict.fromkeys(("path", "target_identifier"), t.target_named),
    "path_config": t.named_pairs(("TPG_id", "ANA_GRP_id", "RTP_id")),
}
#: The target port group or ANA group in a path's config, and its state (markup around a pair kept out).
_GROUP = re.compile(r"\b(?:TPG_id|ANA_GRP_id)=(\d+)\b")
_GROUP_STATE = re.compile(r"\b(?:TPG_state|ANA_GRP_state)=(\w+)")


def read_devices(path: str | Path) -> pd.DataFrame:
    """`esxcli storage hpp device list`: one row per device with its path selection scheme
    (FIXED, LB-RR, LB-IOPS, LB-BYTES, LB-Latency), the scheme's config as printed and split
    (`preferred` for FIXED, <NA> when `none`; `iops`, `bytes` where given), the current path,
    `working_paths` and `paths` as lists of runtime names, and `is_ssd`, `is_local`, `use_ano`."""
    reader = t.Reader(path, DEVICES)
    rows = []
    for block, device in t.named_blocks(reader, t.listing(reader), DEVICE_KEYS, "device name",
                                "device (naa.…, eui.…, t10.…)"):
        t.require(reader, block, DEVICE_REQUIRED)
        scheme = block.fields["Path Selection Scheme"][0]
        if scheme not in SCHEMES:
            reader.fail(block.where("Path Selection Scheme"),
                        f"`Path Selection Scheme`: expected one of {', '.join(SCHEMES)}, found {scheme[:40]!r}")
        config = block.fields["Path Selection Scheme Config"][0]
        items = t.pairs(config)
        numbers: dict[str, Any] = {}
        for key in ("iops", "bytes"):
            value = items.get(key)
            if value is not None and not t.is_whole(value):
                reader.fail(block.where("Path Selection Scheme Config"),
                            f"`Path Selection Scheme Config`: {key} should be a whole number, found {value!r}")
            numbers[key] = None if value is None else t.within_column(
                reader.name, block.where("Path Selection Scheme Config"), f"`Path Selection Scheme Config`: {key}", value)
        preferred = items.get("preferred")
        rows.append({
            "device": device, "display_name": block.get("Device Display Name"), "scheme": scheme,
            "scheme_config": config, "preferred": None if preferred in (None, "", "none") else preferred,
            **numbers, "current_path": block.get("Current Path") or None,
            "working_paths": t.path_list(block.get("Working Path Set")),
            "paths": t.path_list(block.get("Paths")),
            "is_ssd": t.boolean(reader, block, "Is SSD"), "is_local": t.boolean(reader, block, "Is Local"),
            "use_ano": t.boolean(reader, block, "Use ANO"), "line": block.line,
        })
    return t.frame(listed_once(rows, "device", reader.name, DEVICES, DEVICE_SETTINGS), DEVICE_COLUMNS, DEVICES)


def read_paths(path: str | Path) -> pd.DataFrame:
    """`esxcli storage hpp path list`: one row per path with its runtime name split into adapter,
    channel, target and LUN, its device, its state (`group_state` too, as `nmp path list` names
    it), its config as printed and its group and group state, and the target's id in its name."""
    reader = t.Reader(path, PATHS)
    return paths_of(reader, t.listing(reader))


def paths_of(reader: t.Reader, found: list[t.Block]) -> pd.DataFrame:
    """The path list's rows from its blocks (`esxcli_paths.read` tells the listing by its keys)."""
    rows = []
    for block, name in t.named_blocks(reader, found, PATH_KEYS, "path name", "path name"):
        if "Runtime Name" not in block.fields:
            if "Path Name" in block.fields:
                block.fields["Runtime Name"] = block.fields["Path Name"]
            elif t.RUNTIME_NAME.match(name):
                block.fields["Runtime Name"] = (name, block.line)
        t.require(reader, block, ("Runtime Name", "Device", "Path State"))
        runtime = block.fields["Runtime Name"][0]
        config = block.get("Path Config")
        group, state = _GROUP.search(config or ""), _GROUP_STATE.search(config or "")
        device = block.get("Device")
        # `<adapter's id>-<target's id>-<device>`: the ids have no dash (WWNs, a vmnic and its MAC, an address).
        ids = name.removesuffix(f"-{device}").split("-") if device and name.endswith(f"-{device}") else []
        rows.append({
            "path": name, "runtime_name": runtime,
            **t.runtime_name(reader, block, "Runtime Name", runtime),
            "device": device, "display_name": block.get("Device Display Name"),
            "path_state": block.get("Path State"), "path_config": config, "group_state": block.get("Path State"),
            "tpg_id": t.within_column(reader.name, block.where("Path Config"), "`Path Config`: its group id", group[1])
            if group else None, "tpg_state": state[1] if state else None,
            "target_identifier": ids[1] if len(ids) == 2 else None, "line": block.line,
        })
    rows = listed_once(rows, "runtime_name", reader.name, PATHS, PATH_SETTINGS)  # (a repeat's states not mixed in)
    # On NVMe an ANA group's state is each controller's (NetApp's paths of group 0 or 6 show AO
    # through two controllers and ANO through two): a group that shows several states on a device
    # is, per state, the ports that state is seen through (`6-ANO`); one state, the group itself.
    states: dict[tuple[Any, Any], set[Any]] = {}
    for row in rows:
        states.setdefault((row["device"], row["tpg_id"]), set()).add(row["tpg_state"])
    for row in rows:
        if row["tpg_id"] is not None:
            mixed = len(states[row["device"], row["tpg_id"]]) > 1
            row["port_group"] = f"{row['tpg_id']}-{row['tpg_state']}" if mixed else str(row["tpg_id"])
    return t.frame(rows, PATH_COLUMNS, PATHS)
