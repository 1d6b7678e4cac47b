"""The `pathlab` command. Each verb lives in its own module, imported when the verb is used."""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, MutableMapping

import click

from pathlab.cli.common import BadInput

# The command needs no BLAS threads (scipy's t quantile, pandas' tables), and OpenBLAS reserves
# address space per thread: under `ulimit -v` an import of scipy.special spun for minutes instead
# of reading a capture. Set before numpy or scipy loads; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

#: Each verb and its module, in the order the CLI reference lists them.
VERBS = {"advise": "advise", "import": "import_host", "run": "run", "compare": "compare", "sweep": "sweep",
         "failover": "failover",
         "report": "report", "reproduce": "reproduce", "show": "show", "validate": "validate",
         "policies": "policies", "scenarios": "scenarios", "bench": "bench", "mcp": "mcp"}


class LazyVerbs(MutableMapping[str, click.Command]):
    """The verbs by name, each module imported when its verb is first looked up: `pathlab run`
    does not import the advisor, the sweeps and the comparisons (a fifth of a second of every
    command before). Listing the names (`pathlab --help`'s order) imports nothing."""

    def __init__(self, modules: dict[str, str]):
        self.modules = dict(modules)
        self.loaded: dict[str, click.Command] = {}

    def __getitem__(self, name: str) -> click.Command:
        if name not in self.loaded:
            self.loaded[name] = importlib.import_module(f"pathlab.cli.{self.modules[name]}").command
        return self.loaded[name]

    def __setitem__(self, name: str, command: click.Command) -> None:
        self.modules.setdefault(name, "")
        self.loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self.modules[name]
        self.loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.modules)

    def __len__(self) -> int:
        return len(self.modules)


class Verbs(click.Group):
    """The verbs, whose option errors (an out-of-range `--seed`, a folder given for a file) are one
    line and exit status 2, as every other bad input, instead of click's usage text."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except click.UsageError as e:
            verb = f"{e.ctx.command.name}: " if e.ctx and e.ctx.command.name else ""
            raise BadInput(f"{verb}{e.format_message()}") from None


@click.group(cls=Verbs, commands=LazyVerbs(VERBS), context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="pathlab")
def main() -> None:
    """pathlab: how a host spreads I/O over its paths to storage, simulated."""
