"""Python values as TOML literals: the one way `set=` and `--set` values reach the scenario."""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

#: A TOML basic string of a Python string: JSON's escapes are TOML's (`json.dumps(s,
#: ensure_ascii=False)`, without building an encoder at each call).
_BASIC_STRING = json.JSONEncoder(ensure_ascii=False).encode
#: A bare key: ASCII letters, digits, `-` and `_`.
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def to_toml(value: Any) -> str:
    """A TOML literal for a Python value: strings quoted, booleans as true/false, lists as
    arrays, mappings as inline tables. None and non-finite floats have no TOML form."""
    if type(value) is str:  # most values of an imported host's text: asked first
        return _BASIC_STRING(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} has no TOML form")
        return repr(value)
    if isinstance(value, str):
        return _BASIC_STRING(value)
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {to_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(to_toml(v) for v in value) + "]"
    if value is None:
        raise ValueError("None has no TOML form: leave the key out instead")
    raise ValueError(f"a {type(value).__name__} has no TOML form")


@functools.lru_cache(maxsize=4096, typed=True)  # a host's thousands of rows repeat their few keys
def _key(key: Any) -> str:
    text = str(key)
    return text if _BARE_KEY.fullmatch(text) else _BASIC_STRING(text)


def flatten(values: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """{"policy": {"iops": 1}} as [("policy.iops", 1)]: nested mappings name dotted keys."""
    pairs: list[tuple[str, Any]] = []
    for key, value in values.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            pairs += flatten(value, f"{dotted}.")
        else:
            pairs.append((dotted, value))
    return pairs


def set_keys(overrides: Iterable[tuple[str, str]]) -> list[str]:
    """Every dotted key that overrides (dotted key, TOML literal, as `--set` gives them) set, down
    to the leaves of the tables and arrays of tables they hold: `arrays.0={service={fixed="40us"}}`
    sets `arrays.0.service.fixed`, `arrays=[{...}]` sets `arrays.0....`."""
    import tomllib

    keys: list[str] = []
    for key, literal in overrides:
        try:
            value = tomllib.loads(f"v = {literal}")["v"]
        except tomllib.TOMLDecodeError:
            value = literal  # the engine reads what is not a TOML literal as a string
        keys += _leaves(key, value)
    return keys


def _leaves(key: str, value: Any) -> list[str]:
    if isinstance(value, Mapping) and value:
        return [leaf for k, v in value.items() for leaf in _leaves(f"{key}.{k}", v)]
    if isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(f"{key}.{i}", v)]
    return [key]
