from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


def pathlab(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """Runs the real command, as a user would."""
    return subprocess.run([sys.executable, "-m", "pathlab", *args], capture_output=True, text=True, cwd=cwd)


def pathlab_json(*args: str) -> dict:
    done = pathlab(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture
def scenarios() -> Path:
    return SCENARIOS
