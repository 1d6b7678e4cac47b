"""`pathlab sweep`: a grid of settings times variants times seeds, on every core or on Ray."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:  # loaded when a sweep writes its tables: `pathlab` starts fast
    import pandas as pd
from rich.console import Console

from pathlab.api import Scenario, ScenarioError, _read
from pathlab.cli.common import force_option, handle_errors, set_option, with_workload, workload_option, writable_outputs
from pathlab.output.files import OutputFile, written
from pathlab.output.sink import emit
from pathlab.output.sweep import SweepOutput
from pathlab.study.stats import aggregate
from pathlab.study.sweep import (
    FIGURES,
    Job,
    Journal,
    PointFailed,
    bounded_workers,
    default_workers,
    expand,
    file_axes,
    out_folder,
    parse_axis,
    run_local,
    run_ray,
    study_cases,
    sweep_table,
    table_seeds,
)


class Eta:
    """Runs done, elapsed and the time left on stderr: every run on a terminal, else every tenth."""

    def __init__(self, total: int, already: int):
        self.total, self.done, self.fresh = total, already, 0
        self.started = time.monotonic()
        self.console = Console(stderr=True)
        self.step = 1 if self.console.is_terminal else max(1, (total - already) // 10)

    def __call__(self) -> None:
        self.done += 1
        self.fresh += 1
        if self.fresh % self.step and self.done < self.total:
            return
        elapsed = time.monotonic() - self.started
        left = elapsed / self.fresh * (self.total - self.done)
        self.console.print(f"pathlab sweep: {self.done}/{self.total} runs, {elapsed:.0f} s, about {left:.0f} s left", highlight=False)


def write_table(df: pd.DataFrame, stem: Path, meta: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"pathlab": json.dumps(meta).encode()})
    with written(stem.with_suffix(".parquet"), "--out") as part:
        pq.write_table(table, part)
    with written(stem.with_suffix(".csv"), "--out") as part:
        df.to_csv(part, index=False)


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
@click.option("--replace", is_flag=True, help="Start over when --out holds the runs of another sweep (another grid or scenario).")
@click.option("--html", "html", type=OutputFile(), help="Also write the sweep's report to this HTML file.")
@force_option
@handle_errors
def command(file: str, grids: tuple[str, ...], variants: tuple[str, ...], seeds: int | None, first_seed: int,
            sets: tuple[str, ...], workload: str | None, executor: str, address: str | None, workers: int | None, batch: int | None,
            out: str | None, replace: bool, html: str | None, force: bool) -> None:
    """Run FILE at every point of a grid (from --grid or the file's [sweep] table), every variant,
    SEEDS times; print the mean and 95% interval of each figure per point. A sweep stopped and
    started again with the same output stem skips the runs it has done."""
    table = sweep_table(file)
    axes = [parse_axis(g) for g in grids] if grids else file_axes(file, table)
    if not axes:
        raise ScenarioError(file, "sweep.grid", "nothing to sweep: give --grid KEY=VALUES or a [sweep] table with a grid")
    cases = study_cases(file, table)
    scenario_file = str(Path(file).parent / table["scenario"]) if "scenario" in table else file
    sets = with_workload(scenario_file, workload, sets)
    base = Scenario.load(scenario_file, set=list(sets))
    chosen: list[str | None] = list(variants or table.get("variants") or [n for n, _ in cases]
                                    or [n for n, _ in base.variants] or [None])
    n_seeds = seeds or table_seeds(file, table)
    points = expand(axes, chosen, range(first_seed, first_seed + n_seeds))
    job = Job(_read(scenario_file), scenario_file, tuple(sets), cases)
    job.check(points)

    stem = Path(out) if out else Path(Path(file).stem + "-sweep")
    out_folder(stem)
    inputs = [file, scenario_file, *([workload] if workload else [])]
    outputs = [(f"{stem}-{t}.{x}", "--out") for t in ("runs", "points") for x in ("parquet", "csv")] + [(html, "--html")]
    writable_outputs([*outputs, (f"{stem}-runs.jsonl", "--out")], inputs, force=True)  # the journal is resumed
    writable_outputs(outputs, inputs, force)
    journal = Journal(Path(f"{stem}-runs.jsonl"))
    journal.lock()
    click.get_current_context().call_on_close(journal.unlock)
    ids = {p: job.key(p) for p in points}
    earlier = journal.done(replace)
    others = set(earlier) - set(ids.values())
    if others and not replace:
        raise ScenarioError("--out", str(stem), f"holds {len(others)} runs of another sweep (another grid, scenario or "
                            "settings): give --replace to start over, or another --out")
    if others:
        journal.clear()
    finished = {k: v for k, v in earlier.items() if k in set(ids.values())}
    todo = [p for p in points if ids[p] not in finished]
    eta = Eta(len(points), len(points) - len(todo))
    if finished:
        click.echo(f"pathlab sweep: {len(finished)} of {len(points)} runs already done in {journal.path}", err=True)

    def done(row: dict) -> None:
        journal.append(row)
        finished[row["point"]] = row
        eta()

    try:
        if executor == "ray":
            run_ray(job, todo, address, batch or max(1, len(todo) // (4 * default_workers())), done)
        else:
            run_local(job, todo, bounded_workers(workers), done)
    except PointFailed as e:
        raise ScenarioError(*e.args) from None

    keys = [a.key for a in axes]
    import pandas as pd

    runs = pd.DataFrame([finished[ids[p]] for p in points]).drop(columns="point")
    points_df = aggregate(runs, ["variant", *keys], FIGURES)
    meta = {"kind": "sweep", "file": file, "scenario": base.name, "study": _read(file) if cases else "", "text": job.text,
            "sets": list(sets), "axes": keys, "seeds": n_seeds, "first_seed": first_seed}
    write_table(runs, Path(f"{stem}-runs"), meta)
    write_table(points_df, Path(f"{stem}-points"), meta)
    click.echo(f"pathlab sweep: {len(points)} runs; tables in {stem}-runs.* and {stem}-points.*", err=True)
    emit(SweepOutput(runs, points_df, keys, meta), "table", html)
