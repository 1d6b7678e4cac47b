"""Each candidate simulated on the host over several seeds, on the same I/Os: its figures with
their 95% intervals and its gain in I/O rate over the setting in force. `decide.py` orders them
by the admin's objective and chooses.

Seeds are added only while they can change the decision: every candidate runs 2 seeds, and a
candidate (with the setting in force) gets one more seed at a time, up to the most asked for,
while on some figure its interval neither clears the setting in force's by the margin nor lies
within the margin of it whichever way the means move inside the intervals (`settled`)."""

from __future__ import annotations

import math
import os
import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from pathlab.advisor.candidates import Candidate
from pathlab.advisor.decide import HIGHER_IS_BETTER, MARGIN, clears, worse
from pathlab.advisor.free_heap import free_heap
from pathlab.advisor.host_figures import HOST_FIGURES, cluster_summary, host_figures
from pathlab.advisor.ranges import AtEnd
from pathlab.advisor.ranked import Ranked
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
                  per_host: bool = False, executor: Executor = LOCAL) -> list[list[Ranked]]:
    """Simulates every candidate on each scenario (a host, and the same host at the ends of its
    assumed values' spans) on the same I/Os (seeds 1, 2, ...), as many seeds as each scenario's
    decision needs up to `seeds`, each candidate's runs as long as `lengths` says (per scenario,
    one per candidate: `RunLength.overrides`); per scenario, the figures in the candidates' order,
    the setting in force first. Every round's runs of every scenario go in one batch (the cores
    stay busy while the slowest scenario runs); the first scenario's figures are those it gets
    ranked alone (same runs, same seeds), each span end's those of its first `FIRST_SEEDS` seeds:
    an end gives a range and decides nothing, so no seed is added there for a decision.
    `in_force_run`: a run of the first scenario itself, taken as the setting in force's seed 1
    when it ran that seed (the very run this would make). `resolved`:
    each candidate's devices on the first scenario, when the caller has them already. `per_host`
    (a cluster): every run keeps its per-device rows, each candidate's figures are the cluster's
    (`host_figures.cluster_summary`: the worst host's p99) with each host's beside them. `executor`:
    where the runs go (this machine's cores, or Ray: the same runs, the same figures)."""
    simulated = _simulated(scenarios[0], cands, resolved)
    rankings = [_Ranking(s, cands, length, simulated, per_host) for s, length in zip(scenarios, lengths, strict=True)]
    if in_force_run is not None and in_force_run.data["seed"] == 1:
        rankings[0].results[0] = [figures_of(in_force_run) if per_host else in_force_run]
    first = min(FIRST_SEEDS, seeds)
    _simulate([(r, i, seed) for r in rankings for i in r.simulated for seed in range(1, first + 1)
               if len(r.results[i]) < seed], executor)
    for seed in range(first + 1, seeds + 1):
        # Only the scenario itself decides: a span's end gives a range, and decides nothing.
        wanted = [(r, i, seed) for r in rankings[:1] for i in r.open()]
        if not wanted:
            break
        _simulate(wanted, executor)
    return [r.ranked_all() for r in rankings]


def _simulated(scenario: Scenario | AtEnd, cands: list[Candidate], resolved: list[list[Device]] | None) -> list[int]:
    """The candidates that need runs of their own: the setting in force and each one that does not
    resolve to it. A candidate that resolves to the devices in force is the setting in force: its
    runs would be the same runs (same seeds), so it takes the setting in force's figures. Decided
    on the host itself for the spans' ends as well: an end sets a port's service, an array's
    latency or a workload's load, none of which resolves into a device's policy."""
    devices = resolved or [scenario.with_set(c.overrides, to_run=True).devices for c in cands]
    return [i for i, c in enumerate(cands) if i == 0 or not _same_as_in_force(c, devices[i], devices[0])]


def _simulate(wanted: list[tuple[_Ranking, int, int]], executor: Executor) -> None:
    """Runs (ranking, candidate, seed) and files each result under its ranking, in seed order:
    on this machine as they come (`_run_here`), on Ray all at once. A cluster's runs
    (`per_host`) are each finished with what its hosts' figures read alone (each device's host,
    rate and response, and each host's p99: no path, port or interval row, no device's status or
    quantile made; a cluster of 32 hosts × 500 devices × 8 paths has 128,000 path rows) and kept
    as what its ranking reads (`figures_of`)."""
    done = _run_here(wanted) if executor.kind == "local" else _run_at(wanted, executor)
    for (r, i, _), result in zip(wanted, done, strict=True):
        r.results[i].append(result)


def _run_here(wanted: list[tuple[_Ranking, int, int]]) -> list[Result]:
    """The runs on this machine's cores, each core taking the next run as soon as its last ends
    (the runs of a cluster's candidates differ twofold in cost: a batch waited for its slowest),
    each candidate loaded by its first run and, on a cluster, let go after its last (a handle of
    32 hosts × 500 devices × 8 paths is about 200 MiB) with the freed memory handed back
    (`free_heap`). A candidate's runs share its model's build (`Scenario._run`'s `runs`)."""
    per_host = wanted[0][0].per_host
    runs = Counter((id(r), i) for r, i, _ in wanted)
    left = Counter(runs)
    loading = {key: threading.Lock() for key in runs}
    counting = threading.Lock()

    def one(task: tuple[_Ranking, int, int]) -> Result:
        r, i, seed = task
        key = (id(r), i)
        with loading[key]:  # one load a candidate, whichever of its runs starts first
            scenario = r.run(i, seed)
        result = scenario._run(None, not per_host, False, per_host, runs[key])
        if not per_host:
            return result
        kept = figures_of(result)
        del result, scenario
        with counting:
            left[key] -= 1
            last = left[key] == 0
        if last:
            r.release(i)
            free_heap()
        return kept

    with ThreadPoolExecutor(max_workers=min(len(wanted), os.cpu_count() or 1)) as pool:
        return list(pool.map(one, wanted))


def _run_at(wanted: list[tuple[_Ranking, int, int]], executor: Executor) -> list[Result]:
    """The runs as one batch on `executor` (Ray: all at once), a cluster's candidates let go after."""
    per_host = wanted[0][0].per_host
    batch = executor.run([r.run(i, seed) for r, i, seed in wanted], figures_only=not per_host, path_intervals=False,
                         device_rows=per_host)
    if not per_host:
        return batch
    for r, i, _ in wanted:
        r.release(i)
    return [figures_of(result) for result in batch]


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
                 per_host: bool = False):
        self.cands, self.simulated, self.per_host = cands, simulated, per_host
        self.scenario, self.lengths = scenario, lengths
        # Each candidate's scenario loaded when a batch first needs it; its seeds are copies of it
        # (`Scenario.with_seed`), and it is let go once the batch has run its last seed (`release`).
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
        # A candidate without commands (pathlab's own policy) is never recommended: shown, not decided on.
        in_force = self.ranked(0)
        open_ = [i for i in self.simulated[1:] if self.cands[i].commands and not settled(self.ranked(i), in_force)]
        return [0, *open_] if open_ else []

    def ranked_all(self) -> list[Ranked]:
        out = [self.ranked(i) if i in self.results else _ranked(c, self.results[0], self.per_host)
               for i, c in enumerate(self.cands)]
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
