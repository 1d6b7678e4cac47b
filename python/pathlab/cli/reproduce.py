"""`pathlab reproduce`: run every scenario that carries published figures and compare."""

from __future__ import annotations

import sys

import click

from pathlab import shipped
from pathlab.api import Scenario, ScenarioError
from pathlab.cli.common import handle_errors, load, run_all, scenario_files
from pathlab.figures import PUBLISHABLE
from pathlab.output.reproduction import Reproduction
from pathlab.output.sink import emit, format_option


def with_published(files: list[str]) -> list[Scenario]:
    """Every (scenario, variant) that publishes figures."""
    runs = []
    for file in files:
        base = load(file)
        if base.published:
            runs.append(base)
        runs += [v for v in (base.with_variant(name) for name, _ in base.variants) if v.published]
    return runs


def comparisons(scenarios: list[Scenario], results: list) -> list[dict]:
    rows = []
    for s, r in zip(scenarios, results):
        summary = r.data["summary"]
        for key in sorted(s.published, key=PUBLISHABLE.index):
            published, simulated = s.published[key], summary[key]
            error = (simulated - published) / published if published else float("inf")
            tol = s.tolerance.get(key)
            rows.append({
                "scenario": s.name, "variant": s.variant, "figure": key, "published": published,
                "simulated": simulated, "error": error, "tolerance": tol,
                "ok": None if tol is None else abs(error) <= tol,
                "explained": s.explained.get(key),
            })
    return rows


@click.command("reproduce")
@click.argument("target", required=False, default=str(shipped.FOLDER))
@click.option("--check", is_flag=True,
              help="Exit 1 when a checked figure is out of tolerance without an explanation in its scenario.")
@format_option(Reproduction)
@handle_errors
def command(target: str, check: bool, fmt: str) -> None:
    """Run every scenario in TARGET (a file or directory; default: the shipped scenarios) that
    carries published figures and print published against simulated."""
    scenarios = with_published(scenario_files(target))
    if not scenarios:
        raise ScenarioError(target, "", "no scenario here publishes figures")
    reproduction = Reproduction(comparisons(scenarios, run_all(scenarios)))
    emit(reproduction, fmt)
    if check and reproduction.out_unexplained():
        sys.exit(1)
