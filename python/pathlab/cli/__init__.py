"""The `pathlab` command. Each verb lives in its own module."""

from __future__ import annotations

import click

from pathlab.cli import (
    advise,
    bench,
    compare,
    import_host,
    mcp,
    policies,
    report,
    reproduce,
    run,
    scenarios,
    show,
    sweep,
    validate,
)
from pathlab.cli.common import BadInput


class Verbs(click.Group):
    """The verbs, whose option errors (an out-of-range `--seed`, a folder given for a file) are one
    line and exit status 2, as every other bad input, instead of click's usage text."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            verb = f"{e.ctx.command.name}: " if e.ctx and e.ctx.command.name else ""
            raise BadInput(f"{verb}{e.format_message()}") from None


@click.group(cls=Verbs, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pathlab")
def main() -> None:
    """pathlab: how a host spreads I/O over its paths to storage, simulated."""


for module in (advise, import_host, run, compare, sweep, report, reproduce, show, validate, policies, scenarios, bench, mcp):
    main.add_command(module.command)
