"""The High Performance Plugin's listings (ESXi 6.7 and later; multipath from 7.0):
`esxcli storage hpp device list` and `esxcli storage hpp path list`, `Key: value` blocks under
the device or path name, blank lines between.

The device list is pinned down by real outputs (Device Display Name, Path Selection Scheme,
Path Selection Scheme Config, Current Path, Working Path Set, Is SSD, Is Local, Paths, Use ANO;
tests/data/esxcli/README.md). No public capture of the path list was found: its reader takes
`Runtime Name` (or `Path Name`, or a name line that is a runtime name), `Device`, `Path State`
and, where printed, `Device Display Name`, `Adapter`, `Target`, `LUN` and `Path Config` — the
keys as remembered and as the other path listings print them, unconfirmed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.readers import _esxcli_text as t

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

PATH_KEYS = ("Runtime Name", "Path Name", "Device", "Device Display Name", "Path State", "Path Config",
             "Adapter", "Target", "LUN")
PATH_COLUMNS = {
    "path": "string", "runtime_name": "string", "adapter": "string", "channel": "Int64",
    "target": "Int64", "lun": "Int64", "device": "string", "display_name": "string",
    "path_state": "string", "path_config": "string", "line": "Int64",
}


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
    return t.frame(rows, DEVICE_COLUMNS, DEVICES)


def read_paths(path: str | Path) -> pd.DataFrame:
    """`esxcli storage hpp path list`: one row per path with its runtime name split into adapter,
    channel, target and LUN, its device and its state (the layout is unconfirmed: see above)."""
    reader = t.Reader(path, PATHS)
    rows = []
    for block, name in t.named_blocks(reader, t.listing(reader), PATH_KEYS, "path name", "path name"):
        if "Runtime Name" not in block.fields:
            if "Path Name" in block.fields:
                block.fields["Runtime Name"] = block.fields["Path Name"]
            elif t.RUNTIME_NAME.match(name):
                block.fields["Runtime Name"] = (name, block.line)
        t.require(reader, block, ("Runtime Name", "Device", "Path State"))
        runtime = block.fields["Runtime Name"][0]
        rows.append({
            "path": name, "runtime_name": runtime,
            **t.runtime_name(reader, block, "Runtime Name", runtime),
            "device": block.get("Device"), "display_name": block.get("Device Display Name"),
            "path_state": block.get("Path State"), "path_config": block.get("Path Config"),
            "line": block.line,
        })
    return t.frame(rows, PATH_COLUMNS, PATHS)
