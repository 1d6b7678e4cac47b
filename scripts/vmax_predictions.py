"""The VMAX model's predictions away from C1, C3 and C4 (issue 23 item 4), on the shipped C1
components and nothing fitted to these rows: I/O rate, mean and standard deviation of the
response for 1 to 16 LUNs in a closed loop of 128 per LUN, and for 4 LUNs in an open loop from
10,000 to 200,000 I/O/s, at round robin iops=1 and iops=1000, with the gain `pathlab advise`
would print for iops=1 on a host at iops=1000 (its rate over iops=1000's). Then the tails of
C1, C3 and C4 (p99, p99.9) with 95% intervals over seeds. Each figure is the mean over seeds
(± the 95% half-width). Progress on stderr, Markdown tables on stdout.

    python scripts/vmax_predictions.py [--seconds 10] [--tail-seconds 60] [--seeds 3] [--luns 1,2,4,8,16]
                                       [--rates 10000,...] [--no-tails]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from c1_curves import open_loop, with_luns  # noqa: E402 - the script beside this one

from pathlab import Scenario  # noqa: E402
from pathlab.shipped import path as shipped_path  # noqa: E402
from pathlab.study.stats import half_width  # noqa: E402

VARIANTS = ("iops1", "iops1000")
LUNS = (1, 2, 4, 8, 16)
#: Offered I/O rates of the open loop, in all over the four LUNs.
RATES = (10_000, 25_000, 50_000, 100_000, 150_000, 200_000)
TAIL_CASES = (("c1-vmax-1lun", "iops1000"), ("c1-vmax-1lun", "iops1"), ("c3-vmax-4lun", "iops1"),
              ("c4-vmax-4lun-light", "iops1"))
#: Below this share of the offered rate the open loop is not keeping up: the queue grows all
#: run long, and the mean response is the run's length, not a steady state.
KEEPING_UP = 0.98


def measure(text: str, file: str, variant: str, seconds: float, seeds: int, **overrides) -> list[dict]:
    settings = {"run.duration": f"{seconds}s", "run.warmup": "2s", **overrides}
    print(f"  {file} {variant} {overrides}", file=sys.stderr)
    return [Scenario.from_text(text, file, variant=variant, set=settings, seed=seed).run().data["summary"]
            for seed in range(1, seeds + 1)]


def mean(runs: Sequence[dict], key: str) -> float:
    return sum(r[key] for r in runs) / len(runs)


def figure(runs: Sequence[dict], key: str, fmt: str) -> str:
    values = [r[key] for r in runs]
    spread = half_width(values)
    return format(mean(runs, key), fmt) + ("" if spread != spread else " ± " + format(spread, fmt))


def cells(runs: Sequence[dict], offered: float | None = None) -> str:
    if offered is not None and mean(runs, "iops") < KEEPING_UP * offered:
        return f"{mean(runs, 'iops'):,.0f}: cannot keep up | – | –"
    return " | ".join((figure(runs, "iops", ",.0f"), figure(runs, "resp_ms", ".3f"), figure(runs, "resp_stddev_ms", ".3f")))


def gain(by_variant: dict[str, list[dict]]) -> str:
    return f"{mean(by_variant['iops1'], 'iops') / mean(by_variant['iops1000'], 'iops'):.2f}×"


HEAD = ("| {} | iops=1: I/O/s | resp ms | stddev ms | iops=1000: I/O/s | resp ms | stddev ms | gain of iops=1 |\n"
        "|---|---|---|---|---|---|---|---|")


def closed_loop_rows(text: str, luns: Sequence[int], seconds: float, seeds: int) -> list[str]:
    rows = []
    for n in luns:
        lun_text, names = with_luns(text, n)
        runs = {v: measure(lun_text, "c1-vmax-1lun.toml", v, seconds, seeds, **{"workloads.0.devices": names})
                for v in VARIANTS}
        rows.append(f"| {n} | {cells(runs['iops1'])} | {cells(runs['iops1000'])} | {gain(runs)} |")
    return rows


def open_loop_rows(text: str, rates: Sequence[int], seconds: float, seeds: int) -> list[str]:
    lun_text, names = with_luns(text, 4)
    rows = []
    for rate in rates:
        each = open_loop(lun_text, rate / len(names))
        runs = {v: measure(each, "c1-vmax-1lun.toml", v, seconds, seeds, **{"workloads.0.devices": names})
                for v in VARIANTS}
        rows.append(f"| {rate:,} | {cells(runs['iops1'], rate)} | {cells(runs['iops1000'], rate)} | {gain(runs)} |")
    return rows


def tail_rows(seconds: float, seeds: int) -> list[str]:
    rows = []
    for name, variant in TAIL_CASES:
        runs = measure(shipped_path(name).read_text(), f"{name}.toml", variant, seconds, seeds)
        figures = " | ".join(figure(runs, k, ".3f") for k in ("resp_ms", "resp_stddev_ms", "p99_ms", "p999_ms"))
        rows.append(f"| {name} {variant} | {figures} | {max(r['resp_max_ms'] for r in runs):.1f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tail-seconds", type=float, default=60.0, help="run length of the tails' cases")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--luns", default=",".join(map(str, LUNS)))
    parser.add_argument("--rates", default=",".join(map(str, RATES)))
    parser.add_argument("--no-tails", action="store_true", help="leave out the tails of C1, C3 and C4")
    args = parser.parse_args()
    text = shipped_path("c1-vmax-1lun").read_text()
    print(HEAD.format("LUNs, closed loop of 128 each"))
    print("\n".join(closed_loop_rows(text, [int(n) for n in args.luns.split(",")], args.seconds, args.seeds)))
    print("\n" + HEAD.format("4 LUNs, open loop: I/O/s offered in all"))
    print("\n".join(open_loop_rows(text, [int(r) for r in args.rates.split(",")], args.seconds, args.seeds)))
    if not args.no_tails:
        print("\n| case | resp ms | stddev ms | p99 ms | p99.9 ms | max ms (of all seeds) |\n|---|---|---|---|---|---|")
        print("\n".join(tail_rows(args.tail_seconds, args.seeds)))


if __name__ == "__main__":
    main()
