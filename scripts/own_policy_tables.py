"""The two lineup tables of docs/own-policy.md, measured again: every stack's policies against
ours on every shipped scenario, once at 40 s + 5 s and over seeds 1-5 at 10 s + 2 s (the faulted
scenarios at 40 s + 5 s, so that their faults fall inside the run). Tables (markdown) on stdout,
progress on stderr.

    python scripts/own_policy_tables.py            # the page's tables, about 40 min of CPU
    python scripts/own_policy_tables.py --quick    # a short check: 2 s + 1 s, 2 seeds
    python scripts/own_policy_tables.py --only dm  # ours against the dm policies alone (a
                                                   # stack's rows remeasured; the best other is
                                                   # then the best of those; the single-seed
                                                   # table 346 s of CPU in session 17)
    python scripts/own_policy_tables.py --table seeds c1-vmax-1lun   # one table, some scenarios

The page's scenario list is given by name where the shipped set has grown past it. Run it
under `nice -n 10` on a shared machine.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from pathlab.loading import load
from pathlab.progress import run_batch
from pathlab.study.lineup import LINEUP, OURS, comparable, overrides, without_device_queue
from pathlab.study.replicate import figure, replicate
from pathlab.study.stats import aggregate, distinguishable

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


@dataclass(frozen=True)
class Lengths:
    """(duration, warm-up) of the single-seed table, of the seeds table, and of the seeds
    table's faulted scenarios (congestion from 20 s, errors from 15 s); the number of seeds."""

    single: tuple[str, str]
    seeds: tuple[str, str]
    faulted: tuple[str, str]
    n_seeds: int


FULL = Lengths(("40s", "5s"), ("10s", "2s"), ("40s", "5s"), 5)
QUICK = Lengths(("2s", "1s"), ("2s", "1s"), ("2s", "1s"), 2)
FAULTED = {"congested-path", "flaky-path"}
#: The figures held to the 2% aim, and which way is better.
AIMED = {"iops": max, "resp_ms": min, "p99_ms": min}


def chosen_lineup(prefixes: list[str]) -> list[tuple[str, dict]]:
    """The lineup's policies whose label starts with one of PREFIXES, and ours (every policy
    when none is given)."""
    if not prefixes:
        return LINEUP
    return [(label, policy) for label, policy in LINEUP
            if label == OURS or any(label.startswith(p) for p in prefixes)]


def window(duration: str, warmup: str) -> tuple[str, str]:
    return (f"run.duration={duration}", f"run.warmup={warmup}")


def single_seed_table(files: list[Path], length: tuple[str, str], chosen: list[tuple[str, dict]]) -> str:
    """One row per scenario: ours, the best other by I/O rate, the best other by p99 (all
    others CHOSEN); then the figures where ours misses the best comparable one by more than 2%."""
    rows = ["| scenario | gated-least-load | best other by I/O rate | best other by p99 |", "|---|---|---|---|"]
    gaps = []
    for file in files:
        progress(f"lineup {file.stem} at {' + '.join(length)}")
        results = run_once(file, window(*length), chosen)
        ours = results[OURS]
        others = {k: v for k, v in results.items() if k != OURS}
        by_rate = max(others, key=lambda k: others[k]["iops"])
        by_p99 = min(others, key=lambda k: others[k]["p99_ms"])
        rows.append(f"| {file.stem} | {full(ours)} | {by_rate}: {full(others[by_rate])} | "
                    f"{by_p99}: {others[by_p99]['iops']:,.0f}, {others[by_p99]['p99_ms']:.3f} |")
        pool = comparable(results, without_device_queue(file)) or others
        for key, better in AIMED.items():
            best = better(pool, key=lambda k: pool[k][key])
            if pool[best][key] and abs(ours[key] / pool[best][key] - 1) > 0.02 \
                    and better(ours[key], pool[best][key]) != ours[key]:
                shown = "{:,.0f}" if key == "iops" else "{:.3f}"
                gaps.append(f"- {file.stem}: {key} {shown.format(ours[key])} against {best}'s "
                            f"{shown.format(pool[best][key])} "
                            f"({ours[key] / pool[best][key] - 1:+.1%})")
    # One seed: no interval, so a gap here is a lead to check in the seeds' table, not a finding.
    verdict = ["Beyond 2% of the best comparable policy (one seed, no interval):", *gaps] if gaps else \
        ["Within 2% of the best comparable policy in every figure and every scenario (one seed)."]
    return "\n".join(rows + [""] + verdict)


def run_once(file: Path, sets: tuple[str, ...], chosen: list[tuple[str, dict]]) -> dict[str, dict]:
    """Each chosen policy on FILE at the file's seed, as `compare --lineup` runs it: summaries by label."""
    scenarios = [load(str(file), None, [*sets, *overrides(policy)]) for _, policy in chosen]
    return {label: result.data["summary"] for (label, _), result in zip(chosen, run_batch(scenarios), strict=True)}


def full(s: dict) -> str:
    return f"{s['iops']:,.0f}, {s['resp_ms']:.3f}, {s['p99_ms']:.3f}, {s['failed']:,}"


def seeds_table(files: list[Path], lengths: Lengths, chosen: list[tuple[str, dict]]) -> str:
    """One row per scenario: ours and the best other CHOSEN by I/O rate and by p99, means ± 95%
    intervals over the seeds, with whether the paired difference tells them apart."""
    rows = ["| scenario | ours: I/O rate | best other by I/O rate | ours: p99 ms | best other by p99 |",
            "|---|---|---|---|---|"]
    settings = [(label, None, overrides(policy)) for label, policy in chosen]
    for file in files:
        length = lengths.faulted if file.stem in FAULTED else lengths.seeds
        progress(f"{lengths.n_seeds} seeds {file.stem} at {' + '.join(length)}")
        runs = replicate(str(file), window(*length), settings, range(1, lengths.n_seeds + 1))
        agg = aggregate(runs, ["setting"], ["iops", "p99_ms"]).set_index("setting")
        others = agg.drop(OURS)
        cells = []
        for key, pick, show in (("iops", "idxmax", "{:,.0f}"), ("p99_ms", "idxmin", "{:.3f}")):
            best = getattr(others[f"{key}_mean"], pick)()
            ours_mean, best_mean = agg.loc[OURS, f"{key}_mean"], agg.loc[best, f"{key}_mean"]
            apart = distinguishable(figure(runs, OURS, key), figure(runs, best, key))
            cells.append(f"{show.format(ours_mean)} ± {show.format(agg.loc[OURS, f'{key}_ci95'])}")
            cells.append(f"{best}: {show.format(best_mean)} ± {show.format(agg.loc[best, f'{key}_ci95'])} "
                         f"({ours_mean / best_mean - 1:+.1%}, {'differs' if apart else 'same'})")
        rows.append(f"| {file.stem} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs and 2 seeds: a check, not the page's figures")
    parser.add_argument("--only", action="append", default=[], metavar="PREFIX",
                        help="only the lineup's policies whose label starts with PREFIX (repeatable; "
                             "e.g. 'dm'), with ours: the best other is the best of those")
    parser.add_argument("--table", choices=("single", "seeds"), action="append",
                        help="only this table (repeatable; default: both), e.g. to run the two side by side")
    parser.add_argument("scenarios", nargs="*", help="scenario names (default: every shipped scenario)")
    args = parser.parse_args()
    shipped = {p.stem: p for p in sorted(SCENARIOS.glob("*.toml"))}
    unknown = [s for s in args.scenarios if s not in shipped]
    if unknown:
        parser.exit(2, f"own_policy_tables.py: scenarios: unknown {', '.join(unknown)}; "
                       f"allowed: {', '.join(shipped)}\n")
    files = [shipped[s] for s in args.scenarios] if args.scenarios else list(shipped.values())
    labels = [label for label, _ in LINEUP if label != OURS]
    unmatched = [p for p in args.only if not any(label.startswith(p) for label in labels)]
    if unmatched:
        parser.exit(2, f"own_policy_tables.py: --only: {', '.join(unmatched)} starts no lineup label; "
                       f"allowed: the start of one of {', '.join(labels)}\n")
    lengths = QUICK if args.quick else FULL
    chosen = chosen_lineup(args.only)
    start = time.monotonic()
    tables = args.table or ["single", "seeds"]
    if "single" in tables:
        print(single_seed_table(files, lengths.single, chosen), end="\n\n", flush=True)
    if "seeds" in tables:
        print(seeds_table(files, lengths, chosen), flush=True)
    progress(f"done in {(time.monotonic() - start) / 60:.1f} min")


if __name__ == "__main__":
    main()
