"""`pathlab advise`'s wall time on the corpus (issue 22): every sample's `bare.txt` under
tests/data/corpus/ that imports (the others exit 2 and are counted apart), and the shipped captures,
which carry load and so are simulated. Prints the median and the maximum, each sample's time a
median over --rounds, with the load average (the machine is shared) and the cores.

    python scripts/bench_advise_corpus.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from pathlab.shipped import CAPTURES

ROOT = Path(__file__).resolve().parent.parent
#: `pathlab advise`'s exit code when an input is not something it reads.
BAD_INPUT = 2


def timed(args: list[str], rounds: int) -> tuple[int, float]:
    """The exit code and the median wall time of `pathlab advise ARGS` in a fresh process."""
    walls, code = [], 0
    for _ in range(rounds):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "pathlab", "advise", *args, "--format", "json"],
                              capture_output=True, text=True)
        walls.append(time.perf_counter() - started)
        code = done.returncode
        if code not in (0, BAD_INPUT):
            raise SystemExit(f"pathlab advise {' '.join(args)} failed: {done.stderr.strip()[-300:]}")
    return code, statistics.median(walls)


def summary(label: str, walls: dict[str, float]) -> str:
    if not walls:
        return f"{label}: none"
    worst = max(walls, key=walls.__getitem__)
    return (f"{label}: {len(walls)}, median {statistics.median(walls.values()):.2f} s, "
            f"max {walls[worst]:.2f} s ({worst})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1, help="Runs per sample; its time is their median.")
    rounds = parser.parse_args().rounds
    load_before = os.getloadavg()
    samples = sorted((ROOT / "tests" / "data" / "corpus").glob("*/*/bare.txt"))
    advised, refused = {}, 0
    for n, bare in enumerate(samples, 1):
        name = str(bare.parent.relative_to(ROOT / "tests" / "data" / "corpus"))
        print(f"corpus {n}/{len(samples)}: {name}", file=sys.stderr)
        code, wall = timed([str(bare)], rounds)
        if code == 0:
            advised[name] = wall
        else:
            refused += 1
    captures = {}
    for folder in sorted(p for p in CAPTURES.iterdir() if p.is_dir()):
        print(f"capture: {folder.name}", file=sys.stderr)
        code, captures[folder.name] = timed([folder.name], rounds)
    print(f"pathlab advise, wall time per sample (median of {rounds} round(s)), {os.cpu_count()} cores, "
          f"load average {load_before[0]:.1f} before and {os.getloadavg()[0]:.1f} after:")
    print(f"  {summary('corpus samples that advise (findings only: no counters)', advised)}; "
          f"{refused} of {len(samples)} do not import alone (exit 2)")
    print(f"  {summary('shipped captures (with load: simulated)', captures)}")
    print(f"  {summary('all', advised | captures)}")


if __name__ == "__main__":
    main()
