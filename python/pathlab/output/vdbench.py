"""Vdbench's interval report (summary.html / console), version 5.04.06 columns, without the cpu
columns (the host's CPU is not simulated). The time of day is simulated time from the start."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

_HEAD1 = ("", "interval", "i/o", "MB/sec", "bytes", "read", "resp", "read", "write", "resp", "resp", "queue")
_HEAD2 = ("", "", "rate", "1024**2", "i/o", "pct", "time", "resp", "resp", "max", "stddev", "depth")
_WIDTHS = (12, 12, 11, 9, 8, 7, 9, 9, 9, 9, 9, 7)


def _line(cells: Iterable[str]) -> str:
    cells = list(cells)
    return cells[0].ljust(_WIDTHS[0]) + "".join(c.rjust(w) for c, w in zip(cells[1:], _WIDTHS[1:]))


def clock(seconds: float) -> str:
    """Simulated time as vdbench prints the time of day: HH:MM:SS.mmm."""
    ms = round(seconds * 1000)
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return f"{h:02d}:{m:02d}:{s:02d}.{ms:03d}"


def _row(clock: str, label: str, f: dict[str, Any]) -> str:
    return _line(
        [
            clock,
            label,
            f"{f['iops']:.1f}",
            f"{f['mbps']:.2f}",
            f"{f['bytes_per_io']:.0f}",
            f"{f['read_pct']:.2f}",
            f"{f['resp_ms']:.3f}",
            f"{f['read_resp_ms']:.3f}",
            f"{f['write_resp_ms']:.3f}",
            f"{f['resp_max_ms']:.3f}",
            f"{f['resp_stddev_ms']:.3f}",
            f"{f['queue_depth']:.1f}",
        ]
    )


def report(data: dict[str, Any], intervals: bool) -> str:
    """The header, optionally every interval, and the `avg_first-last` line of the measured ones."""
    rows = data["intervals"]
    lines = [_line(_HEAD1), _line(_HEAD2)]
    if intervals:
        lines += [_row(clock(r["t_s"]), str(i), r) for i, r in enumerate(rows, start=1)]
    measured = [i for i, r in enumerate(rows, start=1) if r["measured"]]
    label = f"avg_{measured[0]}-{measured[-1]}" if measured else "avg"
    end = data["warmup_s"] + data["duration_s"]
    lines.append(_row(clock(end), label, data["summary"]))
    return "\n".join(lines)
