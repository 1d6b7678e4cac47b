"""`pathlab validate`: check a scenario file and each of its variants without running them."""

from __future__ import annotations

import click

from pathlab.cli.common import handle_errors, load, set_option


@click.command("validate")
@click.argument("file")
@set_option
@handle_errors
def command(file: str, sets: tuple[str, ...]) -> None:
    """Check FILE (with any --set) and every variant it defines; exit 2 with the first problem."""
    base = load(file, sets=sets)
    for name, _ in base.variants:
        base.with_variant(name)
    variants = ", ".join(n for n, _ in base.variants) or "none"
    click.echo(f"{file}: ok (scenario {base.name}; variants: {variants})")
