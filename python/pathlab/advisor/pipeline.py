"""Advice on a host from start to end, as `pathlab.advise` and `pathlab advise` give it: the
host's scenario (a scenario file, or the host its captures describe), its findings, the run length
a pilot run chooses, every candidate simulated over seeds (at the ends of the assumptions' spans
too) and the decision."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, overload

from pathlab import host_views
from pathlab._core import parse_duration_ns
from pathlab.advisor import alike, candidate, end_pilots, own_pilot, run_length
from pathlab.advisor.advice import Advice, advice_of
from pathlab.advisor.candidates import Candidate, candidates
from pathlab.advisor.capture_check import CaptureCheck, fit_to_capture, with_fitted
from pathlab.advisor.cluster_failures import cluster_failures
from pathlab.advisor.cluster_pipeline import advise_cluster, captured_of, undetermined_of
from pathlab.advisor.collector import given_frozen
from pathlab.advisor.decide import OBJECTIVES, decide, order
from pathlab.advisor.failure_advice import FailureAdvice
from pathlab.advisor.failure_pipeline import advise_failures
from pathlab.advisor.findings import findings, practice_findings, printed_configs
from pathlab.advisor.free_heap import free_heap
from pathlab.advisor.ranges import AtEnd, Span, end_labels, gain_ranges, span_ends
from pathlab.advisor.rank import rank_together
from pathlab.advisor.run_length import RunLength
from pathlab.advisor.timer_findings import timer_findings
from pathlab.api import Scenario, ScenarioError, _overrides
from pathlab.devices import Device
from pathlab.finding import Finding
from pathlab.importer.cluster import Cluster
from pathlab.importer.host import Host, import_host
from pathlab.importer.imported import Undetermined
from pathlab.importer.timer_values import TimerValue
from pathlab.loading import load
from pathlab.progress import Progress, run_batch
from pathlab.study.executor import LOCAL, Executor
from pathlab.toml_values import to_toml

#: What advise takes: a host or a cluster imported already, a scenario, a scenario file or shipped scenario's
#: name, a shipped capture's name, a capture folder, or a host's capture files.
Subject = Host | Cluster | Scenario | str | os.PathLike[str] | Sequence[str | os.PathLike[str]]

#: The longest simulated measurement `duration="auto"` chooses (the fixed length before session 8).
FULL_DURATION = "20s"
#: The keys advise sets itself on every run: a user's value would be replaced without a word.
RUN_LENGTH_KEYS = ("run", "run.duration", "run.warmup")
MOST_SEEDS = 100


@overload
def advise(subject: Subject, *, objective: str = ..., seeds: int = ..., duration: str = ..., warmup: str = ...,
           variant: str | None = ..., set: Mapping[str, Any] | Iterable[str] | None = ...,  # noqa: A002
           progress: Progress | None = ..., host: str | None = ..., failures: None = ..., executor: Executor = ...) -> Advice: ...


@overload
def advise(subject: Subject, *, objective: str = ..., seeds: int = ..., duration: str = ..., warmup: str = ...,
           variant: str | None = ..., set: Mapping[str, Any] | Iterable[str] | None = ...,  # noqa: A002
           progress: Progress | None = ..., host: str | None = ..., failures: str | Literal[True],
           executor: Executor = ...) -> FailureAdvice: ...


def advise(subject: Subject, *, objective: str = "balanced", seeds: int = 3, duration: str = "auto",
           warmup: str = "5s", variant: str | None = None,
           set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002 - mirrors --set
           progress: Progress | None = None, host: str | None = None,
           failures: str | bool | None = None, executor: Executor = LOCAL) -> Advice | FailureAdvice:
    """Diagnoses a host, simulates each candidate setting on it over up to `seeds` seeds on the
    same I/Os, and decides by `objective` (balanced, throughput or latency) whether to change.
    `duration`: each run's simulated measurement, or "auto" (as long as the host's rates and its
    policy's rotation need, at most 20 s); `warmup`: the warm-up (with "auto", at most this).
    `variant` and `set` as `Scenario.load` takes them (not the run length, which advise sets).
    A cluster (an `import_cluster` result, or a scenario whose hosts share a LUN) is simulated
    whole, every candidate on every host at once (`cluster_pipeline`); `host` narrows the advice
    to one of its hosts without simulating it alone. `executor`: where the candidates' runs go
    (this machine's cores, or Ray's `Executor("ray", address)`: the same figures).
    `failures` ("all", or failure kinds separated by commas; True: all) advises on the failure
    timers instead (`failure_pipeline`, on this machine): the host's failure kinds under the timers
    in force and each candidate, ranked by `objective`, a `FailureAdvice`; a cluster's on every host
    at once, one set of timers on every host, with each host's and site's figures.
    Bad input raises `ScenarioError`; assumed values and doubtful settings warn (`PathlabWarning`)."""
    _check(objective, seeds, duration, warmup)
    given = [f"{k}={v}" for k, v in _overrides(set)]
    if refused := run_length_sets(given):
        raise ScenarioError("set", refused[0], "advise chooses the run length: give duration and warmup instead")
    auto = duration == "auto"
    length = {"run.duration": FULL_DURATION if auto else duration, "run.warmup": warmup}
    sets = [*given, *(f"{k}={to_toml(v)}" for k, v in length.items())]
    name = _subject_name(subject)
    failing = failures is not None and failures is not False
    if failing:
        sets.append("faults=[]")  # each failure kind is run alone, in place of the scenario's own faults
    if isinstance(subject, Cluster):
        # The cluster (millions of objects) lives to the advice's end: left out of the collector's passes (`collector`).
        with given_frozen():
            said = progress or Progress()
            said.stage("the cluster's scenario from its tables")
            # The tables a run reads (`HostTables.values`), every run's load made from them; the failure
            # timers read a device's listing (its NVMe subsystem), so their advice keeps it.
            scenario = Scenario.from_values(subject.tables.values(listed=failing), subject.text, subject.file,
                                            variant=variant, set=sets)
            if failing:
                return cluster_failures(scenario, name, subject.hosts, "all" if failures is True else str(failures),
                                        objective, seeds, host, progress)
            assumed = list(dict.fromkeys([*subject.assumptions,  # hosts assume alike: said once
                                          *(a for h in subject.hosts.values() for a in h.assumptions)]))
            host_views.check(list(subject.hosts), host, name)  # before anything runs
            # Every host's captured load must be reproduced, the hosts together, before a gain is predicted against it.
            said.stage("the capture fit")
            measured = all(h.measured_load for h in subject.hosts.values())
            full = _given_length(scenario, length["run.duration"], warmup, auto)
            # The fitted cluster's own pilot on a second thread beside the fit, for the values it expects (`own_pilot`).
            with own_pilot.ahead(scenario, full, undetermined_of(subject.hosts)) as ahead:
                check = fit_to_capture(scenario, subject.tables, captured_of(subject.hosts), progress,
                                       ahead.start if auto and not scenario.timeline else None) if measured else None
                free_heap()  # the fitting runs' freed memory, resident under every later step's peak otherwise
                if check is not None and check.agrees:
                    # Loaded to be run (`with_set`'s `to_run`): the fit's last run built these values' model.
                    scenario = ahead.fitted_for(check.overrides) or scenario.with_set(check.overrides, to_run=True)
                else:  # no pilot taken: the advice is the listings' and the fit's alone
                    ahead.stop()
                # The assumed values that move a gain, spanned as for one host: the cluster at their ends beside it.
                said.stage("the cluster at its spans' ends")
                spans, at_ends = span_ends(scenario, subject.tables) if check is None or check.agrees else ([], [])
                return _cluster(scenario, name, objective, seeds, length["run.duration"], warmup, auto, host, progress,
                                subject.hosts, with_fitted(assumed, check), check, spans, at_ends, executor, ahead)
    scenario, captured, imported = _scenario(subject, variant, sets, listed=failing)
    if failing:
        return _failures(scenario, name, imported, "all" if failures is True else str(failures), objective, seeds,
                         host, progress)
    if imported is None and (host is not None or _shared_luns(scenario.devices)):
        return _cluster(scenario, name, objective, seeds, length["run.duration"], warmup, auto, host, progress,
                        executor=executor)
    if host is not None:  # an imported host's own name
        host_views.check(list(dict.fromkeys(d.host for d in scenario.devices)), host, name)
    read = imported
    # The setting in force must reproduce the captured rates and responses before a gain is predicted against it.
    capture_check = fit_to_capture(scenario, read.tables, read.captured, progress) \
        if read is not None and read.measured_load else None
    assumptions = with_fitted(read.assumptions, capture_check) if read else []
    if capture_check is not None and not capture_check.agrees:
        found = captured + practice_findings(scenario.devices, undetermined=read.undetermined if read else ()) \
            + (timer_findings(read.stack, read.timers, scenario.devices) if read else [])
        return advice_of(name, scenario, objective, found, [], None, assumptions, capture_check=capture_check)
    if capture_check is not None:
        scenario = scenario.with_set(capture_check.overrides)
    if read is not None and not read.measured_load:
        # No counters: findings and vendor practice from the listings alone, and no simulated gain.
        found = captured + practice_findings(scenario.devices, undetermined=read.undetermined) \
            + timer_findings(read.stack, read.timers, scenario.devices)
        return advice_of(name, scenario, objective, found, [], None, read.assumptions, unmeasured_stack=read.stack)
    # An imported host's assumed port capacity and load span a range of gains; a scenario file is the user's own.
    # The host at the spans' ends is ranked in the same batches as the host itself.
    spans, at_ends = span_ends(scenario, read.tables) if read else ([], [])
    labels = end_labels(spans)
    fixed = _given_length(scenario, length["run.duration"], warmup, auto)
    chosen, cands, resolved = [fixed] * (1 + len(at_ends)), None, None
    if auto and not scenario.timeline:
        chosen, cands, resolved = auto_lengths(scenario, at_ends, fixed, progress, read.undetermined if read else ())
        scenario = scenario.with_set(chosen[0].overrides(resolved[0]))
        at_ends = [end.on(scenario) for end in at_ends]
        differing = [(f"at {end}: ", c) for end, c in zip(labels, chosen[1:]) if not c.same_runs(chosen[0])]
        for at, c in [("", chosen[0]), *differing]:
            (progress or Progress()).note(_length_note(at, c))
    (in_force,) = run_batch([scenario], progress, path_intervals=False)  # the findings read no path's intervals
    found = captured + findings(in_force) + practice_findings(in_force.setups, printed_configs(in_force),
                                                                     read.undetermined if read else ())
    found += timer_findings(read.stack, read.timers, in_force.setups) if read else []
    cands = cands or candidates(scenario, in_force, read.undetermined if read else ())
    lengths = [[c.overrides(devices) for devices in resolved] if resolved else [c.overrides()] * len(cands)
               for c in chosen]
    ranked, *ranked_at_ends = rank_together([scenario, *at_ends], cands, seeds, lengths, in_force, resolved,
                                               executor=executor)
    ranges = gain_ranges(spans, ranked, ranked_at_ends)
    return advice_of(name, scenario, objective, found, order(ranked, objective), decide(ranked, objective),
                     assumptions, ranges, chosen[0], list(zip(labels, chosen[1:])), capture_check=capture_check,
                     devices=resolved[0] if resolved else None)


def _failures(scenario: Scenario, name: str, imported: Host | None, kinds: str, objective: str, seeds: int,
              host: str | None, progress: Progress | None) -> FailureAdvice:
    """advise on the failure timers (`failure_pipeline`), with an imported host's timers as read
    and its timer findings."""
    host_views.check(list(dict.fromkeys(d.host for d in scenario.devices)), host, name)
    timers: tuple[TimerValue, ...] = ()
    found: list[Finding] = []
    notes: list[str] = []
    if imported is not None:
        timers, found = imported.timers, timer_findings(imported.stack, imported.timers, scenario.devices)
        if not imported.measured_load:
            notes.append("the captures hold no I/O counters: the load is assumed (the import says how), so the stalls "
                         "and failed I/Os hold while the rates are the assumed load's")
    return advise_failures(scenario, name, kinds, objective, seeds, timers, found, notes, progress, shown_host=host)


def run_length_sets(sets: Sequence[str]) -> list[str]:
    """The `key=value` overrides that set the run length, which advise sets itself."""
    return [s for s in sets if s.split("=", 1)[0].strip() in RUN_LENGTH_KEYS]


def _check(objective: str, seeds: int, duration: str, warmup: str) -> None:
    if objective not in OBJECTIVES:
        raise ScenarioError("advise", "objective", f"{objective!r}: allowed {', '.join(OBJECTIVES)}")
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 2 <= seeds <= MOST_SEEDS:
        raise ScenarioError("advise", "seeds", f"{seeds!r}: a whole number from 2 to {MOST_SEEDS}")
    for name, value in (("duration", duration), ("warmup", warmup)):
        if name == "duration" and value == "auto":
            continue
        try:
            parse_duration_ns(value)
        except (ValueError, TypeError) as e:
            raise ScenarioError("advise", name, f"{value!r}: {e}") from None


def _subject_name(subject: Subject) -> str:
    """The subject as the outputs name it: the files, capture or scenario as given."""
    if isinstance(subject, Host):
        return ", ".join(subject.files)
    if isinstance(subject, Cluster):
        return ", ".join(f"{name}={','.join(h.files)}" for name, h in subject.hosts.items())
    if isinstance(subject, Scenario):
        return subject.file
    if isinstance(subject, (str, os.PathLike)):
        return str(subject)
    return ", ".join(str(s) for s in subject)


def _scenario(subject: Host | Scenario | str | os.PathLike[str] | Sequence[str | os.PathLike[str]], variant: str | None,
              sets: list[str], listed: bool = True) -> tuple[Scenario, list[Finding], Host | None]:
    """The host's scenario with the variant and overrides, what its captures show, and the
    imported host (None for a scenario of the user's own); an imported host's without its listings
    unless `listed` (`HostTables.values`: the failure timers read them, no run does)."""
    if isinstance(subject, Scenario):
        scenario = Scenario.from_text(subject.text, subject.file, variant or subject.variant,
                                      [*(f"{k}={v}" for k, v in subject.overrides), *sets], subject.seed)
        return scenario, [], None
    if isinstance(subject, Host):
        host = subject
    else:
        files = [str(subject)] if isinstance(subject, (str, os.PathLike)) else [str(s) for s in subject]
        if not files:
            raise ScenarioError("advise", "subject", "nothing to advise on: give a scenario or a host's captures")
        from pathlab import shipped

        if len(files) == 1 and shipped.capture_files(files[0]) is None and \
                (files[0].endswith(".toml") or not Path(files[0]).exists()):
            return load(files[0], variant, sets), [], None
        host = import_host(*files)
    scenario = Scenario.from_values(host.tables.values(listed), host.text, host.file, variant=variant, set=sets)
    return scenario, list(host.findings), host


def _shared_luns(devices: list[Device]) -> bool:
    """Whether several hosts of the scenario have one LUN (its name on each): a cluster, advised
    whole (`cluster_pipeline`)."""
    seen: dict[str, str] = {}
    return any(seen.setdefault(d.name, d.host) != d.host for d in devices)


def _cluster(scenario: Scenario, name: str, objective: str, seeds: int, duration: str, warmup: str, auto: bool,
             host: str | None, progress: Progress | None, imported: Mapping[str, Host] | None = None,
             assumptions: Sequence[tuple[str, str]] = (), capture_check: CaptureCheck | None = None,
             spans: Sequence[Span] = (), at_ends: Sequence[AtEnd] = (), executor: Executor = LOCAL,
             ahead: own_pilot.Ahead | None = None) -> Advice:
    """A cluster's advice (`cluster_pipeline`), its run length chosen as one host's is, from a
    pilot of the whole cluster and of the cluster at its spans' ends (devices keyed `HOST/NAME`
    where hosts share a LUN; devices of two hosts are never alike: their paths start at different hosts);
    `ahead`: the cluster's own pilot, taken during the capture fit where the fit ended as expected."""
    if host is not None:  # the devices' hosts only where a host is to be checked: resolving them builds the cluster
        host_views.check(list(dict.fromkeys(d.host for d in scenario.devices)), host, name)
    length = _given_length(scenario, duration, warmup, auto)
    measured = (imported is None or all(h.measured_load for h in imported.values())) and \
        (capture_check is None or capture_check.agrees)
    if auto and not scenario.timeline and measured:
        said = progress or Progress()
        said.stage("the pilot runs")
        # The ends' pilots on a second thread, beside the cluster's own and its setting in force's run (`end_pilots`).
        with end_pilots.started(at_ends, length) as ends:
            (length,), cands, resolved = auto_lengths(scenario, [], length, progress, undetermined_of(imported),
                                                      per_host=True, candidates_known=ends.given,
                                                      own=ahead.pilot_for(scenario, length) if ahead else None)
            # Loaded to be run: its run (the setting in force's) builds its model, with the load's checks.
            scenario = scenario.with_set(length.overrides(resolved[0]), to_run=True)
            said.note(_length_note("", length))

            def ends_measured() -> list[tuple[AtEnd, RunLength]]:
                """Each end with its length, once its pilot is done: said where it differs from the cluster's."""
                lengths = ends.lengths()
                for end, n in zip(end_labels(list(spans)), lengths):
                    if not n.same_runs(length):
                        said.note(_length_note(f"at {end}: ", n))
                return [(end.on(scenario), n) for end, n in zip(at_ends, lengths)]

            return advise_cluster(scenario, name, objective, seeds, length, imported, assumptions, host, progress,
                                  (cands, resolved), capture_check, spans, ends_measured, executor)
    return advise_cluster(scenario, name, objective, seeds, length, imported, assumptions, host, progress, None,
                          capture_check, spans, [(end, length) for end in at_ends], executor)


def _length_note(at: str, n: RunLength) -> str:
    return f"{at}runs of {n.duration_s:g} s after {n.warmup_s:g} s of warm-up ({n.reason})"


def auto_lengths(scenario: Scenario, at_ends: Sequence[AtEnd], full: RunLength, progress: Progress | None = None,
                 undetermined: Sequence[Undetermined] = (), per_host: bool = False,
                 candidates_known: Callable[[list[Candidate], list[list[Device]]], None] | None = None,
                 own: own_pilot.Pilot | None = None) -> tuple[list[RunLength], list[Candidate], list[list[Device]]]:
    """Each scenario's run length (the host, and the host at its spans' ends: a slower port may
    saturate and change the rates and the counting the length comes from), from a pilot run of the
    setting in force on each (`run_length.choose`, for the policies of every candidate; at an end,
    of those simulated there; `per_host` for a cluster's); the candidates, from the host's pilot,
    with their devices on the host, resolved once (and given to `candidates_known` as soon as they
    are: a cluster's ends' pilots wait for them, `end_pilots`); `own`: a cluster's own pilot of
    `scenario` taken already (`own_pilot.Ahead`)."""
    if per_host:
        # A cluster's pilots one at a time, each loaded as it runs and its whole result let go once its length
        # is read (32 hosts × 500 devices × 8 paths: about 700 MiB a result, its 128,000 path rows; four at once
        # peaked at 5.5 GiB), the freed memory back to the system before the next (`free_heap`).
        if own is not None and candidates_known is not None:
            candidates_known(own[1], own[2])
        length, cands, resolved = own or own_pilot.pilot_of(scenario, full, progress, undetermined, per_host,
                                                             candidates_known)
        free_heap()
        chosen = [length]
        at_an_end = candidate.devices_at_ends(cands, resolved)
        for end in at_ends:
            pilot, m = run_length.pilot_run(end, progress)
            chosen.append(run_length.choose(m, full.duration_s, full.warmup_s, alike.classes(pilot, m), at_an_end,
                                            per_host))
            del m
            free_heap()
        return chosen, cands, resolved
    # A host's pilots together, each loaded to be run at once: its model is built by its run, which makes the
    # load's checks.
    bases: list[Scenario | AtEnd] = [scenario, *at_ends]
    pilots = [b.with_set(run_length.pilot_length(), to_run=True) for b in bases]
    runs = run_batch(pilots, progress, path_intervals=False)  # the length reads the devices', paths' and ports'
    cands, resolved = own_pilot.resolved_candidates(scenario, runs[0], undetermined)
    if candidates_known is not None:
        candidates_known(cands, resolved)
    # The host's length for every candidate, an end's for those simulated there.
    simulated = [resolved, *[candidate.devices_at_ends(cands, resolved)] * len(at_ends)]
    chosen = [run_length.choose(m, full.duration_s, full.warmup_s, alike.classes(p, m), devices, per_host)
              for p, m, devices in zip(pilots, runs, simulated, strict=True)]
    return chosen, cands, resolved


def _given_length(scenario: Scenario, duration: str, warmup: str, auto: bool) -> RunLength:
    """The length every run takes when advise does not choose it: the one given, or the full one
    on a scenario with events on its timeline."""
    reason = f"the full length: the scenario's {' and '.join(scenario.timeline)} are placed on its timeline" \
        if auto else "as given with --duration"
    return RunLength(parse_duration_ns(duration) / 1e9, parse_duration_ns(warmup) / 1e9, reason)
