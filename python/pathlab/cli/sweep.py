"""`pathlab sweep`: a grid of settings times variants times seeds, on every core or on Ray
(`study/sweep_pipeline.py` does the work)."""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.console import Console

from pathlab.cli.common import force_option, handle_errors, set_option, with_workload, workload_option, writable_outputs
from pathlab.cli.progress import StderrProgress
from pathlab.output.files import OutputFile
from pathlab.output.sink import emit
from pathlab.output.sweep import SweepOutput
from pathlab.study.sweep import out_folder
from pathlab.study.sweep_pipeline import plan, scenario_file_of


class Eta(StderrProgress):
    """Runs done, elapsed and the time left on stderr: every run on a terminal, else every tenth."""

    def __init__(self) -> None:
        super().__init__("sweep")
        self.total, self.done, self.fresh, self.step = 0, 0, 0, 1
        self.started = 0.0
        self.console = Console(stderr=True)

    def count(self, done: int, total: int) -> None:
        if not self.total:  # the first count: the runs done before this sweep started
            self.total, self.done, self.started = total, done, time.monotonic()
            self.step = 1 if self.console.is_terminal else max(1, (total - done) // 10)
            return
        self.done = done
        self.fresh += 1
        if self.fresh % self.step and self.done < self.total:
            return
        elapsed = time.monotonic() - self.started
        left = elapsed / self.fresh * (self.total - self.done)
        self.console.print(f"pathlab sweep: {self.done}/{self.total} runs, {elapsed:.0f} s, about {left:.0f} s left", highlight=False)


@click.command("sweep")
@click.argument("file")
@click.option("--grid", "grids", multiple=True, metavar="KEY=VALUES",
              help="An axis: key=v1,v2,... or key=a:b:step or key=a:b:*factor (repeatable: cartesian product).")
@click.option("--variant", "variants", multiple=True, help="Variants to sweep (repeatable; default: every variant, or the base).")
@click.option("--seeds", type=click.IntRange(min=1), help="Replications per point (default: the [sweep] table's, else 1).")
@click.option("--seed", "first_seed", type=click.IntRange(min=0), default=1, show_default=True, help="Seed of the first replication.")
@set_option
@workload_option
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True)
@click.option("--address", help="With --executor ray: the cluster to join (default: start a local one).")
@click.option("--workers", type=click.IntRange(min=1), help="Local runs side by side (default: every core).")
@click.option("--batch", type=click.IntRange(min=1), help="With --executor ray: runs per Ray task (default: points / (4 x CPUs)).")
@click.option("--out", "out", type=OutputFile(stem=True),
              help="Output stem: STEM-runs.{parquet,csv} and STEM-points.{parquet,csv} (default: FILE's name + -sweep).")
@click.option("--replace", is_flag=True, help="Start over when --out holds the runs of another sweep (another grid, scenario or settings).")
@click.option("--html", "html", type=OutputFile(), help="Also write the sweep's report to this HTML file.")
@force_option
@handle_errors
def command(file: str, grids: tuple[str, ...], variants: tuple[str, ...], seeds: int | None, first_seed: int,
            sets: tuple[str, ...], workload: str | None, executor: str, address: str | None, workers: int | None, batch: int | None,
            out: str | None, replace: bool, html: str | None, force: bool) -> None:
    """Run FILE at every point of a grid (from --grid or the file's [sweep] table), every variant,
    SEEDS times; print the mean and 95% interval of each figure per point. A sweep stopped and
    started again with the same output stem skips the runs it has done."""
    scenario_file = scenario_file_of(file)
    sets = with_workload(scenario_file, workload, sets)
    planned = plan(file, list(grids) or None, variants=list(variants) or None, seeds=seeds, first_seed=first_seed, set=sets)
    stem = Path(out) if out else Path(Path(file).stem + "-sweep")
    out_folder(stem)
    inputs = [file, scenario_file, *([workload] if workload else [])]
    outputs = [(o, "--out") for o in planned.outputs(stem)] + [(html, "--html")]
    writable_outputs(outputs, inputs, force=True)  # the journal is resumed: an input may not be it, that is all
    writable_outputs([(o, flag) for o, flag in outputs if not str(o).endswith(".jsonl")], inputs, force)
    # The tables were checked above in the CLI's words (--force); the run need not again.
    done = planned.run(workers=workers, executor=executor, address=address, batch=batch, out=stem, resume=True,
                       replace=replace, force=True, progress=Eta())
    click.echo(f"pathlab sweep: {len(planned.points)} runs; tables in {stem}-runs.* and {stem}-points.*", err=True)
    emit(SweepOutput.of(done), "table", html)
