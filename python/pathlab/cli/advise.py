"""`pathlab advise SCENARIO`: what is wrong with the host's multipathing, what to change, the
commands to paste, and what the change gains, predicted on the host's own scenario."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import click

from pathlab import advise
from pathlab.api import Scenario
from pathlab.cli.common import format_option, handle_errors, load, resolve, run_all, set_option, writable_output
from pathlab.cli.report import html_option, provenance, write
from pathlab.toml_values import to_toml


def _cell(figure: tuple[float, float], digits: int) -> str:
    mean, hw = figure
    return f"{mean:,.{digits}f} ± {hw:,.{digits}f}"


def text(findings: list[advise.Finding], ranked: list[advise.Ranked], seeds: int) -> str:
    lines = ["Findings (the setting in force):"]
    lines += [f"  - {f.title}\n      {f.evidence}" for f in findings] or ["  (nothing stands out)"]
    lines += ["", f"Candidates, simulated on this host on the same I/Os over {seeds} seeds (mean ± 95% interval):"]
    head = f"  {'setting':<28} {'I/O per s':>22} {'mean ms':>16} {'p99 ms':>16} {'gain':>6}"
    lines.append(head)
    for r in ranked:
        f = r.figures
        lines.append(f"  {r.candidate.label:<28} {_cell(f['iops'], 0):>22} {_cell(f['resp_ms'], 3):>16} "
                     f"{_cell(f['p99_ms'], 3):>16} {r.gain:>5.2f}x")
    best = next((r for r in ranked if r.candidate.commands or r.candidate.label == "the setting in force"), ranked[0])
    lines += ["", f"Recommendation: {best.candidate.label} (predicted {best.gain:.2f}x the I/O rate in force)"]
    if best.candidate.commands:
        lines += ["  Commands:"] + [f"    {c}" for c in best.candidate.commands]
    if best.candidate.caveat:
        lines.append(f"  Note: {best.candidate.caveat}")
    lines.append("  The prediction assumes the scenario's workload and hardware figures; see its comments.")
    return "\n".join(lines)


def _scenario(files: tuple[str, ...], variant: str | None, sets: tuple[str, ...]) -> tuple[Scenario, list[advise.Finding]]:
    """A scenario file (or a shipped scenario's name), or the host the captures describe (files,
    a folder of them, or a shipped capture's name) with what the captures show."""
    from pathlab import shipped

    captured = shipped.capture_files(files[0]) if len(files) == 1 else None
    if len(files) == 1 and captured is None and (files[0].endswith(".toml") or not Path(files[0]).is_file()):
        return load(files[0], variant, sets), []
    from pathlab.cli.import_host import imported_scenario

    imported, _ = imported_scenario(tuple(captured) if captured else files)
    return Scenario.from_text(imported.text, "imported-host.toml", variant=variant, set=list(sets)), imported.findings


@click.command("advise")
@click.argument("files", nargs=-1, required=True)
@click.option("--variant", help="Advise on one of the file's named variants (the setting in force).")
@set_option
@click.option("--seeds", type=click.IntRange(2, 100), default=3, show_default=True, help="Replications per candidate.")
@click.option("--duration", default="20s", show_default=True, help="Simulated measurement per run.")
@click.option("--warmup", default="5s", show_default=True, help="Simulated warm-up per run.")
@format_option("json")
@html_option
@handle_errors
def command(files: tuple[str, ...], variant: str | None, sets: tuple[str, ...], seeds: int, duration: str, warmup: str,
            fmt: str, html: str | None) -> None:
    """Diagnose a host, simulate each candidate setting on it and rank them. FILES is a scenario
    (or a shipped scenario's name), or what the host prints: `esxcli storage nmp device list`,
    `esxcli storage nmp path list` (or `core path list`) and an `esxtop -b` capture, imported as
    `pathlab import` does."""
    writable_output(html, "--html", inputs=[resolve(f) for f in files])
    length = {"run.duration": duration, "run.warmup": warmup}
    scenario, captured = _scenario(files, variant, (*sets, *(f"{k}={to_toml(v)}" for k, v in length.items())))
    (in_force,) = run_all([scenario])
    found = captured + advise.findings(in_force.data) + advise.practice_findings(scenario, in_force.data)
    ranked = advise.rank(scenario, advise.candidates(scenario, in_force.data), seeds, length)
    if html:
        from pathlab.report import advise_report

        write(html, advise_report(f"pathlab advise: {', '.join(files)}", found, ranked, seeds, scenario.text,
                                  provenance(", ".join(files))))
    if fmt == "json":
        out = {
            "findings": [asdict(f) for f in found],
            "candidates": [{**asdict(r.candidate), "figures": r.figures, "gain": r.gain} for r in ranked],
        }
        click.echo(json.dumps(out, indent=2))
    else:
        click.echo(text(found, ranked, seeds))
