"""What `show iscsi` and `show advanced` share: both print an ESXi host's settings as the
scenario's file writes them (its `[host]` and `[[hosts]]` tables), so an override of them, by
`--set` or by the variant chosen, is refused: printed as written, it would not be what runs; each
host's block is printed under its heading, a command line under the ESXi shell's prompt."""

from __future__ import annotations

from typing import Any

from pathlab.api import Scenario, ScenarioError
from pathlab.output import hosts
from pathlab.toml_values import set_keys, to_toml


def refuse_overrides(scenario: Scenario, prefixes: tuple[str, ...], view: str, what: str) -> None:
    """Refuses a `--set` or the variant's `set` whose keys, down to their leaves (`--set host={...}`
    sets `host.adapters.0...`), fall under one of `prefixes` (dotted keys)."""
    from pathlab.advisor.timer_candidates import tree

    variant = tree(scenario).get("variants", {}).get(scenario.variant, {}) if scenario.variant else {}
    given = [(f"--set {key}", key) for key in set_keys(scenario.overrides)]
    given += [(f"--variant {scenario.variant}", key)
              for key in set_keys((k, to_toml(v)) for k, v in variant.get("set", {}).items())]
    for field, key in given:
        if any(key == p or key.startswith(f"{p}.") for p in prefixes):
            how = "set the value in the file" if field.startswith("--set") else f"the variant sets {key}: show the file " \
                                                                                 "without it"
            raise ScenarioError(scenario.file, field, f"{view} prints {what} as the scenario writes them: {how}")


#: The ESXi shell's prompt, before each command line.
PROMPT = "~ # "


def host_tables(scenario: Scenario, host: str | None) -> list[tuple[str, dict[str, Any]]]:
    """Each host's name and table as the file writes it (`[host]` first), only `host`'s where
    given (refused where the scenario has no such host)."""
    from pathlab.advisor.timer_candidates import tree

    values = tree(scenario)
    tables = [(str(t.get("name", "esx01")), t) for t in [values.get("host", {}), *values.get("hosts", [])]]
    if host is not None and all(name != host for name, _ in tables):
        raise ScenarioError(scenario.file, "--host", f"{host} is no host of the scenario")
    return tables if host is None else [(name, t) for name, t in tables if name == host]


def printed(blocks: list[tuple[str, str]], several: bool) -> str:
    """Each host's block (its lines ended), each under its host's heading where the scenario has
    `several` hosts (however many are printed)."""
    if several:
        return "\n".join(f"{hosts.heading(host)}\n{text}" for host, text in blocks).removesuffix("\n")
    return hosts.joined(blocks).removesuffix("\n")


def seconds(value: Any, default: float | None) -> int:
    """A timer as the scenario writes it (`"15s"`) in whole seconds (the engine refuses others)."""
    if value is None:
        return int(default or 0)
    from pathlab._core import parse_duration_ns

    return int(parse_duration_ns(str(value)) // 1_000_000_000)
