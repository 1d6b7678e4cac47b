from __future__ import annotations

import contextlib
import json
import re
import resource
import subprocess
import sys
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pathlab.api import PathlabWarning
from pathlab.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
#: Address space allowed to each command run by `limited`: Python, pandas and the engine fit
#: well inside.
MEMORY_LIMIT = 1536 * 1024 * 1024
#: A run of an imported host that only has to show it runs (paths, states, I/O issued): 0.2 s with no
#: warm-up (an import's own 10 s warm-up made each of these runs 50 times longer; session 17).
RUNS_AT_ALL = {"run.duration": "0.2s", "run.warmup": "0s"}


def _limit_memory(limit: int = MEMORY_LIMIT) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def limited(*args: str, cwd: Path = ROOT, timeout: float = 300, memory: int = MEMORY_LIMIT,
            **kwargs: Any) -> subprocess.CompletedProcess:
    """The command in its own process under a memory (address space, bytes) and a time limit: a
    regression that allocates without bound or never ends fails here instead of swapping or
    hanging. The limit guards against hangs, not speed: `reproduce` of every shipped scenario
    takes about 60 s of CPU (C1's two 300 s runs most of it, C3 and C4 the rest), longer on a
    shared machine."""
    return subprocess.run([sys.executable, "-m", "pathlab", *args], capture_output=True, text=True, cwd=cwd,
                          preexec_fn=lambda: _limit_memory(memory), timeout=timeout,
                          **kwargs)


def one_error_line(done: subprocess.CompletedProcess) -> str:
    """The one line of a refusal (exit status 2, no traceback)."""
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    # Progress lines (a run longer than a second, a sweep's runs done) are chatter; the error is one line.
    progress = re.compile(r"(.*% simulated|pathlab sweep: \d+/\d+ runs, .* left)$")
    lines = [line for line in done.stderr.strip().splitlines() if not progress.match(line)]
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """pathlab's warnings not shown (what a reader skipped, what an import assumed, each on stderr
    as `PathlabWarning`): for a test that asserts what was read, or the warnings an import returns."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PathlabWarning)
        yield


@dataclass
class Done:
    """What a user sees of one command: its exit status, stdout and stderr."""

    returncode: int
    stdout: str
    stderr: str


def pathlab(*args: str, cwd: Path = ROOT) -> Done:
    """Runs the command in this process with click's runner, as a user would type it. An
    unexpected exception shows up as the traceback a user would see on stderr, status 1."""
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(main, list(args), prog_name="pathlab")
    stderr = result.stderr
    if result.exc_info and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*result.exc_info))
    return Done(result.exit_code, result.stdout, stderr)


def pathlab_process(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Runs the real command in its own process: for the end-to-end checks (determinism across
    processes, the entry point, start-up)."""
    return subprocess.run([sys.executable, "-m", "pathlab", *args], capture_output=True, text=True, cwd=cwd)


def pathlab_json(*args: str) -> dict:
    done = pathlab(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def scenarios() -> Path:
    return SCENARIOS


#: The files whose tests take minutes, run first: `scripts/test` runs the suite on every core
#: (pytest-xdist, one file to a worker), and a long file begun last would leave the other cores
#: idle at the end. Measured with `pytest --durations` (session 13): the lineup of every policy on
#: every scenario (test_own_policy's fixture) takes a third of the suite's CPU.
LONGEST_FIRST = ("test_own_policy.py", "test_reproduce.py", "test_capture_input.py", "test_import.py",
                 "test_report.py", "test_advise.py", "test_bench_hosts.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        name = item.path.name
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: every file keeps its own order


def advise_one_at_a_time(paths: list[str], failures: str) -> Any:
    """`pathlab.advise` on imported files, one I/O at a time 1 ms apart over 2 seeds (cheap), checking
    it warns as an import of a host's files does."""
    import pathlab as package  # this module's `pathlab` is the command runner above

    with pytest.warns(package.PathlabWarning):
        return package.advise(paths, failures=failures, seeds=2,
                              set={"workloads.0.outstanding": 1, "workloads.0.think_time": "1ms"})
