"""A failover study: every setting (a scenario's variants) under every failure (its `[sweep]`
grid of `faults`), one run each, and what the application saw in each: the longest stall, the
longest single I/O, the I/Os failed back to it, the writes retried while their first copy could
still land (hazards), and how long until it was back at full rate and on its paths again.
`scenarios/studies/failover-timers.toml` is the study issue 36 asked for; the sweep plans and
checks its points (`sweep_pipeline.plan`), so a study file is a sweep file too."""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pathlab.api import Scenario, ScenarioError, _read
from pathlab.loading import resolve
from pathlab.progress import Progress
from pathlab.study.sweep import sweep_table
from pathlab.study.sweep_pipeline import plan

#: How a fault's `detection` reads in the table.
SEEN = {"link": "seen", "timeout": "not seen"}


@dataclass(frozen=True)
class FailoverRow:
    """One setting under one failure: what the application saw of the study's device."""

    #: The variant (the setting) and its description.
    setting: str
    description: str
    #: The failure, as `failure_name` calls it.
    failure: str
    #: Seconds; the longest stall of the device (I/O outstanding and none answered).
    stall_s: float
    #: Seconds; the longest response of a single I/O (a held I/O while others went on).
    longest_io_s: float
    failed_ios: int
    hazards: int
    #: Seconds from the fault's start to the first interval back at full rate; None: not by the end.
    back_to_full_rate_s: float | None
    #: Seconds from the fault's end until the paths in use before are again; None: not by the end.
    failed_back_s: float | None
    #: The run's result (`Result.data`), for the report's timelines; not compared.
    data: dict[str, Any] = field(repr=False, compare=False)
    #: The failure's `[[faults]]` tables as the grid gives them (what the predictions read).
    faults: tuple[dict[str, Any], ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class FailoverStudy:
    file: str
    #: The study file's text (the report shows it).
    text: str
    seed: int
    rows: tuple[FailoverRow, ...]


def failure_name(faults_literal: str) -> str:
    """A failure as the table names it, from the grid's `faults` value: each fault's kind,
    whether its loss is seen and how long an ANA change it passes through lasts ("controller
    reboot, not seen"; "controller reboot, seen, ANA change 5s")."""
    faults = tomllib.loads(f"v = {faults_literal}")["v"]
    parts = [f"{f['kind'].replace('_', ' ')}" + (f", {SEEN[f['detection']]}" if f.get("detection") in SEEN else "")
             + (f", ANA change {f['ana_change']}" if "ana_change" in f else "") for f in faults]
    return "; ".join(parts) or "no fault"


def run_study(file: str, variants: Sequence[str] | None = None, progress: Progress | None = None) -> FailoverStudy:
    """Runs `file`'s settings (its `[sweep]` variants, or those named) under each `faults` value
    of its `[sweep]` grid, one seed (the timers are deterministic); refuses a grid over anything
    else."""
    grid = sweep_table(resolve(file)).get("grid", {})
    if list(grid) != ["faults"]:
        over = f"this one is over {', '.join(grid)}" if grid else "this file has no grid"
        raise ScenarioError(file, "sweep.grid", f"a failover study's [sweep] grid is over `faults` alone (a list of "
                            f"[[faults]] lists, one per failure): {over}")
    planned = plan(file, variants=variants)
    if planned.seeds != 1:
        raise ScenarioError(file, "sweep.seeds", f"{planned.seeds}: a failover study runs one seed (its timers are deterministic)")
    progress = progress or Progress()
    rows = []
    for i, point in enumerate(planned.points):
        progress.count(i, len(planned.points))
        literal = dict(point.values)["faults"]
        scenario = Scenario.load(planned.file, variant=point.variant, set=[f"faults={literal}"], seed=point.seed)
        row = _row(scenario, failure_name(literal), scenario.run().data)
        rows.append(replace(row, faults=tuple(tomllib.loads(f"v = {literal}")["v"])))
    progress.count(len(planned.points), len(planned.points))
    return FailoverStudy(planned.file, _read(planned.file), planned.first_seed, tuple(rows))


def _row(scenario: Scenario, failure: str, data: dict[str, Any]) -> FailoverRow:
    """The row of a run of one device (the study's scenario has one)."""
    app = data["application"]
    if len(data["devices"]) != 1:
        raise ScenarioError(scenario.file, "devices", f"{len(data['devices'])} devices: a failover study's scenario has one")
    device = data["devices"][0]
    saw = next(d for d in app["devices"] if d["device"] == device["name"])
    recovered = [r for r in app["recovery"] if r["device"] == device["name"]]
    back = recovered[0]["back_to_full_rate_s"] if recovered else None
    failed_back = recovered[0]["failed_back_s"] if recovered else None
    description = dict(scenario.variants).get(scenario.variant or "", scenario.description)
    return FailoverRow(scenario.variant or "", description, failure, saw["longest_stall_s"],
                       data["summary"]["resp_max_ms"] / 1e3, saw["failed_ios"], device["hazards"], back, failed_back, data)
