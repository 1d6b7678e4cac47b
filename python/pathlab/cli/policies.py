"""`pathlab policies`: every policy with its parameters, defaults and valid ranges."""

from __future__ import annotations

import click

from pathlab.api import policies
from pathlab.output.catalogue import Catalogue
from pathlab.output.sink import emit, format_option


@click.command("policies")
@format_option(Catalogue)
def command(fmt: str) -> None:
    """List every path selection policy, its parameters, defaults and allowed values."""
    emit(Catalogue(policies()), fmt)
