"""A cluster's import and advice step by step, for `pathlab bench --advise`: run in a child
process of its own (`python -m pathlab.cli.stage_meter --host=NAME=FILES …`), it imports the
hosts' captures and advises on them as `pathlab advise` does, and prints as JSON each step's CPU
time (this process's and its finished workers'), wall time and peak resident memory, the steps
being those the advice reports (`Progress.stage`). The resident memory is this process's (the
import's workers are processes of their own), read from /proc every 50 ms: a step's peak is the
highest reading while it ran (the process's `ru_maxrss` only ever grows: it cannot tell the steps
apart)."""

from __future__ import annotations

import json
import os
import resource
import sys
import threading
import time
import warnings
from typing import Any

from pathlab.progress import Progress

#: How often the resident memory is read (s).
SAMPLE_S = 0.05
#: The first step: every host's import (on every core), their merge and the cluster's scenario.
IMPORT = "import_cluster"


def resident_mib() -> float:
    """This process's resident memory now (Linux's /proc; elsewhere its peak so far)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_s() -> float:
    """CPU time (user and system) of this process and of the children it has waited for."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


class StageMeter(Progress):
    """A `Progress` that times each step and reads the memory's peak while it runs."""

    def __init__(self) -> None:
        self.rows: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.sampler = threading.Thread(target=self._sample, daemon=True)
        self.sampler.start()

    def stage(self, name: str) -> None:
        now, mib = (time.perf_counter(), cpu_s()), resident_mib()
        with self.lock:
            if self.rows:
                self._close(self.rows[-1], now, mib)
            self.rows.append({"stage": name, "started": now, "peak_mib": mib})

    def end(self) -> list[dict[str, Any]]:
        """Each step's name, wall and CPU seconds, peak and end resident MiB."""
        now, mib = (time.perf_counter(), cpu_s()), resident_mib()
        self.done.set()
        self.sampler.join()
        with self.lock:
            self._close(self.rows[-1], now, mib)
        return self.rows

    def _close(self, row: dict[str, Any], now: tuple[float, float], mib: float) -> None:
        wall, cpu = row.pop("started")
        row.update(wall_s=now[0] - wall, cpu_s=now[1] - cpu, peak_mib=max(row["peak_mib"], mib), end_mib=mib)
        # Each step said as it ends (a long run stopped early still shows the steps it finished).
        print(f"stage_meter: {row['stage']}: {row['wall_s']:.1f} s wall, {row['cpu_s']:.1f} s CPU, peak "
              f"{row['peak_mib']:,.0f} MiB, {mib:,.0f} MiB at its end", file=sys.stderr, flush=True)

    def _sample(self) -> None:
        while not self.done.wait(SAMPLE_S):
            mib = resident_mib()
            with self.lock:
                if self.rows and "started" in self.rows[-1]:
                    self.rows[-1]["peak_mib"] = max(self.rows[-1]["peak_mib"], mib)


def measured(hosts: dict[str, list[str]], duration: str = "auto", save: str | None = None,
             imported: str | None = None) -> dict[str, Any]:
    """`import_cluster` of `hosts` ({name: files}) then `advise` of the cluster (each run
    `duration` long: "auto" as `pathlab advise`, or shorter runs to see the memory's steps
    sooner: the objects held are the same at any length), step by step; with what the advice ran
    (its candidates, runs and run length). `save`: the imported cluster pickled to that file as
    well; `imported`: the cluster unpickled from such a file instead of imported (the advice's
    steps measured again without the import's minutes: its step is then the unpickling)."""
    import pickle

    from pathlab.advisor.pipeline import advise
    from pathlab.importer.cluster import import_cluster

    meter = StageMeter()
    with warnings.catch_warnings():  # the import's warnings (one per device on a generated cluster) are not measured
        warnings.simplefilter("ignore")
        meter.stage(IMPORT)
        if imported is not None:
            with open(imported, "rb") as f:
                cluster = pickle.load(f)
        else:
            cluster = import_cluster(hosts)
        if save is not None:
            with open(save, "wb") as f:
                pickle.dump(cluster, f, protocol=pickle.HIGHEST_PROTOCOL)
        if duration == "auto":  # advise's own length and warm-up
            advice = advise(cluster, progress=meter).to_dict()
        else:
            advice = advise(cluster, progress=meter, duration=duration, warmup=duration_of_warmup(duration)).to_dict()
    stages = meter.end()
    length, check = advice.get("run_length"), advice.get("in_force_against_capture")
    return {"stages": stages, "candidates": len(advice["candidates"]),
            "runs": sum(c["seeds"] for c in advice["candidates"]),
            "run_length": f"{length['duration_s']:g} s after {length['warmup_s']:g} s" if length else None,
            # why nothing was ranked where nothing was: the captures not reproduced, or no counters
            "why": (check or {}).get("why") or "no counters",
            "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def duration_of_warmup(duration: str) -> str:
    """A quarter of `duration` (advise's own ratio where it chooses the length) as the warm-up."""
    from pathlab._core import parse_duration_ns

    return f"{parse_duration_ns(duration) // 4}ns"


def main(argv: list[str]) -> None:
    """`--host=NAME=FILE,FILE… …` (as `pathlab import` takes them), `--duration=D` (default
    auto), `--save=FILE` (the imported cluster pickled there) or `--cluster=FILE` (unpickled from
    there, no `--host`: a trusted file of one's own, as pickle is)."""
    hosts, duration = {}, "auto"
    files: dict[str, str | None] = {"--save=": None, "--cluster=": None}
    for option in argv:
        if option.startswith("--duration="):
            duration = option.removeprefix("--duration=")
            continue
        if given := next((k for k in files if option.startswith(k)), None):
            files[given] = option.removeprefix(given)
            continue
        name, paths = option.removeprefix("--host=").split("=", 1)
        hosts[name] = paths.split(",")
    print(json.dumps(measured(hosts, duration, files["--save="], files["--cluster="])))


if __name__ == "__main__":
    main(sys.argv[1:])
