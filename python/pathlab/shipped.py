"""The scenarios that ship inside the package, usable from any directory after `pip install`."""

from __future__ import annotations

from pathlib import Path

from pathlab.api import ScenarioError

#: Where the shipped scenarios are installed (the repository's `scenarios/` links here).
FOLDER = Path(__file__).resolve().parent / "scenarios"


def names() -> list[str]:
    """Every shipped scenario, by file name without `.toml`, sub-folders included (`studies/x`)."""
    return sorted(str(p.relative_to(FOLDER).with_suffix("")) for p in FOLDER.rglob("*.toml"))


def path(name: str) -> Path:
    """The file of a shipped scenario, by name (with or without `.toml`)."""
    candidate = FOLDER / (name if name.endswith(".toml") else f"{name}.toml")
    if name not in names() and name.removesuffix(".toml") not in names():
        raise ScenarioError(name, "", f"no shipped scenario of that name; shipped: {', '.join(names())}")
    return candidate
