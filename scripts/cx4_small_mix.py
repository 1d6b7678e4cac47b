"""The CX4's 8-32 KiB checks of session 17 (docs/design/2026-11-29-cx4-order.md, Q1-Q3): a cold
write cache's first minute at 2, 8 and 32 per LUN; forced flushing in the studies' window at 8
and 32 per LUN; adaptive's split of each LUN between its two optimized paths. Figures on stdout.

    python scripts/cx4_small_mix.py        # about 15 s of CPU (12-14 s in session 17)
"""

from __future__ import annotations

from collections import defaultdict

from pathlab import Scenario
from pathlab.api import run_many

FILE = "scenarios/cx4-alua-path-failure.toml"
SETTINGS = ("powerpath_adaptive", "rr_iops1", "rr_iops1000", "rr_never_switch")
#: An Orion point from an empty write cache: measured from 0 s for 60 s, no failure.
COLD = {"run.warmup": "0s", "run.duration": "60s", "faults": []}
#: The studies' window: the file's 90 s warm-up and 240 s, no failure.
STUDY = {"run.duration": "240s", "faults": []}


def cold_points() -> None:
    print("Q1: 60 s from a cold write cache, I/O/s (spread: largest over smallest - 1)")
    for load in (2, 8, 32):
        runs = [Scenario.load(FILE, variant=v, set={**COLD, "workloads.0.outstanding": load}) for v in SETTINGS]
        rates = {v: r.data["summary"]["iops"] for v, r in zip(SETTINGS, run_many(runs))}
        spread = max(rates.values()) / min(rates.values()) - 1
        print(f"  {load:>2} per LUN: " + ", ".join(f"{v} {x:,.0f}" for v, x in rates.items()) + f"; spread {spread:.2%}")


def forced_flushing() -> None:
    print("Q2: the studies' window, strict iops=1: write cache and rate")
    runs = [Scenario.load(FILE, variant="rr_iops1", set={**STUDY, "workloads.0.outstanding": load}) for load in (8, 32)]
    for load, result in zip((8, 32), run_many(runs)):
        cache = result.data["write_caches"][0]
        print(f"  {load:>2} per LUN: forced waits {cache['forced_waits']:,}, mean dirty {cache['dirty_pct']:.1f}%, "
              f"{result.data['summary']['iops']:,.0f} I/O/s")


def adaptive_split() -> None:
    print("Q3: healthy, 8 per LUN, the studies' window: each LUN's share on vmhba1")
    for variant in ("powerpath_adaptive", "rr_iops1"):
        data = Scenario.load(FILE, variant=variant, set=STUDY).run().data
        per_lun: dict[str, dict[str, float]] = defaultdict(dict)
        for p in data["paths"]:
            if p["alua"] == "AO":
                per_lun[p["device"]][p["adapter"]] = p["cmds_s"]
        shares = [lun["vmhba1"] / sum(lun.values()) for lun in per_lun.values()]
        print(f"  {variant}: {min(shares):.3f}-{max(shares):.3f} "
              f"(non-optimized paths: {sum(p['cmds_s'] for p in data['paths'] if p['alua'] != 'AO'):.0f} cmds/s)")


if __name__ == "__main__":
    cold_points()
    forced_flushing()
    adaptive_split()
