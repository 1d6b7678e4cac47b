"""Reports: one self-contained HTML file (inline SVG plots drawn by matplotlib, no script from
the network) from a run, a compare, a lineup or a sweep. The same input gives the same bytes:
SVG ids come from a fixed salt and no date is written (NOTES.md says why not plotly)."""

from __future__ import annotations

import hashlib
import html
import io
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402 - after the backend is chosen
import pandas as pd  # noqa: E402

from pathlab import __version__  # noqa: E402
from pathlab.figures import HEADLINE, KEYS, PERCENTILES

matplotlib.rcParams.update({"svg.hashsalt": "pathlab", "svg.fonttype": "none", "figure.figsize": (7.5, 3.4),
                            "axes.grid": True, "grid.alpha": 0.3, "font.size": 9})

# Marks each figure whose SVG drew with a non-empty box, and any script error, in the page itself:
# a reader sees a plot that failed, and the headless browser test reads the marks.
SELF_CHECK = """<script>
window.addEventListener("error", e => document.body.setAttribute("data-script-error", e.message));
window.addEventListener("load", () => {
  let drawn = 0;
  for (const f of document.querySelectorAll("figure")) {
    const s = f.querySelector("svg"), b = s && s.getBBox();
    const ok = !!b && b.width > 0 && b.height > 0 && s.querySelectorAll("path,line,use").length > 0;
    f.setAttribute("data-drawn", ok ? "yes" : "no");
    drawn += ok;
  }
  document.body.setAttribute("data-plots", drawn + "/" + document.querySelectorAll("figure").length);
});
</script>"""

STYLE = """<style>
body { font: 14px/1.45 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222 }
h1 { font-size: 1.5rem } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd }
figure { margin: 1rem 0 } figure svg { max-width: 100%; height: auto } figcaption { color: #555; font-size: 0.9em }
table { border-collapse: collapse; font-variant-numeric: tabular-nums } td, th { padding: 2px 8px; text-align: right }
th { border-bottom: 1px solid #999 } pre { background: #f6f6f6; padding: 0.8rem; overflow-x: auto; font-size: 12px }
</style>"""


def svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


def figure(fig: Any, caption: str) -> str:
    return f"<figure>{svg(fig)}<figcaption>{html.escape(caption)}</figcaption></figure>"


def page(title: str, sections: Sequence[tuple[str, str]], scenario_text: str | None, provenance: dict[str, Any]) -> str:
    body = [f"<h1>{html.escape(title)}</h1>"]
    body += [f"<h2>{html.escape(h)}</h2>{content}" for h, content in sections]
    if scenario_text is not None:
        digest = hashlib.sha256(scenario_text.encode()).hexdigest()[:16]
        provenance = {**provenance, "scenario sha256": digest}
        body.append(f"<h2>Scenario</h2><pre>{html.escape(scenario_text)}</pre>")
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td style='text-align:left'>{html.escape(str(v))}</td></tr>"
                   for k, v in {**provenance, "pathlab": __version__}.items())
    body.append(f"<h2>Provenance</h2><table>{rows}</table>")
    return (f"<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"{STYLE}</head><body>{''.join(body)}{SELF_CHECK}</body></html>\n")


def _per_path_over_time(data: dict[str, Any], column: str, ylabel: str) -> Any:
    df = pd.DataFrame(data["path_intervals"])
    fig, ax = plt.subplots()
    for name, g in df.groupby("name", sort=True):
        ax.plot(g["t_s"], g[column], marker=".", label=name)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7, ncol=2)
    return fig


def _path_share(labels: Sequence[str], runs: Sequence[dict[str, Any]]) -> Any:
    """Stacked bars: each setting's share of commands per path."""
    fig, ax = plt.subplots()
    paths = sorted({p["name"] for d in runs for p in d["paths"]})
    bottom = [0.0] * len(labels)
    for path in paths:
        shares = []
        for d in runs:
            total = sum(p["cmds_s"] for p in d["paths"]) or 1.0
            shares.append(100 * sum(p["cmds_s"] for p in d["paths"] if p["name"] == path) / total)
        ax.bar(labels, shares, bottom=bottom, label=path)
        bottom = [b + s for b, s in zip(bottom, shares)]
    ax.set_ylabel("share of I/O (%)")
    ax.tick_params(axis="x", labelrotation=30 if len(labels) <= 6 else 90)
    ax.legend(fontsize=6, ncol=2, loc="upper left", bbox_to_anchor=(1, 1))
    return fig


def _latency_cdf(labels: Sequence[str], summaries: Sequence[dict[str, Any]]) -> Any:
    """The response-time distribution through its percentiles (the engine keeps a histogram and
    reports these points of it)."""
    fig, ax = plt.subplots()
    for label, s in zip(labels, summaries):
        ax.plot([s[k] for k, _ in PERCENTILES], [q for _, q in PERCENTILES], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_xlabel("response time (ms)")
    ax.set_ylabel("fraction of I/Os at or below")
    ax.legend(fontsize=7)
    return fig


def _percentile_table(labels: Sequence[str], summaries: Sequence[dict[str, Any]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("", "mean ms", "p50", "p90", "p99", "p99.9", "max"))
    rows = "".join(f"<tr><th>{html.escape(label)}</th>" + "".join(
        f"<td>{s[k]:.3f}</td>" for k in ("resp_ms", *(k for k, _ in PERCENTILES), "resp_max_ms")) + "</tr>"
        for label, s in zip(labels, summaries))
    return f"<table><tr>{head}</tr>{rows}</table>"


def run_report(data: dict[str, Any], scenario_text: str | None, provenance: dict[str, Any]) -> str:
    s = data["summary"]
    label = data.get("variant") or data["scenario"]
    sections = [
        ("Summary", f"<p>{s['iops']:,.1f} I/O per second, {s['mbps']:,.2f} MB/s, mean response {s['resp_ms']:.3f} ms, "
                    f"{s['errors']} errors, {s['failed']} failed I/Os (seed {data['seed']}).</p>"),
        ("I/O rate per path over time", figure(_per_path_over_time(data, "cmds_s", "commands per second"),
                                                "CMDS/s per path and interval, as esxtop's disk path panel shows it.")),
        ("Latency per path over time", figure(_per_path_over_time(data, "davg_ms", "DAVG (ms)"),
                                               "Device latency (DAVG/cmd) per path and interval.")),
        ("Share of I/O per path", figure(_path_share([label], [data]), "Each path's share of the commands.")),
        ("Response time distribution", figure(_latency_cdf([label], [s]), "Percentiles of the response time.")
            + _percentile_table([label], [s])),
    ]
    return page(f"pathlab run: {data['scenario']}" + (f" ({data['variant']})" if data.get("variant") else ""),
                sections, scenario_text, {**provenance, "seed": data["seed"]})


def compare_report(title: str, labels: Sequence[str], runs: Sequence[dict[str, Any]], scenario_text: str | None,
                   provenance: dict[str, Any]) -> str:
    """Settings side by side, one run each (a compare of variants or a lineup of policies)."""
    summaries = [d["summary"] for d in runs]
    bars = []
    for f in HEADLINE:
        fig, ax = _bars(labels, [s[f.key] for s in summaries], None, f.name)
        bars.append(figure(fig, f"{f.name} per setting (one seed: replicate with --seeds for error bars)."))
    sections = [("Comparison", "".join(bars))]
    if all("paths" in d for d in runs):  # a compare's JSON output keeps the summaries only
        sections.append(("Share of I/O per path", figure(_path_share(labels, runs), "Each setting's share of the commands per path.")))
    sections.append(("Response time distribution", figure(_latency_cdf(labels, summaries), "Percentiles of the response time.")
                     + _percentile_table(labels, summaries)))
    return page(title, sections, scenario_text, provenance)


def _bars(labels: Sequence[str], values: Sequence[float], errors: Sequence[float] | None, name: str) -> tuple[Any, Any]:
    """Horizontal bars, first setting on top: long policy names stay readable however many."""
    fig, ax = plt.subplots(figsize=(7.5, 0.8 + 0.25 * len(labels)))
    ax.barh(list(labels), list(values), xerr=None if errors is None else list(errors), capsize=3)
    ax.invert_yaxis()
    ax.set_xlabel(name)
    return fig, ax


def _error_bars(agg: pd.DataFrame, key: str, name: str) -> str:
    fig, _ = _bars(agg["setting"].tolist(), agg[f"{key}_mean"].tolist(), agg[f"{key}_ci95"].fillna(0).tolist(), name)
    return figure(fig, f"{name}: mean over seeds with its 95% interval (Student t).")


def replicated_report(title: str, runs: pd.DataFrame, scenario_text: str | None, provenance: dict[str, Any]) -> str:
    """Settings over several seeds: bars with 95% error bars."""
    from pathlab.study.replicate import table
    from pathlab.study.stats import aggregate

    agg = aggregate(runs, ["setting"], [f.key for f in HEADLINE])
    plots = "".join(_error_bars(agg, f.key, f.name) for f in HEADLINE)
    sections = [("Comparison over seeds", plots + f"<pre>{html.escape(table(runs))}</pre>")]
    return page(title, sections, scenario_text, {**provenance, "seeds": ", ".join(map(str, sorted(runs["seed"].unique())))})


def sweep_report(runs: pd.DataFrame, meta: dict[str, Any]) -> str:
    """One plot per figure against the first swept key, one line (with 95% bars) per variant and
    value of the other keys."""
    from pathlab.study.stats import aggregate
    axes: list[str] = meta["axes"]
    agg = aggregate(runs, ["variant", *axes], KEYS)
    x, others = axes[0], ["variant", *axes[1:]]
    numeric = pd.api.types.is_numeric_dtype(agg[x])
    log_x = numeric and agg[x].min() > 0 and agg[x].max() / agg[x].min() >= 100
    plots = []
    for f in HEADLINE:
        key, name = f.key, f.name
        fig, ax = plt.subplots()
        for line, g in agg.groupby(others, sort=False, dropna=False):
            parts = line if isinstance(line, tuple) else (line,)
            label = ", ".join(f"{k}={v}" if k != "variant" else str(v) for k, v in zip(others, parts) if str(v)) or meta["scenario"]
            ax.errorbar(g[x], g[f"{key}_mean"], yerr=g[f"{key}_ci95"].fillna(0), marker="o", capsize=2, label=label)
        if log_x:
            ax.set_xscale("log")
        ax.set_xlabel(x)
        ax.set_ylabel(name)
        ax.legend(fontsize=7)
        plots.append(figure(fig, f"{name} against {x}: mean over {meta['seeds']} seed(s) with 95% intervals."))
    shown = agg[["variant", *axes, "seeds", *(f"{f.key}_{s}" for f in HEADLINE for s in ("mean", "ci95"))]]
    sections = [("Sweep curves", "".join(plots)), ("Points", shown.to_html(index=False, float_format=lambda v: f"{v:.4g}"))]
    provenance = {"scenario file": meta["file"], "grid": ", ".join(axes), "seeds": f"{meta['seeds']} from {meta['first_seed']}",
                  "overrides": " ".join(meta["sets"]) or "none"}
    text = meta["text"]
    if meta.get("study"):
        text = f"{meta['study']}\n# ---- {meta['scenario']}, the scenario this study sweeps ----\n{text}"
    return page(f"pathlab sweep: {meta['scenario']}", sections, text, provenance)


def advise_report(title: str, findings: Sequence[Any], ranked: Sequence[Any], seeds: str, scenario_text: str,
                  provenance: dict[str, Any], recommendation: Sequence[str] = (),
                  assumptions: Sequence[tuple[str, str]] = (), gains: Sequence[str] = (),
                  gains_note: Sequence[str] = ()) -> str:
    """The advisor's findings, its recommendation with the values it assumed, the candidates'
    figures with 95% error bars, and each one's commands and caveat. `gains` are the gain cells
    as the table shows them (ranges over the assumptions' spans, `gains_note` says over what)."""

    items = "".join(f"<li><b>{html.escape(f.title)}</b><br>{html.escape(f.evidence)}</li>" for f in findings)
    sections = [("Findings", f"<ul>{items}</ul>" if items else "<p>Nothing stands out.</p>")]
    assumed = "".join(f"<li><code>{html.escape(k)}</code>: {html.escape(v)}</li>" for k, v in assumptions)
    sections.append(("Recommendation", f"<pre>{html.escape(chr(10).join(recommendation))}</pre>"
                     + (f"<p>Assumed, not in the captures:</p><ul>{assumed}</ul>" if assumed else "")))
    if not ranked:
        return page(title, sections, scenario_text, provenance)
    labels = [r.candidate.label for r in ranked]
    plots = ""
    for f in HEADLINE:
        fig, _ = _bars(labels, [r.figures[f.key][0] for r in ranked], [r.figures[f.key][1] for r in ranked], f.name)
        plots += figure(fig, f"{f.name}: mean over {seeds} seeds with its 95% interval, every candidate on the same I/Os.")
    head = "".join(f"<th>{h}</th>" for h in ("candidate", *(f.heading for f in HEADLINE), "gain"))
    rows = "".join(
        f"<tr><th style='text-align:left'>{html.escape(r.candidate.label)}</th>"
        + "".join(f"<td>{f.show(r.figures[f.key][0])} ± {f.show(r.figures[f.key][1])}</td>" for f in HEADLINE)
        + f"<td>{html.escape(gain)}</td></tr>" for r, gain in zip(ranked, gains, strict=True))
    note = f"<p>{html.escape(' '.join(line.strip() for line in gains_note))}</p>" if gains_note else ""
    sections.append(("Candidates", plots + f"<table><tr>{head}</tr>{rows}</table>" + note))
    how = "".join(f"<h3>{html.escape(r.candidate.label)}</h3><pre>{html.escape(chr(10).join(r.candidate.commands))}</pre>"
                  + (f"<p>{html.escape(r.candidate.caveat)}</p>" if r.candidate.caveat else "")
                  for r in ranked if r.candidate.commands)
    sections.append(("How to apply each", how or "<p>No commands: the setting in force is kept.</p>"))
    return page(title, sections, scenario_text, provenance)
