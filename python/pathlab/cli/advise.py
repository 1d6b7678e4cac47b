"""`pathlab advise SCENARIO`: what is wrong with the host's multipathing, what to change, the
commands to paste, and what the change gains, predicted on the host's own scenario."""

from __future__ import annotations

from pathlib import Path

import click

from pathlab.advise.candidates import candidates
from pathlab.advise.decide import MARGIN, OBJECTIVES, decide, order
from pathlab.advise.findings import findings, practice_findings, printed_configs
from pathlab.advise.ranges import gain_ranges
from pathlab.advise.rank import rank
from pathlab.api import Scenario
from pathlab.cli.common import handle_errors, load, resolve, run_all, set_option, writable_output
from pathlab.finding import Finding
from pathlab.importer import Imported
from pathlab.output.advice import Advice
from pathlab.output.sink import emit, format_option, html_option
from pathlab.toml_values import to_toml


def _scenario(files: tuple[str, ...], variant: str | None,
              sets: tuple[str, ...]) -> tuple[Scenario, list[Finding], Imported | None]:
    """A scenario file (or a shipped scenario's name), or the host the captures describe (files,
    a folder of them, or a shipped capture's name) with what the captures show and the import."""
    from pathlab import shipped

    captured = shipped.capture_files(files[0]) if len(files) == 1 else None
    if len(files) == 1 and captured is None and (files[0].endswith(".toml") or not Path(files[0]).exists()):
        return load(files[0], variant, sets), [], None
    from pathlab.importer import imported_name, imported_scenario

    imported, _ = imported_scenario(tuple(captured) if captured else files)
    scenario = Scenario.from_text(imported.text, imported_name(files), variant=variant, set=list(sets))
    return scenario, imported.findings, imported


@click.command("advise")
@click.argument("files", nargs=-1, required=True)
@click.option("--variant", help="Advise on one of the file's named variants (the setting in force).")
@set_option
@click.option("--seeds", type=click.IntRange(2, 100), default=3, show_default=True, help="Replications per candidate.")
@click.option("--duration", default="20s", show_default=True, help="Simulated measurement per run.")
@click.option("--warmup", default="5s", show_default=True, help="Simulated warm-up per run.")
@click.option("--objective", type=click.Choice(OBJECTIVES), default="balanced", show_default=True,
              help="What a change must improve: the I/O rate, the p99 response, or either without a clear loss on "
                   f"the other (by {MARGIN:.0%}, beyond the 95% intervals).")
@format_option(Advice)
@html_option
@handle_errors
def command(files: tuple[str, ...], variant: str | None, sets: tuple[str, ...], seeds: int, duration: str, warmup: str,
            objective: str, fmt: str, html: str | None) -> None:
    """Diagnose a host, simulate each candidate setting on it and rank them. FILES is a scenario
    (or a shipped scenario's name), or what the host prints: `esxcli storage nmp device list`,
    `esxcli storage nmp path list` (or `core path list`) and an `esxtop -b` capture, imported as
    `pathlab import` does."""
    writable_output(html, "--html", inputs=[resolve(f) for f in files])
    length = {"run.duration": duration, "run.warmup": warmup}
    scenario, captured, imported = _scenario(files, variant, (*sets, *(f"{k}={to_toml(v)}" for k, v in length.items())))
    subject = ", ".join(files)
    if imported is not None and not imported.measured_load:
        # No counters: findings and vendor practice from the listings alone, and no simulated gain.
        found = captured + practice_findings(scenario.devices)
        emit(Advice(subject, found, [], seeds, scenario.text, objective=objective,
                    assumptions=imported.warnings, unmeasured_stack=imported.stack), fmt, html, subject)
        return
    (in_force,) = run_all([scenario])
    found = captured + findings(in_force) + practice_findings(in_force.setups, printed_configs(in_force))
    cands = candidates(scenario, in_force)
    ranked = rank(scenario, cands, seeds, length)
    # An imported host's assumed port capacity and load span a range of gains; a scenario file is the user's own.
    ranges = gain_ranges(scenario, cands, ranked, seeds, length) if imported else None
    emit(Advice(subject, found, order(ranked, objective), seeds, scenario.text, decide(ranked, objective), objective,
                imported.warnings if imported else [], ranges=ranges), fmt, html, subject)
