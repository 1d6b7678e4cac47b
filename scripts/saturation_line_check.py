"""Where counting alike devices' I/Os together stops giving the p99 of a long run: generated hosts
whose array ports the pilot finds 80% to 100% busy, each run of the setting in force (round robin
iops=1) as long as the length rule gives when it counts every class together (whatever the
ports' load) against the full 20 s, four seeds of the short runs, two of the full ones. Prints per host the ports' busy share in the
pilot, both lengths, both p99s and their ratio; `run_length.SATURATED_PCT` is the line between the
hosts where the short runs' p99 is within decide.py's margin of the full one and those where it is
not. A minute or two on 2 cores.

    python scripts/saturation_line_check.py
"""

from __future__ import annotations

from pathlab import Scenario, run_many
from pathlab.advisor import alike, run_length
from pathlab.advisor.decide import MARGIN
from pathlab.large_host import scenario_text

#: (label, scenario text): closed loops of one I/O per device (the ports' load set by the number
#: of devices) and open loops of 500 devices (set by the rate); 4 ports of 20 µs, 8 paths each.
HOSTS = [
    *((f"{n} devices, 1 outstanding", scenario_text(n, 8, 1)) for n in (36, 40, 44, 50, 60, 80)),
    *((f"500 devices, {rate:g} I/O/s each", scenario_text(500, 8, 1, rate=rate))
      for rate in (300.0, 320.0, 330.0, 340.0, 350.0, 360.0, 380.0, 396.0)),
]
FULL = {"run.duration": "20s", "run.warmup": "5s"}
#: Seeds of the short runs (their p99 spreads more) and of the full ones.
SHORT_SEEDS = (1, 2, 3, 4)
FULL_SEEDS = (1, 2)


def main() -> None:
    pilots = [Scenario.from_text(text, set=run_length.pilot_length()) for _, text in HOSTS]
    measured = run_many(pilots)
    # The length the rule gives when it counts every class together: the line moved above 100%.
    run_length.SATURATED_PCT = 101.0
    pooled = [run_length.choose(m, 20.0, 5.0, alike.classes(p, m), []) for p, m in zip(pilots, measured)]
    runs = [Scenario.from_text(text, set=length, seed=seed) for (_, text), chosen in zip(HOSTS, pooled)
            for length, seeds in ((chosen.overrides(), SHORT_SEEDS), (FULL, FULL_SEEDS)) for seed in seeds]
    results = iter(run_many(runs, figures_only=True))
    print(f"| host | ports busy in the pilot | pooled run | p99 ms pooled | p99 ms 20 s | ratio | within {MARGIN:.0%} |")
    print("|---|---:|---|---:|---:|---:|---|")
    for (label, _), m, chosen in zip(HOSTS, measured, pooled):
        short, full = ([next(results).data["summary"]["p99_ms"] for _ in seeds] for seeds in (SHORT_SEEDS, FULL_SEEDS))
        busy = max(p["util_pct"] for p in m.data["ports"])
        ratio = (sum(short) / len(short)) / (sum(full) / len(full))
        print(f"| {label} | {busy:.1f}% | {chosen.duration_s:g} s | {'/'.join(f'{v:.3f}' for v in short)} | "
              f"{'/'.join(f'{v:.3f}' for v in full)} | {ratio:.3f} | {'yes' if abs(ratio - 1) <= MARGIN else 'no'} |")


if __name__ == "__main__":
    main()
