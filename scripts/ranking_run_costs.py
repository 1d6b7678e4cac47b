"""What one ranking run of a pickled cluster costs, part by part (CPU of this thread, the median of
`--rounds` rounds with the least and greatest): the candidate's load, then per round the setting
in force's seeds 1 and 2 as a ranking runs them (the second on the first's model where this tree
builds one for both) and seed 1 alone: each simulation's set-up, run, end (`finish` as the
ranking asks for it, with device rows) and the ranking's figures of it (`figures_of`).

    python scripts/ranking_run_costs.py CLUSTER.pkl [--rounds=3] [--length=4.4s,1.1s]

CLUSTER.pkl: `python -m pathlab.cli.stage_meter --host=… --save=CLUSTER.pkl` (a trusted file of
one's own, as pickle is). Its figures and the per-run figures of a branch, side by side."""

from __future__ import annotations

import inspect
import pickle
import statistics
import sys
import time
from collections import defaultdict

from pathlab.advisor.rank import figures_of
from pathlab.api import Result, Scenario

cpu = time.thread_time


def main(argv: list[str]) -> None:
    file, rounds, (duration, warmup) = argv[0], 3, ("4.4s", "1.1s")
    for option in argv[1:]:
        if option.startswith("--rounds="):
            rounds = int(option.removeprefix("--rounds="))
        elif option.startswith("--length="):
            duration, warmup = option.removeprefix("--length=").split(",")
    with open(file, "rb") as f:
        cluster = pickle.load(f)
    # The cluster's name in errors: `file` since session 20 (a pickle of earlier classes: its scenario's).
    named = cluster.__dict__.get("file") or cluster.scenario.file
    base = Scenario.from_values(cluster.tables.values(), cluster.text, named)
    t = cpu()
    s = base.with_set({"run.duration": duration, "run.warmup": warmup}, to_run=True)
    print(f"the candidate loaded: {cpu() - t:.3f} s", file=sys.stderr)
    shared = "runs" in inspect.signature(Scenario._simulation).parameters  # a model built once for two seeds
    parts: dict[str, list[float]] = defaultdict(list)
    for _ in range(rounds):
        for seed, runs in ((1, 2), (2, 2), (1, 1)):
            label = f"seed {seed} of {runs}" if shared else f"seed {seed}"
            one = s.with_seed(seed)
            t0 = cpu()
            sim = one._simulation(False, runs) if shared else one._simulation(False)
            t1 = cpu()
            sim.run_until(one.handle.end_ns)
            t2 = cpu()
            data, _ = sim.finish(False, True)
            t3 = cpu()
            kept = figures_of(Result(data, sim.events))
            t4 = cpu()
            del data, sim
            for part, seconds in (("set-up", t1 - t0), ("run", t2 - t1), ("end", t3 - t2), ("figures_of", t4 - t3)):
                parts[f"{label}: {part}"].append(seconds)
            parts[f"{label}: iops {kept.data['cluster']['iops']!r}, p99 {kept.data['cluster']['p99_ms']!r}"].append(0.0)
    for name, values in parts.items():
        if "iops" in name:
            print(name, file=sys.stderr)
        else:
            print(f"{name}: {statistics.median(values):.3f} s ({min(values):.3f} to {max(values):.3f})", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
