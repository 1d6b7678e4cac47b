"""`pathlab show devices|paths FILE`: the configuration as the host's own tools print it."""

from __future__ import annotations

import json

import click

from pathlab.cli.common import handle_errors, load, seed_option, set_option, variant_option
from pathlab.output import esxcli, multipath

VIEWS = click.Choice(["devices", "paths"])


@click.command("show")
@click.argument("what", type=VIEWS)
@click.argument("file")
@variant_option
@set_option
@seed_option
@click.option("--at", "at", default="0s", show_default=True,
              help="Simulated time to show it at, e.g. 60s (the run is simulated up to then).")
@click.option("--style", type=click.Choice(["esxi", "linux", "json"]), default="esxi", show_default=True,
              help="esxi: esxcli storage nmp device/path list; linux: multipath -ll.")
@handle_errors
def command(what: str, file: str, variant: str | None, sets: tuple[str, ...], seed: int | None, at: str,
            style: str) -> None:
    """Print devices (esxcli storage nmp device list) or paths (esxcli storage nmp path list,
    or multipath -ll with --style linux)."""
    scenario = load(file, variant, sets, seed)
    desc = scenario.describe(at)
    if style == "json":
        click.echo(json.dumps(desc[what], indent=2))
    elif style == "linux":
        click.echo(multipath.multipath_ll(desc), nl=False)
    elif what == "devices":
        click.echo(esxcli.device_list(desc), nl=False)
    else:
        click.echo(esxcli.path_list(desc), nl=False)
