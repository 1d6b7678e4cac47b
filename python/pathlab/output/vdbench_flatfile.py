"""Vdbench's flatfile.html: the machine-readable interval file (5.04.07 columns; research/
formats.md §4.3), one row per interval and the `avg_first-last` row, `n/a` where the simulation
has no such figure (CPU, hit rates, per-direction max and stddev). Times are simulated time."""

from __future__ import annotations

from typing import Any

from pathlab.output.vdbench import clock
from pathlab.version import __version__

COLUMNS = [
    "tod", "timestamp", "Run", "Interval", "reqrate", "rate", "MB/sec", "bytes/io", "read%", "resp", "read_resp",
    "write_resp", "resp_max", "read_max", "write_max", "resp_std", "read_std", "write_std", "xfersize", "threads",
    "rdpct", "rhpct", "whpct", "seekpct", "lunsize", "version", "compratio", "dedupratio", "queue_depth", "cpu_used",
    "cpu_user", "cpu_kernel", "cpu_wait", "cpu_idle",
]  # fmt: skip

DESCRIPTIONS = {"tod": "Time of day (simulated time from the start)", "Run": "Run name", "Interval": "Reporting interval",
                "rate": "Observed i/o rate per second", "resp": "Response time (ms)", "queue_depth": "Average i/o queue depth"}


def _row(run: str, label: str, t_s: float, f: dict[str, Any]) -> str:
    tod = clock(t_s)
    values = {
        "tod": tod, "timestamp": f"01/01/1970-{tod[:8]}-UTC", "Run": run, "Interval": label, "rate": f"{f['iops']:.2f}",
        "MB/sec": f"{f['mbps']:.4f}", "bytes/io": f"{f['bytes_per_io']:.0f}", "read%": f"{f['read_pct']:.4f}",
        "resp": f"{f['resp_ms']:.4f}", "read_resp": f"{f['read_resp_ms']:.4f}", "write_resp": f"{f['write_resp_ms']:.4f}",
        "resp_max": f"{f['resp_max_ms']:.3f}", "resp_std": f"{f['resp_stddev_ms']:.4f}", "version": f"pathlab-{__version__}",
        "queue_depth": f"{f['queue_depth']:.4f}",
    }
    return " ".join(values.get(c, "n/a") for c in COLUMNS)


def flatfile(data: dict[str, Any]) -> str:
    run = data.get("variant") or data["scenario"]
    lines = [f"* {c:<15} : {DESCRIPTIONS.get(c, 'as vdbench defines it; n/a where the simulation has no such figure')}" for c in COLUMNS]
    lines += ["* ", " " + " ".join(COLUMNS)]
    rows = data["intervals"]
    lines += [_row(run, str(i), r["t_s"], r) for i, r in enumerate(rows, start=1)]
    measured = [i for i, r in enumerate(rows, start=1) if r["measured"]]
    label = f"avg_{measured[0]}-{measured[-1]}" if measured else "avg"
    lines.append(_row(run, label, data["warmup_s"] + data["duration_s"], data["summary"]))
    return "\n".join(lines) + "\n"
