"""Sweeps: a grid over dotted scenario keys, times variants, times seeds; run on every core or
as Ray tasks; one tidy row per run and an aggregate (mean and 95% interval) per point.

An axis is written `policy.iops=1,2,4,1000` (a list), `policy.iops=1:10:3` (1, 4, 7, 10: a
range, both ends included) or `policy.iops=1:1024:*2` (1, 2, 4, ... 1024: a log range). Values
are TOML literals; a word that is not one (`sequential`) is taken as a string."""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import tomllib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pathlab.api import Scenario, ScenarioError, warn
from pathlab.figures import KEYS
from pathlab.host_site_figures import place_columns
from pathlab.toml_values import to_toml

#: The figures of a run's summary that a sweep keeps, in the order tables show them.
FIGURES = KEYS


@dataclass(frozen=True)
class Axis:
    key: str
    values: tuple[str, ...]  # TOML literals


@dataclass(frozen=True)
class Point:
    """One run of a sweep: a variant, one value per axis, a seed."""

    variant: str | None
    values: tuple[tuple[str, str], ...]
    seed: int

    @property
    def id(self) -> str:
        return json.dumps([self.variant, list(self.values), self.seed])

    @property
    def label(self) -> str:
        """The point as a person names it: `variant rr, policy.iops=1, seed 3`."""
        parts = [*([f"variant {self.variant}"] if self.variant else []), *(f"{k}={v}" for k, v in self.values)]
        return ", ".join([*parts, f"seed {self.seed}"])


class PointFailed(Exception):
    """A run of a sweep that stopped on bad input, as (file, field, message): plain strings, so
    that it reaches the sweep from a worker process or a Ray task whole."""


def toml_literal(word: str) -> str:
    """`word` if it is a TOML value, else the word as a TOML string."""
    try:
        tomllib.loads(f"v = {word}")
        return word
    except tomllib.TOMLDecodeError:
        return json.dumps(word)


#: The most runs one sweep may ask for (points x variants x seeds): a grid beyond it is a typo
#: (1:1000000:1) and would take days before the first table.
MAX_RUNS = 100_000


def _number(text: str, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ScenarioError("--grid", where, f"{text!r} is not a finite number (ranges are a:b:step or a:b:*factor)")
    return value


def _range(spec: str, where: str) -> list[str]:
    first, last, step = spec.split(":")
    a, b = _number(first, where), _number(last, where)
    integral = all(x.lstrip("+-").isdigit() for x in (first, last, step.lstrip("*")))
    fmt = (lambda x: str(round(x))) if integral else (lambda x: repr(round(x, 12)))
    out = []
    if b < a:
        raise ScenarioError("--grid", where, f"{spec}: a range a:b needs a <= b")
    if step.startswith("*"):
        factor = _number(step[1:], where)
        if factor <= 1 or a <= 0:
            raise ScenarioError("--grid", where, "a log range a:b:*factor needs a > 0 and factor > 1")
        _few(math.log(b / a) / math.log(factor) + 1, spec, where)
        x = a
        while x <= b * (1 + 1e-12):
            out.append(fmt(x))
            x *= factor
    else:
        d = _number(step, where)
        if d <= 0:
            raise ScenarioError("--grid", where, "a range a:b:step needs step > 0")
        _few((b - a) / d + 1, spec, where)
        out = [fmt(a + i * d) for i in range(int(math.floor((b - a) / d + 1e-9)) + 1)]
    return list(dict.fromkeys(out))


def _few(count: float, spec: str, where: str) -> None:
    if count > MAX_RUNS:
        raise ScenarioError("--grid", where, f"{spec}: {count:.3g} values: at most {MAX_RUNS} runs in one sweep")


def parse_axis(spec: str) -> Axis:
    """`key=v1,v2`, `key=a:b:step` or `key=a:b:*factor`."""
    key, sep, rest = spec.partition("=")
    key = key.strip()
    if not sep or not key or not rest.strip():
        raise ScenarioError("--grid", spec, "expected dotted.key=v1,v2,... or dotted.key=a:b:step or a:b:*factor")
    rest = rest.strip()
    if rest.count(":") == 2 and "," not in rest and not rest.startswith(("[", "{", '"')):
        values = _range(rest, key)
    else:
        values = [v.strip() for v in rest.split(",") if v.strip()]
    if not values:
        raise ScenarioError("--grid", key, f"{rest!r} holds no value: expected v1,v2,... or a:b:step")
    return Axis(key, tuple(toml_literal(v) for v in values))


def sweep_table(path: str) -> dict[str, Any]:
    """The `[sweep]` table of a scenario file: `grid` ({key = list or "a:b:step"}), `seeds`,
    `variants`; empty when there is none. A study file holds only this table: `scenario` names
    the scenario it sweeps (relative to the study file) and `cases` its named settings
    (`[sweep.cases.NAME] set = {key = value}`), swept as variants are."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        # The loader says why in one line, as for every verb (a file nested too deep included).
        Scenario.load(path)
        return {}
    table = data.get("sweep", {})
    if not isinstance(table, dict):
        raise ScenarioError(path, "sweep", "a table: [sweep] with grid, seeds, variants, scenario, cases")
    allowed = {"grid", "seeds", "variants", "scenario", "cases"}
    for name in table:
        if name not in allowed:
            raise ScenarioError(path, f"sweep.{name}", f"unknown field; allowed: {', '.join(sorted(allowed))}")
    for name, kind, expected in _SWEEP_FIELDS:
        if name in table and not isinstance(table[name], kind):
            raise ScenarioError(path, f"sweep.{name}", f"{_shown(table[name])}: expected {expected}")
    if not all(isinstance(v, str) for v in table.get("variants", [])):
        raise ScenarioError(path, "sweep.variants", "expected a list of the file's variant names")
    return table


#: The `[sweep]` fields whose type the sweep relies on, with the form a user writes.
_SWEEP_FIELDS = (
    ("grid", dict, 'a table of axes: grid = { "policy.iops" = [1, 1000] } or { "policy.iops" = "1:1000:*10" }'),
    ("variants", list, 'a list of the file\'s variant names: variants = ["rr", "fixed"]'),
    ("scenario", str, 'the scenario file to sweep, as a string: scenario = "../c1-vmax-1lun.toml"'),
    ("cases", dict, "[sweep.cases.NAME] tables, each with set = { key = value } and a description"),
)


def _shown(value: Any) -> str:
    """A value as the file wrote it, cut short."""
    text = to_toml(value) if not isinstance(value, dict) else "a table"
    return text if len(text) <= 60 else text[:57] + "..."


def file_axes(path: str, table: dict[str, Any]) -> list[Axis]:
    axes = []
    for key, spec in table.get("grid", {}).items():
        if isinstance(spec, str):
            axes.append(parse_axis(f"{key}={spec}"))
        elif isinstance(spec, list) and spec:
            # to_toml, not JSON: a value may be a table or a list of them (a run's `faults`).
            axes.append(Axis(key, tuple(toml_literal(to_toml(v)) for v in spec)))
        else:
            raise ScenarioError(path, f"sweep.grid.{key}", "a non-empty list of values or a range \"a:b:step\"")
    return axes


def expand(axes: Sequence[Axis], variants: Sequence[str | None], seeds: Sequence[int]) -> list[Point]:
    """The cartesian product, variants outermost and seeds innermost; refused when a key is on
    two axes or the runs are more than `MAX_RUNS`."""
    keys = [a.key for a in axes]
    twice = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
    if twice is not None:
        raise ScenarioError("--grid", twice, "is on two axes: give each key once, with all its values")
    runs = math.prod(len(a.values) for a in axes) * len(variants) * len(seeds)
    if runs > MAX_RUNS:
        raise ScenarioError("--grid", " x ".join(keys), f"{runs} runs: at most {MAX_RUNS} in one sweep")
    return [
        Point(variant, tuple(zip(keys, combo)), seed)
        for variant in variants
        for combo in itertools.product(*(a.values for a in axes))
        for seed in seeds
    ]


def table_seeds(path: str, table: dict[str, Any]) -> int:
    """The `[sweep]` table's `seeds` (replications per point), 1 when it gives none."""
    seeds = table.get("seeds", 1)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 1 <= seeds <= MAX_RUNS:
        raise ScenarioError(path, "sweep.seeds", f"{seeds!r}: a whole number from 1 to {MAX_RUNS}")
    return seeds


def study_cases(path: str, table: dict[str, Any]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The `[sweep.cases]` of a study: (name, its `key=value` overrides) in file order."""
    cases = []
    for name, case in table.get("cases", {}).items():
        if not isinstance(case, dict) or set(case) - {"set", "description"} or not isinstance(case.get("set", {}), dict):
            raise ScenarioError(path, f"sweep.cases.{name}", "a table with `set = {key = value, ...}` and a `description`")
        cases.append((name, tuple(f"{k}={to_toml(v)}" for k, v in case.get("set", {}).items())))
    return tuple(cases)


@dataclass(frozen=True)
class Job:
    """Everything a worker (a process here, a Ray task elsewhere) needs to run points. A point's
    `variant` is one of the file's variants or, for a study, one of its `cases`."""

    text: str
    file: str
    sets: tuple[str, ...]
    cases: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def _load(self, point: Point, seed: int | None) -> Scenario:
        case = dict(self.cases).get(point.variant or "")
        variant = None if case is not None else point.variant
        sets = [*self.sets, *(case or ()), *(f"{k}={v}" for k, v in point.values)]
        return Scenario.from_text(self.text, self.file, variant, sets, seed)

    def key(self, point: Point) -> str:
        """A run's key in the journal: the point, and a digest of the scenario and overrides, so
        that a journal left by another sweep to the same output is not taken for this one's."""
        digest = hashlib.sha256(json.dumps([self.text, self.sets, self.cases]).encode()).hexdigest()[:16]
        return f"{digest} {point.id}"

    def run(self, point: Point) -> dict[str, Any]:
        try:
            result = self._load(point, point.seed).run()
        except ScenarioError as e:
            # The native error does not cross a process boundary (it cannot be pickled): its
            # three strings do, with the point that met it.
            file, field, message = e.args
            raise PointFailed(file, field, f"{message} (at {point.label})") from None
        summary = result.data["summary"]
        return {
            "point": self.key(point),
            "variant": point.variant or "",
            **{k: _plain(v) for k, v in point.values},
            "seed": point.seed,
            **{f: summary[f] for f in FIGURES},
            **place_columns(result.data),
        }

    def check(self, points: Iterable[Point]) -> None:
        """Loads every distinct setting once, so bad input stops the sweep before it starts."""
        seen = set()
        for p in points:
            if (p.variant, p.values) not in seen:
                seen.add((p.variant, p.values))
                self._load(p, None)


def run_batch(job: Job, points: Sequence[Point]) -> list[dict[str, Any]]:
    return [job.run(p) for p in points]


def _plain(literal: str) -> Any:
    """An axis value as a table's cell: the value, or its TOML text where it is a table or an
    array (a run's `faults`), which a column cannot group by."""
    value = tomllib.loads(f"v = {literal}")["v"]
    return literal if isinstance(value, (dict, list)) else value


def run_local(job: Job, points: Sequence[Point], workers: int, done: Callable[[dict[str, Any]], None]) -> None:
    """Processes, one run each: measured 1.94x from 1 to 2 workers where threads over the
    engine gained 4% (NOTES.md). No more workers than runs; points are handed out as workers
    free up. Whatever ends the sweep (a bad point, Ctrl-C, an error) ends the workers with it,
    and a worker whose sweep is killed ends itself (`processes.die_with_parent`)."""
    import multiprocessing

    from pathlab.processes import die_with_parent

    if not points:
        return
    pool = multiprocessing.Pool(min(workers, len(points)), initializer=die_with_parent, initargs=(os.getpid(),))
    try:
        for row in pool.imap_unordered(job.run, points):
            done(row)
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def batches(points: Sequence[Point], size: int) -> Iterator[list[Point]]:
    for i in range(0, len(points), size):
        yield list(points[i : i + size])


def run_ray(job: Job, points: Sequence[Point], address: str | None, batch: int, done: Callable[[dict[str, Any]], None]) -> None:
    """Ray tasks of `batch` points each, so a task's scheduling cost is spread over several runs."""
    from pathlab.study.executor import ray_started

    ray = ray_started(address)
    remote = ray.remote(run_batch)
    job_ref = ray.put(job)
    pending = [remote.remote(job_ref, b) for b in batches(points, batch)]
    while pending:
        ready, pending = ray.wait(pending, num_returns=1)
        for row in ray.get(ready[0]):
            done(row)


class Journal:
    """Rows of finished runs, one JSON line each, appended as they finish: a sweep that is
    stopped and started again skips what is in it."""

    def __init__(self, path: Path):
        self.path = path
        self.held: Any = None

    def lock(self) -> None:
        """Holds the journal for this sweep until `unlock` (or the process ends): a second sweep
        to the same output is refused rather than run every point again beside the first."""
        try:
            import fcntl
        except ImportError:  # Windows: no advisory locks
            return
        self.held = self.path.open("a", encoding="utf-8")
        try:
            fcntl.flock(self.held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ScenarioError("--out", str(self.path), "another sweep is writing to it: wait for it to end, "
                                "or give another --out") from None

    def unlock(self) -> None:
        if self.held is not None:
            self.held.close()  # closing the file releases its lock
            self.held = None

    def clear(self) -> None:
        """Forgets the runs of another sweep (`--replace`)."""
        self.path.write_text("", encoding="utf-8")

    def done(self, replace: bool = False) -> dict[str, dict[str, Any]]:
        """The rows written so far; the last line, cut short when the sweep was stopped, is
        dropped from the file (its run is done again). Any other line that is not a run's row
        (an edited or damaged journal) is refused in one line, or with `replace` the journal is
        started over."""
        if not self.path.exists():
            return {}
        rows, good = {}, []
        with self.path.open(encoding="utf-8", errors="replace") as f:
            lines = [line.rstrip("\n") for line in f]
        for number, line in enumerate(lines, start=1):
            try:
                row = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                row = None
                if number == len(lines) and not line.endswith("}"):
                    continue  # the row being written when the sweep was stopped
            if not isinstance(row, dict) or not isinstance(row.get("point"), str):
                if replace:
                    self.clear()
                    return {}
                raise ScenarioError("--out", str(self.path), f"line {number}: {line[:40]!r} is not a run of a pathlab "
                                    "sweep (a damaged journal?): give --replace to start over, or another --out")
            rows[row["point"]] = row
            good.append(line)
        self.path.write_text("".join(f"{line}\n" for line in good), encoding="utf-8")
        return rows

    def append(self, row: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")


def out_folder(stem: Path) -> None:
    """Makes the folder of a sweep's output stem, or refuses in one line a stem under a file or
    in a folder that cannot be made."""
    try:
        stem.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        above = next((p for p in [stem.parent, *stem.parent.parents] if p.exists() and not p.is_dir()), stem.parent)
        raise ScenarioError("--out", str(stem), f"{above} is a file, not a folder: give a stem in a folder") from None
    except OSError as e:
        raise ScenarioError("--out", str(stem), f"folder {stem.parent} cannot be made: {e.strerror or e}") from None


def default_workers() -> int:
    return os.cpu_count() or 1


#: The most local workers a sweep starts, whatever the cores: each holds a Python interpreter
#: with pandas (about 100 MB).
MAX_WORKERS = 64


def bounded_workers(asked: int | None) -> int:
    """Local workers: `asked`, at most one per core and `MAX_WORKERS` (a warning says so when
    more were asked for); default one per core."""
    most = min(default_workers(), MAX_WORKERS)
    if asked is not None and asked > most:
        warn("--workers", str(asked), f"this machine has {default_workers()} cores: running {most} workers "
             f"(at most one per core, and {MAX_WORKERS})")
    return min(asked or most, most)
