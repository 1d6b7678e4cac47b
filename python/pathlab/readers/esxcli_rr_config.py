"""`esxcli storage nmp psp roundrobin deviceconfig get -d <device>`: one block of `Key: value`
lines per device, no name line above it; several devices when the command ran in a loop
(research/formats.md §2.4).

ESXi 5.x and 6.0 print Byte Limit, Device, IOOperation Limit, Limit Type and Use Active
Unoptimized Paths; 6.7 and later add Latency Evaluation Interval (`0 milliseconds`) and Number Of
Sampling IOs Per Path. ESX 4.x (`esxcli nmp roundrobin getconfig`) spelt the limit `I/O Operation
Limit` [mem]; both spellings are read."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pathlab.readers import _esxcli_text as t

if TYPE_CHECKING:
    import pandas as pd

COMMAND = "esxcli storage nmp psp roundrobin deviceconfig get"
KEYS = ("Byte Limit", "Device", "IOOperation Limit", "I/O Operation Limit", "Latency Evaluation Interval",
        "Limit Type", "Number Of Sampling IOs Per Path", "Use Active Unoptimized Paths")
REQUIRED = ("Byte Limit", "Device", "IOOperation Limit", "Limit Type", "Use Active Unoptimized Paths")
LIMIT_TYPES = ("Default", "Iops", "Bytes", "Latency")
COLUMNS = {
    "device": "string", "limit_type": "string", "iops": "Int64", "bytes": "Int64",
    "latency_eval_ms": "Int64", "sampling_ios": "Int64", "use_ano": "boolean", "line": "Int64",
}


def read(path: str | Path) -> pd.DataFrame:
    """One row per device: `limit_type` (Default, Iops, Bytes, Latency), `iops` (the IOOperation
    Limit), `bytes` (the Byte Limit), `latency_eval_ms` and `sampling_ios` (<NA> before ESXi 6.7),
    `use_ano`, and `line`, where the device's block starts."""
    reader = t.Reader(path, COMMAND)
    rows = []
    for block in t.listing(reader):
        t.check_listing(reader, block, KEYS)
        if block.header is not None:
            reader.fail(block.line, f"a name line {block.header[:60]!r}: `{COMMAND}` prints only "
                                    "`Key: value` lines")
        if "I/O Operation Limit" in block.fields and "IOOperation Limit" not in block.fields:
            block.fields["IOOperation Limit"] = block.fields.pop("I/O Operation Limit")
        t.require(reader, block, REQUIRED)
        limit_type = block.fields["Limit Type"][0]
        if limit_type not in LIMIT_TYPES:
            reader.fail(block.where("Limit Type"), f"`Limit Type`: expected one of {', '.join(LIMIT_TYPES)}, "
                                                   f"found {limit_type[:40]!r}")
        rows.append({
            "device": block.get("Device"), "limit_type": limit_type,
            "iops": t.integer(reader, block, "IOOperation Limit"),
            "bytes": t.integer(reader, block, "Byte Limit"),
            "latency_eval_ms": t.integer(reader, block, "Latency Evaluation Interval", "milliseconds"),
            "sampling_ios": t.integer(reader, block, "Number Of Sampling IOs Per Path"),
            "use_ano": t.boolean(reader, block, "Use Active Unoptimized Paths"),
            "line": block.line,
        })
    return t.frame(rows, COLUMNS, COMMAND)
