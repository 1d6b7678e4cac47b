"""`pathlab bench`: what the engine costs, in figures that hold from one run to the next.

Every figure is the median of `--rounds` repetitions, printed with its spread (the least and the
greatest); each repetition runs in a child process of its own, so that its peak resident memory
is its own. A child times the set-up (validating the scenario and starting its run) apart from
the run itself; nothing is subtracted from anything. Instruction counts (`--profile`, with
valgrind) are the figure to decide by on a shared machine: they repeat to the instruction.
`--markdown` prints the same tables as Markdown, for the documentation.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import click

from pathlab import shipped
from pathlab.cli.common import BadInput, handle_errors, load
from pathlab.output.bench import BenchTable, LargeHost
from pathlab.output.sink import emit

#: (label, file, variant, overrides). The minimal model twice, the second four times longer:
#: equal peak memory shows that memory follows what is in flight, not the run's length.
BENCHMARKS = (
    ("minimal 20 s", "bench-minimal.toml", None, ()),
    ("minimal 80 s", "bench-minimal.toml", None, ("run.duration=80s",)),
    ("C1 iops=1", "c1-vmax-1lun.toml", "iops1", ()),
)
QUICK = ("run.duration=2s", "run.warmup=0s")

#: Devices of the large-host benchmark (8 paths each).
LARGE_HOST_DEVICES = 10_000

#: (devices, paths per device, I/Os outstanding per device) of the in-flight table. Ports serve
#: every I/O at once (as many servers as I/Os), so nothing waits in a FIFO: what is in flight is
#: in the event queue. One device with more and more outstanding measures the event queue; more
#: and more devices with one each measure per-device state as well (it no longer fits in cache).
IN_FLIGHT = (
    (1, 8, 32), (1, 8, 1_000), (1, 8, 10_000), (1, 8, 100_000),
    (32, 8, 1), (1_000, 8, 1), (10_000, 8, 1), (10_000, 8, 10),
    (1, 64, 32), (1, 512, 32), (1, 10_000, 32),
)  # fmt: skip

#: An I/O's round trip on the generated hosts without queueing: 50 µs each way and 20 µs of
#: service on average (`large_host.scenario_text`). Runs are made long enough for each I/O
#: slot to complete many times.
GENERATED_ROUND_TRIP_S = 120e-6
GENERATED_SERVICE_S = 20e-6

#: Servers a port may have (`scenario/bounds.rs`, a port's cores): past it, the generated hosts
#: get more ports instead (`generated_host`).
MAX_PORT_SERVERS = 1024

#: The minimal model's eight ports split between two controllers (directors).
_TWO_CONTROLLER_PORTS = "arrays.0.ports=[" + ", ".join(f'{{name="P{i}", controller="{"AB"[i % 2]}"}}' for i in range(8)) + "]"

#: (label, overrides) switched on one at a time on the minimal model for `--profile`.
MECHANISMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("minimal model", ()),
    ("directors (2, 2 us each)",
     ('arrays.0.controllers=[{name="A", service={fixed="2us"}}, {name="B", service={fixed="2us"}}]', _TWO_CONTROLLER_PORTS)),
    ("NVMe head, blk-mq tags", ('policy={name="nvme", iopolicy="round-robin"}',)),
    ("host stack time", ('host.stack_time="5us"',)),
    ("host pauses", ('host.pauses={every="100ms", duration="1ms"}',)),
    ("cache latency step", ('arrays.0.read_latency="10us"',)),
    ("link transfer time", ('host.adapters.0.link_speed="16Gb"',)),
    ("writes", ("workloads.0.read_pct=0",)),
    ("lognormal service", ('arrays.0.service={fixed="25us", distribution="lognormal", cv=1.0}',)),
    ("intervals of 1 ms", ('run.interval="1ms"',)),
    ("round robin iops=1000", ("policy.iops=1000",)),
)

#: Devices of the generated hosts that `--advise` times `pathlab advise` on.
ADVISE_DEVICES = (50, 500, 5_000)
#: I/Os per second per device of `--advise`'s lightly loaded hosts: 100,000 over 5,000 devices,
#: half what the generated array's four ports serve.
ADVISE_RATE = 20.0


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def spread(values: Sequence[float], digits: int = 2) -> str:
    """The median, with the least and greatest value when they differ."""
    if len(values) == 1 or min(values) == max(values):
        return f"{median(values):,.{digits}f}"
    return f"{median(values):,.{digits}f} ({min(values):,.{digits}f}-{max(values):,.{digits}f})"


class Tables:
    """Prints each table through the sink as soon as it is measured (a section takes minutes),
    aligned for a terminal or as Markdown."""

    def __init__(self, markdown: bool):
        self.markdown = markdown

    def show(self, title: str, headers: Sequence[str], rows: Sequence[Sequence[str]], note: str = "") -> None:
        emit(BenchTable(title, headers, rows, note, self.markdown), "table")


def child() -> None:
    """Entry of the child process: set up one scenario, run it, and print what it did with the
    set-up and the run timed apart."""
    file, variant, overrides = json.loads(sys.argv[1])
    if not file:  # the baseline: an idle interpreter with pathlab imported
        print(json.dumps({"ios": 0, "events": 0, "setup_s": 0.0, "run_s": 0.0}))
        return
    started = time.perf_counter()
    scenario = load(file, variant, overrides)
    sim = scenario.handle.simulation()
    ready = time.perf_counter()
    sim.run_until(scenario.handle.end_ns)
    ran = time.perf_counter()
    data, _ = sim.finish()
    print(json.dumps({"ios": data["accounting"]["issued"], "events": sim.events, "setup_s": ready - started,
                      "run_s": ran - ready, "finish_s": time.perf_counter() - ran}))


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


def child_command(entry: str, file: str, variant: str | None, overrides: Sequence[str]) -> list[str]:
    code = f"from pathlab.cli.bench import {entry}; {entry}()"
    return [sys.executable, "-c", code, json.dumps([file, variant, list(overrides)])]


def measure(file: str, variant: str | None, overrides: Sequence[str], entry: str = "child") -> tuple[dict, float]:
    """Runs one benchmark in a child; returns its report and its peak RSS in MiB."""
    proc = subprocess.Popen(child_command(entry, file, variant, overrides), stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise click.ClickException(f"benchmark {file} failed (status {status})")
    return json.loads(out), usage.ru_maxrss / 1024


def repeat(rounds: int, label: str, file: str, variant: str | None, overrides: Sequence[str]) -> list[tuple[dict, float]]:
    runs = []
    for r in range(rounds):
        click.echo(f"pathlab bench: {label}, round {r + 1} of {rounds}", err=True)
        runs.append(measure(file, variant, overrides))
    return runs


def main_table(tables: Tables, folder: str, rounds: int, quick: bool) -> None:
    rows = []
    for label, name, variant, overrides in BENCHMARKS:
        runs = repeat(rounds, label, str(Path(folder) / name), variant, overrides + (QUICK if quick else ()))
        reports = [r for r, _ in runs]
        rows.append([
            label,
            f"{reports[0]['ios']:,}",
            spread([r["setup_s"] for r in reports]),
            spread([r["run_s"] for r in reports]),
            spread([r["ios"] / r["run_s"] / 1e6 for r in reports]),
            spread([r["events"] / r["run_s"] / 1e6 for r in reports], 1),
            f"{max(rss for _, rss in runs):.1f}",
        ])
    _, idle_rss = measure("", None, ())
    rows.append(["idle Python with pathlab imported", "", "", "", "", "", f"{idle_rss:.1f}"])
    tables.show(
        f"Simulated I/Os per second of wall time (median (least-greatest) of {rounds} rounds, one core each):",
        ["benchmark", "simulated I/Os", "set-up s", "run s", "M simulated I/O per s", "M events per s", "peak RSS MiB"],
        rows,
        "Set-up is validating the scenario and starting its run; the rates are the run alone. Peak RSS includes "
        f"the Python interpreter. Python start-up and import pathlab: {import_seconds():.3f} s (apart).",
    )
    click.echo(f"pathlab bench: a host of {LARGE_HOST_DEVICES:,} devices", err=True)
    large, large_rss = measure("", None, (), entry="large_host_child")
    emit(LargeHost(LARGE_HOST_DEVICES, large["validate_s"], large["start_s"], large_rss), "table")


def generated_host(folder: Path, devices: int, paths: int, outstanding: int, quick: bool) -> tuple[Path, int, int]:
    """A generated host whose ports serve every I/O at once, simulated long enough for the
    figure (100,000 I/Os quick, 2 million otherwise, and each I/O slot 20 times at least), and
    its paths per device. A port has at most `MAX_PORT_SERVERS` servers. Many devices go on as
    many arrays as it takes for each port to have a server for every I/O that can reach it (its
    array's devices' I/Os in flight), as the hand-written loop's port has: then no I/O can wait
    there, which the engine proves and uses (`sim/never_wait.rs`). One device whose I/Os are
    more than its ports' servers gets more paths, enough for those in service (a sixth of those
    in flight, with a quarter to spare: a port's share varies a little around its mean); its
    ports can never be proved free, only found so. Returns the file, the paths each device has
    and the arrays."""
    from pathlab.large_host import scenario_text

    in_flight = devices * outstanding
    in_service = in_flight * GENERATED_SERVICE_S / GENERATED_ROUND_TRIP_S
    ports_needed = math.ceil(1.25 * in_service / MAX_PORT_SERVERS)
    ports_each = paths // 2 if paths % 2 == 0 else paths
    if ports_needed > ports_each and paths % 2 == 0:
        ports_each = max(ports_each, -(-ports_needed // devices))
        paths = 2 * ports_each
    arrays = max(1, -(-ports_needed // ports_each))
    if devices > 1 and outstanding <= MAX_PORT_SERVERS:
        # Device i is on array i mod arrays: each array has at most ceil(devices / arrays).
        arrays = max(arrays, -(-devices // (MAX_PORT_SERVERS // outstanding)))
    target = max(100_000 if quick else 2_000_000, 20 * in_flight)
    duration_us = max(1, round(target * GENERATED_ROUND_TRIP_S / in_flight * 1e6))
    file = folder / f"inflight-{devices}-{paths}-{outstanding}.toml"
    servers = min(in_flight, MAX_PORT_SERVERS)
    file.write_text(scenario_text(devices, paths, outstanding, f"{duration_us}us", servers=servers, arrays=arrays))
    return file, paths, arrays


def in_flight_table(tables: Tables, rounds: int, quick: bool, scaling_loop: Path | None) -> None:
    """Cost per simulated I/O against I/Os in flight and paths: a step whose cost grows with
    what is in flight (a heap's depth, state out of cache) or with the paths shows here. With
    `scaling_loop`, the same host's hand-written loop runs after each round (alternately: this
    machine's speed drifts), to tell what the host costs any simulator from what pathlab adds."""
    rows = []
    base: float | None = None
    loop_base: float | None = None
    with tempfile.TemporaryDirectory() as folder:
        for devices, paths, outstanding in IN_FLIGHT:
            file, paths_each, arrays = generated_host(Path(folder), devices, paths, outstanding, quick)
            label = f"{devices:,} device(s) x {paths_each:,} paths, {outstanding:,} outstanding each"
            per_io, loop_per_io, runs = [], [], []
            for r in range(rounds):
                click.echo(f"pathlab bench: {label}, round {r + 1} of {rounds}", err=True)
                report, rss = measure(str(file), None, ())
                runs.append((report, rss))
                per_io.append(report["run_s"] / report["ios"] * 1e9)
                if scaling_loop:
                    loop_per_io.append(loop_ns_per_io(scaling_loop, devices, outstanding, paths_each, report["ios"]))
            base = base or median(per_io)
            row = [
                f"{devices:,}", f"{paths_each:,}", f"{arrays:,}", f"{devices * outstanding:,}", f"{runs[0][0]['ios']:,}", spread(per_io, 0),
                f"{median(per_io) / base:.2f}", spread([r["setup_s"] for r, _ in runs]),
                f"{max(rss for _, rss in runs):.1f}",
            ]
            if scaling_loop:
                loop_base = loop_base or median(loop_per_io)
                row += [spread(loop_per_io, 0), f"{median(loop_per_io) / loop_base:.2f}",
                        f"{median([a / b for a, b in zip(per_io, loop_per_io)]):.1f}"]
            rows.append(row)
    headers = ["devices", "paths each", "arrays", "I/Os in flight", "simulated I/Os", "ns per I/O", "x first row", "set-up s",
               "peak RSS MiB"]
    if scaling_loop:
        headers += ["loop ns per I/O", "loop x first row", "pathlab / loop"]
    tables.show(
        f"Cost per simulated I/O against I/Os in flight and paths (median (least-greatest) of {rounds} rounds):",
        headers,
        rows,
        "Round robin after every I/O; ports serve every I/O at once (a port has a server for every I/O that can reach "
        "it: past 1,024 servers a port, more arrays or, for one device, more paths, the paths column, enough for "
        "those in service), so what is in flight is in the event queue. "
        "ns per I/O is the run alone divided by its I/Os; the set-up is timed apart, not subtracted."
        + (" The loop is the same host hand-written (--loop): a binary heap, esxtop's counters "
           "per device and per path, a p99 histogram per device; pathlab / loop is taken round by round."
           if scaling_loop else ""),
    )


def callgrind_instructions(file: str, overrides: Sequence[str]) -> tuple[int, int]:
    """Instructions a child executes under callgrind, and the I/Os it simulated."""
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
               *child_command("child", file, None, overrides)]
    done = subprocess.run(command, capture_output=True, text=True)
    collected = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or not collected:
        raise click.ClickException(f"callgrind on {file} failed: {done.stderr.strip().splitlines()[-1:]}")
    return int(collected.group(1)), json.loads(done.stdout)["ios"]


def profile_table(tables: Tables, folder: str, quick: bool) -> None:
    """Instructions per simulated I/O of the minimal model with each mechanism switched on in
    turn: the difference between a run and one twice as long, so Python, the set-up and the
    result do not count."""
    file = str(Path(folder) / "bench-minimal.toml")
    short, long = ("0.2s", "0.4s") if quick else ("1s", "2s")
    rows = []
    base: float | None = None
    for label, overrides in MECHANISMS:
        load(file, None, overrides)  # bad input is reported before valgrind starts
        click.echo(f"pathlab bench: callgrind, {label}", err=True)
        (ir_a, ios_a), (ir_b, ios_b) = (
            callgrind_instructions(file, (*overrides, f'run.duration="{d}"', 'run.warmup="0s"')) for d in (short, long)
        )
        per_io = (ir_b - ir_a) / (ios_b - ios_a)
        base = base or per_io
        rows.append([label, ", ".join(overrides) or "(bench-minimal.toml)", f"{per_io:,.0f}", f"{per_io - base:+,.0f}"])
    tables.show(
        f"Instructions per simulated I/O by mechanism (callgrind; a {long} run less a {short} run):",
        ["mechanism", "switched on by", "instructions per I/O", "against the minimal model"],
        rows,
        "Counts repeat to the instruction from run to run: decide by them, not by wall time, on a shared machine.",
    )


def cores_table(tables: Tables, folder: str, rounds: int, quick: bool) -> None:
    """A sweep of the minimal model (four runs per core) on 1 worker, then on more, up to every
    core: how far sweeps scale."""
    from pathlab.study.sweep import Job, expand, run_local

    file = Path(folder) / "bench-minimal.toml"
    cpus = os.cpu_count() or 1
    job = Job(file.read_text(encoding="utf-8"), str(file), ("run.duration=0.5s" if quick else "run.duration=4s",
                                                             "run.warmup=0s"))
    points = expand([], [None], range(1, 4 * cpus + 1))
    rows = []
    one: float | None = None
    for workers in sorted({1, *range(2, cpus + 1)}):
        walls = []
        for r in range(rounds):
            click.echo(f"pathlab bench: sweep of {len(points)} runs on {workers} worker(s), round {r + 1} of {rounds}",
                       err=True)
            started = time.perf_counter()
            run_local(job, points, workers, lambda _row: None)
            walls.append(time.perf_counter() - started)
        one = one or median(walls)
        rows.append([f"{workers}", f"{len(points)}", spread(walls), f"{one / median(walls):.2f}"])
    tables.show(
        f"Sweep scaling over cores ({len(points)} runs of the minimal model, median (least-greatest) of {rounds} rounds):",
        ["workers", "runs", "wall s", "speed-up"], rows,
    )


def advise_table(tables: Tables, rounds: int, quick: bool) -> None:
    """`pathlab advise` end to end on generated hosts of more and more devices (8 paths each),
    as an admin runs it: the run length chosen from the host's rates, seeds while the intervals
    leave the decision open. Two loads: one I/O outstanding on each device (the ports saturated
    from 500 devices on: each device's I/Os are counted on their own), and ADVISE_RATE I/Os per
    second on each (the ports half busy at 5,000 devices: alike devices' I/Os counted together)."""
    from pathlab.large_host import scenario_text

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for load, rate in (("1 outstanding", None), (f"{ADVISE_RATE:g} I/O/s", ADVISE_RATE)):
            for devices in ADVISE_DEVICES[:2] if quick else ADVISE_DEVICES:
                file = Path(folder) / f"advise-{devices}.toml"
                file.write_text(scenario_text(devices, 8, 1, rate=rate))
                command = [sys.executable, "-m", "pathlab", "advise", str(file), "--format", "json"]
                walls, document, length = [], {}, ""
                for r in range(rounds):
                    click.echo(f"pathlab bench: advise on {devices:,} devices at {load}, round {r + 1} of {rounds}",
                               err=True)
                    started = time.perf_counter()
                    done = subprocess.run(command, capture_output=True, text=True)
                    walls.append(time.perf_counter() - started)
                    if done.returncode != 0:
                        raise click.ClickException(f"advise on {devices} devices failed: {done.stderr.strip()[-300:]}")
                    document = json.loads(done.stdout)
                    chosen = document["run_length"]
                    length = f"{chosen['duration_s']:g} s after {chosen['warmup_s']:g} s of warm-up"
                runs = sum(c["seeds"] for c in document["candidates"])
                rows.append([f"{devices:,}", f"{devices * 8:,}", load, f"{len(document['candidates'])}", f"{runs}",
                             length, spread(walls)])
    tables.show(
        f"pathlab advise on generated hosts (the run length it chooses, 2 or 3 seeds per candidate as the intervals "
        f"decide, median (least-greatest) of {rounds} rounds, the whole command, load average "
        f"{os.getloadavg()[0]:.1f}):",
        ["devices", "paths", "load per device", "candidates", "seeds in all", "runs of", "wall s"], rows,
    )
    from pathlab.cli.cluster_bench import CLUSTER, QUICK_CLUSTER, cluster_captures, cluster_rows

    with tempfile.TemporaryDirectory() as folder:
        options = cluster_captures(Path(folder), *(QUICK_CLUSTER if quick else CLUSTER))
        cluster, steps, said = cluster_rows(rounds, quick, Path(folder), options, spread)
        tables.show(
            f"pathlab import and advise of a generated cluster's captures (each host's device and path lists and its "
            f"esxtop CSV; median (least-greatest) of {rounds} rounds, the whole command, load average "
            f"{os.getloadavg()[0]:.1f}):",
            ["hosts x devices x paths", "command", "what it did", "wall s", "CPU s", "peak RSS MiB"], cluster,
            "advise imports the captures itself: its row includes the import (`pathlab advise --host`'s work in one "
            "process, timed step by step as the next table shows).",
        )
    tables.show(
        f"The last round of the cluster's advice step by step ({said}; load average "
        f"{os.getloadavg()[0]:.1f}):",
        ["step", "wall s", "CPU s", "peak resident MiB", "resident at its end MiB"], steps,
        "CPU includes the import's worker processes; a step's peak is the highest of the process's resident memory "
        "read every 50 ms while it ran; the whole process's peak is the largest ru_maxrss of it and its import's "
        "workers (wait4).",
    )


def import_seconds() -> float:
    """Python's start-up and `import pathlab` in a fresh process (what every command pays first)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import pathlab"], check=True)
    return time.perf_counter() - started


def loop_binary(folder: Path, option: str, binary_name: str) -> Path:
    """A hand-written loop (`--reference`'s of the minimal model, `--loop`'s of the scaling hosts),
    built with cargo into pathlab's cache (one target folder per loop folder)."""
    import hashlib

    if not (folder / "Cargo.toml").is_file():
        raise BadInput(f"{folder}: {option}: no Cargo.toml: give the hand-written loop's folder")
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
    target = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pathlab" / f"reference-{digest}"
    binary = target / "release" / binary_name
    if not binary.exists():
        click.echo(f"pathlab bench: building the hand-written loop in {folder}", err=True)
    # cargo every time: it rebuilds what changed since (the loop in this repository may have),
    # and otherwise returns at once.
    try:
        built = subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path", str(folder / "Cargo.toml")],
                               env={**os.environ, "CARGO_TARGET_DIR": str(target)}, capture_output=True, text=True)
    except OSError as e:
        raise BadInput(f"{folder}: {option}: cargo cannot be run ({e.strerror}): the loop is built with it") from None
    if built.returncode != 0 or not binary.exists():
        last = (built.stderr.strip().splitlines() or [f"no {binary_name} binary"])[-1]
        raise BadInput(f"{folder}: {option}: the loop did not build: {last}")
    return binary


def loop_fields(binary: Path, option: str, arguments: Sequence[int]) -> dict[str, str]:
    """What a hand-written loop printed (`key=value` words) for `arguments`."""
    done = subprocess.run([str(binary), *map(str, arguments)], capture_output=True, text=True)
    fields = dict(f.split("=", 1) for f in done.stdout.split() if "=" in f)
    if done.returncode != 0 or not fields:
        raise BadInput(f"{binary}: {option}: the loop printed nothing to read (status {done.returncode})")
    return fields


def reference_rate(binary: Path, ios: int) -> float:
    """The reference loop's simulated I/Os per second of wall time for `ios` completions."""
    try:
        return float(loop_fields(binary, "--reference", [ios])["ios_per_wall_s"])
    except (KeyError, ValueError):
        raise BadInput(f"{binary}: --reference: the loop printed no ios_per_wall_s") from None


def loop_ns_per_io(binary: Path, devices: int, outstanding: int, paths: int, ios: int) -> float:
    """The scaling host's hand-written loop's wall time per simulated I/O (its set-up apart)."""
    try:
        return float(loop_fields(binary, "--loop", [devices, outstanding, paths, ios])["ns_per_io"])
    except (KeyError, ValueError):
        raise BadInput(f"{binary}: --loop: the loop printed no ns_per_io") from None


def reference_table(tables: Tables, binary: Path, folder: str, rounds: int, quick: bool) -> None:
    """pathlab and the reference loop on the minimal model, alternately in one run (this machine's
    speed drifts: only ratios taken side by side mean anything)."""
    file = str(Path(folder) / "bench-minimal.toml")
    ours, theirs = [], []
    for r in range(rounds):
        click.echo(f"pathlab bench: minimal model against the reference loop, round {r + 1} of {rounds}", err=True)
        report, _ = measure(file, None, QUICK if quick else ())
        ours.append(report["ios"] / report["run_s"] / 1e6)
        theirs.append(reference_rate(binary, report["ios"]) / 1e6)
    ratios = [a / b for a, b in zip(ours, theirs)]
    tables.show(
        f"The minimal model against the hand-written loop ({binary}), alternating, median (least-greatest) of "
        f"{rounds} rounds:",
        ["pathlab M I/O per s", "reference M I/O per s", "ratio"],
        [[spread(ours), spread(theirs), spread(ratios)]],
        "pathlab's run alone (set-up apart) against the loop's own timing of its whole run; the ratio is taken "
        "round by round.",
    )


def sections(scale: bool, profile: bool, cores: bool, advise: bool) -> list[str]:
    return [name for name, on in (("scaling", scale), ("profile", profile), ("cores", cores), ("advise", advise)) if on]


@click.command("bench")
@click.option("--scenarios", "folder", default=str(shipped.FOLDER), type=click.Path(file_okay=False),
              help="Where the scenarios are (default: those shipped with pathlab).")
@click.option("--quick", is_flag=True, help="Short runs, to check that it works (the figures mean little).")
@click.option("--rounds", type=click.IntRange(1, 20), default=3, show_default=True,
              help="Repetitions of every figure (the median and the spread are printed).")
@click.option("--reference", "reference", type=click.Path(file_okay=False, exists=True),
              help="Folder of the hand-written reference loop (minimal-rust): compare with it, alternately.")
@click.option("--loop", "loop", type=click.Path(file_okay=False, exists=True),
              help="With --scaling: folder of the scaling hosts' hand-written loop (benches/many-devices-loop), run "
              "beside each row, alternately.")
@click.option("--whole-process", "whole", is_flag=True, help="With --reference: also `pathlab run` of the minimal "
              "model as a whole process (start-up to exit) against the loop's process, and where its time outside "
              "the engine goes.")
@click.option("--scaling", "scale", is_flag=True, help="Also the cost per I/O from 32 to 100,000 I/Os in flight and 8 to "
              "10,000 paths.")
@click.option("--profile", is_flag=True, help="Also instructions per I/O by mechanism (needs valgrind; minutes).")
@click.option("--cores", is_flag=True, help="Also a sweep's wall time on 1 worker and up to every core.")
@click.option("--advise", is_flag=True, help="Also pathlab advise's wall time on hosts of 50, 500 and 5,000 devices, and import "
              "and advise of a cluster of 32 hosts x 500 devices x 8 paths from its captures.")
@click.option("--only", is_flag=True, help="Only the sections asked for (--scaling, --profile, --cores, --advise, "
              "--reference, --whole-process), not the rates of the shipped benchmarks.")
@click.option("--markdown", is_flag=True, help="Print the tables as Markdown (for docs/benchmarks.md).")
@handle_errors
def command(folder: str, quick: bool, rounds: int, reference: str | None, loop: str | None, whole: bool, scale: bool,
            profile: bool, cores: bool, advise: bool, only: bool, markdown: bool) -> None:
    """Print simulated I/Os and events per second of wall time, set-up time, peak memory and start-up
    time, each a median over rounds with its spread; optionally the ratio to a hand-written loop, the
    cost against I/Os in flight, instructions per I/O by mechanism, sweep scaling and advise's time."""
    if loop and not scale:
        raise BadInput("--loop: give --scaling too: the loop runs beside the scaling table's rows")
    if whole and not reference:
        raise BadInput("--whole-process: give --reference too: the whole process is compared with the reference loop")
    binary = loop_binary(Path(reference), "--reference", "desbench") if reference else None  # bad input before any run
    scaling_loop = loop_binary(Path(loop), "--loop", "many-devices-loop") if loop else None
    for _label, name, variant, overrides in BENCHMARKS:
        load(str(Path(folder) / name), variant, overrides)  # bad input is reported before any child starts
    if profile and shutil.which("valgrind") is None:
        raise BadInput("--profile: valgrind is not installed (apt-get install valgrind): it counts the instructions")
    if only and not (binary or sections(scale, profile, cores, advise)):
        raise BadInput("--only: name a section too (--scaling, --profile, --cores, --advise or --reference)")
    tables = Tables(markdown)
    steps: list[Callable[[], None]] = []
    if not only:
        steps.append(lambda: main_table(tables, folder, rounds, quick))
    if binary:
        steps.append(lambda: reference_table(tables, binary, folder, rounds, quick))
    if binary and whole:
        from pathlab.cli.whole_process import whole_process_table

        steps.append(lambda: whole_process_table(tables.show, spread, median, binary, folder, rounds, quick))
    if scale:
        steps.append(lambda: in_flight_table(tables, rounds, quick, scaling_loop))
    if profile:
        steps.append(lambda: profile_table(tables, folder, quick))
    if cores:
        steps.append(lambda: cores_table(tables, folder, rounds, quick))
    if advise:
        steps.append(lambda: advise_table(tables, rounds, quick))
    for step in steps:
        step()
