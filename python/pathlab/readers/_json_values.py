"""A JSON document's values checked for their type, each refused naming its place in the document
(`Devices[0].Subsystems[1].NQN`): `nvme_subsys` and `nvme_list_json` read nvme-cli's documents."""

from __future__ import annotations

from typing import Any

from pathlab.api import ScenarioError


def as_str(value: Any, name: str, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value or None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise ScenarioError(name, where, f"expected a string, found {type(value).__name__}")


def as_list(value: Any, name: str, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ScenarioError(name, where, f"expected a list, found {type(value).__name__}")
    return value


def as_dict(value: Any, name: str, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ScenarioError(name, where, f"expected an object, found {type(value).__name__}")
    return value
