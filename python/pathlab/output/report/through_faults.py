"""A device through its faults, as an admin reads a failover: its I/O rate above its latency on
one time axis, the faults' windows shaded, and the moments the host's timers acted marked
(detection, failover, give-up, path back) with the time it was back at full rate and failed
back, all from the run's result."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.lines import Line2D

from pathlab.api import Fault
from pathlab.output.application import MARKS
from pathlab.output.report.plots import FAULT, PALETTE, plain_axis, shade

#: A colour per kind of mark, from the palette the other plots use (the faults' red kept apart).
MARK_COLOURS = {"detection": PALETTE[1], "failover": PALETTE[4], "give-up": PALETTE[7], "path back": PALETTE[2],
                "back to full rate": PALETTE[5], "failed back": PALETTE[6]}
#: Dash length: marks at the same time (a path back and the fail back it brings) take turns along
#: one line, each colour in its own slot, so that every one shows.
DASH = 4


def _dashes(slot: int, sharing: int) -> Any:
    return "--" if sharing == 1 else (slot * DASH, (DASH, DASH * (sharing - 1)))


def faults_of(data: dict[str, Any]) -> list[Fault]:
    """The run's faults as the result lists them (the scenario is not needed)."""
    return [Fault(f["kind"], f["target"], f["start_s"], f["end_s"]) for f in data["application"]["faults"]]


def marks(data: dict[str, Any], device: str) -> list[tuple[float, str]]:
    """The device's timer marks from the event log, then its recoveries' moments."""
    found = [(e["t_s"], MARKS[e["event"]]) for e in data["events"] if e["device"] == device and e["event"] in MARKS]
    app = data["application"]
    for r in app["recovery"]:
        if r["device"] != device:
            continue
        if r["back_to_full_rate_s"]:
            found.append((r["start_s"] + r["back_to_full_rate_s"], "back to full rate"))
        if r["end_s"] is not None and r["failed_back_s"]:
            found.append((r["end_s"] + r["failed_back_s"], "failed back"))
    return found


def device_through_faults(data: dict[str, Any], device: str, faults: Sequence[Fault]) -> Any:
    """Rate (commands/s) above latency (GAVG, ms) per interval for `device`; faults shaded and
    named, marks as dashed lines in a colour per kind, named once in the legend."""
    df = pd.DataFrame(data["device_intervals"])
    df = df[df["name"] == device]
    fig, (rate, latency) = plt.subplots(2, 1, sharex=True, figsize=(9, 4.6))
    rate.plot(df["t_s"], df["cmds_s"], marker=".", color=PALETTE[0], gid=f"rate-{device}")
    latency.plot(df["t_s"], df["gavg_ms"].where(df["cmds_s"] > 0), marker=".", color=PALETTE[0],
                 gid=f"latency-{device}")
    span = (float(df["t_s"].min()), float(df["t_s"].max())) if len(df) else (0.0, 0.0)
    shade(rate, faults, span, named=True)
    shade(latency, faults, span, named=False)
    named: set[str] = set()
    # Marks closer than a line's width on the plot (1/300 of its span) share one line.
    close = (span[1] - span[0]) / 300
    at: dict[float, list[str]] = {}
    for t, kind in sorted(marks(data, device)):
        near = next((u for u in at if t - u < close), t)
        if kind not in at.setdefault(near, []):
            at[near].append(kind)
    for t, kinds in at.items():
        for slot, kind in enumerate(kinds):
            for ax in (rate, latency):
                line = ax.axvline(t, color=MARK_COLOURS[kind], linestyle=_dashes(slot, len(kinds)), linewidth=1.6)
                line.set_gid(f"mark-{kind.replace(' ', '-')}")
            named.add(kind)
    rate.set_ylabel("I/O per second")
    latency.set_ylabel("latency (ms)")
    latency.set_xlabel("time (s)")
    for ax in (rate, latency):
        ax.set_ylim(bottom=0)
        plain_axis(ax.yaxis)
    rate.set_title(device, fontsize=9, loc="left", color=FAULT if faults else "#222")
    if named or faults:
        # The marks' legend in plain dashes (their interleaved pattern would show a dot or two).
        keys = [Line2D([], [], color=MARK_COLOURS[k], linestyle="--", linewidth=1.6, label=k)
                for k in MARK_COLOURS if k in named]
        handles, _ = rate.get_legend_handles_labels()
        rate.legend(handles=handles + keys, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return fig
