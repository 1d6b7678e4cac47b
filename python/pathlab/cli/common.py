"""What every verb shares: loading with clear errors, progress on stderr, output choices."""

from __future__ import annotations

import functools
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from pathlab.api import MAX_SEED, PathlabWarning, Result, Scenario, ScenarioError, run_many
from pathlab.loading import load, resolve  # noqa: F401 - every verb loads as the library does
from pathlab.writable import writable_output, writable_outputs  # noqa: F401 - every verb checks its outputs so

F = TypeVar("F", bound=Callable[..., Any])


def __getattr__(name: str) -> str:
    """`INPUT_KINDS`: what a host prints that `pathlab import` and `advise` read, as their help
    says it. Made when those verbs ask for it: the importers' table it comes from is not needed
    by the other verbs (`pathlab run` starts some 10 ms sooner without it)."""
    if name != "INPUT_KINDS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pathlab.importer.kinds import READ

    return f"{READ}. FILES may be a folder of them (a sosreport or vm-support tree) or a shipped capture's name (vmax-iops1000)."



variant_option = click.option("--variant", help="Apply one of the file's named variants.")

set_option = click.option(
    "--set",
    "sets",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override a scenario value by its dotted key, e.g. --set policy.iops=1 (repeatable).",
)
workload_option = click.option(
    "--workload",
    help="Replace the scenario's workloads: a named mix (oltp, exchange, orion), a fio job file or a vdbench parameter file.",
)
seed_option = click.option("--seed", type=click.IntRange(min=0, max=MAX_SEED), help="Seed of the random streams.")


def error_line(e: ScenarioError) -> str:
    file, field, message = e.args
    return f"{file}: {field}: {message}" if field else f"{file}: {message}"


class BadInput(click.ClickException):
    """Input pathlab cannot use: one line on stderr naming the file and field, exit status 2."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"pathlab: error: {self.message}", err=True)


class AlikeWarnings:
    """Warnings on stderr, each once, and those alike (`output.repeats.alike`: the same words and
    figures for another device) said three times and then counted at the end: a cluster of 32 hosts × 500
    devices assumes a workload's span for each of 16,000 devices. Each value assumed is also
    commented where it is written (the imported scenario; advise's assumptions with --verbose)."""

    def __init__(self) -> None:
        self.shown: set[str] = set()
        self.alike: dict[str, list[str]] = {}

    def show(self, message: str) -> None:
        from pathlab.output.repeats import SHOWN, alike

        if message in self.shown:
            return
        self.shown.add(message)
        group = self.alike.setdefault(alike(message, figures=False), [])
        group.append(message)
        if len(group) <= SHOWN:
            click.echo(f"pathlab: warning: {message}", err=True)

    def end(self) -> None:
        from pathlab.output.repeats import SHOWN

        for group in self.alike.values():
            if len(group) == SHOWN + 1:  # one more: said, not counted
                click.echo(f"pathlab: warning: {group[-1]}", err=True)
            elif len(group) > SHOWN + 1:
                click.echo(f"pathlab: warning: and {len(group) - SHOWN:,} more alike, the last: {group[-1]}", err=True)


def handle_errors(fn: F) -> F:
    """Expected errors become a `BadInput` (one line, status 2); warnings print one line on
    stderr each, once (a lineup loads the same file for each policy)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        said = AlikeWarnings()
        with warnings.catch_warnings():
            warnings.simplefilter("always", PathlabWarning)
            warnings.showwarning = lambda message, *_, **__: said.show(str(message))
            try:
                return fn(*args, **kwargs)
            except ScenarioError as e:
                raise BadInput(error_line(e)) from None
            finally:
                said.end()

    return wrapper  # type: ignore[return-value]


force_option = click.option("--force", is_flag=True, help="Replace output files that exist (refused without it).")


class LazyProgress:
    """A progress bar on stderr that appears only when the work lasts more than a second.
    On a terminal it is a live bar (rich, imported then); elsewhere (CI logs) one line per
    quarter done."""

    def __init__(self, labels: Sequence[str]):
        self.labels = labels
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.live = sys.stderr.isatty()
        self.bar: Any = None
        self.tasks: list[Any] = []
        self.reported = [0] * len(labels)

    def __call__(self, index: int, fraction: float) -> None:
        if time.monotonic() - self.started < 1.0:
            return
        with self.lock:
            if not self.live:
                quarter = int(fraction * 4)
                if quarter > self.reported[index]:
                    self.reported[index] = quarter
                    click.echo(f"pathlab: {self.labels[index]}: {quarter * 25}% simulated", err=True)
                return
            if self.bar is None:
                from rich.console import Console
                from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

                self.bar = Progress(
                    TextColumn("{task.description}"),
                    BarColumn(),
                    TextColumn("{task.percentage:>3.0f}%"),
                    TimeRemainingColumn(),
                    console=Console(stderr=True),
                    transient=True,
                )
                self.tasks = [self.bar.add_task(label, total=1.0) for label in self.labels]
                self.bar.start()
            self.bar.update(self.tasks[index], completed=fraction)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def run_all(scenarios: Sequence[Scenario], path_intervals: bool = True) -> list[Result]:
    """Runs scenarios on every core with progress on stderr (`path_intervals` as `Scenario.run`
    takes it)."""
    progress = LazyProgress([s.label for s in scenarios])
    try:
        return run_many(scenarios, progress, path_intervals=path_intervals)
    finally:
        progress.close()


def scenario_files(target: str) -> list[str]:
    """The scenario files of a folder, or the one file (or shipped name) given."""
    path = Path(resolve(target))
    if path.is_dir():
        files = sorted(str(p) for p in path.glob("*.toml"))
        if not files:
            raise ScenarioError(target, "", "no scenario files (*.toml) in this directory")
        return files
    if not path.exists():
        raise ScenarioError(target, "", "no such file or directory")
    return [target]


def with_workload(path: str, workload: str | None, sets: Sequence[str]) -> tuple[str, ...]:
    """The `--set` overrides with those of `--workload` first, so that --set can still adjust them.
    The workload goes to the devices of the scenario `path` names (a file or a shipped name). A
    value of the workload file the engine refuses (a block below 512 B) is blamed on that file
    and the line that gave it, not on the scenario: the workloads it becomes are checked on the
    scenario first."""
    if not workload:
        return tuple(sets)
    from pathlab.workload_files import MIXES, workload_overrides

    overrides = workload_overrides(workload, resolve(path))
    if workload not in MIXES:
        try:
            Scenario.load(resolve(path), set=overrides.sets)
        except ScenarioError as e:
            _, field, message = e.args
            parts = field.split(".")
            if origin := overrides.origin(field):
                raise ScenarioError(workload, f"{origin} ({field})", message) from None
            if parts[0] == "workloads" and len(parts) > 1 and parts[1].isdigit():
                raise ScenarioError(workload, f"job or WD {int(parts[1]) + 1} of the file: {field}", message) from None
            if parts[0] in ("workloads", "run"):
                raise ScenarioError(workload, field, message) from None
    return (*overrides.sets, *sets)
