"""advise's candidate runs on Ray (issue 33 item 4, `--executor ray`): each run crosses to a worker
as what rebuilds its scenario (pickled, as Ray pickles it) and comes back as its result's data,
with the same figures as the local runs. A stand-in for Ray runs each task in this process
through pickle (a real Ray takes seconds to start; `test_sweep` starts one for the sweep's
executor, which shares `ray_started`). Runs are 1 s after 0.5 s over 2 seeds."""

from __future__ import annotations

import importlib.machinery
import pickle
import sys
import tomllib
import types
from collections.abc import Callable
from typing import Any

import pytest

from conftest import pathlab as command
from pathlab.advisor.candidates import candidates
from pathlab.advisor.rank import rank_together
from pathlab.api import Scenario
from pathlab.loading import load
from pathlab.study.executor import Executor

METRO = "srdf-metro-cluster-50km"
LENGTH = {"run.duration": "1s", "run.warmup": "0.5s"}


class _TaskError(Exception):
    def __init__(self, cause: Exception):
        super().__init__(cause)
        self.cause = cause

    def as_instanceof_cause(self) -> Exception:
        return self.cause


class FakeRay(types.ModuleType):
    """What `Executor("ray")` uses of Ray, each task run here on arguments that went through pickle."""

    def __init__(self) -> None:
        super().__init__("ray")
        self.__spec__ = importlib.machinery.ModuleSpec("ray", None)
        self.exceptions = types.SimpleNamespace(RayTaskError=_TaskError)
        self.started, self.tasks, self.stored = 0, 0, 0

    def is_initialized(self) -> bool:
        return self.started > 0

    def init(self, **_: Any) -> None:
        self.started += 1

    def put(self, value: Any) -> Any:
        self.stored += 1
        return pickle.loads(pickle.dumps(value))

    def remote(self, fn: Callable[..., Any]) -> Any:
        ray = self

        class Remote:
            def remote(self, *args: Any) -> Any:
                ray.tasks += 1
                try:
                    return pickle.loads(pickle.dumps(fn(*pickle.loads(pickle.dumps(args)))))
                except Exception as e:  # noqa: BLE001 - Ray wraps whatever the task raised
                    return _TaskError(e)

        return Remote()

    def get(self, refs: list[Any]) -> list[Any]:
        for r in refs:
            if isinstance(r, _TaskError):
                raise r
        return list(refs)


@pytest.fixture
def fake_ray(monkeypatch: pytest.MonkeyPatch) -> FakeRay:
    ray = FakeRay()
    monkeypatch.setitem(sys.modules, "ray", ray)
    return ray


def _ranked(scenario: Scenario, executor: Executor) -> list[tuple[str, Any, Any]]:
    scenario = scenario.with_set(LENGTH)
    in_force = scenario.run(path_intervals=False)
    cands = candidates(scenario, in_force)[:3]
    (ranked,) = rank_together([scenario], cands, 2, [[{}] * len(cands)], per_host=True, executor=executor)
    return [(r.candidate.label, r.figures, r.hosts) for r in ranked]


def test_a_clusters_candidates_on_ray_have_the_local_runs_figures(fake_ray: FakeRay) -> None:
    metro = load(METRO, None, [])
    local = _ranked(metro, Executor())
    assert fake_ray.tasks == 0
    on_ray = _ranked(metro, Executor("ray"))
    assert on_ray == local
    # The setting in force and two candidates, 2 seeds each, each a task: none simulated here.
    assert fake_ray.tasks == 6 and fake_ray.started == 1
    assert [label for label, *_ in local] == ["the setting in force", "round robin, iops=1",
                                              "round robin, latency"]


def test_a_scenario_built_from_tables_goes_with_its_tables_once_a_batch(fake_ray: FakeRay) -> None:
    # An imported cluster is built from its tables (no text parsed again): they go to the store once.
    metro = load(METRO, None, [])
    tables = Scenario.from_values(tomllib.loads(metro.text), metro.text, metro.file)
    assert _ranked(tables, Executor("ray")) == _ranked(metro, Executor())
    assert fake_ray.stored == 1 and fake_ray.tasks == 6


def test_without_ray_advise_says_so_in_one_line_before_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails, as where it is not installed
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a))
    result = command("advise", METRO, "--executor", "ray", "--duration", "1s", "--warmup", "0.5s")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "pathlab: error: --executor: ray: Ray is not installed: pip install 'pathlab[ray]'"]


def test_an_address_without_ray_is_refused() -> None:
    result = command("advise", METRO, "--address", "auto")
    assert result.returncode == 2
    assert "an address is a Ray cluster's: give it with --executor ray" in result.stderr


find_spec = importlib.util.find_spec
