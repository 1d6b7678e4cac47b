"""Confidence intervals over seeds: they shrink as seeds grow and cover the exact M/M/1 mean."""

from __future__ import annotations

import pytest

from pathlab import Scenario
from pathlab.study.stats import distinguishable, half_width
from test_theory import ONE_PORT

# M/M/1 at 50% load, service 10 us: R = S / (1 - rho) = 20 us exactly.
MM1 = ONE_PORT.format(shape='distribution = "exponential"', load='rate = 50000\narrival = "poisson"', duration="200ms")
EXACT_US = 20.0

def mm1_means(seeds: range) -> list[float]:
    base = Scenario.from_text(MM1, "mm1.toml", set=['run.warmup="20ms"'])
    return [Scenario.from_text(base.text, "mm1.toml", set=['run.warmup="20ms"'], seed=s).run().data["summary"]["resp_ms"] * 1000
            for s in seeds]

def test_intervals_cover_the_exact_mm1_mean_about_95_times_in_100_and_shrink_with_seeds() -> None:
    means = mm1_means(range(1, 501))
    covered = 0
    for rep in range(100):
        five = means[5 * rep : 5 * rep + 5]
        hw = half_width(five)
        covered += abs(sum(five) / 5 - EXACT_US) <= hw
    # Binomial(100, 0.95): 88..100 holds with probability above 0.999.
    assert 88 <= covered <= 100
    narrow, wide = half_width(means[:80]), half_width(means[:5])
    # sd / sqrt(n) with t(0.975): 5 seeds 2.776 / sqrt 5, 80 seeds 1.990 / sqrt 80: 3.2x narrower on average
    assert narrow < wide / 1.5
    assert half_width(means[:320]) < narrow

def test_paired_seeds_tell_apart_what_overlapping_intervals_cannot() -> None:
    # The same seeds at 50% and 51% load: common random numbers make the paired difference sharp.
    low = mm1_means(range(1, 9))
    high_text = MM1.replace("rate = 50000", "rate = 51000")
    high = [Scenario.from_text(high_text, "mm1.toml", set=['run.warmup="20ms"'], seed=s).run().data["summary"]["resp_ms"] * 1000
            for s in range(1, 9)]
    mean_low, mean_high = sum(low) / 8, sum(high) / 8
    # R = 10 / (1 - 0.51) = 20.41 us against 20 us: the two intervals overlap ...
    assert abs(mean_high - mean_low) < half_width(low) + half_width(high)
    # ... but the paired test sees the difference, and not between a setting and itself.
    assert distinguishable(high, low)
    assert not distinguishable(low, [x + 1e-9 * (-1) ** i for i, x in enumerate(low)])

def test_compare_with_seeds_reports_means_with_intervals_paired_by_seed() -> None:
    from conftest import pathlab

    done = pathlab("compare", "scenarios/c1-vmax-1lun.toml", "--seeds", "3", "--set", "run.duration=1s",
                   "--set", "run.warmup=1s", "--format", "csv")
    assert done.returncode == 0, done.stderr
    import io

    import pandas as pd

    runs = pd.read_csv(io.StringIO(done.stdout))
    assert sorted(set(runs["setting"])) == ["iops1", "iops1000"] and sorted(set(runs["seed"])) == [1, 2, 3]
    # Each row is the run of that variant and seed, as `pathlab run --seed` gives it on its own.

    short = {"run.duration": "1s", "run.warmup": "1s"}
    for row in runs.itertuples():
        alone = Scenario.load("scenarios/c1-vmax-1lun.toml", variant=row.setting, set=short, seed=row.seed).run()
        assert row.iops == pytest.approx(alone.summary["iops"], rel=1e-9)
    means = runs.groupby("setting")["iops"].mean()
    assert 3.6 < means["iops1"] / means["iops1000"] < 4.1  # four ports against one (CALIBRATION.md C1)
    table = pathlab("compare", "scenarios/c1-vmax-1lun.toml", "--seeds", "3", "--set", "run.duration=1s", "--set", "run.warmup=1s")
    assert "I/O rate: best iops1; told apart from every other" in table.stdout
