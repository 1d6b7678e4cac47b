"""`pathlab bench`: simulated I/Os and events per second of wall time, peak memory, and the ratio
to a hand-written loop of the minimal model.

Each benchmark runs in a child process so that its peak resident memory is its own. The engine
figure is the time of the run alone; Python's start-up and `import pathlab` are timed apart.
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
from pathlab.cli.common import BadInput, handle_errors, load

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
    print(json.dumps({"ios": result.data["accounting"]["issued"], "events": result.events, "wall_s": wall}))


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


#: (devices, paths per device, busy devices, outstanding per busy device) of the scaling table:
#: paths from 8 to 10,000 on one device; devices from 1 to 10,000 with 8 paths each, first with
#: 32 I/Os outstanding on 32 of them (what idle devices cost), then one on every device (what
#: 10,000 I/Os in flight cost: the event queue grows with them).
SCALING = (
    (1, 8, 1, 32), (1, 64, 1, 32), (1, 512, 1, 32), (1, 10_000, 1, 32),
    (32, 8, 32, 1), (1_000, 8, 32, 1), (10_000, 8, 32, 1),
    (1_000, 8, 1_000, 1), (10_000, 8, 10_000, 1),
)  # fmt: skip


def scaling(quick: bool) -> None:
    """Wall time per simulated I/O as paths and devices grow: a policy or engine step that scans
    every path or device per I/O shows as a cost that grows with them. Each host runs twice, for
    a short and a ten times longer simulated time: the difference is the cost per I/O alone
    (setting up the host, its histograms and its result are in `setup s`)."""
    import tempfile

    from pathlab.large_host import scenario_text

    short, long = ("0.1s", "1s") if quick else ("1s", "11s")
    click.echo(f"\n{'devices':>8} {'paths each':>11} {'busy':>7} {'outstanding':>12} {'ns per I/O':>11} {'M events/s':>11} "
               f"{'setup s':>8} {'peak RSS MiB':>13}")
    with tempfile.TemporaryDirectory() as folder:
        for devices, paths, busy, outstanding in SCALING:
            click.echo(f"pathlab bench: {devices} device(s) x {paths} paths, {busy} busy", err=True)
            runs = []
            for duration in (short, long):
                file = Path(folder) / f"scale-{devices}-{paths}-{busy}-{duration}.toml"
                file.write_text(scenario_text(devices, paths, outstanding, duration, busy))
                runs.append(measure(str(file), None, ()))
            (a, _), (b, rss) = runs
            per_io = (b["wall_s"] - a["wall_s"]) / (b["ios"] - a["ios"])
            events_s = (b["events"] - a["events"]) / (b["wall_s"] - a["wall_s"])
            # An extrapolation: timing noise can put a set-up of next to nothing below zero.
            setup = max(0.0, a["wall_s"] - a["ios"] * per_io)
            click.echo(f"{devices:>8,} {paths:>11,} {busy:>7,} {busy * outstanding:>12,} {per_io * 1e9:>11.0f} "
                       f"{events_s / 1e6:>11.2f} {setup:>8.2f} {rss:>13.1f}")


def import_seconds() -> float:
    """Python's start-up and `import pathlab` in a fresh process (what every command pays first)."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import pathlab"], check=True)
    return time.perf_counter() - started


def reference_binary(folder: Path) -> Path:
    """The hand-written loop of the minimal model, built with cargo into pathlab's cache (one
    build per reference folder)."""
    import hashlib

    if not (folder / "Cargo.toml").is_file():
        raise BadInput(f"{folder}: --reference: no Cargo.toml: give the reference loop's folder (minimal-rust)")
    digest = hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:12]
    target = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pathlab" / f"reference-{digest}"
    binary = target / "release" / "desbench"
    if not binary.exists():
        click.echo(f"pathlab bench: building the reference loop in {folder}", err=True)
        try:
            built = subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path", str(folder / "Cargo.toml")],
                                   env={**os.environ, "CARGO_TARGET_DIR": str(target)}, capture_output=True, text=True)
        except OSError as e:
            raise BadInput(f"{folder}: --reference: cargo cannot be run ({e.strerror}): the reference loop is built with it") from None
        if built.returncode != 0 or not binary.exists():
            last = (built.stderr.strip().splitlines() or ["no desbench binary"])[-1]
            raise BadInput(f"{folder}: --reference: the reference loop did not build: {last}")
    return binary


def reference_rate(binary: Path, ios: int) -> float:
    """The reference loop's simulated I/Os per second of wall time for `ios` completions."""
    done = subprocess.run([str(binary), str(ios)], capture_output=True, text=True)
    fields = dict(f.split("=", 1) for f in done.stdout.split() if "=" in f)
    try:
        return float(fields["ios_per_wall_s"])
    except (KeyError, ValueError):
        raise BadInput(f"{binary}: --reference: the loop printed no ios_per_wall_s (status {done.returncode})") from None


def against_reference(binary: Path, scenarios: str, rounds: int, quick: bool) -> None:
    """pathlab and the reference loop on the minimal model, alternately in one run (this machine's
    speed drifts: only ratios taken side by side mean anything)."""
    file = str(Path(scenarios) / "bench-minimal.toml")
    extra = ("run.duration=2s", "run.warmup=0s") if quick else ()
    pairs = []
    for r in range(rounds):
        click.echo(f"pathlab bench: minimal model against the reference loop, round {r + 1} of {rounds}", err=True)
        report, _ = measure(file, None, extra)
        ours = report["ios"] / report["wall_s"]
        pairs.append((ours, reference_rate(binary, report["ios"])))
    click.echo(f"\nminimal model, {rounds} rounds alternating with the reference loop ({binary}):")
    click.echo(f"{'round':<6} {'pathlab M I/O/s':>16} {'reference M I/O/s':>18} {'ratio':>6}")
    for r, (ours, ref) in enumerate(pairs, 1):
        click.echo(f"{r:<6} {ours / 1e6:>16.2f} {ref / 1e6:>18.2f} {ours / ref:>6.2f}")
    ratios = sorted(ours / ref for ours, ref in pairs)
    click.echo(f"median ratio {ratios[len(ratios) // 2]:.2f} (pathlab's engine time against the loop's whole run)")


@click.command("bench")
@click.option("--scenarios", "folder", default=str(shipped.FOLDER), type=click.Path(file_okay=False),
              help="Where the scenarios are (default: those shipped with pathlab).")
@click.option("--quick", is_flag=True, help="Simulate 2 s per benchmark (to check that it works).")
@click.option("--reference", "reference", type=click.Path(file_okay=False, exists=True),
              help="Folder of the hand-written reference loop (minimal-rust): compare with it, alternately.")
@click.option("--rounds", type=click.IntRange(1, 20), default=3, show_default=True, help="Rounds against the reference.")
@click.option("--scaling", "scale", is_flag=True, help="Also the cost per I/O from 8 to 10,000 paths and 1 to 10,000 devices.")
@handle_errors
def command(folder: str, quick: bool, reference: str | None, rounds: int, scale: bool) -> None:
    """Print simulated I/Os and events per second of wall time, peak memory, start-up time, and
    with --reference the ratio to a hand-written loop."""
    binary = reference_binary(Path(reference)) if reference else None  # bad --reference before any run
    rows = []
    for label, name, variant, overrides in BENCHMARKS:
        file = str(Path(folder) / name)
        load(file, variant, overrides)  # bad input is reported before any child starts
        extra = ("run.duration=2s", "run.warmup=0s") if quick else ()
        click.echo(f"pathlab bench: {label}", err=True)
        report, rss = measure(file, variant, overrides + extra)
        rows.append((label, report["ios"], report["events"], report["wall_s"], rss))
    _, idle_rss = measure("", None, ())
    click.echo(f"{'benchmark':<16} {'simulated I/Os':>15} {'wall s':>8} {'M I/O per s':>12} {'M events/s':>11} {'peak RSS MiB':>13}")
    for label, ios, events, wall, rss in rows:
        click.echo(f"{label:<16} {ios:>15,} {wall:>8.2f} {ios / wall / 1e6:>12.2f} {events / wall / 1e6:>11.2f} {rss:>13.1f}")
    click.echo(f"{'(idle python)':<16} {'':>15} {'':>8} {'':>12} {'':>11} {idle_rss:>13.1f}")
    click.echo("one core per benchmark; wall s is the run alone; peak RSS includes the Python interpreter and the scenario")
    click.echo(f"Python start-up and import pathlab: {import_seconds():.3f} s (not in the figures above)")
    click.echo(f"pathlab bench: a host of {LARGE_HOST_DEVICES:,} devices", err=True)
    large, large_rss = measure("", None, (), entry="large_host_child")
    click.echo(f"\n{LARGE_HOST_DEVICES:,} devices x 8 paths: validate {large['validate_s']:.2f} s, start of the run "
               f"{large['start_s']:.2f} s, peak RSS {large_rss:.1f} MiB")
    if scale:
        scaling(quick)
    if binary:
        against_reference(binary, folder, rounds, quick)
