"""A sweep's processes and its output (issue 24): workers bounded by the cores, none left behind
when the sweep is killed, a bad point as one line, one sweep at a time on an output, and grids
that cannot be meant refused with one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS, _limit_memory, limited, one_error_line
from pathlab.study.sweep import MAX_WORKERS, Journal, bounded_workers

MINIMAL = str(SCENARIOS / "bench-minimal.toml")
SHORT = ("--set", "run.duration=1s", "--set", "run.warmup=0s")
RANGES = "(ranges are a:b:step or a:b:*factor)"


def _as_from_a_terminal() -> None:
    """The sweep's signals as a terminal gives them: a suite started in the background (`cmd &`,
    `nohup`) ignores SIGINT and SIGHUP, and a child inherits that, so neither would reach it."""
    _limit_memory()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def children(pid: int) -> set[int]:
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except FileNotFoundError:
        return set()


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status  # a zombie has ended; its parent (gone) never reaped it


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads /proc")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_a_sweep_killed_mid_way_leaves_no_process_behind(tmp_path: Path, how: signal.Signals) -> None:
    # Four runs of 60 simulated seconds at 29-32 outstanding (about 13 M I/Os each, seconds of
    # CPU) on two workers: both are busy when the signal comes. At 1-4 outstanding a run was
    # 0.1 s once the engine got faster (session 10), and the sweep could end between two polls.
    sweep = subprocess.Popen(
        [sys.executable, "-m", "pathlab", "sweep", MINIMAL, "--grid", "workloads.0.outstanding=29,30,31,32",
         "--set", "run.duration=60s", "--workers", "2", "--out", str(tmp_path / "s")],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=_as_from_a_terminal,
        start_new_session=True)
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = children(sweep.pid)
        assert len(workers) == 2, "the sweep started its two workers"
        time.sleep(1.0)  # inside a run
        # Ctrl-C reaches every process of the terminal's group; kill, TERM and HUP only the sweep.
        if how == signal.SIGINT:
            os.killpg(sweep.pid, how)
        else:
            sweep.send_signal(how)
        sweep.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(map(alive, workers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [w for w in workers if alive(w)], f"workers left after {how.name}"
    finally:
        for pid in [sweep.pid, *workers]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        sweep.wait(timeout=10)
        assert sweep.stderr is not None
        sweep.stderr.close()


def test_workers_are_bounded_by_the_cores_and_a_stated_maximum() -> None:
    cores = os.cpu_count() or 1
    most = min(cores, MAX_WORKERS)
    assert bounded_workers(None) == most
    assert bounded_workers(1) == 1
    with pytest.warns(UserWarning, match=f"this machine has {cores} cores: running {most} workers"):
        assert bounded_workers(100_000) == most


def test_a_sweep_asked_for_100000_workers_runs_on_the_cores(tmp_path: Path) -> None:
    done = limited("sweep", MINIMAL, "--grid", "workloads.0.outstanding=1,2", *SHORT, "--workers", "100000",
                   "--out", str(tmp_path / "s"), timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"running {bounded_workers(None)} workers (at most one per core" in done.stderr, done.stderr


def open_loop(tmp_path: Path) -> str:
    path = tmp_path / "open.toml"
    path.write_text(Path(MINIMAL).read_text().replace("outstanding = 32", "rate = 1000"))
    return str(path)


def test_a_sweep_that_hits_a_bad_point_prints_one_line(tmp_path: Path) -> None:
    # 1e9 I/Os per second into a host that serves 220,600: the run stops when they pile up.
    scenario = open_loop(tmp_path)
    done = limited("sweep", scenario, "--grid", "workloads.0.rate=1000,1e9", *SHORT, "--workers", "2",
                   "--out", str(tmp_path / "s"))
    line = one_error_line(done)
    assert line.startswith(f"pathlab: error: {scenario}: workloads.0.rate: 4000000 I/Os were waiting"), line
    assert line.endswith("(at workloads.0.rate=1e9, seed 1)"), line


def test_one_sweep_at_a_time_writes_an_output(tmp_path: Path) -> None:
    held = Journal(tmp_path / "s-runs.jsonl")
    held.lock()  # another sweep, as far as the command can tell
    try:
        line = one_error_line(limited("sweep", MINIMAL, "--grid", "workloads.0.outstanding=1", *SHORT,
                                      "--out", str(tmp_path / "s")))
    finally:
        held.unlock()
    assert line == f"pathlab: error: --out: {tmp_path}/s-runs.jsonl: another sweep is writing to it: wait for it " \
                   "to end, or give another --out"


def test_another_grid_on_the_same_output_is_refused_unless_replaced(tmp_path: Path) -> None:
    out = str(tmp_path / "s")
    first = limited("sweep", MINIMAL, "--grid", "workloads.0.outstanding=1,2", *SHORT, "--out", out)
    assert first.returncode == 0, first.stderr
    tables = (tmp_path / "s-points.csv").read_text()
    # The first sweep's tables are outputs as any (--force); its journal is kept unless --replace.
    line = one_error_line(limited("sweep", MINIMAL, "--grid", "workloads.0.outstanding=4", *SHORT, "--out", out, "--force"))
    assert line == f"pathlab: error: --out: {out}: holds 2 runs of another sweep (another grid, scenario or " \
                   "settings): give --replace to start over, or another --out"
    assert (tmp_path / "s-points.csv").read_text() == tables
    again = limited("sweep", MINIMAL, "--grid", "workloads.0.outstanding=4", *SHORT, "--out", out, "--replace", "--force")
    assert again.returncode == 0, again.stderr
    assert len((tmp_path / "s-runs.jsonl").read_text().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--grid", "workloads.0.outstanding=10:1:1"), "--grid: workloads.0.outstanding: 10:1:1: a range a:b needs a <= b"),
        (("--grid", "workloads.0.outstanding=,"), "--grid: workloads.0.outstanding: ',' holds no value: expected v1,v2,... or a:b:step"),
        (("--grid", "workloads.0.outstanding=nan:10:1"), "--grid: workloads.0.outstanding: 'nan' is not a finite number " + RANGES),
        (("--grid", "workloads.0.outstanding=1:inf:1"), "--grid: workloads.0.outstanding: 'inf' is not a finite number " + RANGES),
        (("--grid", "workloads.0.outstanding=1:1000000000:1"),
         "--grid: workloads.0.outstanding: 1:1000000000:1: 1e+09 values: at most 100000 runs in one sweep"),
        (("--grid", "workloads.0.outstanding=1:1000:1", "--grid", "policy.iops=1:1000:1"),
         "--grid: workloads.0.outstanding x policy.iops: 1000000 runs: at most 100000 in one sweep"),
        (("--grid", "policy.iops=1,2", "--grid", "policy.iops=4"),
         "--grid: policy.iops: is on two axes: give each key once, with all its values"),
        (("--grid", "policy.iops=1", "--seeds", "0"), "sweep: Invalid value for '--seeds': 0 is not in the range x>=1."),
        (("--grid", "policy.iops=1", "--batch", "0"), "sweep: Invalid value for '--batch': 0 is not in the range x>=1."),
    ],
)
def test_grids_that_cannot_be_meant_are_one_line(args: tuple[str, ...], expected: str) -> None:
    assert one_error_line(limited("sweep", MINIMAL, *args, timeout=60)) == f"pathlab: error: {expected}"


def test_a_sweep_table_with_no_seeds_is_refused(tmp_path: Path) -> None:
    study = tmp_path / "study.toml"
    study.write_text(Path(MINIMAL).read_text() + "\n[sweep]\nseeds = 0\ngrid = { \"policy.iops\" = [1] }\n")
    line = one_error_line(limited("sweep", str(study), timeout=60))
    assert line == f"pathlab: error: {study}: sweep.seeds: 0: a whole number from 1 to 100000"
