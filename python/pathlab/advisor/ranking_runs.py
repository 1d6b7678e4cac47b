"""Where a ranking's runs go, and when. On this machine each core takes the next run as soon as
its last ends: no core waits at a batch's end for the slowest run of it (a cluster's candidates
differ twofold in a run's cost). A decision's later seeds go ahead of the runs still waiting (the
span ends', which decide nothing), so the ranking ends on the ends' runs, each candidate's two
seeds side by side, not on a last seed running alone while the other core idles (session 24: 2.3
s of one core alone at the 32-host cluster's end). On Ray every run started before results are
asked for goes in one batch (all at once).

A run is (ranking, candidate, seed): its candidate's scenario is loaded by its first run and,
on a cluster, let go after the last run started with it (a handle of 32 hosts × 500 devices × 8
paths is about 200 MiB), its freed memory left to the C library for the next candidate's build:
handed back (`free_heap`), every later build and copy faulted its pages in again (the 32-host
cluster's advice: 2.88 M → 2.13 M minor faults, 6.1 → 4.5 s of system time without it, for about
120 MiB more at the ranking's peak, 1.7 GiB, below the capture fit's 1.8; session 24, model
helper and lead, `docs/benchmarks.md`); the runs started together
on one candidate share its model's build (`Scenario._run`'s `runs`). A cluster's run is kept as
its ranking reads it (`rank.figures_of`) as soon as it ends."""

from __future__ import annotations

import os
import threading
from collections import Counter, deque
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any, Protocol

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
        self.waiting: list[Started] = []  # Ray: started, not yet run
        self.lock = threading.Lock()
        self.loading: dict[tuple[int, int], threading.Lock] = {}
        # This machine: the runs not yet taken, in the order the cores take them, and the cores' threads.
        self.queue: deque[tuple[Run, int, Counter[tuple[int, int]], Future[Result]]] = deque()
        self.begun: set[tuple[int, int]] = set()  # (ranking, candidate) of every run taken
        self.ready = threading.Condition()
        self.closed = False
        self.cores = [threading.Thread(target=self._take, name=f"pathlab ranking {n}", daemon=True)
                      for n in range(os.cpu_count() or 1)] if executor.kind == "local" else []
        for core in self.cores:
            core.start()

    def start(self, runs: Sequence[Run], ahead: bool = False) -> Started:
        """`runs` queued behind those waiting, or with `ahead` before them (in their own order) but
        for those of a candidate whose runs have begun."""
        started = Started(list(runs))
        if not self.cores:
            self.waiting.append(started)
            return started
        shared = Counter((id(r), i) for r, i, _ in runs)
        left = Counter(shared)
        for key in shared:
            self.loading.setdefault(key, threading.Lock())
        queued = [(run, shared[(id(run[0]), run[1])], left, Future[Result]()) for run in runs]
        with self.ready:
            if ahead:
                # Behind the waiting runs of a candidate already under way: its load stays held until its last
                # run, and another candidate loaded before it would be a third at once (200 MiB each on a cluster).
                at = 0
                while at < len(self.queue) and self._key(self.queue[at][0]) in self.begun:
                    at += 1
                for n, item in enumerate(queued):
                    self.queue.insert(at + n, item)
            else:
                self.queue.extend(queued)
            self.ready.notify_all()
        started.futures = [future for *_, future in queued]
        return started

    def file(self, started: Started) -> None:
        """Waits for `started`'s results and files each under its ranking, in its runs' order
        (a candidate's seeds in order)."""
        if started.results is None:
            if not self.cores:
                self._run_waiting()
            else:
                started.results = [f.result() for f in started.futures]
        for (r, i, _), result in zip(started.runs, started.results or [], strict=True):
            r.results[i].append(result)

    def close(self) -> None:
        """Lets the queue go (the runs not started are dropped: an error ended the ranking), and
        waits for the runs under way."""
        with self.ready:
            self.closed = True
            for *_, future in self.queue:
                future.cancel()
            self.queue.clear()
            self.ready.notify_all()
        for core in self.cores:
            core.join()

    def _take(self) -> None:
        """A core's thread: the next run queued, until the ranking closes."""
        while True:
            with self.ready:
                while not self.queue and not self.closed:
                    self.ready.wait()
                if self.closed:
                    return
                run, shared, left, future = self.queue.popleft()
                self.begun.add(self._key(run))
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(self._one(run, shared, left))
            except BaseException as e:  # raised where the results are asked (`file`)
                future.set_exception(e)

    @staticmethod
    def _key(run: Run) -> tuple[int, int]:
        return id(run[0]), run[1]

    def _one(self, run: Run, shared: int, left: Counter[tuple[int, int]]) -> Result:
        r, i, seed = run
        key = self._key(run)
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
