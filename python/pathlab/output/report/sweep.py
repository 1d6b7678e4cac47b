"""A sweep's report: one plot per headline figure against the first swept key, one line (with 95%
bars) per case and value of the other keys, and the table of points."""

from __future__ import annotations

from typing import Any

import pandas as pd

from pathlab.figures import HEADLINE, KEYS
from pathlab.output.report import plots
from pathlab.output.report.page import figure, page


def sweep_report(runs: pd.DataFrame, meta: dict[str, Any], setting: str | None = None) -> str:
    """`meta` is the sweep's table metadata; `setting` the scenario's policy in force before the
    grid and cases change it."""
    from pathlab.study.stats import aggregate

    axes: list[str] = meta["axes"]
    agg = aggregate(runs, ["variant", *axes], KEYS)
    x, others = axes[0], ["variant", *axes[1:]]
    numeric = pd.api.types.is_numeric_dtype(agg[x])
    log_x = bool(numeric and agg[x].min() > 0 and agg[x].max() / agg[x].min() >= 100)
    groups = []
    for line, g in agg.groupby(others, sort=False, dropna=False):
        parts = line if isinstance(line, tuple) else (line,)
        label = ", ".join(f"{k}={v}" if k != "variant" else str(v) for k, v in zip(others, parts) if str(v)) or meta["scenario"]
        groups.append((label, g))
    plotted = "".join(figure(plots.lines(groups, x, f"{f.key}_mean", f"{f.key}_ci95", x, f.name, log_x),
                             f"{f.name} against {x}: mean over {meta['seeds']} seed(s) with 95% intervals.")
                      for f in HEADLINE)
    cases = ["variant"] if agg["variant"].astype(str).ne("").any() else []
    shown = agg[[*cases, *axes, "seeds", *(f"{f.key}_{s}" for f in HEADLINE for s in ("mean", "ci95"))]]
    number = (lambda v: f"{v:,.0f}" if abs(v) >= 1000 else f"{v:.4g}")
    sections = [("Sweep curves", plotted), ("Points", shown.to_html(index=False, float_format=number))]
    provenance = {"scenario file": meta["file"], "grid": ", ".join(axes), "seeds": f"{meta['seeds']} from {meta['first_seed']}",
                  "overrides": " ".join(meta["sets"]) or "none"}
    text = meta["text"]
    if meta.get("study"):
        text = f"{meta['study']}\n# ---- {meta['scenario']}, the scenario this study sweeps ----\n{text}"
    swept = f"swept over {', '.join(axes)}" + (", a line per case (each may set its own policy)" if meta.get("study") else "")
    shown_setting = f"the scenario's setting: {setting}; {swept}" if setting else swept
    return page(f"pathlab sweep: {meta['scenario']}", sections, text, provenance, shown_setting)
