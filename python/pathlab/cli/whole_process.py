"""`pathlab bench --whole-process`: `pathlab run FILE --format json` of the minimal model as a
user runs it (a process of its own, from the interpreter's start to its exit) against the
hand-written reference loop's process for the same I/Os, alternately; and where the time outside
the engine goes, from a child that takes the command's steps with a timer between each.

This module imports only the standard library at its top: the child imports pathlab itself,
after its first timer, as the command does."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: The child's steps, in order, as it reports them: (key, what the table calls it).
STEPS = (
    ("import_s", "import pathlab and the run verb (CLI, output)"),
    ("load_s", "read and check the scenario"),
    ("build_s", "build the simulation"),
    ("run_s", "the engine's run (in 200 steps, for progress)"),
    ("finish_s", "finish: drain, result into Python objects"),
    ("views_s", "Result and each host's view"),
    ("render_s", "the JSON text"),
    ("write_s", "write it"),
)


def child(started: float, cpu_started: float) -> None:
    """Entry of the breakdown child (`python -c`, `started` and `cpu_started` its first wall-clock
    and CPU timers, taken before any import): the steps of `pathlab run FILE --format json`, each
    timed in wall and CPU seconds, the JSON written to /dev/null. Its CPU time before its first
    timer is Python's start-up."""
    file, overrides = json.loads(sys.argv[1])
    from pathlab.api import Result
    from pathlab.cli import main
    from pathlab.devices import from_engine, in_force

    assert main.commands["run"]  # the verb's module, imported as click looks it up
    from pathlab import host_views
    from pathlab.cli.common import load
    from pathlab.output.run import RunOutput
    from pathlab.output.sink import RENDERERS

    marks = {"start": (started, 0.0)}

    def mark(step: str) -> None:
        marks[step] = (time.perf_counter(), time.process_time() - cpu_started)

    mark("import_s")
    scenario = load(file, None, overrides)
    mark("load_s")
    sim = scenario.handle.simulation()
    mark("build_s")
    end = scenario.handle.end_ns
    step, t = max(1, end // 200), 0
    while t < end:
        t = min(end, t + step)
        sim.run_until(t)
    mark("run_s")
    data, setups = sim.finish()
    mark("finish_s")
    result = Result(data, sim.events, from_engine(setups))
    views = host_views.each(result.data, None, scenario.file)
    mark("views_s")
    text = RENDERERS["json"][1](RunOutput(result.data, views, False, None, scenario.text, in_force(result.setups),
                                          scenario.faults, scenario.timeline))
    mark("render_s")
    with open(os.devnull, "w", encoding="utf-8") as out:
        out.write(text)
    mark("write_s")
    times = list(marks.values())
    steps = {key: {"wall": b[0] - a[0], "cpu": b[1] - a[1]} for key, a, b in zip(list(marks)[1:], times, times[1:])}
    print(json.dumps({"start_cpu": cpu_started, "steps": steps}))


@functools.cache
def _bytecode_folder() -> str:
    """One folder for every timed process's bytecode (the first run compiles, the rounds reuse it),
    removed when the bench ends."""
    folder = tempfile.mkdtemp(prefix="pathlab-bench-bytecode-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def timed(command: Sequence[str], stdout: Any = subprocess.DEVNULL) -> tuple[float, float, str]:
    """A process's wall time from start to exit, its CPU time (user and system), and its stdout.
    Python may write its bytecode cache (an installed package has one: without it, every start
    compiles pathlab's modules again, 0.04 s of CPU; some environments turn it off): kept under a
    folder of the bench's own, so that a source checkout gets no `__pycache__` from a bench."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = _bytecode_folder()
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=stdout, stderr=subprocess.DEVNULL, text=True, env=env)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        raise RuntimeError(f"{' '.join(command)} failed (status {status})")
    return wall, usage.ru_utime + usage.ru_stime, out


def whole_process_table(show: Callable[[str, Sequence[str], Sequence[Sequence[str]], str], None],
                        spread: Callable[..., str], median: Callable[[Sequence[float]], float],
                        binary: Path, folder: str, rounds: int, quick: bool) -> None:
    """The whole command against the reference loop's process, alternately, round by round; then
    the breakdown. `show`, `spread` and `median` are the bench's."""
    import click

    file = str(Path(folder) / "bench-minimal.toml")
    overrides = ["run.duration=2s", "run.warmup=0s"] if quick else []
    command = [sys.executable, "-m", "pathlab", "run", file, "--format", "json",
               *(f"--set={o}" for o in overrides)]
    _, _, out = timed(command, subprocess.PIPE)  # the I/Os to give the loop; warm file and bytecode caches
    ios = json.loads(out)["accounting"]["issued"]
    ours, ours_cpu, theirs, theirs_cpu, starts, parts = [], [], [], [], [], []
    code = ("import time; t, c = time.perf_counter(), time.process_time(); "
            "from pathlab.cli.whole_process import child; child(t, c)")
    for r in range(rounds):
        click.echo(f"pathlab bench: the whole process against the reference loop, round {r + 1} of {rounds}", err=True)
        wall, cpu, _ = timed(command)
        ours.append(wall)
        ours_cpu.append(cpu)
        wall, cpu, _ = timed([str(binary), str(ios)])
        theirs.append(wall)
        theirs_cpu.append(cpu)
        starts.append(timed([sys.executable, "-c", "pass"])[0])
        parts.append(json.loads(timed([sys.executable, "-c", code, json.dumps([file, overrides])], subprocess.PIPE)[2]))
    load = os.getloadavg()[0]
    show(
        f"`pathlab run bench-minimal --format json{''.join(f' --set {o}' for o in overrides)}` ({ios:,} I/Os) as a "
        f"whole process against the reference loop's process for as many I/Os ({binary}), alternately, median "
        f"(least-greatest) of {rounds} rounds, load average {load:.1f}:",
        ["pathlab s", "reference s", "ratio", "pathlab CPU s", "reference CPU s", "CPU ratio"],
        [[spread(ours), spread(theirs), spread([b / a for a, b in zip(ours, theirs)]),
          spread(ours_cpu), spread(theirs_cpu), spread([b / a for a, b in zip(ours_cpu, theirs_cpu)])]],
        "Each process from its start to its exit, wall time and CPU time (user and system); each ratio is the "
        "loop's over pathlab's, taken round by round (1 would be as fast as the loop; the issue's goal, within 2x, "
        "is 0.5 or more). On a machine other jobs share, wall time waits for a core: the CPU ratio is the steadier.",
    )
    total = median(ours_cpu)
    rows = [["Python's start-up", spread(starts, 3) + " (python -c pass)", spread([p["start_cpu"] for p in parts], 3),
             f"{median([p['start_cpu'] for p in parts]) / total:.0%}"]]
    for key, label in STEPS:
        step_cpu = [p["steps"][key]["cpu"] for p in parts]
        rows.append([label, spread([p["steps"][key]["wall"] for p in parts], 3), spread(step_cpu, 3),
                     f"{median(step_cpu) / total:.0%}"])
    # Round by round: the command and the child ran side by side, at the machine's speed of the moment.
    rest = [whole - p["start_cpu"] - sum(s["cpu"] for s in p["steps"].values()) for whole, p in zip(ours_cpu, parts)]
    rows.append(["the rest (click, progress, exit), by difference", "", spread(rest, 3), f"{median(rest) / total:.0%}"])
    show(
        f"Where the whole process's time goes (a child taking the command's steps with a timer between each, in the "
        f"same rounds; median (least-greatest) of {rounds}):",
        ["step", "wall s", "CPU s", "of the whole command's CPU"],
        rows,
        "The engine's run is the only step the reference loop has too; the rest is the whole command's CPU time less "
        "the child's steps in the same round (two processes: it carries their difference in speed, either sign).",
    )
