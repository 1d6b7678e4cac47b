"""Scenarios by file or by a shipped scenario's name, loaded with their warnings said: what every
verb and the library's pipelines (advise, compare, sweep) load alike."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pathlab.api import Scenario, warn


def resolve(path: str | os.PathLike[str]) -> str:
    """A scenario file, or the name of a shipped one (`c1-vmax-1lun`) when no such file exists."""
    from pathlab import shipped

    path = str(path)
    if Path(path).exists() or path.removesuffix(".toml") not in shipped.names():
        return path
    return str(shipped.path(path))


def load(path: str | os.PathLike[str], variant: str | None = None,
         sets: Mapping[str, Any] | Iterable[str] | None = (), seed: int | None = None) -> Scenario:
    """The scenario of a file or shipped name; each legal but doubtful setting warned about."""
    scenario = Scenario.load(resolve(path), variant=variant, set=sets, seed=seed)
    for field, message in scenario.warnings:
        warn(scenario.file, field, message)
    return scenario
