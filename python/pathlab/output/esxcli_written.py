"""What `show iscsi` and `show advanced` share: both print an ESXi host's settings as the
scenario's file writes them (its `[host]` and `[[hosts]]` tables), so an override of them, by
`--set` or by the variant chosen, is refused: printed as written, it would not be what runs."""

from __future__ import annotations

from pathlab.api import Scenario, ScenarioError
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
