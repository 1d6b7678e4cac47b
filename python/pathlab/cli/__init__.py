"""The `pathlab` command. Each verb lives in its own module."""

from __future__ import annotations

import click

from pathlab.cli import advise, bench, compare, import_host, policies, report, reproduce, run, scenarios, show, sweep, validate


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pathlab")
def main() -> None:
    """pathlab: how a host spreads I/O over its paths to storage, simulated."""


for module in (advise, import_host, run, compare, sweep, report, reproduce, show, validate, policies, scenarios, bench):
    main.add_command(module.command)
