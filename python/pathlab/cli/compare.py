"""`pathlab compare`: every variant of a scenario side by side, on the same generated I/Os."""

from __future__ import annotations

import json

import click

from pathlab.api import ScenarioError
from pathlab.cli.common import FORMATS, handle_errors, load, run_all, seed_option, set_option
from pathlab.cli.run import summary_csv

FIGURES = (
    ("iops", "I/O rate", "{:.1f}"),
    ("mbps", "MB/sec", "{:.2f}"),
    ("resp_ms", "resp (ms)", "{:.3f}"),
    ("read_resp_ms", "read resp", "{:.3f}"),
    ("write_resp_ms", "write resp", "{:.3f}"),
    ("resp_max_ms", "resp max", "{:.3f}"),
    ("resp_stddev_ms", "resp stddev", "{:.3f}"),
    ("queue_depth", "queue depth", "{:.1f}"),
    ("p50_ms", "p50 (ms)", "{:.3f}"),
    ("p99_ms", "p99 (ms)", "{:.3f}"),
    ("p999_ms", "p99.9 (ms)", "{:.3f}"),
    ("errors", "errors", "{:d}"),
    ("failed", "failed", "{:d}"),
)


def side_by_side(names: list[str], summaries: list[dict]) -> str:
    width = max(12, *(len(n) + 2 for n in names))
    lines = ["".ljust(14) + "".join(n.rjust(width) for n in names)]
    for key, label, fmt in FIGURES:
        lines.append(label.ljust(14) + "".join(fmt.format(s[key]).rjust(width) for s in summaries))
    return "\n".join(lines)


@click.command("compare")
@click.argument("file")
@set_option
@seed_option
@click.option("--format", "fmt", type=FORMATS, default="table", show_default=True)
@handle_errors
def command(file: str, sets: tuple[str, ...], seed: int | None, fmt: str) -> None:
    """Run every variant of FILE on the same I/Os and print them side by side."""
    base = load(file, None, sets, seed)
    if not base.variants:
        raise ScenarioError(file, "variants", "the file defines no variants to compare")
    scenarios = [base.with_variant(name) for name, _ in base.variants]
    results = run_all(scenarios)
    names = [name for name, _ in base.variants]
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
