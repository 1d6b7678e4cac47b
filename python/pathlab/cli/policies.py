"""`pathlab policies`: every policy with its parameters, defaults and valid ranges."""

from __future__ import annotations

import json
import textwrap
from typing import Any

import click

from pathlab.api import policies
from pathlab.cli.common import format_option

#: The table's width: it fits a 100-column terminal.
WIDTH = 100


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


@click.command("policies")
@format_option("json")
def command(fmt: str) -> None:
    """List every path selection policy, its parameters, defaults and allowed values."""
    catalog = policies()
    if fmt == "json":
        click.echo(json.dumps(catalog, indent=2))
        return
    click.echo("\n\n".join(_block(p) for p in catalog))
