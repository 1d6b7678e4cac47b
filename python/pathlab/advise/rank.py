"""Each candidate simulated on the host over several seeds, on the same I/Os: its figures with
their 95% intervals and its gain in I/O rate over the setting in force. `decide.py` orders them
by the admin's objective and chooses.

Seeds are added only while they can change the decision: every candidate runs 2 seeds, and a
candidate (with the setting in force) gets one more seed at a time, up to the most asked for,
while on some figure its interval neither clears the setting in force's by the margin nor lies
within the margin of it whichever way the means move inside the intervals (`settled`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pathlab.advise.candidates import Candidate
from pathlab.api import Result, Scenario, run_many
from pathlab.devices import Device
from pathlab.figures import HEADLINE
from pathlab.study.stats import half_width
from pathlab.toml_values import to_toml

#: Figures the ranking reports, with their mean and 95% interval over seeds.
FIGURES = (*(f.key for f in HEADLINE), "failed")


@dataclass
class Ranked:
    candidate: Candidate
    figures: dict[str, tuple[float, float]]  # figure -> (mean, 95% half-width)
    gain: float  # I/O rate against the setting in force
    #: Seeds it was simulated over (fewer than asked when the intervals decided sooner).
    seeds: int = 0


#: Seeds every candidate runs before the intervals are looked at (the fewest an interval needs).
FIRST_SEEDS = 2


def _summaries(results: list[Result]) -> dict[str, tuple[float, float]]:
    out = {}
    for f in FIGURES:
        values = [r.data["summary"][f] for r in results]
        hw = half_width(values)
        out[f] = (sum(values) / len(values), 0.0 if math.isnan(hw) else hw)
    return out


def rank(scenario: Scenario, cands: list[Candidate], seeds: int, length: dict[str, str]) -> list[Ranked]:
    """Simulates every candidate on the same I/Os (seeds 1, 2, ...), as many seeds as the
    decision needs up to `seeds`; the figures in the candidates' order, the setting in force
    first."""
    base = [f"{k}={v}" for k, v in scenario.overrides] + [f"{k}={to_toml(v)}" for k, v in length.items()]

    def runs(c: Candidate, first: int, last: int) -> list[Scenario]:
        return [Scenario.from_text(scenario.text, scenario.file, scenario.variant,
                                   base + [f"{k}={to_toml(v)}" for k, v in c.overrides.items()], seed=seed)
                for seed in range(first, last + 1)]

    in_force_devices = runs(cands[0], 1, 1)[0].devices
    # A candidate that resolves to the devices in force is the setting in force: its runs would be
    # the same runs (same seeds), so it takes the setting in force's figures.
    simulated = [i for i, c in enumerate(cands) if i == 0 or not _same_as_in_force(c, runs(c, 1, 1)[0], in_force_devices)]
    first = min(FIRST_SEEDS, seeds)
    batch = run_many([s for i in simulated for s in runs(cands[i], 1, first)])
    results = {i: batch[n * first:(n + 1) * first] for n, i in enumerate(simulated)}
    ranked = {i: _ranked(cands[i], results[i]) for i in simulated}
    for seed in range(first + 1, seeds + 1):
        # A candidate without commands (pathlab's own policy) is never recommended: shown, not decided on.
        open_ = [i for i in simulated[1:] if cands[i].commands and not settled(ranked[i], ranked[0])]
        if not open_:
            break
        more = [0, *open_]  # the setting in force runs every seed an open candidate runs
        batch = run_many([s for i in more for s in runs(cands[i], seed, seed)])
        for i, result in zip(more, batch):
            results[i].append(result)
            ranked[i] = _ranked(cands[i], results[i])
    ranked_all = [ranked[i] if i in ranked else _ranked(c, results[0]) for i, c in enumerate(cands)]
    in_force = ranked_all[0].figures["iops"][0]
    for r in ranked_all:
        r.gain = r.figures["iops"][0] / in_force if in_force > 0 else math.nan
    return ranked_all


def _same_as_in_force(c: Candidate, run: Scenario, in_force_devices: list[Device]) -> bool:
    """Whether the candidate changes only what resolves into the devices' policies (the policy
    tables and esxcli commands) and resolves to the devices in force."""
    policy_only = all(k == "esxcli" or k.split(".")[-1] == "policy" for k in c.overrides)
    return policy_only and run.devices == in_force_devices


def _ranked(c: Candidate, results: list[Result]) -> Ranked:
    return Ranked(c, _summaries(results), 0.0, len(results))


def settled(candidate: Ranked, in_force: Ranked) -> bool:
    """Whether more seeds can no longer change what `decide.py` makes of the candidate: on every
    figure it judges, the intervals are apart by the margin, or the candidate lies within the
    margin of the setting in force even at the intervals' far ends."""
    from pathlab.advise.decide import HIGHER_IS_BETTER, MARGIN, clears, worse  # decide.py imports Ranked from here

    for figure in HIGHER_IS_BETTER:
        if clears(candidate, in_force, figure) or worse(candidate, in_force, figure):
            continue
        (c, c_hw), (f, f_hw) = candidate.figures[figure], in_force.figures[figure]
        if not (f - f_hw > 0 and (c + c_hw) / (f - f_hw) < 1 + MARGIN and (c - c_hw) / (f + f_hw) > 1 - MARGIN):
            return False
    return True
