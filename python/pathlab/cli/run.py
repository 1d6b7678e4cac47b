"""`pathlab run`: one scenario, esxtop and vdbench style for people, JSON or CSV for machines."""

from __future__ import annotations

import json

import click

from pathlab.cli.common import (
    format_option,
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
    written,
)
from pathlab.cli.report import html_option, provenance, write
from pathlab.output import esxtop, esxtop_csv, hosts, vdbench
from pathlab.output.vdbench_flatfile import flatfile


def text_report(data: dict, intervals: bool, views: list[tuple[str, dict]]) -> str:
    """The report, with the device, adapter and path tables of each host's view (`hosts.each`)."""
    s = data["summary"]
    acc = data["accounting"]
    variant = f", variant {data['variant']}" if data["variant"] else ""
    head = (
        f"pathlab run: {data['scenario']}{variant}, seed {data['seed']}: "
        f"{data['duration_s']:g} s measured after {data['warmup_s']:g} s of warm-up"
    )
    parts = [
        head,
        "",
        vdbench.report(data, intervals),
        f"response percentiles (ms): p50 {s['p50_ms']:.3f}  p90 {s['p90_ms']:.3f}  "
        f"p99 {s['p99_ms']:.3f}  p99.9 {s['p999_ms']:.3f}",
        *([f"(every host's I/Os together: {', '.join(hosts.names(data))})"] if len(data["hosts"]) > 1 else []),
        "",
    ]
    for name, view in views:
        if len(views) > 1:
            parts.append(hosts.heading(name))
        parts += [esxtop.devices(view), "", esxtop.adapters(view), "", esxtop.paths(view), ""]
    # The array side is every host's; the event log is the hosts' shown.
    events = [e for _, view in views for e in view["events"]]
    events.sort(key=lambda e: e["t_s"])
    parts += [
        esxtop.ports(data),
        "",
        *_optional_sections(dict(data, events=events)),
        f"I/Os issued {acc['issued']}, completed {acc['completed']}, failed {acc['failed']}, "
        f"retried {acc['retried']}; errors {s['errors']}",
        _at_end(acc),
    ]
    return "\n".join(parts)


def _at_end(acc: dict) -> str:
    """Where the I/Os stood when the measurement ended: those in flight are in no other figure."""
    end = acc["at_end"]
    oldest = f", the oldest for {end['oldest_in_flight_s']:.3f} s" if end["in_flight"] else ""
    return (f"at the end of the measurement: completed {end['completed']}, failed {end['failed']}, "
            f"in flight {end['in_flight']}{oldest} (ended after it, in no figure above)")


def _optional_sections(data: dict) -> list[str]:
    """Controllers, RAID groups, write caches, replication and the host's event log, when the run has them."""
    parts = []
    if data["controllers"]:
        parts += [esxtop.controllers(data), ""]
    if data["raid_groups"]:
        parts += [esxtop.raid_groups(data), ""]
    for c in data["write_caches"]:
        parts.append(f"write cache {c['array']}: {c['dirty_pct']:.1f}% dirty on average (watermarks "
                     f"{c['high_watermark_pct']:.0f}/{c['low_watermark_pct']:.0f}), {c['forced_waits']} writes "
                     "waited for a destage")
    if data["write_caches"]:
        parts.append("")
    for r in data["replication"]:
        a, b = r["arrays"]
        parts.append(
            f"replication {r['name']}: writes sent {a} {r['writes'][0]}, {b} {r['writes'][1]}; "
            f"extent ownership moves to {a} {r['ownership_moves'][0]}, to {b} {r['ownership_moves'][1]}"
        )
    if data["replication"]:
        parts.append("")
    events = data.get("events", [])
    if events:
        shown = events[:20]
        parts.append(f"host events ({len(events)}{', first 20' if len(events) > 20 else ''}):")
        parts += [f"  {e['t_s']:10.3f} s  {e['event']:<16} {e['path'] or e['device']} {e['detail']}".rstrip() for e in shown]
        parts.append("")
    return parts


def csv_lines(rows: list[dict]) -> str:
    """Rows of flat dicts as CSV with a header, without a trailing newline."""
    import pandas as pd

    return pd.DataFrame(rows).to_csv(index=False, lineterminator="\n").rstrip("\n")


def summary_csv(rows: list[dict]) -> str:
    """One line per run: its labels and every summary figure."""
    return csv_lines([{"scenario": d["scenario"], "variant": d["variant"] or "", "seed": d["seed"], **d["summary"]} for d in rows])


@click.command("run")
@click.argument("file")
@variant_option
@set_option
@workload_option
@seed_option
@format_option("json", "csv")
@click.option("--intervals", is_flag=True, help="Print every interval line, as vdbench does.")
@click.option("--esxtop-csv", "esxtop_out",
              help="Also write the measured window as an esxtop batch-mode CSV (esxtop -b -a) to this file "
                   "(one per host: see below).")
@click.option("--vdbench-flatfile", "flat_out", type=click.Path(dir_okay=False),
              help="Also write the interval lines as vdbench's flatfile (flatfile.html columns) to this file.")
@click.option("--diskstats", "diskstats_out", type=click.Path(dir_okay=False),
              help="Also write /proc/diskstats of every path device (sdX) and map (dm-N) once an interval to this file "
                   "(one per host: see below).")
@click.option("--host", help="Show only this host's devices, adapters and paths, of a scenario with several hosts.")
@html_option
@handle_errors
def command(file: str, variant: str | None, sets: tuple[str, ...], workload: str | None, seed: int | None, fmt: str, intervals: bool,
            esxtop_out: str | None, flat_out: str | None, diskstats_out: str | None, host: str | None,
            html: str | None) -> None:
    """Run one scenario and print what vdbench and esxtop would show.

    Each host's esxtop and /proc/diskstats know only its own devices, adapters and paths. With
    several hosts in the scenario, the tables are printed per host, each under a line
    `==> host NAME <==`, and --esxtop-csv and --diskstats write one file per host, the host's
    name added before the extension (run.csv: run-esx-a.csv, run-esx-b.csv); with --host, only
    that host's tables and a file of the name given. The vdbench figures and the flatfile are the
    workload's, every host's I/Os together. JSON output is the whole run (each device, path and
    adapter names its host), or with --host that host's objects; CSV is the run's summary line."""
    writable_outputs(((esxtop_out, "--esxtop-csv"), (flat_out, "--vdbench-flatfile"), (diskstats_out, "--diskstats"),
                      (html, "--html")), inputs=[resolve(file), *([workload] if workload else [])])
    sets = with_workload(file, workload, sets)
    scenario = load(file, variant, sets, seed)
    if host is not None:
        hosts.check(scenario.describe(), host, scenario.file)
    (result,) = run_all([scenario])
    views = hosts.each(result.data, host, scenario.file)
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
    if html:
        from pathlab.report import run_report

        write(html, run_report(views[0][1] if host else result.data, scenario.text, provenance(file)))
    if fmt == "json":
        # With --host, that host's devices, paths and adapters (the summary stays the run's).
        click.echo(json.dumps(views[0][1], indent=2) if host else result.to_json())
    elif fmt == "csv":
        click.echo(summary_csv([result.data]))
    else:
        click.echo(text_report(result.data, intervals, views))
