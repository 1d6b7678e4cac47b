"""Whether to change at all, and to what, as an engineer decides it: a candidate is recommended
only when it beats the setting in force by a margin that matters, beyond what the seeds' 95%
intervals can tell apart, on the figure the admin cares about, and is not clearly worse on the
other; otherwise the answer is to keep the setting in force.

Objectives: `throughput` (I/O rate), `latency` (p99 response) and `balanced` (either, with
neither clearly worse). The margin is 5% of the setting in force's figure: below that a change is
not worth a maintenance window, and it is about the spread the same host shows between two runs."""

from __future__ import annotations

from dataclasses import dataclass

from pathlab.advisor.ranked import Ranked

#: The smallest gain worth a change, as a share of the setting in force's figure.
MARGIN = 0.05
OBJECTIVES = ("balanced", "throughput", "latency")
#: Per figure: whether a higher value is better.
HIGHER_IS_BETTER = {"iops": True, "p99_ms": False}
#: Per objective: the figures a change must gain on.
WANTED = {"throughput": ("iops",), "latency": ("p99_ms",), "balanced": ("iops", "p99_ms")}


@dataclass(frozen=True)
class Decision:
    #: The candidate to change to, or None: keep the setting in force.
    choice: Ranked | None
    #: Why, in one sentence, with the figures that decided it.
    reason: str


def clears(candidate: Ranked, in_force: Ranked, figure: str) -> bool:
    """Whether `candidate` is better on `figure` by the margin, with the intervals apart."""
    return _apart(candidate, in_force, figure, better=True)


def worse(candidate: Ranked, in_force: Ranked, figure: str) -> bool:
    """Whether `candidate` is worse on `figure` by the margin, with the intervals apart."""
    return _apart(candidate, in_force, figure, better=False)


def _apart(candidate: Ranked, in_force: Ranked, figure: str, better: bool) -> bool:
    (c, c_hw), (f, f_hw) = candidate.figures[figure], in_force.figures[figure]
    up = HIGHER_IS_BETTER[figure] == better  # the candidate must lie above the setting in force
    if up:
        return c - c_hw > f + f_hw and c >= f * (1 + MARGIN)
    return c + c_hw < f - f_hw and c <= f * (1 - MARGIN)


def order(ranked: list[Ranked], objective: str) -> list[Ranked]:
    """The candidates in the objective's order: throughput by rate (steps of 0.1% of the best, so
    that settings held by one resource rank by p99), latency by p99 then rate, balanced by the
    product of the rate's and the p99's ratios to the setting in force."""
    in_force = ranked[0]
    best = max(r.figures["iops"][0] for r in ranked) or 1.0
    rate_step = lambda r: -round(r.figures["iops"][0] / (best * 1e-3))  # noqa: E731
    if objective == "throughput":
        return sorted(ranked, key=lambda r: (rate_step(r), r.figures["p99_ms"][0]))
    if objective == "latency":
        return sorted(ranked, key=lambda r: (r.figures["p99_ms"][0], rate_step(r)))
    return sorted(ranked, key=lambda r: -_balanced_score(r, in_force))


def _balanced_score(r: Ranked, in_force: Ranked) -> float:
    rate = r.figures["iops"][0] / in_force.figures["iops"][0] if in_force.figures["iops"][0] > 0 else 1.0
    p99 = in_force.figures["p99_ms"][0] / r.figures["p99_ms"][0] if r.figures["p99_ms"][0] > 0 else 1.0
    return rate * p99


def decide(ranked: list[Ranked], objective: str) -> Decision:
    """The first candidate in the objective's order that clears the setting in force (the first
    of `ranked`), or keep. A candidate that is not `recommendable` (pathlab's own policy) is shown,
    never recommended."""
    in_force = ranked[0]
    for r in order(ranked, objective):
        if r is in_force or not r.candidate.recommendable:
            continue
        if gained := beats(r, in_force, objective):
            return Decision(r, f"it beats the setting in force by more than {MARGIN:.0%} on "
                               f"{said(gained)}, beyond the 95% intervals")
    return Decision(None, f"no candidate beats the setting in force by {MARGIN:.0%} of "
                          f"{' or '.join(_NAMES[f] for f in WANTED[objective])} beyond the 95% intervals"
                          + (" without a clear loss on the other" if objective == "balanced" else ""))


def beats(candidate: Ranked, reference: Ranked, objective: str) -> list[str]:
    """The figures of `objective` on which `candidate` clears `reference` (the setting in force, or
    a setting it would replace); none where it clears none, or, balanced, is clearly worse on one."""
    gained = [f for f in WANTED[objective] if clears(candidate, reference, f)]
    lost = [f for f in HIGHER_IS_BETTER if worse(candidate, reference, f)]
    return gained if objective != "balanced" or not lost else []


def said(figures: list[str]) -> str:
    """The figures a candidate clears, as the reasons name them ("the I/O rate and the p99 response")."""
    return " and ".join(_NAMES[f] for f in figures)


_NAMES = {"iops": "the I/O rate", "p99_ms": "the p99 response"}
