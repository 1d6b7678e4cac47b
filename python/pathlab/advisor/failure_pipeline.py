"""`advise --failures`: the host's failure kinds (`failure_kinds`) simulated under the timers in
force and each candidate (`timer_candidates`) on the same seeds, each run short: a second of
warm-up, the fault a second into the measurement, lasting past the longest stall any candidate's
timers predict (`failure_theory`), then a few seconds to come back. Predictions are made before
anything runs and printed beside what the runs measured."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from pathlab._core import parse_duration_ns
from pathlab.advisor.as_run import as_run
from pathlab.advisor.cluster_timers import check_alike, for_every_host, on_every_host
from pathlab.advisor.failure_advice import FailureAdvice, FailureRow, Measured, ranked
from pathlab.advisor.failure_kinds import FailureKind, chosen, transition_unknown
from pathlab.advisor.failure_places import Seen, latest_back, over_seeds, per_place
from pathlab.advisor.failure_theory import Prediction, predict
from pathlab.advisor.timer_candidates import TimerCandidate, candidates
from pathlab.api import Result, Scenario
from pathlab.finding import Finding
from pathlab.importer.timer_values import TimerValue
from pathlab.progress import Progress, run_batch

#: Warm-up, and where the fault starts (seconds from the run's start): a second measured before it.
WARMUP_S = 1.0
FAULT_AT_S = 2.0
#: The interval of the rate figures (back to full rate is read on it).
INTERVAL = "250ms"
#: A fault lasts past the longest predicted stall by this much, and at least `SHORTEST_OUTAGE_S`;
#: never beyond `LONGEST_OUTAGE_S` (a longer stall is measured as cut short by the paths' return).
PAST_STALL_S = 2.0
SHORTEST_OUTAGE_S = 5.0
LONGEST_OUTAGE_S = 40.0
#: How far below its prediction (beyond the grid's period) a run's longest wait is said to fall
#: short, or above it to exceed it.
SHORT_S = 0.5
#: Measured after the fault ends: the failback and the rate coming back.
AFTER_S = 3.0


def advise_failures(scenario: Scenario, name: str, given: str, objective: str, seeds: int,
                    timers: Sequence[TimerValue] = (), findings: Sequence[Finding] = (),
                    notes: Sequence[str] = (), progress: Progress | None = None,
                    hosts_timers: Mapping[str, Sequence[TimerValue]] | None = None,
                    shown_host: str | None = None) -> FailureAdvice:
    """The failure kinds `given` names ("all", or kinds by commas) under each timer candidate. A
    scenario of several hosts (a cluster) runs each failure on every host at once, with one set of
    timers on every host (`cluster_timers`; `hosts_timers`: each imported host's as read, `timers`
    the first's), and says what each host and site saw (`failure_places`); `shown_host` narrows
    that to one host and its site."""
    cluster = len(scenario.hosts) > 1
    if cluster:  # one set of timers on every host, each failure on the whole cluster
        check_alike(scenario, hosts_timers)
        scenario = on_every_host(scenario)
    tables = as_run(scenario)  # a variant's or --set's array values too (implicit_transition_time, anatt)
    chosen(scenario, tables, given, {})  # bad input refused before anything runs
    # The paths the host's listing shows failed stay failed (faults at 0 s); its other faults are not run.
    standing = [f for f in tables.get("faults", []) if _at_zero(f)]
    # Which path carries the I/O when the fault starts: its rate in the pilot's last interval before then.
    (pilot,) = run_batch([scenario.with_set({"faults": standing, "run.warmup": f"{WARMUP_S:g}s",
                                             "run.duration": f"{FAULT_AT_S - WARMUP_S:g}s", "run.interval": INTERVAL})],
                         progress, path_intervals=True)
    rows = pilot.data["path_intervals"]
    last = max((r["t_s"] for r in rows), default=0.0)
    kinds = chosen(scenario, tables, given, {r["name"]: r["cmds_s"] for r in rows if r["t_s"] == last})
    devices = scenario.devices
    stack = devices[0].stack
    lost_path = next((k.target for k in kinds if k.kind in ("path_hang", "link_down")), None)
    cands, said = candidates(scenario, [d for d in devices if d.host == scenario.hosts[0]], timers, lost_path)
    cands = [for_every_host(c, scenario) for c in cands] if cluster else cands
    say = progress or Progress()
    say.note(f"failures: {', '.join(k.kind for k in kinds)}; timers: {', '.join(c.label for c in cands)}; "
             f"{seeds} seeds each")
    windows, planned = [], []
    for kind in kinds:
        longest = max((p.seconds for c in cands if (p := _predict(stack, kind, c, math.inf)).seconds is not None
                       and math.isfinite(p.seconds)), default=0.0)
        outage = min(LONGEST_OUTAGE_S, max(SHORTEST_OUTAGE_S, longest + PAST_STALL_S))
        if kind.change_s is not None:  # the controller is back only after its partner's change ends
            outage = max(outage, kind.change_s + PAST_STALL_S)
        # a command lost with its path waits its own timeout past the paths' return: run past it
        lost = max((p.seconds for c in cands if (p := _predict(stack, kind, c, outage)).seconds is not None
                    and math.isfinite(p.seconds)), default=0.0)
        end = FAULT_AT_S + max(outage, lost) + AFTER_S
        windows.append((kind.kind, FAULT_AT_S, FAULT_AT_S + outage, end))
        planned.append((kind, outage, end))
    runs: list[Scenario] = []
    for c in cands:
        for kind, outage, end in planned:
            base = scenario.with_set({**c.overrides, "faults": [*standing, kind.at(FAULT_AT_S, FAULT_AT_S + outage)],
                                      "run.warmup": f"{WARMUP_S:g}s", "run.duration": f"{end - WARMUP_S:g}s",
                                      "run.interval": INTERVAL})
            runs += [base.with_seed(s) for s in range(1, seeds + 1)]
    results = run_batch(runs, say, path_intervals=False)
    rows = []
    i = 0
    for c in cands:
        for kind, outage, _ in planned:
            own = results[i:i + seeds]
            i += seeds
            rows.append(FailureRow(c.label, kind.kind, kind.target, _predict(stack, kind, c, outage),
                                   _measured(own), per_place(own)))
    order = ranked(rows, cands, objective)
    unknown = transition_unknown(scenario, tables) if given.strip() == "all" else []
    notes = [*notes, *unknown, *_short_of_theory(rows), *_beyond_theory(rows)]
    return FailureAdvice(name, stack, objective, tuple(kinds), tuple(cands), tuple(rows), order,
                         tuple(range(1, seeds + 1)), tuple(windows), tuple(findings), (*said, *notes),
                         tuple(scenario.hosts) if cluster else (), shown_host)


def _predict(stack: str, kind: FailureKind, candidate: TimerCandidate, outage: float) -> Prediction:
    """The candidate's prediction of `kind`; an ANA change or ALUA transition lasts as long as its
    fault makes it (the ANATT or implicit transition time the kind was built with)."""
    timers = candidate.timers
    if kind.change_s is not None:
        key = "implicit_transition_time" if kind.kind == "alua_transition" else "anatt"
        timers = replace(timers, seconds={**timers.seconds, key: kind.change_s})
    return predict(stack, kind.kind, timers, outage)


def _measured(results: Sequence[Result]) -> Measured:
    """One candidate under one failure over its seeds: the worst seed's, the mean rate; every host
    of a cluster together (the longest stall of any, the failed I/Os and hazards of all, the
    latest back to full rate)."""
    waits, seen = [], []
    for r in results:
        app = r.application
        stall = max((h.longest_stall_s for h in app.hosts), default=0.0)
        # An I/O that failed back is in no response figure: it waited at least the stall it ended.
        waits.append(max(_finite(r.data["summary"].get("resp_max_ms")) / 1e3, stall))
        seen.append(Seen(stall, sum(h.failed_ios for h in app.hosts), sum(d.get("hazards", 0) for d in r.data["devices"]),
                         _finite(r.data["summary"].get("iops")),
                         latest_back([x.back_to_full_rate_s for x in app.recovery if not x.device])))
    worst, back_known = over_seeds(seen)
    return Measured(max(waits), worst.longest_stall_s, worst.failed_ios, worst.hazards, worst.iops,
                    worst.back_to_full_rate_s, back_known)


def _short_of_theory(rows: Sequence[FailureRow]) -> list[str]:
    """A run whose longest wait falls short of its prediction by more than the grid allows: the
    prediction is of an I/O that was on the lost path when it went, and none was."""
    return [f"{r.candidate}, {r.kind}: the runs' longest wait ({r.measured.longest_wait_s:.3g} s) is below the "
            f"prediction ({r.predicted.text()}): no I/O was on the lost path when it went (the prediction is of one "
            "that was)" for r in rows
            if r.predicted.seconds is not None and r.measured.longest_wait_s < r.predicted.seconds - r.predicted.tick - SHORT_S]


def _beyond_theory(rows: Sequence[FailureRow]) -> list[str]:
    """A run whose longest wait exceeds its prediction by more than `SHORT_S`: something the
    timers do not decide waited too, said rather than hidden."""
    return [f"{r.candidate}, {r.kind}: the runs' longest wait ({r.measured.longest_wait_s:.3g} s) is above the "
            f"prediction ({r.predicted.text()}): more than the timers decide waited (an ALUA or ANA transition, a "
            "queue behind the retries)" for r in rows
            if r.predicted.seconds is not None and r.measured.longest_wait_s > r.predicted.seconds + SHORT_S]


def _at_zero(fault: dict[str, Any]) -> bool:
    when = fault.get("at", fault.get("from"))
    try:
        return when == 0 or parse_duration_ns(str(when)) == 0
    except (ValueError, TypeError):
        return False


def _finite(value: float | None) -> float:
    return 0.0 if value is None or not math.isfinite(value) else float(value)

