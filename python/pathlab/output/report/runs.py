"""Reports of runs: one run (its paths over time, their share of the I/O, its response
percentiles), settings side by side one run each (a compare of variants or a lineup of
policies), and settings over several seeds with their 95% intervals."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pathlab.api import Fault
from pathlab.figures import HEADLINE, PERCENTILES
from pathlab.output import application
from pathlab.output.report import plots, through_faults
from pathlab.output.report.page import figure, page

if TYPE_CHECKING:
    import pandas as pd


def _percentile_table(labels: Sequence[str], summaries: Sequence[dict[str, Any]]) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("", "mean ms", "p50", "p90", "p99", "p99.9", "max"))
    rows = "".join(f"<tr><th>{html.escape(label)}</th>" + "".join(
        f"<td>{s[k]:.3f}</td>" for k in ("resp_ms", *(k for k, _ in PERCENTILES), "resp_max_ms")) + "</tr>"
        for label, s in zip(labels, summaries))
    return f"<table><tr>{head}</tr>{rows}</table>"


#: What else a scenario places on its timeline (`Scenario.timeline`), and why a plot leaves it out.
UNMARKED = {"host pauses": "drawn at random instants", "workload bursts": "too short and many to shade",
            "array balancing": "a pass every period"}


def _timeline_note(faults: Sequence[Fault] | None, timeline: Sequence[str]) -> str:
    if faults is None:
        return " Faults are not shaded: give the scenario (--scenario) to mark them."
    shaded = "".join(f" Shaded: {plots.fault_label(f)}." for f in faults)
    return shaded + "".join(f" Not marked: {t} ({UNMARKED[t]})." for t in timeline if t in UNMARKED)


def run_report(data: dict[str, Any], scenario_text: str | None, provenance: dict[str, Any], setting: str,
               faults: Sequence[Fault] | None, timeline: Sequence[str] = ()) -> str:
    """`setting`: the policy in force (`devices.in_force`); `faults`: the scenario's, None when
    the scenario is not known (a result file alone); `timeline` what else it places on its
    timeline (`Scenario.timeline`), said in the captions."""
    s = data["summary"]
    label = data.get("variant") or data["scenario"]
    n = len(data["paths"])
    how = "one colour per path" if n <= plots.FEW else "one panel per path, on the same axes"
    note = _timeline_note(faults, timeline)
    sections = [
        ("Summary", f"<p>{s['iops']:,.1f} I/O per second, {s['mbps']:,.2f} MB/s, mean response {s['resp_ms']:.3f} ms, "
                    f"{s['errors']} errors, {s['failed']} failed I/Os (seed {data['seed']}), {n} paths.</p>"),
        ("I/O rate per path over time", figure(plots.per_path_over_time(data, "cmds_s", "commands per second", faults or ()),
                                                f"CMDS/s per path and interval, as esxtop's disk path panel shows it; {how}.{note}")),
        ("Latency per path over time", figure(plots.per_path_over_time(data, "davg_ms", "DAVG (ms)", faults or ()),
                                               f"Device latency (DAVG/cmd) per path and interval; {how}.{note}")),
        ("Share of I/O per path", figure(plots.path_share(data), "Each path's share of the commands, by device.")),
        ("Response time", figure(plots.percentiles([label], [s]), "Percentiles of the response time.")
            + _percentile_table([label], [s])),
    ]
    sections += _application_sections(data)
    title = f"pathlab run: {data['scenario']}" + (f" ({data['variant']})" if data.get("variant") else "")
    return page(title, sections, scenario_text, {**provenance, "seed": data["seed"]}, setting)


def _html_table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td style='text-align:left'>{html.escape(c)}</td>" for c in r) + "</tr>"
                   for r in rows)
    return f"<table><tr>{cells}</tr>{body}</table>"


#: Devices drawn through their faults at most (the tables list every one).
DRAWN_DEVICES = 8


def _application_sections(data: dict[str, Any]) -> list[tuple[str, str]]:
    """What the application saw: stalls and failed I/Os, the recovery from each fault, and each
    touched device's rate and latency through the faults with its timeline; none without a fault
    or a failed I/O."""
    if "application" not in data or not application.shown(data):
        return []
    stalls = ("<p>A stall: the longest time a device had I/O outstanding and none answered (completed or failed), "
              "from the later of its previous answer and the oldest waiting I/O's issue.</p>"
              + _html_table(application.STALL_HEAD, application.stall_rows(data)))
    sections = [("What the application saw", stalls)]
    rows = application.recovery_rows(data)
    if rows:
        sections.append(("Back to full rate and failed back", (
            "<p>Back to full rate: from the fault's start to the first interval within 5% of the mean rate before "
            "it (one interval's resolution). Failed back: from the fault's end until the paths in use before it "
            "are in use again.</p>" + _html_table(application.RECOVERY_HEAD, rows))))
    faults = through_faults.faults_of(data)
    devices = application.devices_with_a_timeline(data)
    for device in devices[:DRAWN_DEVICES]:
        lines = "".join(f"<tr><td>{t:.3f} s</td><td style='text-align:left'>{html.escape(what)}</td></tr>"
                        for t, what in application.timeline(data, device))
        caption = (f"{device}: I/O rate and latency per interval through the faults (shaded); dashed lines where "
                   "the host's timers acted (detection, failover, give-up, path back) and where it was back at full "
                   "rate and failed back.")
        sections.append((f"Timeline of {device}", figure(through_faults.device_through_faults(data, device, faults),
                                                          caption) + f"<table>{lines}</table>"))
    if len(devices) > DRAWN_DEVICES:
        sections.append(("More devices", f"<p>{len(devices) - DRAWN_DEVICES} more devices were touched: their figures "
                                         "are in the tables above and the JSON output.</p>"))
    return sections


def compare_report(title: str, labels: Sequence[str], runs: Sequence[dict[str, Any]], scenario_text: str | None,
                   provenance: dict[str, Any], setting: str | None = None,
                   described: Sequence[tuple[str, str]] = (), lineup: bool = False) -> str:
    """Settings side by side, one run each (a compare of variants or a lineup of policies);
    `setting` says what is compared, `described` is each setting with what it sets (variants);
    a `lineup`'s hosts and sites are columns, its many settings rows."""
    summaries = [d["summary"] for d in runs]
    sections = []
    if described:
        rows = "".join(f"<tr><th style='text-align:left'>{html.escape(n)}</th><td style='text-align:left'>"
                       f"{html.escape(d)}</td></tr>" for n, d in described)
        sections.append(("Settings", f"<table>{rows}</table>"))
    bars = plots.bars(labels, [(f.name, [s[f.key] for s in summaries], None) for f in HEADLINE])
    sections.append(("Comparison", figure(bars, "Each setting's I/O rate, mean response and p99 (one seed: replicate "
                                                "with --seeds for error bars).")))
    if all("paths" in d for d in runs):  # a compare's JSON output keeps the summaries only
        n = len({p["name"] for d in runs for p in d["paths"]})
        sections.append(("Share of I/O per path", figure(
            plots.share_by_setting(labels, runs), f"Each setting's share of the commands per path (%): white is an "
                                                  f"even share ({100 / max(n, 1):.1f}% of {n} paths), red more, blue less.")))
    sections.append(("Response time", figure(plots.percentiles(labels, summaries),
                                             "Percentiles of the response time, a row per setting.")
                     + _percentile_table(labels, summaries)))
    if all({"hosts", "devices", "paths"} <= set(d) for d in runs):  # several hosts: as `compare` prints them
        from pathlab.output.hosts_and_sites import hosts_and_sites, hosts_and_sites_by_setting

        if shown := (hosts_and_sites_by_setting if lineup else hosts_and_sites)(list(labels), list(runs)):
            sections.append(("Per host and per site", f"<pre>{html.escape(chr(10).join(shown).strip())}</pre>"))
    return page(title, sections, scenario_text, provenance, setting)


def replicated_report(title: str, runs: pd.DataFrame, scenario_text: str | None, provenance: dict[str, Any],
                      setting: str | None = None) -> str:
    """Settings over several seeds: bars with 95% error bars."""
    from pathlab.output.over_seeds import replicated_table
    from pathlab.study.stats import aggregate

    agg = aggregate(runs, ["setting"], [f.key for f in HEADLINE])
    bars = plots.bars(agg["setting"].tolist(), [(f.name, agg[f"{f.key}_mean"].tolist(), agg[f"{f.key}_ci95"].fillna(0).tolist())
                                                for f in HEADLINE])
    plotted = figure(bars, "Each setting's mean over the seeds with its 95% interval (Student t).")
    sections = [("Comparison over seeds", plotted + f"<pre>{html.escape(replicated_table(runs))}</pre>")]
    return page(title, sections, scenario_text, {**provenance, "seeds": ", ".join(map(str, sorted(runs["seed"].unique())))},
                setting)
