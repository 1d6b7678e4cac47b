"""`pathlab bench --advise`'s cluster row (issue 33 item 4): a generated cluster's hosts captured
as their admins would capture them (each host's `esxcli storage nmp device|path list` as `show
--host` prints it, and its `esxtop -b` CSV as `run --esxtop-csv` writes it), then `pathlab import`
and `pathlab advise` of those captures, each in a child process of its own: its wall time, its
CPU time (user and system: on a shared machine the wall time waits for a core) and its peak
resident memory (the child's own, from `wait4`)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

#: (hosts, devices each host has, paths each device has) of the cluster row: issue 33's scale.
CLUSTER = (32, 500, 8)
#: The same with --quick: to see that it works.
QUICK_CLUSTER = (4, 50, 8)


def cluster_captures(folder: Path, hosts: int, devices: int, paths: int) -> list[str]:
    """Each host's captures, written under `folder`; the `--host NAME=FILES` options of them."""
    from pathlab.large_host import cluster_text
    from pathlab.loading import load
    from pathlab.output.configuration import configuration, text

    scenario_file = folder / "cluster.toml"
    scenario_file.write_text(cluster_text(hosts, devices, paths))
    click.echo(f"pathlab bench: capturing {hosts} hosts x {devices:,} devices x {paths} paths", err=True)
    subprocess.run([sys.executable, "-m", "pathlab", "run", str(scenario_file), "--esxtop-csv",
                    str(folder / "esxtop.csv")], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    scenario = load(str(scenario_file), None, [])
    for what in ("devices", "paths"):
        # Every host's view in one pass (each under `==> host NAME <==`), as `show --host` prints it alone.
        whole = text(configuration(scenario, what, "esxi", "0s", None))
        parts = re.split(r"^==> host (\S+) <==\n", whole, flags=re.M)
        for host, body in zip(parts[1::2], parts[2::2]):
            (folder / f"{what}-{host}.txt").write_text(body.rstrip("\n") + "\n")
    names = [f"esx{h:02d}" for h in range(1, hosts + 1)]
    return [f"--host={h}=" + ",".join(str(folder / f) for f in (f"devices-{h}.txt", f"paths-{h}.txt", f"esxtop-{h}.csv"))
            for h in names]


#: The advice's child: `pathlab advise --host …`'s work (`import_cluster`, then `advise`) in one
#: process, timed step by step (`stage_meter`), so the step table is one of the rounds the advise
#: row times, not one more advice.
ADVISE_STEP_BY_STEP = [sys.executable, "-m", "pathlab.cli.stage_meter"]


def cluster_rows(rounds: int, quick: bool, folder: Path, options: list[str],
                 spread: Callable[[Sequence[float]], str]) -> tuple[list[list[str]], list[list[str]], str]:
    """The cluster's rows: import alone (written under `folder`), then advise (which imports too),
    `rounds` times each, of the captures `options` gives (`cluster_captures`); a verb that refuses
    the cluster says why in its row (its figures are then the refusal's). With them the last
    advice's steps (`stage_rows`) and what that advice ran."""
    hosts, devices, paths = QUICK_CLUSTER if quick else CLUSTER
    rows: list[list[str]] = []
    steps: tuple[list[list[str]], str] = ([], "")
    for verb in ("import", "advise"):
        walls, cpus, peaks, said = [], [], [], ""
        for r in range(rounds):
            click.echo(f"pathlab bench: {verb} of the cluster's captures, round {r + 1} of {rounds}", err=True)
            command = [sys.executable, "-m", "pathlab", "import", *options, "-o", str(folder / "imported.toml"),
                       "--force"] if verb == "import" else [*ADVISE_STEP_BY_STEP, *options]
            wall, cpu, peak, status, out, err = run_child(command)
            walls.append(wall)
            cpus.append(cpu)
            peaks.append(peak)
            if status != 0:
                said = f"refused (exit {status}): {(err.strip().splitlines() or ['nothing said'])[-1][-160:]}"
            elif verb == "import":
                said = f"{hosts * devices:,} devices and {hosts * devices * paths:,} paths written"
            else:
                measured = json.loads(out)
                said = (f"{measured['candidates']} candidates, {measured['runs']} runs of {measured['run_length']}"
                        if measured["run_length"] else f"no prediction: {measured['why'][:160]}")
                steps = stage_rows(measured, wall, cpu, peak)
        rows.append([f"{hosts} x {devices:,} x {paths}", verb, said, spread(walls), spread(cpus), f"{max(peaks):,.0f}"])
    if not steps[0]:
        raise click.ClickException(f"the cluster's advice failed: {said}")
    return rows, *steps


def stage_rows(measured: dict[str, Any], wall: float, cpu: float, peak: float) -> tuple[list[list[str]], str]:
    """An advice's steps as `stage_meter` measured them: a row per step (wall, CPU and peak
    resident memory), the whole process's row (`wall`, `cpu`, `peak`), and what the advice ran."""
    rows = [[s["stage"], f"{s['wall_s']:.1f}", f"{s['cpu_s']:.1f}", f"{s['peak_mib']:,.0f}", f"{s['end_mib']:,.0f}"]
            for s in measured["stages"]]
    rows.append(["the whole process", f"{wall:.1f}", f"{cpu:.1f}", f"{peak:,.0f}", ""])
    said = (f"{measured['candidates']} candidates, {measured['runs']} runs"
            + (f" of {measured['run_length']}" if measured["run_length"] else " (no run length: nothing ranked)"))
    return rows, said


def run_child(command: list[str]) -> tuple[float, float, float, int, str, str]:
    """A child's wall time, its CPU time (user and system), its peak RSS in MiB (its own and its
    threads': `wait4`), its exit status, stdout and stderr."""
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # Both pipes read to the end (a child that fills one would block), then the child reaped for its usage.
    said: list[str] = []
    reader = threading.Thread(target=lambda: said.append(proc.stderr.read() if proc.stderr else ""))
    reader.start()
    out = proc.stdout.read() if proc.stdout else ""
    reader.join()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), out, said[0]
