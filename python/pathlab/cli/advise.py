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
from pathlab.advise.ranges import end_labels, gain_ranges, span_ends
from pathlab.advise.rank import rank_together
from pathlab.advise.run_length import RunLength
from pathlab.api import Scenario
from pathlab.cli.common import BadInput, force_option, handle_errors, load, resolve, run_all, set_option, writable_output
from pathlab.devices import Device
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
        scenario = load(files[0], variant, sets)
        _refuse_names_hosts_share(scenario.devices, files[0])
        return scenario, [], None
    from pathlab.importer import imported_name, imported_scenario

    imported, _ = imported_scenario(tuple(captured) if captured else files)
    scenario = Scenario.from_text(imported.text, imported_name(files), variant=variant, set=list(sets))
    return scenario, imported.findings, imported


def _refuse_names_hosts_share(devices: list[Device], file: str) -> None:
    """Advise keys its findings, run lengths and candidates by device name: a LUN several hosts of
    the scenario share (its NAA on each) would be taken for one device."""
    hosts_of: dict[str, list[str]] = {}
    for d in devices:
        hosts_of.setdefault(d.name, []).append(d.host)
    for name, hosts in hosts_of.items():
        if len(hosts) > 1:
            raise BadInput(f"{file}: devices: {name!r} is a device of hosts {' and '.join(hosts)}: advise reads one "
                           "host's devices by name; advise each host's scenario apart")


#: The longest simulated measurement `--duration auto` chooses (the fixed length before session 8).
FULL_DURATION = "20s"


def _auto_lengths(scenarios: list[Scenario], full: RunLength) -> tuple[list[RunLength], list[Candidate], list[list[Device]]]:
    """Each scenario's run length (the host, and the host at its spans' ends: a slower port may
    saturate and change the rates and the counting the length comes from), from a pilot run of the
    setting in force on each (`run_length.choose`, for the policies of every candidate); the
    candidates, from the host's pilot, with their devices on the host, resolved once."""
    pilots = [s.with_set(run_length.pilot_length()) for s in scenarios]
    measured = run_all(pilots, path_intervals=False)  # the length reads the devices' and ports' figures
    cands = candidates(scenarios[0], measured[0])
    # A candidate's policies are the same at every end (an end sets a port's service, an array's latency or a load).
    resolved = [measured[0].setups] + [scenarios[0].with_set(c.overrides).devices for c in cands[1:]]
    chosen = [run_length.choose(m, full.duration_s, full.warmup_s, alike.classes(p, m), resolved)
              for p, m in zip(pilots, measured)]
    return chosen, cands, resolved


def _given_length(scenario: Scenario, duration: str, warmup: str, auto: bool) -> RunLength:
    """The length every run takes when advise does not choose it: the one given, or the full one
    on a scenario with events on its timeline."""
    reason = f"the full length: the scenario's {' and '.join(scenario.timeline)} are placed on its timeline" \
        if auto else "as given with --duration"
    return RunLength(parse_duration_ns(duration) / 1e9, parse_duration_ns(warmup) / 1e9, reason)


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
@force_option
@handle_errors
def command(files: tuple[str, ...], variant: str | None, sets: tuple[str, ...], seeds: int, duration: str, warmup: str,
            objective: str, fmt: str, html: str | None, force: bool) -> None:
    """Diagnose a host, simulate each candidate setting on it and rank them. FILES is a scenario
    (or a shipped scenario's name), or what the host prints: `esxcli storage nmp device list`,
    `esxcli storage nmp path list` (or `core path list`) and an `esxtop -b` capture, imported as
    `pathlab import` does."""
    writable_output(html, "--html", [resolve(f) for f in files], force)
    for given in sets:
        if given.split("=", 1)[0].strip() in ("run", "run.duration", "run.warmup"):
            # advise sets every run's length itself: such a --set would be replaced without a word
            raise click.BadParameter(f"{given!r}: advise chooses the run length; give --duration and --warmup instead",
                                     param_hint="--set")
    auto = duration == "auto"
    length = {"run.duration": FULL_DURATION if auto else duration, "run.warmup": warmup}
    scenario, captured, imported = _scenario(files, variant, (*sets, *(f"{k}={to_toml(v)}" for k, v in length.items())))
    subject = ", ".join(files)
    if imported is not None and not imported.measured_load:
        # No counters: findings and vendor practice from the listings alone, and no simulated gain.
        found = captured + practice_findings(scenario.devices)
        emit(Advice(subject, found, [], scenario.text, objective=objective,
                    assumptions=imported.warnings, unmeasured_stack=imported.stack), fmt, html, subject)
        return
    # An imported host's assumed port capacity and load span a range of gains; a scenario file is the user's own.
    # The host at the spans' ends is ranked in the same batches as the host itself.
    spans, at_ends = span_ends(scenario) if imported else ([], [])
    labels = end_labels(spans)
    fixed = _given_length(scenario, length["run.duration"], warmup, auto)
    chosen, cands, resolved = [fixed] * (1 + len(at_ends)), None, None
    if auto and not scenario.timeline:
        chosen, cands, resolved = _auto_lengths([scenario, *at_ends], fixed)
        scenario = scenario.with_set(chosen[0].overrides(resolved[0]))
        differing = [(f"at {end}: ", c) for end, c in zip(labels, chosen[1:]) if c != chosen[0]]
        for at, c in [("", chosen[0]), *differing]:
            click.echo(f"pathlab advise: {at}runs of {c.duration_s:g} s after {c.warmup_s:g} s of warm-up ({c.reason})",
                       err=True)
    (in_force,) = run_all([scenario], path_intervals=False)  # the findings read no path's intervals
    found = captured + findings(in_force) + practice_findings(in_force.setups, printed_configs(in_force))
    cands = cands or candidates(scenario, in_force)
    lengths = [[c.overrides(devices) for devices in resolved] if resolved else [c.overrides()] * len(cands)
               for c in chosen]
    ranked, *ranked_at_ends = rank_together([scenario, *at_ends], cands, seeds, lengths, in_force, resolved)
    ranges = gain_ranges(spans, ranked, ranked_at_ends)
    emit(Advice(subject, found, order(ranked, objective), scenario.text, decide(ranked, objective), objective,
                imported.warnings if imported else [], ranges=ranges, run_length=chosen[0],
                run_lengths_at_ends=list(zip(labels, chosen[1:]))), fmt, html, subject)
