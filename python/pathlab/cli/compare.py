"""`pathlab compare`: every variant of a scenario side by side, on the same generated I/Os."""

from __future__ import annotations

from pathlib import Path

import click

from pathlab.api import ScenarioError, _read
from pathlab.cli.common import (
    force_option,
    handle_errors,
    load,
    resolve,
    run_all,
    scenario_files,
    seed_option,
    set_option,
    with_workload,
    workload_option,
    writable_output,
)
from pathlab.output.comparison import Lineup, Lineups, Replicated, Variants
from pathlab.output.files import OutputFile
from pathlab.output.sink import emit, format_option
from pathlab.study.lineup import LINEUP, OURS, overrides
from pathlab.study.replicate import replicate


def run_lineup(file: str, variant: str | None, sets: tuple[str, ...], seed: int | None) -> Lineup:
    """Every lineup policy on FILE: the scenario's label, the policies, each run's JSON result."""
    base = load(file, variant, sets, seed)
    scenarios = [load(file, variant, list(sets) + overrides(policy), seed) for _, policy in LINEUP]
    results = run_all(scenarios)
    return Lineup(base.label, [label for label, _ in LINEUP], [r.data for r in results])


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
    if seeds:
        replicated(file, lineup, variant, sets, range(seed or 1, (seed or 1) + seeds), fmt, html)
        return
    if html and Path(file).is_dir():
        raise ScenarioError(file, "--html", "a report covers one scenario file, not a directory")
    if lineup:
        files = scenario_files(file) if Path(file).is_dir() else [file]
        emit(Lineups([run_lineup(f, variant, sets, seed) for f in files], _read(file) if html else None), fmt, html, file)
        return
    base = load(file, None, sets, seed)
    if not base.variants:
        raise ScenarioError(file, "variants", "the file defines no variants to compare")
    results = run_all([base.with_variant(name) for name, _ in base.variants])
    emit(Variants(base.name, base.variants, [r.data for r in results], base.text), fmt, html, file)


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
        emit(Replicated(f, replicate(f, sets, settings, seeds), OURS if lineup else None, _read(f)), fmt, html, f)
