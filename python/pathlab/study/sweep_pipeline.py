"""A sweep from start to end, as `pathlab.sweep` and `pathlab sweep` run it: the grid (given, or
the file's `[sweep]` table) times variants times seeds, planned and checked before any run
(`plan`), then run on every core or on Ray, each run journaled as it finishes so that a sweep
stopped and started again skips what it has done (`Plan.run`), and aggregated per point."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.api import Scenario, ScenarioError, _overrides, _read
from pathlab.host_site_figures import PLACE_COLUMNS
from pathlab.loading import resolve
from pathlab.progress import Progress
from pathlab.study.stats import aggregate
from pathlab.study.sweep import (
    FIGURES,
    Axis,
    Job,
    Journal,
    Point,
    PointFailed,
    bounded_workers,
    default_workers,
    expand,
    file_axes,
    out_folder,
    parse_axis,
    run_local,
    run_ray,
    study_cases,
    sweep_table,
    table_seeds,
)
from pathlab.writable import writable_outputs

if TYPE_CHECKING:  # pandas is imported where the tables are built: `import pathlab` stays quick
    import pandas as pd

#: A grid: {key: values} (a list, or a range "a:b:step" / "a:b:*factor"), or axes as `--grid` takes them.
Grid = Mapping[str, Any] | Sequence[str]


@dataclass(frozen=True, eq=False)
class Sweep:
    """A sweep's runs and its points' means with 95% intervals."""

    #: One row per run: variant, one column per axis, seed, every figure.
    runs: pd.DataFrame
    #: One row per point (variant and axis values): each figure's `_mean` and `_ci95`, and `seeds`.
    points: pd.DataFrame
    #: The swept keys, in the grid's order.
    axes: tuple[str, ...]
    #: How the sweep was made (kept in its Parquet tables' metadata, shown in its report).
    meta: dict[str, Any]
    #: The output stem its tables and journal were written to, if any.
    out: Path | None = None

    def __repr__(self) -> str:
        return f"<pathlab.Sweep {self.meta['scenario']} over {', '.join(self.axes)}: {len(self.points)} points, {len(self.runs)} runs>"

    @property
    def table(self) -> pd.DataFrame:
        """The points: what `pathlab sweep` prints, with every figure."""
        return self.points

    def to_dict(self) -> dict[str, Any]:
        return {"meta": self.meta, "axes": list(self.axes), "points": self.points.to_dict(orient="records")}

    def write(self, stem: str | os.PathLike[str], force: bool = False) -> None:
        """The tables as STEM-runs.{parquet,csv} and STEM-points.{parquet,csv}; tables that exist
        are refused unless `force`."""
        from pathlab.output.sweep import write_table

        writable_outputs([(t, "stem") for t in table_files(stem)], force=force, how_to_force="force=True")
        write_table(self.runs, Path(f"{stem}-runs"), self.meta)
        write_table(self.points, Path(f"{stem}-points"), self.meta)

    def _repr_html_(self) -> str:
        from pathlab.output.sweep import notebook_html

        return notebook_html(self)


def table_files(stem: str | os.PathLike[str]) -> list[str]:
    """A sweep's tables under `stem`: its runs and its points, Parquet and CSV."""
    return [f"{stem}-{t}.{x}" for t in ("runs", "points") for x in ("parquet", "csv")]


@dataclass(frozen=True)
class Plan:
    """A sweep checked and ready to run: every distinct setting loaded once."""

    file: str
    job: Job
    axes: tuple[Axis, ...]
    points: tuple[Point, ...]
    seeds: int
    first_seed: int
    scenario_name: str
    #: The study file's text, for a study (a file of `[sweep.cases]`); else empty.
    study: str

    def outputs(self, stem: str | os.PathLike[str]) -> list[str]:
        """The files a sweep to `stem` writes: its tables and its journal."""
        return [*table_files(stem), f"{stem}-runs.jsonl"]

    def run(self, *, workers: int | None = None, executor: str = "local", address: str | None = None,
            batch: int | None = None, out: str | os.PathLike[str] | None = None, resume: bool = False,
            replace: bool = False, force: bool = False, progress: Progress | None = None) -> Sweep:
        """Runs the points not done yet; with `out`, each run is journaled to OUT-runs.jsonl as it
        finishes and the tables written at the end (tables that exist are refused, before any
        run, unless `force`). `resume`: skip the runs of this sweep the journal holds (runs of
        another sweep are refused, or with `replace` forgotten); without it the journal starts
        afresh."""
        if executor not in ("local", "ray"):
            raise ScenarioError("--executor", executor, "allowed: local, ray")
        if out is None:
            return self._runs({}, None, workers, executor, address, batch, progress or Progress())
        out_folder(Path(out))
        writable_outputs([(t, "out") for t in table_files(out)], force=force, how_to_force="force=True")
        journal = Journal(Path(f"{out}-runs.jsonl"))
        journal.lock()
        try:
            finished = self._earlier(journal, resume, replace, str(out), progress or Progress())
            result = self._runs(finished, journal, workers, executor, address, batch, progress or Progress())
            result.write(out, force=True)  # checked before the runs
            return dataclasses.replace(result, out=Path(out))
        finally:
            journal.unlock()

    def _runs(self, finished: dict[str, dict[str, Any]], journal: Journal | None, workers: int | None, executor: str,
              address: str | None, batch: int | None, progress: Progress) -> Sweep:
        """Runs the points not `finished` yet (each row to the journal as it finishes) and
        aggregates them all."""
        ids = {p: self.job.key(p) for p in self.points}
        todo = [p for p in self.points if ids[p] not in finished]
        progress.count(len(self.points) - len(todo), len(self.points))

        def done(row: dict[str, Any]) -> None:
            if journal is not None:
                journal.append(row)
            finished[row["point"]] = row
            progress.count(len(finished), len(self.points))

        try:
            if executor == "ray":
                run_ray(self.job, todo, address, batch or max(1, len(todo) // (4 * default_workers())), done)
            else:
                run_local(self.job, todo, bounded_workers(workers), done)
        except PointFailed as e:
            raise ScenarioError(*e.args) from None
        import pandas as pd

        keys = [a.key for a in self.axes]
        runs = pd.DataFrame([finished[ids[p]] for p in self.points]).drop(columns="point")
        meta = {"kind": "sweep", "file": self.file, "scenario": self.scenario_name, "study": self.study,
                "text": self.job.text, "sets": list(self.job.sets), "axes": keys, "seeds": self.seeds,
                "first_seed": self.first_seed}
        places = [c for c in runs.columns if c.split(" ", 1)[0] in PLACE_COLUMNS]  # several hosts: each's, each site's
        return Sweep(runs, aggregate(runs, ["variant", *keys], [*FIGURES, *places]), tuple(keys), meta)

    def _earlier(self, journal: Journal, resume: bool, replace: bool, stem: str,
                 progress: Progress) -> dict[str, dict[str, Any]]:
        """The runs of this sweep the journal holds, when resuming; refuses another sweep's."""
        ours = {self.job.key(p) for p in self.points}
        earlier = journal.done(replace) if resume else {}
        others = set(earlier) - ours
        if others and not replace:
            raise ScenarioError("--out", stem, f"holds {len(others)} runs of another sweep (another grid, scenario or "
                                "settings): give --replace to start over, or another --out")
        if others or not resume:
            journal.clear()
        finished = {k: v for k, v in earlier.items() if k in ours and not others}
        if finished:
            progress.note(f"{len(finished)} of {len(self.points)} runs already done in {journal.path}")
        return finished


def plan(scenario_or_file: Scenario | str | os.PathLike[str], grid: Grid | None = None, *,
         variants: Sequence[str] | None = None, seeds: int | None = None, first_seed: int = 1,
         set: Mapping[str, Any] | Iterable[str] | None = None) -> Plan:  # noqa: A002 - mirrors --set
    """The sweep's points, every distinct setting checked by loading it: `grid` (default: the
    file's `[sweep]` grid), every variant (or those named; a study file's cases), `seeds`
    replications from `first_seed` (default: the `[sweep]` table's, else 1)."""
    sets = [f"{k}={v}" for k, v in _overrides(set)]
    if isinstance(scenario_or_file, Scenario):
        s = scenario_or_file
        file, text = s.file, s.text
        table: dict[str, Any] = {}
        cases: tuple[tuple[str, tuple[str, ...]], ...] = ()
        sets = [*(f"{k}={v}" for k, v in s.overrides), *sets]
        scenario_file = file
        variants = variants or ([s.variant] if s.variant else None)
    else:
        file = resolve(scenario_or_file)
        table = sweep_table(file)
        cases = study_cases(file, table)
        scenario_file = scenario_file_of(file)
        text = _read(scenario_file)
    axes = _axes(grid) if grid else file_axes(file, table)
    if not axes:
        raise ScenarioError(file, "sweep.grid", "nothing to sweep: give --grid KEY=VALUES or a [sweep] table with a grid")
    base = Scenario.from_text(text, scenario_file, set=sets)
    chosen: list[str | None] = list(variants or table.get("variants") or [n for n, _ in cases]
                                    or [n for n, _ in base.variants] or [None])
    n_seeds = seeds or table_seeds(file, table)
    points = expand(axes, chosen, range(first_seed, first_seed + n_seeds))
    job = Job(text, scenario_file, tuple(sets), cases)
    job.check(points)
    return Plan(file, job, tuple(axes), tuple(points), n_seeds, first_seed, base.name, _read(file) if cases else "")


def scenario_file_of(file: str) -> str:
    """The scenario file a sweep of `file` runs: the file, or the scenario its study table names."""
    table = sweep_table(resolve(file))
    return str(Path(resolve(file)).parent / table["scenario"]) if "scenario" in table else resolve(file)


def sweep(scenario_or_file: Scenario | str | os.PathLike[str], grid: Grid | None = None, *,
          variants: Sequence[str] | None = None, seeds: int | None = None, first_seed: int = 1,
          set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002 - mirrors --set
          workers: int | None = None, executor: str = "local", address: str | None = None, batch: int | None = None,
          out: str | os.PathLike[str] | None = None, resume: bool = False, replace: bool = False, force: bool = False,
          progress: Progress | None = None) -> Sweep:
    """Runs a scenario at every point of `grid` ({"policy.iops": [1, 1000]}, {"policy.iops":
    "1:1024:*2"} or ["policy.iops=1,1000"]; default: the file's `[sweep]` grid), every variant,
    `seeds` times, on `workers` local processes or on Ray (`executor="ray"`, `address`, `batch`
    runs per task). With `out`, the runs are journaled to OUT-runs.jsonl and the tables written
    to OUT-runs.* and OUT-points.* (`resume` skips what a stopped sweep did; tables that exist
    are replaced only with `force`)."""
    return plan(scenario_or_file, grid, variants=variants, seeds=seeds, first_seed=first_seed, set=set).run(
        workers=workers, executor=executor, address=address, batch=batch, out=out, resume=resume, replace=replace,
        force=force, progress=progress)


def _axes(grid: Grid) -> list[Axis]:
    """The axes of a grid given as a mapping (values a list or a range string) or as `--grid` items."""
    from pathlab.study.sweep import toml_literal
    from pathlab.toml_values import to_toml

    if isinstance(grid, Mapping):
        axes = []
        for key, values in grid.items():
            if isinstance(values, str):
                axes.append(parse_axis(f"{key}={values}"))
            elif isinstance(values, Sequence) and values:
                axes.append(Axis(str(key), tuple(toml_literal(to_toml(v)) for v in values)))
            else:
                raise ScenarioError("grid", str(key), "a non-empty list of values or a range \"a:b:step\"")
        return axes
    return [parse_axis(g) for g in ([grid] if isinstance(grid, str) else grid)]
