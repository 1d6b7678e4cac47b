"""The order a ranking's runs are taken in on this machine (`advisor/ranking_runs.py`)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from pathlab.advisor import ranking_runs
from pathlab.advisor.ranking_runs import RankingRuns
from pathlab.study.executor import LOCAL


class _Scenario:
    """A run that notes when it is taken, the first one held until the test lets it go."""

    def __init__(self, ranking: _Ranking, i: int, seed: int):
        self.ranking, self.name = ranking, (i, seed)

    def _run(self, *args: Any) -> Any:
        self.ranking.taken.append(self.name)
        if len(self.ranking.taken) == 1:
            self.ranking.first_taken.set()
            assert self.ranking.go.wait(10)
        return self.name


class _Ranking:
    per_host = False

    def __init__(self) -> None:
        self.results: dict[int, list[Any]] = {i: [] for i in range(4)}
        self.taken: list[tuple[int, int]] = []
        self.first_taken, self.go = threading.Event(), threading.Event()

    def run(self, i: int, seed: int) -> Any:
        return _Scenario(self, i, seed)

    def release(self, i: int) -> None:
        pass


def test_later_seeds_go_ahead_of_the_runs_still_waiting_and_results_file_in_their_runs_order(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranking_runs.os, "cpu_count", lambda: 1)  # one core: the order is the order taken
    r = _Ranking()
    runs = RankingRuns(LOCAL, keep=None)
    try:
        first = runs.start([(r, 0, 1)])
        ends = runs.start([(r, 2, 1), (r, 3, 1)])
        assert r.first_taken.wait(10)  # (0, 1) under way, the ends' waiting
        later = runs.start([(r, 0, 2), (r, 1, 2)], ahead=True)
        r.go.set()
        for started in (first, later, ends):
            runs.file(started)
    finally:
        runs.close()
    assert r.taken == [(0, 1), (0, 2), (1, 2), (2, 1), (3, 1)]
    assert r.results == {0: [(0, 1), (0, 2)], 1: [(1, 2)], 2: [(2, 1)], 3: [(3, 1)]}


def test_later_seeds_wait_for_the_runs_of_a_candidate_under_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """A candidate's load is held until its last run: one already begun finishes its runs first, so
    no third candidate is loaded beside the two under way."""
    monkeypatch.setattr(ranking_runs.os, "cpu_count", lambda: 1)
    r = _Ranking()
    runs = RankingRuns(LOCAL, keep=None)
    try:
        ends = runs.start([(r, 2, 1), (r, 2, 2), (r, 3, 1), (r, 3, 2)])
        assert r.first_taken.wait(10)  # (2, 1) under way, its second seed waiting
        later = runs.start([(r, 0, 2)], ahead=True)
        r.go.set()
        runs.file(later)
        runs.file(ends)
    finally:
        runs.close()
    assert r.taken == [(2, 1), (2, 2), (0, 2), (3, 1), (3, 2)]


def test_a_ranking_closed_early_drops_the_runs_not_started(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ranking_runs.os, "cpu_count", lambda: 1)  # the runs after the first still queued at close
    r = _Ranking()
    runs = RankingRuns(LOCAL, keep=None)
    started = runs.start([(r, i, 1) for i in range(4)])
    assert r.first_taken.wait(10)
    with runs.ready:  # what close finds still queued is cancelled
        waiting = [future for *_, future in runs.queue]
    closing = threading.Thread(target=runs.close)
    closing.start()
    while not runs.closed:  # closed while (0, 1) is still under way, then let go
        time.sleep(0.001)
    r.go.set()
    closing.join(10)
    assert all(f.cancelled() or f.done() for f in started.futures)
    assert len(r.taken) + sum(f.cancelled() for f in waiting) == 4
    assert r.taken == [(0, 1)] and len(waiting) == 3 and all(f.cancelled() for f in waiting)
    assert not any(core.is_alive() for core in runs.cores)
