"""Esxtop batch mode (`esxtop -b -a`) CSV, as ESXi writes it, so that existing esxtop viewers open
a simulated run: the PDH-CSV header, `\\\\host\\Object(instance)\\Counter` columns, quoted values,
a trailing comma and an LF on every line.

Layout, from the real captures (research/formats.md §1.4, `format-samples/esxtop-batch*.csv`):
per adapter, `Physical Disk(vmhbaN)\\Adapter Q Depth`, the adapter's `Physical Disk Adapter`
block, then its paths as the adapter panel expands them (`Physical Disk(vmhbaN:path)`, the
adapter's queue depth then the path's figures); then each `Physical Disk SCSI Device` followed by
its `Physical Disk Path` blocks. Each block has the counters of an `-a` capture, named and
ordered as ESXi prints them (31 for adapters and paths, 32 for an adapter's path, 52 for a
device).

Rows: the first is the capture's start (rates 0.00: esxtop has no previous sample to difference
on its first row), then one row per measured interval, stamped `start` plus the time since the
end of the warm-up (no warm-up rows: the capture is the measured window). Errors: `Failed
Commands/sec` is the object's commands that ended in error (pathlab's `errors`) per second of
the interval. What pathlab does not model reads 0: reservations and conflicts, failed reads and
writes told apart, failed bytes, aborts and resets told apart from other errors, PAE and split
commands, VAAI primitives, and the world queue depth (0 at device level in real captures)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HEADER_FIRST = "(PDH-CSV 4.0) (UTC)(0)"
#: The first row's time when none is given: a fixed date, so that a scenario and seed always
#: give the same bytes.
DEFAULT_START = datetime(2026, 1, 1)

#: A cell: its text from the object's interval row and the interval's context (`seconds`,
#: the device's `dqlen`, the adapter's `aqlen`).
Cell = Callable[[dict[str, Any], dict[str, Any]], str]


def _figure(key: str) -> Cell:
    return lambda row, ctx: f"{row[key]:.2f}"


def _per_second(key: str) -> Cell:
    return lambda row, ctx: f"{row[key] / ctx['seconds']:.2f}" if ctx["seconds"] > 0 else "0.00"


def _const(text: str) -> Cell:
    return lambda row, ctx: text


RATE, COUNT = _const("0.00"), _const("0")
_RATES = (("Commands/sec", _figure("cmds_s")), ("Reads/sec", _figure("reads_s")), ("Writes/sec", _figure("writes_s")),
          ("MBytes Read/sec", _figure("mbread_s")), ("MBytes Written/sec", _figure("mbwrtn_s")),
          ("Reserves/sec", RATE), ("Conflicts/sec", RATE))
# The model's kernel time is all queueing (QAVG = KAVG), for reads and writes alike.
_LATENCIES = tuple((f"Average {kind} MilliSec/{what}", _figure(f"{key}{suffix}_ms"))
                   for what, suffix in (("Command", ""), ("Read", "_rd"), ("Write", "_wr"))
                   for kind, key in (("Driver", "davg"), ("Kernel", "kavg"), ("Guest", "gavg"), ("Queue", "kavg")))
_ERRORS = (("Failed Commands/sec", _per_second("errors")), ("Failed Reads/sec", RATE), ("Failed Writes/sec", RATE),
           ("Failed Bytes Read/sec", RATE), ("Failed Bytes Written/sec", RATE), ("Failed Reserves/sec", RATE),
           ("Aborts/sec", RATE), ("Resets/sec", RATE))
_PAE_SPLIT = (("PAE Commands/sec", RATE), ("PAE Copies/sec", RATE), ("Split Commands/sec", RATE),
              ("Split Copies/sec", RATE))


def _share_of_queue(count: Callable[[dict[str, Any]], float]) -> Cell:
    """A count over the device queue depth; empty for a Linux NVMe head, which has none."""
    return lambda row, ctx: "" if ctx["dqlen"] is None else f"{count(row) / max(ctx['dqlen'], 1):.2f}"


_QUEUE = (("Device Q Depth", lambda row, ctx: "" if ctx["dqlen"] is None else str(ctx["dqlen"])),
          ("World Q Depth", COUNT),
          ("Active Commands", lambda row, ctx: str(round(row["actv"]))),
          ("Queued Commands", lambda row, ctx: str(round(row["qued"]))),
          ("% Used", _share_of_queue(lambda row: 100.0 * row["actv"])),
          ("Load", _share_of_queue(lambda row: row["actv"] + row["qued"])))
_VAAI = (("CReads", COUNT), ("CWrites", COUNT), ("CFailed", COUNT), ("MBytes CReads/sec", RATE),
         ("MBytes CWrites/sec", RATE), ("ATS", COUNT), ("ATS Failed", COUNT), ("Zeros", COUNT), ("Zeros Failed", COUNT),
         ("MBytes Zeroed/sec", RATE), ("Delete", COUNT), ("Deletes Failed", COUNT), ("MBytes Deletes/sec", RATE),
         *((f"Average {result} Latency ms/{op}", RATE) for op in ("Clone", "ATS", "Zero") for result in ("Success", "Failure")))
_ADAPTER_DEPTH = (("Adapter Q Depth", lambda row, ctx: str(ctx["aqlen"])),)

#: The counters of each block, in the order of a real `-a` capture.
COUNTERS: dict[str, tuple[tuple[str, Cell], ...]] = {
    "adapter_depth": _ADAPTER_DEPTH,
    "adapter": _RATES + _LATENCIES + _ERRORS + _PAE_SPLIT,
    "adapter_path": _ADAPTER_DEPTH + _RATES + _LATENCIES + _ERRORS + _PAE_SPLIT,
    "device": _QUEUE + _RATES + _LATENCIES + _ERRORS + _VAAI,
    "path": _RATES + _LATENCIES + _ERRORS + _PAE_SPLIT,
}

#: A block: (esxtop object, instance, block kind, (result table, name) of the rows it reads, context).
Block = tuple[str, str, str, tuple[str, str], dict[str, Any]]


def _blocks(data: dict[str, Any]) -> list[Block]:
    """Every block of columns after the timestamp, in a real capture's order."""
    blocks: list[Block] = []
    for a in data["adapters"]:
        name, ctx = a["name"], {"aqlen": a["aqlen"]}
        blocks.append(("Physical Disk", name, "adapter_depth", ("adapter_intervals", name), ctx))
        blocks.append(("Physical Disk Adapter", name, "adapter", ("adapter_intervals", name), ctx))
        blocks += [("Physical Disk", f"{name}:{p['name']}", "adapter_path", ("path_intervals", p["name"]), ctx)
                   for p in data["paths"] if p["adapter"] == name]
    for d in data["devices"]:
        blocks.append(("Physical Disk SCSI Device", d["name"], "device", ("device_intervals", d["name"]),
                       {"dqlen": d["dqlen"]}))
        blocks += [("Physical Disk Path", p["name"], "path", ("path_intervals", p["name"]), {})
                   for p in data["paths"] if p["device"] == d["name"]]
    return blocks


def _line(fields: Iterable[str]) -> str:
    # CSV quoting: a quote inside a field is doubled.
    return ",".join('"' + f.replace('"', '""') + '"' for f in fields) + ",\n"


def write(data: dict[str, Any], out: str | Path, start: datetime = DEFAULT_START) -> int:
    """Writes the run's measured window as an esxtop batch CSV, the first row at `start` (UTC;
    an aware time is converted); returns the number of data rows."""
    if start.tzinfo is not None:
        start = start.astimezone(UTC).replace(tzinfo=None)
    host, warmup = data["host"], data["warmup_s"]
    blocks = _blocks(data)
    rows: dict[tuple[str, str, float], dict[str, Any]] = {}
    for table in ("adapter_intervals", "path_intervals", "device_intervals"):
        for r in data[table]:
            rows[table, r["name"], r["t_s"]] = r
    times = [r["t_s"] for r in data["intervals"] if r["measured"]]
    # (to the microsecond: 5 s after a warm-up of 0.1 s is not 4.999… s)
    stamp = lambda t: (start + timedelta(microseconds=round((t - warmup) * 1e6))).strftime("%m/%d/%Y %H:%M:%S")  # noqa: E731
    zero: dict[str, Any] = defaultdict(float)  # every figure 0
    with open(out, "w", encoding="utf-8", newline="") as f:
        f.write(_line([HEADER_FIRST] + [f"\\\\{host}\\{obj}({inst})\\{counter}"
                                        for obj, inst, kind, _, _ in blocks for counter, _ in COUNTERS[kind]]))
        cells = [stamp(warmup)]
        for _, _, kind, _, ctx in blocks:
            cells += [cell(zero, ctx | {"seconds": 0.0}) for _, cell in COUNTERS[kind]]
        f.write(_line(cells))
        previous = warmup
        for t in times:
            cells = [stamp(t)]
            for _, _, kind, (table, name), ctx in blocks:
                row, own = rows[table, name, t], ctx | {"seconds": t - previous}
                cells += [cell(row, own) for _, cell in COUNTERS[kind]]
            f.write(_line(cells))
            previous = t
    return len(times) + 1
