"""`pathlab failover`: a failover study, each setting under each failure, and what the
application saw (`study/failover.py` runs it)."""

from __future__ import annotations

import click

from pathlab.cli.common import force_option, handle_errors, writable_output
from pathlab.cli.progress import StderrProgress
from pathlab.loading import resolve
from pathlab.output.failover import FailoverOutput
from pathlab.output.files import OutputFile
from pathlab.output.sink import emit, format_option
from pathlab.study.failover import run_study


class Counted(StderrProgress):
    """`pathlab failover: N/M runs` on stderr, every sixth run and the last."""

    def count(self, done: int, total: int) -> None:
        if done and (done == total or done % 6 == 0):
            self.note(f"{done}/{total} runs")


@click.command("failover")
@click.argument("file")
@click.option("--variant", "variants", multiple=True, help="Only this setting (repeatable; default: the [sweep] table's variants).")
@format_option(FailoverOutput)
@click.option("--html", "html", type=OutputFile(),
              help="Also write the report, with each setting's worst run drawn through its failure, to this HTML file.")
@force_option
@handle_errors
def command(file: str, variants: tuple[str, ...], fmt: str, html: str | None, force: bool) -> None:
    """Run a failover study: each setting of FILE (its [sweep] variants) under each failure (its
    [sweep] grid of `faults`), one run each, and print what the application saw: the longest
    stall, the longest single I/O, the I/Os failed back to it, the writes retried while their
    first copy could still land (hazards), the time back to full rate from the failure's start
    and the time to fail back from its end. The study issue 36 asked for is the shipped
    `studies/failover-timers`."""
    writable_output(html, "--html", [resolve(file)], force)
    study = run_study(file, list(variants) or None, Counted("failover"))
    emit(FailoverOutput(study), fmt, html, study.file)
