"""`pathlab compare`: every variant of a scenario side by side, on the same generated I/Os."""

from __future__ import annotations

import json
from pathlib import Path

import click

from pathlab import figures
from pathlab.api import ScenarioError, _read
from pathlab.cli.common import (
    format_option,
    handle_errors,
    load,
    resolve,
    run_all,
    seed_option,
    set_option,
    with_workload,
    workload_option,
    writable_output,
)
from pathlab.cli.report import provenance, write
from pathlab.cli.reproduce import scenario_files
from pathlab.cli.run import csv_lines, summary_csv
from pathlab.lineup import LINEUP, OURS, overrides
from pathlab.replicate import replicate
from pathlab.replicate import table as replicate_table

#: The figures `compare` shows side by side.
SIDE_BY_SIDE = figures.pick("iops", "mbps", "resp_ms", "read_resp_ms", "write_resp_ms", "resp_max_ms", "resp_stddev_ms",
                            "queue_depth", "p50_ms", "p99_ms", "p999_ms", "errors", "failed")
#: The figures of a lineup table.
LINEUP_COLUMNS = figures.pick("iops", "resp_ms", "p99_ms", "resp_max_ms", "errors", "failed")


def side_by_side(names: list[str], summaries: list[dict]) -> str:
    width = max(12, *(len(n) + 2 for n in names))
    lines = ["".ljust(14) + "".join(n.rjust(width) for n in names)]
    for f in SIDE_BY_SIDE:
        lines.append(f.heading.ljust(14) + "".join(f.show(s[f.key]).rjust(width) for s in summaries))
    return "\n".join(lines)


def lineup_table(name: str, labels: list[str], summaries: list[dict]) -> str:
    """One line per policy; * marks the best of a column, and ours is compared with the best of
    the others."""
    best = {f.key: f.better(s[f.key] for s in summaries) for f in LINEUP_COLUMNS if f.better}
    width = max(len(x) for x in labels) + 2
    lines = [f"{name}", "".ljust(width) + "".join(f.heading.rjust(13) for f in LINEUP_COLUMNS)]
    for label, s in zip(labels, summaries):
        cells = [(f.show(s[f.key]) + ("*" if s[f.key] == best.get(f.key) else " ")).rjust(13) for f in LINEUP_COLUMNS]
        lines.append(label.ljust(width) + "".join(cells))
    if OURS in labels:
        ours = summaries[labels.index(OURS)]
        others = [s for label, s in zip(labels, summaries) if label != OURS]
        top_rate = max(s["iops"] for s in others)
        top_resp = min(s["resp_ms"] for s in others)
        top_p99 = min(s["p99_ms"] for s in others)
        lines.append(
            f"{OURS} against the best other: I/O rate {100 * (ours['iops'] / top_rate - 1):+.1f}%, "
            f"resp {100 * (ours['resp_ms'] / top_resp - 1):+.1f}%, p99 {100 * (ours['p99_ms'] / top_p99 - 1):+.1f}%"
        )
    return "\n".join(lines)


def run_lineup(file: str, variant: str | None, sets: tuple[str, ...], seed: int | None) -> tuple[str, list[str], list[dict]]:
    """Every lineup policy on FILE: the scenario's label, the policies, each run's JSON result."""
    base = load(file, variant, sets, seed)
    scenarios = [load(file, variant, list(sets) + overrides(policy), seed) for _, policy in LINEUP]
    results = run_all(scenarios)
    return base.label, [label for label, _ in LINEUP], [r.data for r in results]


@click.command("compare")
@click.argument("file")
@click.option("--lineup", is_flag=True, help="Compare every stack's policies (the standard lineup) instead of the variants.")
@click.option("--variant", help="With --lineup: the variant to start from.")
@set_option
@workload_option
@seed_option
@click.option("--seeds", type=click.IntRange(min=2), help="Replications (seeds SEED, SEED+1, ...): means with 95% intervals.")
@format_option("json", "csv")
@click.option("--html", "html", type=click.Path(dir_okay=False), help="Also write a report to this HTML file (one scenario).")
@handle_errors
def command(file: str, lineup: bool, variant: str | None, sets: tuple[str, ...], workload: str | None, seed: int | None, seeds: int | None,
            fmt: str, html: str | None) -> None:
    """Run every variant of FILE on the same I/Os and print them side by side; with --lineup,
    every stack's policies on FILE (or on every scenario of a directory)."""
    writable_output(html, "--html", inputs=[resolve(file), *([workload] if workload else [])])
    sets = with_workload(file, workload, sets)
    if seeds:
        replicated(file, lineup, variant, sets, range(seed or 1, (seed or 1) + seeds), fmt, html)
        return
    if html and Path(file).is_dir():
        raise ScenarioError(file, "--html", "a report covers one scenario file, not a directory")
    if lineup:
        files = scenario_files(file) if Path(file).is_dir() else [file]
        reports = [run_lineup(f, variant, sets, seed) for f in files]
        if html:
            from pathlab.report import compare_report

            name, labels, runs = reports[0]
            write(html, compare_report(f"pathlab lineup: {name}", labels, runs, _read(file), provenance(file)))
        reports = [(n, ls, [r["summary"] for r in rs]) for n, ls, rs in reports]
        if fmt == "json":
            data = [{"scenario": n, "policies": [{"policy": p, "summary": s} for p, s in zip(ls, ss)]} for n, ls, ss in reports]
            click.echo(json.dumps(data, indent=2))
        elif fmt == "csv":
            rows = [{"scenario": n, "policy": p, **s} for n, ls, ss in reports for p, s in zip(ls, ss)]
            click.echo(csv_lines(rows))
        else:
            click.echo("\n\n".join(lineup_table(n, ls, ss) for n, ls, ss in reports))
        return
    base = load(file, None, sets, seed)
    if not base.variants:
        raise ScenarioError(file, "variants", "the file defines no variants to compare")
    scenarios = [base.with_variant(name) for name, _ in base.variants]
    results = run_all(scenarios)
    names = [name for name, _ in base.variants]
    if html:
        from pathlab.report import compare_report

        write(html, compare_report(f"pathlab compare: {base.name}", names, [r.data for r in results], base.text, provenance(file)))
    if fmt == "json":
        rows = [
            {"variant": name, "description": desc, "summary": r.data["summary"]}
            for (name, desc), r in zip(base.variants, results)
        ]
        click.echo(json.dumps({"scenario": base.name, "seed": results[0].data["seed"], "variants": rows}, indent=2))
    elif fmt == "csv":
        click.echo(summary_csv([r.data for r in results]))
    else:
        click.echo(f"pathlab compare: {base.name}, seed {results[0].data['seed']}, every variant on the same I/Os\n")
        click.echo(side_by_side(names, [r.data["summary"] for r in results]))
        click.echo("")
        for name, desc in base.variants:
            click.echo(f"{name}: {desc}")


def replicated(file: str, lineup: bool, variant: str | None, sets: tuple[str, ...], seeds: range, fmt: str,
               html: str | None) -> None:
    """Every variant (or with --lineup every policy) over several seeds, paired by seed."""
    files = scenario_files(file) if lineup and Path(file).is_dir() else [file]
    for f in files:
        if lineup:
            settings = [(label, variant, overrides(policy)) for label, policy in LINEUP]
        else:
            base = load(f, None, sets)
            if not base.variants:
                raise ScenarioError(f, "variants", "the file defines no variants to compare")
            settings = [(name, name, []) for name, _ in base.variants]
        runs = replicate(f, sets, settings, seeds)
        if html:
            from pathlab.report import replicated_report

            write(html, replicated_report(f"pathlab compare: {f}", runs, _read(f), provenance(f)))
        if fmt == "json":
            click.echo(runs.assign(scenario=f).to_json(orient="records", indent=2))
        elif fmt == "csv":
            click.echo(runs.assign(scenario=f).to_csv(index=False), nl=False)
        else:
            click.echo(f"{f}\n{replicate_table(runs, OURS if lineup else None)}\n")
