"""Each candidate simulated on the host over several seeds, on the same I/Os: its figures with
their 95% intervals and its gain in I/O rate over the setting in force. `decide.py` orders them
by the admin's objective and chooses."""

from __future__ import annotations

import math
from dataclasses import dataclass

from pathlab.advise.candidates import Candidate
from pathlab.api import Result, Scenario, run_many
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


def _summaries(results: list[Result]) -> dict[str, tuple[float, float]]:
    out = {}
    for f in FIGURES:
        values = [r.data["summary"][f] for r in results]
        hw = half_width(values)
        out[f] = (sum(values) / len(values), 0.0 if math.isnan(hw) else hw)
    return out


def rank(scenario: Scenario, cands: list[Candidate], seeds: int, length: dict[str, str]) -> list[Ranked]:
    """Simulates every candidate on the same I/Os (same seeds); the figures in the candidates'
    order, the setting in force first."""
    base = [f"{k}={v}" for k, v in scenario.overrides] + [f"{k}={to_toml(v)}" for k, v in length.items()]
    runs = [
        Scenario.from_text(scenario.text, scenario.file, scenario.variant,
                           base + [f"{k}={to_toml(v)}" for k, v in c.overrides.items()], seed=seed)
        for c in cands for seed in range(1, seeds + 1)
    ]
    results = run_many(runs)
    ranked = []
    for i, c in enumerate(cands):
        ranked.append(Ranked(c, _summaries(results[i * seeds:(i + 1) * seeds]), 0.0))
    in_force = ranked[0].figures["iops"][0]
    for r in ranked:
        r.gain = r.figures["iops"][0] / in_force if in_force > 0 else math.nan
    return ranked
