"""What every verb shares: loading with clear errors, progress on stderr, output choices."""

from __future__ import annotations

import functools
import os
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

F = TypeVar("F", bound=Callable[..., Any])



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


def handle_errors(fn: F) -> F:
    """Expected errors become a `BadInput` (one line, status 2); warnings print one line on
    stderr each, once (a lineup loads the same file for each policy)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        shown: set[str] = set()

        def show_once(message: Warning | str, *_: Any, **__: Any) -> None:
            if str(message) not in shown:
                shown.add(str(message))
                click.echo(f"pathlab: warning: {message}", err=True)

        with warnings.catch_warnings():
            warnings.simplefilter("always", PathlabWarning)
            warnings.showwarning = show_once
            try:
                return fn(*args, **kwargs)
            except ScenarioError as e:
                raise BadInput(error_line(e)) from None

    return wrapper  # type: ignore[return-value]


force_option = click.option("--force", is_flag=True, help="Replace output files that exist (refused without it).")


def writable_output(path: str | None, option: str, inputs: Sequence[str] = (), force: bool = False) -> None:
    """Checks, before any run, that an output file can be created, is none of the command's
    `inputs` and, unless `force`, does not exist yet: one line and exit 2 if not."""
    if path is None:
        return
    if "\0" in path:
        raise ScenarioError(option, path.replace("\0", "\\0"), "a file name cannot hold a NUL character")
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if target.is_dir():
        raise ScenarioError(option, path, "is a directory: give a file name")
    if not folder.is_dir():
        raise ScenarioError(option, path, f"folder {folder} does not exist")
    if target.exists() and not target.is_file():
        raise ScenarioError(option, path, "is not a regular file (a device, a FIFO or a socket): give a file name")
    # A folder given as input stands for every file under it (a capture folder, a sosreport tree,
    # whose captures lie deep in it): none of them may be replaced.
    given = list(map(Path, inputs))
    if any(_same_file(target, f) for f in given if not f.is_dir()) or \
            (target.exists() and any(target.resolve().is_relative_to(f.resolve()) for f in given if f.is_dir())):
        raise ScenarioError(option, path, "is an input of this command: writing it would destroy it")
    if target.exists() and not force:
        raise ScenarioError(option, path, "already exists: give --force to replace it")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise ScenarioError(option, path, "permission denied")
    # The one sure test (a read-only file system, /proc, a full quota): create a file beside it.
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as e:
        raise ScenarioError(option, path, f"cannot be written: {e.strerror or e}") from None


def writable_outputs(outputs: Sequence[tuple[str | Path | None, str]], inputs: Sequence[str] = (),
                     force: bool = False) -> None:
    """`writable_output` for each (path, option), and no two options naming one file."""
    given = [(str(path), option) for path, option in outputs if path is not None]
    for i, (path, option) in enumerate(given):
        writable_output(path, option, inputs, force)
        for other, other_option in given[:i]:
            if _same_file(Path(path), Path(other)):
                raise ScenarioError(option, path, f"is also the file of {other_option}: give each output its own file")


def _same_file(a: Path, b: Path) -> bool:
    """Whether two names are one file (links and relative names included), existing or not."""
    if a.exists() and b.exists():
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


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
