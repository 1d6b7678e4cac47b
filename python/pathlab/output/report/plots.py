"""The figures of the reports, drawn so that a storage admin reads them at a glance: a colour per
path up to a handful and a panel per path past that (shared axes), legends beside the data, the
scenario's faults shaded and named on time axes, response times in ms with plain ticks, and each
path's share of the I/O as one bar per path."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter

from pathlab.api import Fault
from pathlab.figures import PERCENTILES
from pathlab.output.report.page import LAID_OUT
from pathlab.output.seconds import window

#: A qualitative palette that colour-blind readers tell apart (Okabe and Ito's, the yellow darkened
#: to read on white). Past this many lines, one panel per line instead.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#9A8700", "#000000")
FEW = len(PALETTE)
#: Fault windows: a light grey-red behind the data, their edges and moments in its full shade.
FAULT = "#B2182B"
#: Panels per row in small multiples.
COLUMNS = 4


def plain(value: float, _: Any = None) -> str:
    """A tick label as people write numbers: 0.3, 2, 1,000 (never 3×10⁻¹)."""
    if value == 0:
        return "0"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def ms_axis(ax: Any, values: Sequence[float]) -> None:
    """A response-time x axis: linear while the values span less than a factor of 20, else log
    with ticks at 1, 2 and 5 of each decade; plain labels either way."""
    positive = [v for v in values if v > 0 and math.isfinite(v)]
    if positive and max(positive) / min(positive) >= 20:
        ax.set_xscale("log")
        ax.xaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        ax.xaxis.set_minor_formatter(NullFormatter())
    plain_axis(ax.xaxis)


def plain_axis(axis: Any) -> None:
    axis.set_major_formatter(FuncFormatter(plain))


def _hits(fault: Fault, path: dict[str, Any]) -> bool:
    """Whether the fault falls on this path (named by its path prefix, port, adapter or device)."""
    target = fault.target.split(" to ")[0]
    return (path["name"] == target or path["name"].startswith(f"{target}:") or target in
            (path.get("target"), path.get("adapter"), path.get("device")) or target == "every device")


def fault_label(fault: Fault) -> str:
    return f"{fault.kind.replace('_', ' ')} {fault.target}, {window(fault.start_s, fault.end_s)}"


def shade(ax: Any, faults: Sequence[Fault], span: tuple[float, float], named: bool) -> list[Any]:
    """Each fault within the plotted time `span`: a shaded window (a line for a moment), named at
    its top when `named`. Returns the artists, for a legend."""
    drawn = []
    for i, f in enumerate(faults):
        start, end = max(f.start_s, span[0]), min(f.end_s if f.end_s is not None else f.start_s, span[1])
        if f.start_s > span[1] or (f.end_s is not None and f.end_s < span[0]):
            continue
        if f.end_s is None:
            artist = ax.axvline(f.start_s, color=FAULT, linestyle="--", linewidth=1.2, label=fault_label(f))
        else:
            artist = ax.axvspan(start, end, color=FAULT, alpha=0.12, linewidth=0, label=fault_label(f))
        artist.set_gid(f"fault-{i}")
        drawn.append(artist)
        if named:
            ax.annotate(f"{f.kind.replace('_', ' ')} {f.target}", (start, 1), xycoords=("data", "axes fraction"),
                        xytext=(3, -3), textcoords="offset points", va="top", fontsize=7, color=FAULT)
    return drawn


def panels(count: int, height: float) -> tuple[Any, list[Any]]:
    """A grid of `count` panels on shared axes, `COLUMNS` a row, each `height` inches tall, placed
    by hand with room for a legend below (see `page.LAID_OUT`); the grid's unused cells hidden."""
    rows = math.ceil(count / COLUMNS)
    total = 1.0 + height * rows
    fig, grid = plt.subplots(rows, COLUMNS, sharex=True, sharey=True, squeeze=False, figsize=(10, total))
    fig.set_label(LAID_OUT)
    fig.subplots_adjust(left=0.09, right=0.99, top=1 - 0.3 / total, bottom=0.75 / total, hspace=0.45, wspace=0.08)
    for ax in grid.flat[count:]:
        ax.set_visible(False)
    return fig, list(grid.flat[:count])


def per_path_over_time(data: dict[str, Any], column: str, ylabel: str, faults: Sequence[Fault]) -> Any:
    """One line per path against time: on one plot in distinct colours up to `FEW` paths, else a
    panel per path on shared axes; the faults shaded and named."""
    df = pd.DataFrame(data["path_intervals"])
    if column != "cmds_s" and len(df):  # an interval without commands has no latency: a gap, not a zero
        df[column] = df[column].where(df["cmds_s"] > 0)
    groups = [(str(name), g) for name, g in df.groupby("name", sort=True)]
    paths = {p["name"]: p for p in data["paths"]}
    span = (float(df["t_s"].min()), float(df["t_s"].max())) if len(df) else (0.0, 0.0)
    if len(groups) <= FEW:
        fig, ax = plt.subplots()
        for (name, g), colour in zip(groups, PALETTE):
            ax.plot(g["t_s"], g[column], marker=".", color=colour, label=name)
            ax.lines[-1].set_gid(f"path-{name}")
        shade(ax, faults, span, named=True)
        ax.set_xlabel("time (s)")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        plain_axis(ax.yaxis)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
        return fig
    fig, grid = panels(len(groups), 1.55)
    legend: list[Any] = []
    for ax, (name, g) in zip(grid, groups):
        ax.plot(g["t_s"], g[column], color=PALETTE[0], linewidth=1.2, gid=f"path-{name}")
        hit = [f for f in faults if _hits(f, paths.get(name, {"name": name}))]
        drawn = shade(ax, faults, span, named=False)
        legend = legend or drawn
        ax.set_title(name + ("  (" + ", ".join(f.kind.replace("_", " ") for f in hit) + ")" if hit else ""),
                     fontsize=8, color=FAULT if hit else "#222", loc="left")
        plain_axis(ax.yaxis)
        ax.tick_params(labelsize=7)
    grid[0].set_ylim(0, 1.05 * float(df[column].max()) or 1)  # shared by every panel
    fig.supxlabel("time (s)", fontsize=9, y=0.35 / fig.get_figheight())
    fig.supylabel(ylabel, fontsize=9, x=0.01)
    if legend:
        fig.legend(handles=legend, loc="lower left", bbox_to_anchor=(0.09, 0), fontsize=8)
    return fig


def path_share(data: dict[str, Any]) -> Any:
    """One horizontal bar per path: its share of the run's commands, grouped by device (a
    colour per device up to `FEW` devices)."""
    paths = sorted(data["paths"], key=lambda p: (p["device"], p["name"]))
    total = sum(p["cmds_s"] for p in paths) or 1.0
    devices = sorted({p["device"] for p in paths})
    colour = {d: PALETTE[i % FEW] if len(devices) <= FEW else PALETTE[0] for i, d in enumerate(devices)}
    fig, ax = plt.subplots(figsize=(8, 0.7 + 0.24 * len(paths)))
    shares = [100 * p["cmds_s"] / total for p in paths]
    bars = ax.barh([p["name"] for p in paths], shares, color=[colour[p["device"]] for p in paths])
    ax.bar_label(bars, labels=[f"{s:.1f}%" for s in shares], padding=2, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("share of the commands (%)")
    ax.set_xlim(0, max(shares, default=0) * 1.15 or 1)
    ax.grid(axis="y", visible=False)
    if 1 < len(devices) <= FEW:
        handles = [plt.Rectangle((0, 0), 1, 1, color=colour[d]) for d in devices]
        ax.legend(handles, devices, title="device", loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return fig


def share_by_setting(labels: Sequence[str], runs: Sequence[dict[str, Any]]) -> Any:
    """Each setting's share of the commands per path, as a table of cells with the figure written
    in each: white at an even share, red above it, blue below (an idle path is deep blue). The
    longer of the two lists runs down the side."""
    paths = sorted({(p["device"], p["name"]) for d in runs for p in d["paths"]})
    names = [name for _, name in paths]
    cells = []  # a row per setting
    for d in runs:
        total = sum(p["cmds_s"] for p in d["paths"]) or 1.0
        by_name = {p["name"]: p["cmds_s"] for p in d["paths"]}
        cells.append([100 * by_name.get(name, 0.0) / total for name in names])
    down, across, matrix = list(labels), names, cells
    if len(names) > len(labels):
        down, across, matrix = names, list(labels), [list(row) for row in zip(*cells)]
    even = 100 / max(len(names), 1)
    top = max([2 * even, *(v for row in matrix for v in row)])
    fig, ax = plt.subplots(figsize=(3 + 0.62 * len(across), 1.2 + 0.24 * len(down)))
    ax.imshow(matrix, cmap="RdBu_r", norm=TwoSlopeNorm(even, 0, top), aspect="auto")
    for i, row in enumerate(matrix):
        for j, v in enumerate(row):
            strong = abs(v - even) > 0.6 * even
            ax.text(j, i, f"{v:.0f}" if v >= 10 else f"{v:.1f}", ha="center", va="center", fontsize=7,
                    color="white" if strong else "#222")
    ax.set_yticks(range(len(down)), down, fontsize=7)
    ax.set_xticks(range(len(across)), across, fontsize=7, rotation=40, ha="left", rotation_mode="anchor")
    ax.tick_params(axis="x", top=True, labeltop=True, bottom=False, labelbottom=False)
    ax.grid(False)
    for side in ax.spines.values():
        side.set_visible(False)
    return fig


#: The response percentiles' markers, from the median out to the tail.
MARKERS = ("o", "s", "^", "D")


def percentiles(labels: Sequence[str], summaries: Sequence[dict[str, Any]]) -> Any:
    """A row per setting with its response percentiles (p50 to p99.9) as markers on one ms axis:
    the median and the tail of every setting at a glance, however many there are."""
    fig, ax = plt.subplots(figsize=(8, 0.9 + 0.3 * len(labels)))
    rows = range(len(labels))
    for (key, q), marker, colour in zip(PERCENTILES, MARKERS, PALETTE):
        ax.scatter([s[key] for s in summaries], rows, marker=marker, color=colour, s=28, zorder=3,
                   label=f"p{100 * q:g}")
    for i, s in zip(rows, summaries):
        ax.plot([s[PERCENTILES[0][0]], s[PERCENTILES[-1][0]]], [i, i], color="#bbb", linewidth=1, zorder=2)
    ax.set_yticks(list(rows), list(labels))
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.grid(axis="y", visible=False)
    ms_axis(ax, [s[k] for s in summaries for k, _ in PERCENTILES])
    ax.set_xlabel("response time (ms)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, title="percentile")
    return fig


def bars(labels: Sequence[str], figures: Sequence[tuple[str, Sequence[float], Sequence[float] | None]]) -> Any:
    """Horizontal bars, a panel per figure side by side (name, values, 95% half-widths or None),
    the settings down the shared side, first on top: long policy names stay readable however
    many, and a setting's rate, mean and tail read along one line."""
    fig, axes = plt.subplots(1, len(figures), sharey=True, squeeze=False, figsize=(10, 0.9 + 0.27 * len(labels)))
    for ax, (name, values, errors) in zip(axes[0], figures):
        ax.barh(list(labels), list(values), xerr=None if errors is None else list(errors), capsize=2, color=PALETTE[0],
                error_kw={"elinewidth": 1})
        ax.grid(axis="y", visible=False)
        ax.xaxis.set_major_locator(MaxNLocator(4))  # a third of the width: 250,000 and its neighbours apart
        plain_axis(ax.xaxis)
        ax.set_xlabel(name)
    axes[0][0].invert_yaxis()
    return fig


def lines(groups: Sequence[tuple[str, pd.DataFrame]], x: str, y: str, error: str, xlabel: str, ylabel: str,
          log_x: bool) -> Any:
    """One line with 95% bars per group against `x`: on one plot in distinct colours up to `FEW`
    groups, else a panel per group on shared axes."""
    def draw(ax: Any, g: pd.DataFrame, colour: str, label: str) -> None:
        ax.errorbar(g[x], g[y], yerr=g[error].fillna(0), marker="o", markersize=4, capsize=2, color=colour, label=label)
        if log_x:
            ax.set_xscale("log")
        plain_axis(ax.xaxis)
        plain_axis(ax.yaxis)

    if len(groups) <= FEW:
        fig, ax = plt.subplots()
        for (label, g), colour in zip(groups, PALETTE):
            draw(ax, g, colour, label)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if len(groups) > 1:
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
        return fig
    fig, grid = panels(len(groups), 1.7)
    for ax, (label, g) in zip(grid, groups):
        draw(ax, g, PALETTE[0], label)
        ax.set_title(label, fontsize=8, loc="left")
        ax.tick_params(labelsize=7)
    fig.supxlabel(xlabel, fontsize=9, y=0.35 / fig.get_figheight())
    fig.supylabel(ylabel, fontsize=9, x=0.01)
    return fig
