"""`pathlab advise SCENARIO`: what is wrong with the host's multipathing, what to change, the
commands to paste, and what the change gains, predicted on the host's own scenario."""

from __future__ import annotations

from pathlib import Path

import click

from pathlab._core import parse_duration_ns
from pathlab.advise import alike, run_length
from pathlab.advise.candidates import Candidate, candidates
from pathlab.advise.decide import MARGIN, OBJECTIVES, decide, order
from pathlab.advise.findings import findings, practice_findings, printed_configs
from pathlab.advise.ranges import gain_ranges, span_ends
from pathlab.advise.rank import rank_together
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


#: The longest simulated measurement `--duration auto` chooses (the fixed length before session 8).
FULL_DURATION = "20s"


def _sets(length: dict[str, str]) -> list[str]:
    return [f"{k}={to_toml(v)}" for k, v in length.items()]


def _auto_length(scenario: Scenario, full: dict[str, str]) -> tuple[list[dict[str, str]], list[Candidate]]:
    """The candidates (from a pilot run of the setting in force) and each one's run length
    (`run_length.choose`: from the pilot's rates, for the policies of every candidate)."""
    sets = [f"{k}={v}" for k, v in scenario.overrides]
    pilot = Scenario.from_text(scenario.text, scenario.file, scenario.variant,
                               [*sets, *_sets(run_length.pilot_length())], scenario.seed)
    (measured,) = run_all([pilot])
    cands = candidates(scenario, measured)
    resolved = [measured.setups] + [
        Scenario.from_text(scenario.text, scenario.file, scenario.variant, sets + _sets(c.overrides)).devices
        for c in cands[1:]]
    chosen = run_length.choose(measured, parse_duration_ns(full["run.duration"]) / 1e9,
                               parse_duration_ns(full["run.warmup"]) / 1e9, alike.classes(pilot, measured), resolved)
    click.echo(f"pathlab advise: runs of {chosen.duration_s:g} s after {chosen.warmup_s:g} s of warm-up "
               f"({chosen.reason})", err=True)
    return [chosen.overrides(devices) for devices in resolved], cands


@click.command("advise")
@click.argument("files", nargs=-1, required=True)
@click.option("--variant", help="Advise on one of the file's named variants (the setting in force).")
@set_option
@click.option("--seeds", type=click.IntRange(2, 100), default=3, show_default=True,
              help="Replications per candidate, at most: 2, and more only while the intervals leave the decision open.")
@click.option("--duration", default="auto", show_default=True,
              help=f"Simulated measurement per run, or `auto`: as long as the host's rates and its policy's rotation "
                   f"need (a short pilot run measures them), at most {FULL_DURATION}; {FULL_DURATION} on a scenario "
                   "with scheduled faults or host pauses.")
@click.option("--warmup", default="5s", show_default=True,
              help="Simulated warm-up per run (with --duration auto: a quarter of the run, at most this).")
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
    for given in sets:
        if given.split("=", 1)[0].strip() in ("run", "run.duration", "run.warmup"):
            # advise sets every run's length itself: such a --set would be replaced without a word
            raise click.BadParameter(f"{given!r}: advise chooses the run length; give --duration and --warmup instead",
                                     param_hint="--set")
    auto = duration == "auto"
    length = {"run.duration": FULL_DURATION if auto else duration, "run.warmup": warmup}
    scenario, captured, imported = _scenario(files, variant, (*sets, *_sets(length)))
    subject = ", ".join(files)
    if imported is not None and not imported.measured_load:
        # No counters: findings and vendor practice from the listings alone, and no simulated gain.
        found = captured + practice_findings(scenario.devices)
        emit(Advice(subject, found, [], seeds, scenario.text, objective=objective,
                    assumptions=imported.warnings, unmeasured_stack=imported.stack), fmt, html, subject)
        return
    cands, lengths = None, None
    if auto and not run_length.has_timeline(scenario):
        lengths, cands = _auto_length(scenario, length)
        scenario = Scenario.from_text(scenario.text, scenario.file, scenario.variant,
                                      [*(f"{k}={v}" for k, v in scenario.overrides), *_sets(lengths[0])], scenario.seed)
    (in_force,) = run_all([scenario])
    found = captured + findings(in_force) + practice_findings(in_force.setups, printed_configs(in_force))
    cands = cands or candidates(scenario, in_force)
    lengths = lengths or [length] * len(cands)
    # An imported host's assumed port capacity and load span a range of gains; a scenario file is the user's own.
    # The host at the spans' ends is ranked in the same batches as the host itself.
    spans, at_ends = span_ends(scenario) if imported else ([], [])
    ranked, *ranked_at_ends = rank_together([scenario, *at_ends], cands, seeds, lengths, in_force)
    ranges = gain_ranges(spans, ranked, ranked_at_ends)
    emit(Advice(subject, found, order(ranked, objective), seeds, scenario.text, decide(ranked, objective), objective,
                imported.warnings if imported else [], ranges=ranges), fmt, html, subject)
