"""A candidate as the ranking leaves it: its figures over seeds with their 95% intervals and its
gain. `rank.py` makes them, `decide.py` chooses among them, `ranges.py` and the advice read them."""

from __future__ import annotations

from dataclasses import dataclass, field

from pathlab.advisor.candidates import Candidate


@dataclass
class Ranked:
    candidate: Candidate
    figures: dict[str, tuple[float, float]]  # figure -> (mean, 95% half-width)
    gain: float  # I/O rate against the setting in force
    #: Seeds it was simulated over (fewer than asked when the intervals decided sooner).
    seeds: int = 0
    #: On a cluster (several hosts): each host's figures over the seeds, figure -> (mean, 95%
    #: half-width), and each seed's host figures (`host_figures.host_figures`), for groups of hosts.
    hosts: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)
    per_seed_hosts: list[dict[str, dict[str, float]]] = field(default_factory=list)
