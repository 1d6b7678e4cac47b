"""`pathlab run`: one scenario, esxtop and vdbench style for people, JSON or CSV for machines."""

from __future__ import annotations

import click

from pathlab import host_views
from pathlab.cli.common import (
    force_option,
    handle_errors,
    load,
    resolve,
    run_all,
    seed_option,
    set_option,
    variant_option,
    with_workload,
    workload_option,
    writable_outputs,
)
from pathlab.output import hosts
from pathlab.output.files import OutputFile
from pathlab.output.run import RunOutput
from pathlab.output.sink import emit, format_option, html_option


@click.command("run")
@click.argument("file")
@variant_option
@set_option
@workload_option
@seed_option
@format_option(RunOutput)
@click.option("--intervals", is_flag=True, help="Print every interval line, as vdbench does.")
@click.option("--esxtop-csv", "esxtop_out", type=OutputFile(),
              help="Also write the measured window as an esxtop batch-mode CSV (esxtop -b -a) to this file "
                   "(one per host: see below).")
@click.option("--vdbench-flatfile", "flat_out", type=OutputFile(),
              help="Also write the interval lines as vdbench's flatfile (flatfile.html columns) to this file.")
@click.option("--diskstats", "diskstats_out", type=OutputFile(),
              help="Also write /proc/diskstats of every path device (sdX) and map (dm-N) once an interval to this file "
                   "(one per host: see below).")
@click.option("--host", help="Show only this host's devices, adapters and paths, of a scenario with several hosts.")
@html_option
@force_option
@handle_errors
def command(file: str, variant: str | None, sets: tuple[str, ...], workload: str | None, seed: int | None, fmt: str, intervals: bool,
            esxtop_out: str | None, flat_out: str | None, diskstats_out: str | None, host: str | None,
            html: str | None, force: bool) -> None:
    """Run one scenario and print what vdbench and esxtop would show.

    Each host's esxtop and /proc/diskstats know only its own devices, adapters and paths. With
    several hosts in the scenario, the tables are printed per host, each under a line
    `==> host NAME <==`, and --esxtop-csv and --diskstats write one file per host, the host's
    name added before the extension (run.csv: run-esx-a.csv, run-esx-b.csv); with --host, only
    that host's tables and a file of the name given. The vdbench figures and the flatfile are the
    workload's, every host's I/Os together. JSON output is the whole run (each device, path and
    adapter names its host), or with --host that host's objects; CSV is the run's summary line."""
    inputs = [resolve(file), *([workload] if workload else [])]
    sets = with_workload(file, workload, sets)
    scenario = load(file, variant, sets, seed)
    if host is not None:
        host_views.check(scenario.hosts, host, scenario.file)
    # Checked before the run; each host's own file, named after it, as the name given would be.
    per_host = [(out, option) for out, option in ((esxtop_out, "--esxtop-csv"), (diskstats_out, "--diskstats")) if out]
    names = ([host] if host else scenario.hosts) if per_host else []
    writable_outputs([(hosts.file_for(out, name, len(names) > 1), option) for out, option in per_host for name in names]
                     + [(flat_out, "--vdbench-flatfile"), (html, "--html")], inputs, force)
    (result,) = run_all([scenario])
    views = host_views.each(result.data, host, scenario.file)
    if esxtop_out or diskstats_out or flat_out:  # their writers are imported when asked for
        from pathlab.output import esxtop_csv
        from pathlab.output.files import written
        from pathlab.output.vdbench_flatfile import flatfile
    for name, view in views:
        if esxtop_out:
            csv_file = hosts.file_for(esxtop_out, name, len(views) > 1)
            with written(csv_file, "--esxtop-csv") as part:
                rows = esxtop_csv.write(view, part)
            click.echo(f"pathlab: wrote {rows} esxtop rows to {csv_file}", err=True)
        if diskstats_out:
            from pathlab.output.diskstats import diskstats

            stats_file = hosts.file_for(diskstats_out, name, len(views) > 1)
            with written(stats_file, "--diskstats") as part:
                part.write_text(diskstats(view), encoding="utf-8")
            click.echo(f"pathlab: wrote /proc/diskstats samples to {stats_file}", err=True)
    if flat_out:
        with written(flat_out, "--vdbench-flatfile") as part:
            part.write_text(flatfile(result.data), encoding="utf-8")
        click.echo(f"pathlab: wrote the vdbench flatfile to {flat_out}", err=True)
    from pathlab.devices import in_force

    emit(RunOutput(result.data, views, intervals, host, scenario.text, in_force(result.setups), scenario.faults,
                   scenario.timeline), fmt, html, file)
