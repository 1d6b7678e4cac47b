"""`pathlab bench`: simulated I/Os per second of wall time and peak memory.

Each benchmark runs in a child process so that its peak resident memory is its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import click

from pathlab import shipped
from pathlab.cli.common import handle_errors, load

#: (label, file, variant, overrides). The minimal model twice, the second four times longer:
#: equal peak memory shows that memory follows what is in flight, not the run's length.
BENCHMARKS = (
    ("minimal 20 s", "bench-minimal.toml", None, ()),
    ("minimal 80 s", "bench-minimal.toml", None, ("run.duration=80s",)),
    ("C1 iops=1", "c1-vmax-1lun.toml", "iops1", ()),
)


#: Devices of the large-host benchmark (8 paths each).
LARGE_HOST_DEVICES = 10_000


def large_host_child() -> None:
    """Entry of the child process: validate a host of 10,000 devices and start its run."""
    from pathlab.api import Scenario
    from pathlab.large_host import scenario_text

    text = scenario_text(LARGE_HOST_DEVICES)
    started = time.perf_counter()
    scenario = Scenario.from_text(text, "large-host.toml")
    validated = time.perf_counter()
    scenario.handle.simulation()
    print(json.dumps({"validate_s": validated - started, "start_s": time.perf_counter() - validated}))


def child() -> None:
    """Entry of the child process: run one scenario, print what it did and how long it took."""
    file, variant, overrides = json.loads(sys.argv[1])
    if not file:  # the baseline: an idle interpreter with pathlab imported
        print(json.dumps({"ios": 0, "wall_s": 0.0}))
        return
    scenario = load(file, variant, overrides)
    started = time.perf_counter()
    result = scenario.run()
    wall = time.perf_counter() - started
    print(json.dumps({"ios": result.data["accounting"]["issued"], "wall_s": wall}))


def measure(file: str, variant: str | None, overrides: tuple[str, ...], entry: str = "child") -> tuple[dict, float]:
    """Runs one benchmark in a child; returns its report and its peak RSS in MiB."""
    code = f"from pathlab.cli.bench import {entry}; {entry}()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, json.dumps([file, variant, list(overrides)])], stdout=subprocess.PIPE, text=True
    )
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise click.ClickException(f"benchmark {file} failed (status {status})")
    return json.loads(out), usage.ru_maxrss / 1024


@click.command("bench")
@click.option("--scenarios", "folder", default=str(shipped.FOLDER), type=click.Path(file_okay=False),
              help="Where the scenarios are (default: those shipped with pathlab).")
@click.option("--quick", is_flag=True, help="Simulate 2 s per benchmark (to check that it works).")
@handle_errors
def command(folder: str, quick: bool) -> None:
    """Print simulated I/Os per second of wall time and peak memory."""
    rows = []
    for label, name, variant, overrides in BENCHMARKS:
        file = str(Path(folder) / name)
        load(file, variant, overrides)  # bad input is reported before any child starts
        extra = ("run.duration=2s", "run.warmup=0s") if quick else ()
        click.echo(f"pathlab bench: {label}", err=True)
        report, rss = measure(file, variant, overrides + extra)
        rows.append((label, report["ios"], report["wall_s"], rss))
    _, idle_rss = measure("", None, ())
    click.echo(f"{'benchmark':<16} {'simulated I/Os':>15} {'wall s':>8} {'M I/O per s':>12} {'peak RSS MiB':>13}")
    for label, ios, wall, rss in rows:
        click.echo(f"{label:<16} {ios:>15,} {wall:>8.2f} {ios / wall / 1e6:>12.2f} {rss:>13.1f}")
    click.echo(f"{'(idle python)':<16} {'':>15} {'':>8} {'':>12} {idle_rss:>13.1f}")
    click.echo("one core per benchmark; peak RSS includes the Python interpreter, pandas and the scenario")
    click.echo(f"pathlab bench: a host of {LARGE_HOST_DEVICES:,} devices", err=True)
    large, large_rss = measure("", None, (), entry="large_host_child")
    click.echo(f"\n{LARGE_HOST_DEVICES:,} devices x 8 paths: validate {large['validate_s']:.2f} s, start of the run "
               f"{large['start_s']:.2f} s, peak RSS {large_rss:.1f} MiB")
