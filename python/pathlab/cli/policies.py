"""`pathlab policies`: every policy with its parameters, defaults and valid ranges."""

from __future__ import annotations

import json

import click

from pathlab.api import policies


@click.command("policies")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table", show_default=True)
def command(fmt: str) -> None:
    """List every path selection policy and its parameters."""
    catalog = policies()
    if fmt == "json":
        click.echo(json.dumps(catalog, indent=2))
        return
    blocks = []
    for p in catalog:
        lines = [f"{p['name']}  ({p['stack']})", f"  {p['summary']}"]
        for q in p["params"]:
            allowed = q["range"] or ("|".join(q["choices"]) if q["choices"] else "text")
            lines.append(f"  {q['name']:<22} default {q['default']:<24} allowed {allowed:<18} {q['help']}")
        if not p["params"]:
            lines.append("  (no parameters)")
        blocks.append("\n".join(lines))
    click.echo("\n\n".join(blocks))
