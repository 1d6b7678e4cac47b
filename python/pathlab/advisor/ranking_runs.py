"""Where a ranking's runs go, and when. On this machine each core takes the next run as soon as
its last ends, and the ranking's later seeds join the queue behind the runs still waiting (the
span ends' while the scenario's own decide): no core waits at a batch's end for the slowest run
of it (a cluster's candidates differ twofold in a run's cost). On Ray every run started before
results are asked for goes in one batch (all at once).

A run is (ranking, candidate, seed): its candidate's scenario is loaded by its first run and,
on a cluster, let go after the last run started with it (a handle of 32 hosts × 500 devices × 8
paths is about 200 MiB), the freed memory handed back (`free_heap`); the runs started together
on one candidate share its model's build (`Scenario._run`'s `runs`). A cluster's run is kept as
its ranking reads it (`rank.figures_of`) as soon as it ends."""

from __future__ import annotations

import os
import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from pathlab.advisor.free_heap import free_heap
from pathlab.api import Result, Scenario
from pathlab.study.executor import Executor


class Ranking(Protocol):
    """What the runs read of a ranking (`rank._Ranking`)."""

    per_host: bool
    results: dict[int, list[Result]]

    def run(self, i: int, seed: int) -> Scenario: ...

    def release(self, i: int) -> None: ...


#: A run: its ranking, the candidate's index and the seed.
Run = tuple[Ranking, int, int]


class Started:
    """Runs started together, and their results once they have run (in the runs' order)."""

    def __init__(self, runs: list[Run]):
        self.runs = runs
        self.futures: list[Future[Result]] = []
        self.results: list[Result] | None = None


class RankingRuns:
    """A ranking's runs on `executor`: `start` them, then `file` each set's results in its rankings."""

    def __init__(self, executor: Executor, keep: Any):
        """`keep`: what a cluster's run is kept as (`rank.figures_of`)."""
        self.executor, self.keep = executor, keep
        self.pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1) if executor.kind == "local" else None
        self.waiting: list[Started] = []  # Ray: started, not yet run
        self.lock = threading.Lock()
        self.loading: dict[tuple[int, int], threading.Lock] = {}

    def start(self, runs: Sequence[Run]) -> Started:
        started = Started(list(runs))
        if self.pool is None:
            self.waiting.append(started)
            return started
        shared = Counter((id(r), i) for r, i, _ in runs)
        left = Counter(shared)
        for key in shared:
            self.loading.setdefault(key, threading.Lock())
        started.futures = [self.pool.submit(self._one, run, shared[(id(run[0]), run[1])], left) for run in runs]
        return started

    def file(self, started: Started) -> None:
        """Waits for `started`'s results and files each under its ranking, in its runs' order
        (a candidate's seeds in order)."""
        if started.results is None:
            if self.pool is None:
                self._run_waiting()
            else:
                started.results = [f.result() for f in started.futures]
        for (r, i, _), result in zip(started.runs, started.results or [], strict=True):
            r.results[i].append(result)

    def close(self) -> None:
        """Lets the queue go (the runs not started are dropped: an error ended the ranking)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def _one(self, run: Run, shared: int, left: Counter[tuple[int, int]]) -> Result:
        r, i, seed = run
        key = (id(r), i)
        with self.loading[key]:  # one load a candidate, whichever of its runs starts first
            scenario = r.run(i, seed)
        result = scenario._run(None, not r.per_host, False, r.per_host, shared)
        if not r.per_host:
            return result
        kept = self.keep(result)
        del result, scenario
        with self.lock:
            left[key] -= 1
            last = left[key] == 0
        if last:
            r.release(i)
            free_heap()
        return kept

    def _run_waiting(self) -> None:
        """Every set started and not yet run, in one batch on the executor (Ray: all at once)."""
        waiting, self.waiting = self.waiting, []
        runs = [run for started in waiting for run in started.runs]
        if not runs:
            for started in waiting:
                started.results = []
            return
        per_host = runs[0][0].per_host
        batch = self.executor.run([r.run(i, seed) for r, i, seed in runs], figures_only=not per_host,
                                  path_intervals=False, device_rows=per_host)
        if per_host:
            for r, i, _ in runs:
                r.release(i)
            batch = [self.keep(result) for result in batch]
        for started in waiting:
            started.results, batch = batch[:len(started.runs)], batch[len(started.runs):]
