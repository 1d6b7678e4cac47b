"""A scenario's tables as its run reads them: the file's (or an imported host's) with its
variant's `set` and then the `--set` overrides applied by the engine itself
(`_core.tables_as_run`: `crates/pathlab-sim/src/scenario/mod.rs`, `set_dotted`: a dotted key, a
number indexes a list, `*` is every item, the value replaces what is at the key). `set_where`
says which override or variant set a value, for what the advice says it read."""

from __future__ import annotations

import tomllib
from typing import Any

from pathlab._core import tables_as_run
from pathlab.api import Scenario


def tree(scenario: Scenario) -> dict[str, Any]:
    """The scenario's tables as values (an imported host's, or its file's text parsed)."""
    return dict(scenario.tables) if scenario.tables is not None else tomllib.loads(scenario.text)


def as_run(scenario: Scenario) -> dict[str, Any]:
    """The tables the run reads, as Python values."""
    return tables_as_run(tree(scenario), scenario.file, scenario.variant, list(scenario.overrides))


def set_where(scenario: Scenario, key: str) -> str | None:
    """What set the dotted `key` (or a table above it) over the file: `--set KEY` (the last one
    that did), `variant NAME (set KEY)`; None where the file's own value stands."""
    base = tree(scenario)
    wanted = key.split(".")
    said = None
    for given, _ in _sets(scenario, base):
        segments = given.split(".")
        if len(segments) <= len(wanted) and all(s in (w, "*") for s, w in zip(segments, wanted)):
            said = given
    if said is None:
        return None
    if any(k == said for k, _ in scenario.overrides):
        return f"--set {said}"
    return f"variant {scenario.variant} (set {said})"


def set_value(text: str) -> Any:
    """A `--set` value as the engine reads it (`parse_override_value`): TOML where it is, else the
    text itself (`--set workloads.0.think_time=1ms`)."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def _sets(scenario: Scenario, base: dict[str, Any]) -> list[tuple[str, Any]]:
    """The variant's sets, then the overrides, in the order the engine applies them."""
    variant = base.get("variants", {}).get(scenario.variant, {}) if scenario.variant else {}
    return [*variant.get("set", {}).items(), *((k, set_value(v)) for k, v in scenario.overrides)]
