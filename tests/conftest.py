from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from pathlab.cli import main

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


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
