"""`pathlab advise SCENARIO`: what is wrong with the host's multipathing, what to change, the
commands to paste, and what the change gains, predicted on the host's own scenario
(`advisor/pipeline.py` does the work)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from pathlab.advisor.decide import MARGIN, OBJECTIVES
from pathlab.advisor.failure_kinds import KINDS
from pathlab.advisor.pipeline import FULL_DURATION, MOST_SEEDS, advise, run_length_sets
from pathlab.api import ScenarioError
from pathlab.cli.common import INPUT_KINDS, force_option, handle_errors, resolve, set_option, writable_output
from pathlab.cli.import_host import host_files
from pathlab.cli.progress import StderrProgress
from pathlab.output.advice import AdviceOutput
from pathlab.output.sink import emit, format_option, html_option
from pathlab.study.executor import EXECUTORS, Executor


@click.command("advise", help=f"""Diagnose a host, simulate each candidate setting on it and rank them. FILES is a
scenario (or a shipped scenario's name), or what the host prints, imported as `pathlab import` does: {INPUT_KINDS}

Examples:

\b
  pathlab advise vmax-iops1000
  pathlab import vmax-iops1000 -o host.toml && pathlab advise host.toml
  pathlab advise esxcli-storage-nmp-device-list.txt esxcli-storage-nmp-path-list.txt esxtop-batch.csv
  pathlab advise c1-vmax-1lun --variant iops1000
  pathlab advise --host vmax-cluster-esx-a --host vmax-cluster-esx-b --host vmax-cluster-esx-c --duration 5s
  pathlab advise srdf-metro-cluster-50km --host esx-b1
  pathlab advise cx4-alua-path-failure --failures
  pathlab advise host.toml --failures=path_hang,link_down""")
@click.argument("files", nargs=-1)
@click.option("--host", "hosts", multiple=True, metavar="NAME=FILE[,FILE…] | NAME",
              help="A cluster: each host's captures after its name and `=`, once per host (as `pathlab import --host` "
                   "takes them), advised together. A host's name alone narrows the advice to that host of the cluster "
                   "(its findings, figures and commands), which is still simulated whole.")
@click.option("--variant", help="Advise on one of the file's named variants (the setting in force).")
@set_option
@click.option("--seeds", type=click.IntRange(2, MOST_SEEDS), default=3, show_default=True,
              help="Replications per candidate, at most: 2, and more only while the intervals leave the decision open.")
@click.option("--duration", default="auto", show_default=True,
              help=f"Simulated measurement per run, or `auto`: as long as the host's rates and its policy's rotation "
                   f"need (a short pilot run measures them), at most {FULL_DURATION}; {FULL_DURATION} on a scenario "
                   "with scheduled faults or host pauses.")
@click.option("--warmup", default="5s", show_default=True,
              help="Simulated warm-up per run (with --duration auto: a quarter of the run, at most this).")
@click.option("--objective", type=click.Choice(OBJECTIVES), default="balanced", show_default=True,
              help="What a change must improve: the I/O rate, the p99 response, or either without a clear loss on "
                   f"the other (by {MARGIN:.0%}, beyond the 95% intervals).")
@click.option("--failures", is_flag=False, flag_value="all", default=None, metavar="[KINDS]",
              help=f"Advise on the failure timers instead: simulate the host's failure kinds ({', '.join(KINDS)}: those "
                   "its topology has, or the KINDS given, separated by commas) under the timers in force and the "
                   "vendor's and the stack's candidates on the same seeds, and rank them by --objective; on a cluster, "
                   "each failure on every host at once, one set of timers on every host, with each host's and site's "
                   "figures. Put it after FILES, or write --failures=KINDS.")
@click.option("--executor", type=click.Choice(EXECUTORS), default="local", show_default=True,
              help="Where the candidates' runs go: this machine's cores, or a Ray cluster (pip install 'pathlab[ray]'): "
                   "the same runs and figures, for clusters of more hosts than one machine simulates in time.")
@click.option("--address", help="With --executor ray: the Ray cluster to join (default: start a local one).")
@click.option("--verbose", is_flag=True,
              help="Also print the seeds each candidate took and how long each run simulated (both always in the JSON; "
                   "the run length in the HTML report too), and every finding, capture-check row and assumption where "
                   "many alike are otherwise counted after the first three.")
@format_option(AdviceOutput)
@html_option
@force_option
@handle_errors
def command(files: tuple[str, ...], hosts: tuple[str, ...], variant: str | None, sets: tuple[str, ...], seeds: int,
            duration: str, warmup: str, objective: str, failures: str | None, executor: str, address: str | None,
            verbose: bool, fmt: str, html: str | None, force: bool) -> None:
    where = Executor(executor, address)
    captures, shown = _hosts(hosts)
    if failures is not None and not files and not captures:  # `--failures FILE`: the file was taken as the kinds
        raise ScenarioError("advise", "--failures", f"{failures!r} is taken as the failure kinds and no FILES are left: "
                                                    "write FILES first (pathlab advise FILES --failures), or --failures=KINDS")
    if files and captures:
        raise ScenarioError("--host", hosts[0], "give FILES for one host or a scenario, or --host NAME=FILES for each "
                                                "host of a cluster, not both")
    if not files and not captures:
        raise ScenarioError("advise", "FILES", "nothing to advise on: give a scenario or a host's captures, or --host "
                                               "NAME=FILES for each host of a cluster")
    inputs = [resolve(f) for f in files] or [f for _, own in captures for f in own]
    writable_output(html, "--html", inputs, force)
    for given in run_length_sets(sets):
        # advise sets every run's length itself: such a --set would be replaced without a word
        raise click.BadParameter(f"{given!r}: advise chooses the run length; give --duration and --warmup instead",
                                 param_hint="--set")
    if captures:
        from pathlab.importer.cluster import cluster_of

        subject: Any = cluster_of([(name, tuple(own)) for name, own in captures])
    else:
        subject = files[0] if len(files) == 1 else files
    if failures is not None:
        from pathlab.output.failure_advice import FailureAdviceOutput

        if executor != "local":
            raise ScenarioError("--executor", executor, "--failures runs on this machine: leave --executor out")
        timers = advise(subject, objective=objective, seeds=seeds, duration=duration, warmup=warmup, variant=variant,
                        set=sets, progress=StderrProgress("advise"), host=shown, failures=failures)
        emit(FailureAdviceOutput(timers), fmt, html, ", ".join(files) or ", ".join(hosts))
        return
    advice = advise(subject, objective=objective, seeds=seeds, duration=duration, warmup=warmup, variant=variant,
                    set=sets, progress=StderrProgress("advise"), host=shown, executor=where)
    emit(AdviceOutput(advice, verbose), fmt, html, ", ".join(files) or ", ".join(hosts))


def _hosts(values: tuple[str, ...]) -> tuple[list[tuple[str | None, list[str]]], str | None]:
    """`--host` values: each host's captures (`NAME=FILES`, an existing folder or file, a shipped
    capture's name), and the one host named alone, to narrow the advice to."""
    from pathlab import shipped

    def files(value: str) -> bool:
        return "=" in value or Path(value).exists() or shipped.capture_files(value) is not None

    captures = [host_files(v) for v in values if files(v)]
    named = [v for v in values if not files(v)]
    if len(named) > 1:
        raise ScenarioError("--host", named[1], f"one host to narrow the advice to; {named[0]} is given already")
    return captures, named[0] if named else None
