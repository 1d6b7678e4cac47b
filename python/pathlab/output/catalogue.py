"""The policy catalogue as `pathlab policies` prints it: each policy with its parameters,
defaults and allowed values."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Any

from pathlab.output.sink import Output

#: The table's width: it fits a 100-column terminal.
WIDTH = 100


@dataclass
class Catalogue(Output):
    policies: list[dict[str, Any]]

    def table(self) -> str:
        return "\n\n".join(_block(p) for p in self.policies)

    def document(self) -> Any:
        return self.policies


def _allowed(param: dict[str, Any]) -> str:
    """The symbolic values, then the numeric range: `manual, immediate, followover, or 1 to N`."""
    values = list(param["choices"]) + ([param["range"]] if param["range"] else [])
    if not values:
        return "text"
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + ", or " + values[-1]


def _block(policy: dict[str, Any]) -> str:
    """One policy: its name and summary, then a row per parameter with its help below it."""
    lines = [f"{policy['name']}  ({policy['stack']})"]
    lines += textwrap.wrap(policy["summary"], WIDTH, initial_indent="  ", subsequent_indent="  ")
    params = policy["params"]
    if not params:
        return "\n".join(lines + ["  (no parameters)"])
    name_w = max(len("parameter"), *(len(q["name"]) for q in params))
    default_w = min(24, max(len("default"), *(len(str(q["default"])) for q in params)))
    lines.append(f"  {'parameter':<{name_w}}  {'default':<{default_w}}  allowed")
    indent = " " * 6
    for q in params:
        row = f"  {q['name']:<{name_w}}  {str(q['default']):<{default_w}}  {_allowed(q)}".rstrip()
        if len(row) <= WIDTH:
            lines.append(row)
        else:  # too wide for one row: default and allowed values on lines of their own
            lines.append(f"  {q['name']}")
            for label, text in (("default", str(q["default"])), ("allowed", _allowed(q))):
                lines += textwrap.wrap(f"{label}: {text}", WIDTH, initial_indent=indent, subsequent_indent=indent + "  ")
        lines += textwrap.wrap(q["help"], WIDTH, initial_indent=indent, subsequent_indent=indent)
    return "\n".join(lines)
