"""Each candidate simulated on the host over several seeds, on the same I/Os: its figures with
their 95% intervals and its gain in I/O rate over the setting in force. `decide.py` orders them
by the admin's objective and chooses.

Seeds are added only while they can change the decision: every candidate runs 2 seeds, and a
candidate (with the setting in force) gets one more seed at a time, up to the most asked for,
while on some figure its interval neither clears the setting in force's by the margin nor lies
within the margin of it whichever way the means move inside the intervals (`settled`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from pathlab.advisor.candidate import at_ends
from pathlab.advisor.candidates import Candidate
from pathlab.advisor.decide import HIGHER_IS_BETTER, MARGIN, clears, worse
from pathlab.advisor.host_figures import HOST_FIGURES, cluster_summary, host_figures
from pathlab.advisor.ranges import AtEnd
from pathlab.advisor.ranked import Ranked
from pathlab.advisor.ranking_runs import RankingRuns
from pathlab.api import Result, Scenario
from pathlab.devices import Device
from pathlab.figures import HEADLINE
from pathlab.study.executor import LOCAL, Executor
from pathlab.study.stats import half_width

#: Figures the ranking reports, with their mean and 95% interval over seeds.
FIGURES = (*(f.key for f in HEADLINE), "failed")


#: Seeds every candidate runs before the intervals are looked at (the fewest an interval needs).
FIRST_SEEDS = 2


def summaries(rows: list[dict[str, float]], figures: tuple[str, ...] = FIGURES) -> dict[str, tuple[float, float]]:
    """Each figure's mean over the seeds' summary `rows` with its 95% half-width."""
    out = {}
    for f in figures:
        values = [s[f] for s in rows]
        hw = half_width(values)
        out[f] = (sum(values) / len(values), 0.0 if math.isnan(hw) else hw)
    return out


def rank_together(scenarios: Sequence[Scenario | AtEnd], cands: list[Candidate], seeds: int, lengths: list[list[dict[str, str]]],
                  in_force_run: Result | None = None, resolved: list[list[Device]] | None = None,
                  per_host: bool = False, executor: Executor = LOCAL,
                  later: Callable[[], tuple[Sequence[AtEnd], list[list[dict[str, str]]]]] | None = None
                  ) -> list[list[Ranked]]:
    """Simulates every candidate on each scenario (a host, and the same host at the ends of its
    assumed values' spans) on the same I/Os (seeds 1, 2, ...), as many seeds as each scenario's
    decision needs up to `seeds`, each candidate's runs as long as `lengths` says (per scenario,
    one per candidate: `RunLength.overrides`); per scenario, the figures in the candidates' order,
    the setting in force first. The runs go as `ranking_runs` sends them: the ends' runs queued
    behind the scenario's first seeds (the cores stay busy while the slowest runs), its later seeds
    ahead of the ends' runs still waiting; the first scenario's figures are those it gets
    ranked alone (same runs, same seeds), each span end's those of its first `FIRST_SEEDS` seeds:
    an end gives a range and decides nothing, so no seed is added there for a decision.
    `in_force_run`: a run of the first scenario itself, taken as the setting in force's seed 1
    when it ran that seed (the very run this would make). `resolved`:
    each candidate's devices on the first scenario, when the caller has them already. `per_host`
    (a cluster): every run keeps its per-device rows, each candidate's figures are the cluster's
    (`host_figures.cluster_summary`: the worst host's p99) with each host's beside them. `executor`:
    where the runs go (this machine's cores, or Ray: the same runs, the same figures). `later`: more
    span ends and their lengths, asked once the first scenario's first seeds are started (a
    cluster's ends' pilots may still be running: the cores take the cluster's runs meanwhile, where
    one waited 1.6 s for the last pilot, session 24), ranked after `scenarios`' ends."""
    simulated = _simulated(scenarios[0], cands, resolved)
    at_end = _spanned(cands, simulated)
    rankings = [_Ranking(s, cands, length, simulated if k == 0 else at_end, per_host, simulated)
                for k, (s, length) in enumerate(zip(scenarios, lengths, strict=True))]
    if in_force_run is not None and in_force_run.data["seed"] == 1:
        rankings[0].results[0] = [figures_of(in_force_run) if per_host else in_force_run]
    first = min(FIRST_SEEDS, seeds)
    central, ends = rankings[0], rankings[1:]
    runs = RankingRuns(executor, figures_of)
    try:
        own = runs.start([(central, i, seed) for i in central.simulated for seed in range(1, first + 1)
                          if len(central.results[i]) < seed])
        if later is not None:
            more, more_lengths = later()
            added = [_Ranking(s, cands, length, at_end, per_host, simulated) for s, length in zip(more, more_lengths, strict=True)]
            ends += added
            rankings += added
        at_ends = runs.start([(r, i, seed) for r in ends for i in r.simulated for seed in range(1, first + 1)])
        runs.file(own)
        for seed in range(first + 1, seeds + 1):
            # Only the scenario itself decides: a span's end gives a range, and decides nothing.
            wanted = [(central, i, seed) for i in central.open()]
            if not wanted:
                break
            runs.file(runs.start(wanted, ahead=True))  # before the ends' runs still waiting
        runs.file(at_ends)
    finally:
        runs.close()
    return [r.ranked_all() for r in rankings]


def _simulated(scenario: Scenario | AtEnd, cands: list[Candidate], resolved: list[list[Device]] | None) -> list[int]:
    """The candidates that need runs of their own: the setting in force and each one that does not
    resolve to it. A candidate that resolves to the devices in force is the setting in force: its
    runs would be the same runs (same seeds), so it takes the setting in force's figures. Decided
    on the host itself for the spans' ends as well: an end sets a port's service, an array's
    latency or a workload's load, none of which resolves into a device's policy."""
    devices = resolved or [scenario.with_set(c.overrides, to_run=True).devices for c in cands]
    return [i for i, c in enumerate(cands) if i == 0 or not _same_as_in_force(c, devices[i], devices[0])]


def _spanned(cands: list[Candidate], simulated: list[int]) -> list[int]:
    """The candidates simulated at a span's end (`candidate.at_ends`) of those with runs of their own."""
    ends = set(at_ends(cands))
    return [i for i in simulated if i in ends]


def figures_of(run: Result) -> Result:
    """A cluster's run as its ranking keeps it: its seed, the cluster's summary and each host's
    figures, computed from its device rows (a whole run's, or a ranking run's `device_rows`) as
    soon as it ends (the rows then let go: 16,000 of them a run on 32 hosts × 500 devices, where
    the figures are 32 hosts' three numbers); a run kept so already as it is."""
    if "host_figures" in run.data:
        return run
    return Result({"seed": run.data["seed"], "cluster": cluster_summary(run.data), "host_figures": host_figures(run.data)},
                  run.engine_events)


class _Ranking:
    """One scenario's candidates, their runs so far and what they rank at."""

    def __init__(self, scenario: Scenario | AtEnd, cands: list[Candidate], lengths: list[dict[str, str]], simulated: list[int],
                 per_host: bool = False, own_runs: list[int] | None = None):
        """`simulated`: the candidates run here; `own_runs`: those that have runs of their own on the
        host (`_simulated`, where `simulated` may leave some out: a span's end, `_spanned`)."""
        self.cands, self.simulated, self.per_host = cands, simulated, per_host
        self.left_out = set(own_runs or simulated) - set(simulated)
        self.scenario, self.lengths = scenario, lengths
        # Each candidate's scenario loaded by its first run; its seeds are copies of it
        # (`Scenario.with_seed`), and a cluster's is let go after its last run started (`ranking_runs`).
        self.loaded: dict[int, Scenario] = {}
        self.results: dict[int, list[Result]] = {i: [] for i in simulated}

    def run(self, i: int, seed: int) -> Scenario:
        if i not in self.loaded:
            self.loaded[i] = self.scenario.with_set(self.lengths[i] | self.cands[i].overrides, to_run=True)
        return self.loaded[i].with_seed(seed)

    def release(self, i: int) -> None:
        """Lets the candidate's loaded scenario go (a cluster of 32 hosts × 500 devices × 8 paths
        is about 200 MiB an engine handle): loaded again, the same, if another seed is wanted."""
        self.loaded.pop(i, None)

    def ranked(self, i: int) -> Ranked:
        return _ranked(self.cands[i], self.results[i], self.per_host)

    def open(self) -> list[int]:
        """The candidates another seed can still decide, with the setting in force (which runs every
        seed an open candidate runs); none when every candidate is settled."""
        # A candidate never recommended (pathlab's own policy) is shown, not decided on.
        in_force = self.ranked(0)
        open_ = [i for i in self.simulated[1:] if self.cands[i].recommendable and not settled(self.ranked(i), in_force)]
        return [0, *open_] if open_ else []

    def ranked_all(self) -> list[Ranked]:
        """Every candidate's figures but those left out here, in the candidates' order (one that
        resolves to the setting in force with its figures)."""
        out = [self.ranked(i) if i in self.results else _ranked(c, self.results[0], self.per_host)
               for i, c in enumerate(self.cands) if i not in self.left_out]
        in_force = out[0].figures["iops"][0]
        for r in out:
            r.gain = r.figures["iops"][0] / in_force if in_force > 0 else math.nan
        return out


def _same_as_in_force(c: Candidate, devices: list[Device], in_force_devices: list[Device]) -> bool:
    """Whether the candidate changes only what resolves into the devices' policies (the policy
    tables and esxcli commands) and resolves to the devices in force."""
    policy_only = all(k == "esxcli" or k.split(".")[-1] == "policy" for k in c.overrides)
    return policy_only and devices == in_force_devices


def _ranked(c: Candidate, results: list[Result], per_host: bool = False) -> Ranked:
    if not per_host:
        return Ranked(c, summaries([r.data["summary"] for r in results]), 0.0, len(results))
    seeds = [r.data["host_figures"] for r in results]
    hosts = {h: summaries([s[h] for s in seeds], HOST_FIGURES) for h in seeds[0]}
    return Ranked(c, summaries([r.data["cluster"] for r in results]), 0.0, len(results), hosts, seeds)


def settled(candidate: Ranked, in_force: Ranked) -> bool:
    """Whether more seeds can no longer change what `decide.py` makes of the candidate: on every
    figure it judges, the intervals are apart by the margin, or the candidate lies within the
    margin of the setting in force even at the intervals' far ends."""
    for figure in HIGHER_IS_BETTER:
        if clears(candidate, in_force, figure) or worse(candidate, in_force, figure):
            continue
        (c, c_hw), (f, f_hw) = candidate.figures[figure], in_force.figures[figure]
        if not (f - f_hw > 0 and (c + c_hw) / (f - f_hw) < 1 + MARGIN and (c - c_hw) / (f + f_hw) > 1 - MARGIN):
            return False
    return True
