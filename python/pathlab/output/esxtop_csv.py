"""Esxtop batch mode (`esxtop -b`) CSV, as ESXi writes it, so that existing esxtop viewers open
a simulated run: the PDH-CSV header, `\\\\host\\Object(instance)\\Counter` columns, quoted values,
a trailing comma on every line, one row per interval and a first row of zero rates (esxtop has
no previous sample to difference on its first row). Column order follows a real capture: the
adapters, the adapter-expanded paths, then each device followed by its paths."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HEADER_FIRST = "(PDH-CSV 4.0) (UTC)(0)"
#: The nine rate and latency counters of adapters and paths, with their result keys.
RATES = (
    ("Commands/sec", "cmds_s"),
    ("Reads/sec", "reads_s"),
    ("Writes/sec", "writes_s"),
    ("MBytes Read/sec", "mbread_s"),
    ("MBytes Written/sec", "mbwrtn_s"),
    ("Average Driver MilliSec/Command", "davg_ms"),
    ("Average Kernel MilliSec/Command", "kavg_ms"),
    ("Average Guest MilliSec/Command", "gavg_ms"),
    ("Average Queue MilliSec/Command", "qavg_ms"),
)
#: Queue counters that come before the rates on a SCSI device.
DEVICE_QUEUE = ("Device Q Depth", "World Q Depth", "Active Commands", "Queued Commands", "% Used", "Load")
DEFAULT_START = datetime(2026, 1, 1)


#: A column: (object, instance, counter, result key, (object, name) of the row it reads).
Column = tuple[str, str, str, str, tuple[str, str]]


def _columns(data: dict[str, Any]) -> list[Column]:
    """Every column after the timestamp."""
    cols: list[Column] = []
    for a in data["adapters"]:
        cols += [("Physical Disk Adapter", a["name"], c, k, ("Physical Disk Adapter", a["name"])) for c, k in RATES]
    for a in data["adapters"]:
        for p in (p for p in data["paths"] if p["adapter"] == a["name"]):
            # The adapter-expanded path carries the path's own figures.
            source = ("Physical Disk Path", p["name"])
            cols += [("Physical Disk", f"{a['name']}:{p['name']}", c, k, source) for c, k in RATES]
    for d in data["devices"]:
        device = ("Physical Disk SCSI Device", d["name"])
        cols += [("Physical Disk SCSI Device", d["name"], c, c, device) for c in DEVICE_QUEUE]
        cols += [("Physical Disk SCSI Device", d["name"], c, k, device) for c, k in RATES]
        for p in (p for p in data["paths"] if p["device"] == d["name"]):
            cols += [("Physical Disk Path", p["name"], c, k, ("Physical Disk Path", p["name"])) for c, k in RATES]
    return cols


def _value(obj: str, counter: str, key: str, row: dict[str, Any], dqlen: int) -> str:
    if obj == "Physical Disk SCSI Device" and counter in DEVICE_QUEUE:
        actv, qued = row["actv"], row["qued"]
        return {
            "Device Q Depth": str(dqlen),
            "World Q Depth": str(dqlen),
            "Active Commands": str(round(actv)),
            "Queued Commands": str(round(qued)),
            "% Used": f"{100.0 * actv / dqlen:.2f}",
            "Load": f"{(actv + qued) / dqlen:.2f}",
        }[counter]
    return f"{row[key]:.2f}"


def _line(fields: Iterable[str]) -> str:
    # CSV quoting: a quote inside a field is doubled.
    return ",".join('"' + f.replace('"', '""') + '"' for f in fields) + ","


def write(data: dict[str, Any], out: str | Path, start: datetime = DEFAULT_START) -> int:
    """Writes the run's intervals as an esxtop batch CSV; returns the number of data rows."""
    host = data["host"]
    cols = _columns(data)
    dqlen = {d["name"]: d["dqlen"] for d in data["devices"]}
    rows: dict[tuple[str, str, float], dict[str, Any]] = {}
    for kind, key in (("Physical Disk Adapter", "adapter_intervals"), ("Physical Disk Path", "path_intervals"),
                      ("Physical Disk SCSI Device", "device_intervals")):
        for r in data[key]:
            rows[kind, r["name"], r["t_s"]] = r
    times = sorted({r["t_s"] for r in data["device_intervals"]})
    stamp = lambda t: (start + timedelta(seconds=t)).strftime("%m/%d/%Y %H:%M:%S")  # noqa: E731
    lines = [_line([HEADER_FIRST] + [f"\\\\{host}\\{o}({i})\\{c}" for o, i, c, _, _ in cols])]
    zero = {k: 0.0 for _, k in RATES} | {"actv": 0.0, "qued": 0.0}
    lines.append(_line([stamp(0)] + [_value(o, c, k, zero, dqlen.get(i, 1)) for o, i, c, k, _ in cols]))
    for t in times:
        cells = [stamp(t)]
        for obj, inst, counter, key, (kind, name) in cols:
            cells.append(_value(obj, counter, key, rows[kind, name, t], dqlen.get(inst, 1)))
        lines.append(_line(cells))
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(times) + 1
