"""`pathlab reproduce`: run every scenario that carries published figures and compare."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from pathlab import shipped
from pathlab.api import Scenario, ScenarioError
from pathlab.cli.common import format_option, handle_errors, load, resolve, run_all
from pathlab.figures import PUBLISHABLE


def scenario_files(target: str) -> list[str]:
    path = Path(resolve(target))
    if path.is_dir():
        files = sorted(str(p) for p in path.glob("*.toml"))
        if not files:
            raise ScenarioError(target, "", "no scenario files (*.toml) in this directory")
        return files
    if not path.exists():
        raise ScenarioError(target, "", "no such file or directory")
    return [target]


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


def number(v: float) -> str:
    """Readable at any scale: thousands separated, three significant decimals for small values."""
    return f"{v:,.1f}" if abs(v) >= 100 else f"{v:.4g}"


def table(rows: list[dict]) -> str:
    head = f"{'scenario':<28} {'variant':<16} {'figure':<15} {'published':>12} {'simulated':>12} {'error':>9} {'tolerance':>9}  status"
    lines = [head, "-" * len(head)]
    notes: list[str] = []
    last = None
    for r in rows:
        label = (r["scenario"], r["variant"])
        scen, var = (r["scenario"], r["variant"] or "-") if label != last else ("", "")
        last = label
        tol = f"±{r['tolerance'] * 100:g}%" if r["tolerance"] is not None else "-"
        status = {True: "ok", False: "OUT", None: "(not checked)"}[r["ok"]]
        if r["ok"] is False and r["explained"]:
            notes.append(r["explained"])
            status = f"OUT, explained [{len(notes)}]"
        lines.append(
            f"{scen:<28} {var:<16} {r['figure']:<15} {number(r['published']):>12} {number(r['simulated']):>12} "
            f"{r['error'] * 100:>+8.1f}% {tol:>9}  {status}"
        )
    checked = [r for r in rows if r["ok"] is not None]
    out = sum(1 for r in checked if not r["ok"] and not r["explained"])
    explained = sum(1 for r in checked if not r["ok"] and r["explained"])
    lines.append("")
    summary = f"{len(checked) - out - explained} of {len(checked)} checked figures within tolerance"
    summary += f"; {explained} out with an explanation" if explained else ""
    summary += f"; {out} out" if out else ""
    lines.append(summary)
    lines += [f"[{i}] {note}" for i, note in enumerate(notes, start=1)]
    return "\n".join(lines)


@click.command("reproduce")
@click.argument("target", required=False, default=str(shipped.FOLDER))
@click.option("--check", is_flag=True,
              help="Exit 1 when a checked figure is out of tolerance without an explanation in its scenario.")
@format_option("json")
@handle_errors
def command(target: str, check: bool, fmt: str) -> None:
    """Run every scenario in TARGET (a file or directory; default: the shipped scenarios) that
    carries published figures and print published against simulated."""
    scenarios = with_published(scenario_files(target))
    if not scenarios:
        raise ScenarioError(target, "", "no scenario here publishes figures")
    rows = comparisons(scenarios, run_all(scenarios))
    click.echo(json.dumps(rows, indent=2) if fmt == "json" else table(rows))
    if check and any(r["ok"] is False and not r["explained"] for r in rows):
        sys.exit(1)
