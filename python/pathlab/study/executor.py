"""Where a batch of runs goes: this machine's cores (`run_many`: threads over the engine), or a
Ray cluster (`ray`: one task per run, for advice on more hosts than one machine simulates in
time). A run crosses to a Ray worker as what rebuilds its scenario (`RunOrder`: the text or
tables, variant, overrides and seed; the engine's handle cannot be pickled), and comes back as
its result's data: the same scenario, the same seed, so the same figures as a local run. The
scenario's tables, the bulk of a large cluster's order, are put in Ray's object store once per
batch, not once per run."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pathlab.api import Result, Scenario, ScenarioError, run_many

#: The executors a verb's `--executor` takes.
EXECUTORS = ("local", "ray")
NO_RAY = "Ray is not installed: pip install 'pathlab[ray]'"


@dataclass(frozen=True)
class RunOrder:
    """What rebuilds a scenario elsewhere, its tables aside (they go once per batch): its base
    text, file name, variant, overrides and seed, and whether it was built from tables."""

    text: str
    file: str
    variant: str | None
    overrides: tuple[tuple[str, str], ...]
    seed: int | None
    from_tables: bool

    @classmethod
    def of(cls, scenario: Scenario) -> RunOrder:
        return cls(scenario.text, scenario.file, scenario.variant, scenario.overrides, scenario.seed,
                   scenario.tables is not None)

    def scenario(self, tables: Mapping[str, Any] | None) -> Scenario:
        """The scenario again, from `tables` where it was built from tables (as `Scenario.with_set` rebuilds one)."""
        sets = [f"{k}={v}" for k, v in self.overrides]
        if self.from_tables:
            assert tables is not None
            return Scenario.from_values(tables, self.text, self.file, self.variant, sets, self.seed)
        return Scenario.from_text(self.text, self.file, self.variant, sets, self.seed)


def run_order(order: RunOrder, tables: Mapping[str, Any] | None, figures_only: bool, path_intervals: bool,
              device_rows: bool) -> tuple[dict[str, Any], int]:
    """A run of `order` (its tables given apart: an object of the store), as the result's data
    and its engine events. A scenario error is raised as its three strings (the native one cannot
    be pickled back)."""
    try:
        result = order.scenario(tables).run(figures_only=figures_only, path_intervals=path_intervals,
                                            device_rows=device_rows)
    except ScenarioError as e:
        raise RuntimeError(*(str(a) for a in e.args)) from None
    return result.data, result.engine_events


def ray_started(address: str | None) -> Any:
    """The `ray` module, joined to the cluster at `address` (None: a local one started), or bad
    input where Ray is not installed."""
    try:
        import ray
    except ImportError:
        raise ScenarioError("--executor", "ray", NO_RAY) from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    return ray


@dataclass(frozen=True)
class Executor:
    """Where runs go: `local` (this machine's cores) or `ray` (the cluster at `address`; None
    starts a local one)."""

    kind: str = "local"
    address: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in EXECUTORS:
            raise ScenarioError("--executor", self.kind, f"allowed: {', '.join(EXECUTORS)}")
        if self.address is not None and self.kind != "ray":
            raise ScenarioError("--address", self.address, "an address is a Ray cluster's: give it with --executor ray")
        if self.kind == "ray" and importlib.util.find_spec("ray") is None:  # said before anything runs
            raise ScenarioError("--executor", "ray", NO_RAY)

    def run(self, scenarios: Sequence[Scenario], figures_only: bool = False, path_intervals: bool = True,
            device_rows: bool = False) -> list[Result]:
        """The runs of `scenarios`, in their order (`figures_only`, `path_intervals` and
        `device_rows` as `Scenario.run` takes them)."""
        if self.kind == "local":
            return run_many(scenarios, figures_only=figures_only, path_intervals=path_intervals, device_rows=device_rows)
        ray = ray_started(self.address)
        remote = ray.remote(run_order)
        stored: dict[int, Any] = {}  # each base's tables put once
        pending = []
        for s in scenarios:
            if s.tables is not None and id(s.tables) not in stored:
                stored[id(s.tables)] = ray.put(dict(s.tables))
            pending.append(remote.remote(RunOrder.of(s), stored.get(id(s.tables)), figures_only, path_intervals, device_rows))
        try:
            done = ray.get(pending)
        except ray.exceptions.RayTaskError as e:
            cause = e.as_instanceof_cause()
            if isinstance(cause, RuntimeError) and len(cause.args) == 3:
                raise ScenarioError(*cause.args) from None
            raise
        return [Result(data, events) for data, events in done]


LOCAL = Executor()
