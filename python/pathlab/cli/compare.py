"""`pathlab compare`: every variant of a scenario side by side, on the same generated I/Os
(`study/compare.py` does the work)."""

from __future__ import annotations

from pathlib import Path

import click

from pathlab.api import ScenarioError
from pathlab.cli.common import (
    force_option,
    handle_errors,
    resolve,
    scenario_files,
    seed_option,
    set_option,
    with_workload,
    workload_option,
    writable_output,
)
from pathlab.cli.progress import StderrProgress
from pathlab.output.comparison import Lineups, Variants, output_of
from pathlab.output.files import OutputFile
from pathlab.output.sink import emit, format_option
from pathlab.study.compare import compare, lineup_of


@click.command("compare")
@click.argument("file")
@click.option("--lineup", is_flag=True, help="Compare every stack's policies (the standard lineup) instead of the variants.")
@click.option("--variant", help="With --lineup: the variant to start from.")
@set_option
@workload_option
@seed_option
@click.option("--seeds", type=click.IntRange(min=2), help="Replications (seeds SEED, SEED+1, ...): means with 95% intervals.")
@format_option(Variants)
@click.option("--html", "html", type=OutputFile(), help="Also write a report to this HTML file (one scenario).")
@force_option
@handle_errors
def command(file: str, lineup: bool, variant: str | None, sets: tuple[str, ...], workload: str | None, seed: int | None, seeds: int | None,
            fmt: str, html: str | None, force: bool) -> None:
    """Run every variant of FILE on the same I/Os and print them side by side; with --lineup,
    every stack's policies on FILE (or on every scenario of a directory)."""
    writable_output(html, "--html", [resolve(file), *([workload] if workload else [])], force)
    sets = with_workload(file, workload, sets)
    progress = StderrProgress("compare")
    files = scenario_files(file) if lineup and Path(resolve(file)).is_dir() else [file]
    if html and Path(resolve(file)).is_dir():  # before any run: one report, not one per file over the last
        raise ScenarioError(file, "--html", "a report covers one scenario file, not a directory")
    if seeds:
        for f in files:
            emit(output_of(compare(f, lineup=lineup, variant=variant, set=sets, seed=seed, seeds=seeds)), fmt, html, f)
        return
    if lineup:
        done = [compare(f, lineup=True, variant=variant, set=sets, seed=seed, progress=progress) for f in files]
        emit(Lineups([lineup_of(c) for c in done], done[0].text if html else None), fmt, html, file)
        return
    emit(output_of(compare(file, set=sets, seed=seed, progress=progress)), fmt, html, file)
