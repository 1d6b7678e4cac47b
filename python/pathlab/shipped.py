"""The scenarios that ship inside the package, usable from any directory after `pip install`."""

from __future__ import annotations

from pathlib import Path

from pathlab._core import ScenarioError

#: Where the shipped scenarios are installed (the repository's `scenarios/` links here).
FOLDER = Path(__file__).resolve().parent / "scenarios"


def names() -> list[str]:
    """Every shipped scenario, by file name without `.toml`, sub-folders included (`studies/x`)."""
    return sorted(str(p.relative_to(FOLDER).with_suffix("")) for p in FOLDER.rglob("*.toml"))


def path(name: str) -> Path:
    """The file of a shipped scenario, by name (with or without `.toml`)."""
    candidate = FOLDER / (name if name.endswith(".toml") else f"{name}.toml")
    if name not in names() and name.removesuffix(".toml") not in names():
        raise ScenarioError(name, "", f"no shipped scenario of that name"
                                      f"{suggestion(name) or '; shipped: ' + ', '.join(names())}")
    return candidate


#: Host captures that ship with pathlab: one folder per host, each file a listing or capture
#: `pathlab import` and `advise` read.
CAPTURES = Path(__file__).resolve().parent / "captures"


def capture_files(name: str) -> list[str] | None:
    """The files of a shipped host capture (`vmax-iops1000`); None when `name` is not one (only
    the shipped folders' own names: `..` or a path is no shipped capture)."""
    if name not in {p.name for p in CAPTURES.iterdir() if p.is_dir()}:
        return None
    return sorted(str(f) for f in (CAPTURES / name).iterdir() if f.is_file() and f.name != "README.md")


def suggestion(name: str) -> str:
    """`; did you mean c1-vmax-1lun?` for a name one slip away from a shipped scenario's or
    capture's (the suggestion click makes for a mistyped verb), else nothing. `difflib` is
    imported here, on a name not found: every `pathlab run` imports this module."""
    import difflib

    given = Path(name).name.removesuffix(".toml")
    known = names() + sorted(p.name for p in CAPTURES.iterdir() if p.is_dir())
    close = difflib.get_close_matches(given, known, n=1, cutoff=0.8)
    return f"; did you mean {close[0]}?" if close else ""
