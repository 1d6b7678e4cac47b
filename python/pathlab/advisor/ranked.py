"""A candidate as the ranking leaves it: its figures over seeds with their 95% intervals and its
gain. `rank.py` makes them, `decide.py` chooses among them, `ranges.py` and the advice read them."""

from __future__ import annotations

from dataclasses import dataclass

from pathlab.advisor.candidates import Candidate


@dataclass
class Ranked:
    candidate: Candidate
    figures: dict[str, tuple[float, float]]  # figure -> (mean, 95% half-width)
    gain: float  # I/O rate against the setting in force
    #: Seeds it was simulated over (fewer than asked when the intervals decided sooner).
    seeds: int = 0
