"""`advise --failures`' answer as typed data: each timer candidate under each failure kind (the
stall the timers predict, and what the runs measured over the same seeds), the candidates ranked
by the objective said, and the commands that apply the recommended timers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pathlab.advisor.failure_kinds import SAID, FailureKind
from pathlab.advisor.failure_places import PlaceMeasured
from pathlab.advisor.failure_theory import Prediction
from pathlab.advisor.timer_candidates import TimerCandidate
from pathlab.finding import Finding

if TYPE_CHECKING:
    import pandas as pd

#: How each objective orders the candidates, as the output says it: the keys of `Ranked.key`.
RANKS_BY = {
    "balanced": "write hazards, then I/Os failed to the application, then the longest I/O wait summed over the "
                "failure kinds, then the rate",
    "throughput": "the rate through the failures, then write hazards, I/Os failed and the longest I/O wait",
    "latency": "the longest I/O wait summed over the failure kinds, then write hazards, I/Os failed and the rate",
}


@dataclass(frozen=True)
class Measured:
    """What the application saw through one failure under one candidate, over the seeds: the
    worst seed's longest I/O wait, longest stall (no I/O answered), I/Os failed and write
    hazards; the mean rate; the worst time back to full rate (None: not back, or never fell
    measurably: `back_known`)."""

    longest_wait_s: float
    longest_stall_s: float
    failed_ios: int
    hazards: int
    iops: float
    back_to_full_rate_s: float | None
    back_known: bool


@dataclass(frozen=True)
class FailureRow:
    candidate: str
    kind: str
    target: str
    predicted: Prediction
    measured: Measured
    #: A cluster's hosts, then its sites, each on its own (none for one host).
    per_place: tuple[PlaceMeasured, ...] = ()

    def places(self, shown_host: str | None = None) -> tuple[PlaceMeasured, ...]:
        """The hosts and sites, or `shown_host` and its site alone."""
        if shown_host is None:
            return self.per_place
        return tuple(p for p in self.per_place if p.place == shown_host or
                     (p.kind == "site" and shown_host in p.place.rsplit("(", 1)[-1].rstrip(")").split(", ")))


@dataclass(frozen=True)
class Ranked:
    """A candidate's figures over every failure kind, as the ranking reads them."""

    candidate: str
    hazards: int
    failed_ios: int
    wait_s: float
    iops: float

    def key(self, objective: str) -> tuple[float, ...]:
        if objective == "throughput":
            return -self.iops, self.hazards, self.failed_ios, self.wait_s
        if objective == "latency":
            return self.wait_s, self.hazards, self.failed_ios, -self.iops
        return self.hazards, self.failed_ios, self.wait_s, -self.iops


@dataclass(frozen=True)
class FailureAdvice:
    """What each timer candidate costs the application through each failure kind of the host,
    predicted and simulated, the candidates ranked, and the recommended one's commands."""

    subject: str
    stack: str
    objective: str
    kinds: tuple[FailureKind, ...]
    candidates: tuple[TimerCandidate, ...]
    rows: tuple[FailureRow, ...]
    #: Best first, by `objective`.
    ranking: tuple[Ranked, ...]
    seeds: tuple[int, ...]
    #: Each kind's fault: (start, end) seconds from the run's start, and the run's end.
    windows: tuple[tuple[str, float, float, float], ...]
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()
    #: A cluster's hosts, every one given the same timers (none for one host).
    hosts: tuple[str, ...] = ()
    #: The host the per-host figures are narrowed to (the runs are the whole cluster's).
    shown_host: str | None = None

    @property
    def recommended(self) -> TimerCandidate:
        return next(c for c in self.candidates if c.label == self.ranking[0].candidate)

    @property
    def applied_on(self) -> tuple[str, ...]:
        """The hosts the recommended commands are run on: every host of a cluster (one set of
        timers), or the one the advice is narrowed to."""
        return (self.shown_host,) if self.shown_host else self.hosts

    @property
    def ranks_by(self) -> str:
        return RANKS_BY[self.objective]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document `pathlab advise --failures --format json` prints."""
        rec = self.recommended
        return {
            "subject": self.subject, "stack": self.stack, "objective": self.objective, "ranked_by": self.ranks_by,
            "seeds": list(self.seeds),
            "failures": [{"kind": k.kind, "what": SAID[k.kind], "target": k.target, "fault": dict(k.fault),
                          "start_s": w[1], "end_s": w[2], "run_end_s": w[3]} for k, w in zip(self.kinds, self.windows)],
            "candidates": [{"label": c.label, "source": c.source, "timers": [s.to_dict() for s in c.settings],
                            "overrides": c.overrides, "commands": list(c.commands)} for c in self.candidates],
            "rows": [{"candidate": r.candidate, "kind": r.kind, "target": r.target,
                      "predicted_s": _number(r.predicted.seconds), "predicted_tick_s": r.predicted.tick,
                      "predicted_rule": r.predicted.rule,
                      "longest_wait_s": _number(r.measured.longest_wait_s),
                      "longest_stall_s": _number(r.measured.longest_stall_s), "failed_ios": r.measured.failed_ios,
                      "hazards": r.measured.hazards, "iops": _number(r.measured.iops),
                      "back_to_full_rate_s": _number(r.measured.back_to_full_rate_s)}
                     | ({"places": [p.to_dict() for p in r.places(self.shown_host)]} if self.hosts else {})
                     for r in self.rows],
            "ranking": [{"candidate": r.candidate, "hazards": r.hazards, "failed_ios": r.failed_ios,
                         "wait_s": _number(r.wait_s), "iops": _number(r.iops)} for r in self.ranking],
            "recommended": {"candidate": rec.label, "keep": rec.label == "in force", "source": rec.source,
                            "commands": list(rec.commands)} | ({"on_hosts": list(self.applied_on)} if self.hosts else {}),
            **({"hosts": list(self.hosts)} if self.hosts else {}),
            "findings": [{"title": f.title, "evidence": f.evidence} for f in self.findings],
            "notes": list(self.notes),
        }

    def table(self) -> pd.DataFrame:
        """A row per candidate and failure kind (pandas)."""
        import pandas as pd

        return pd.DataFrame([{"candidate": r.candidate, "kind": r.kind, "predicted_s": r.predicted.seconds,
                              "longest_wait_s": r.measured.longest_wait_s, "longest_stall_s": r.measured.longest_stall_s,
                              "failed_ios": r.measured.failed_ios, "hazards": r.measured.hazards,
                              "iops": r.measured.iops, "back_to_full_rate_s": r.measured.back_to_full_rate_s}
                             for r in self.rows])

    def _repr_html_(self) -> str:
        from pathlab.output.failure_advice import html_table

        return html_table(self)


def _number(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else round(value, 6)


def ranked(rows: Sequence[FailureRow], candidates: Sequence[TimerCandidate], objective: str) -> tuple[Ranked, ...]:
    """The candidates ordered by `objective` (the setting in force first among equals)."""
    totals = []
    for c in candidates:
        own = [r.measured for r in rows if r.candidate == c.label]
        totals.append(Ranked(c.label, sum(m.hazards for m in own), sum(m.failed_ios for m in own),
                             sum(m.longest_wait_s for m in own), sum(m.iops for m in own) / max(1, len(own))))
    return tuple(sorted(totals, key=lambda r: r.key(objective)))
