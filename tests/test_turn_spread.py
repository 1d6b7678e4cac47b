"""The capture fit's warm-up (`advisor/turn_spread.py`): devices at iops=1000 that start together
climb to their settled rate as their turns part on the ports they share, over a count of dwells.
The three-host fixture (six devices, about 30,000 I/O/s each on four 16.6 µs ports), one seed,
a 3 s run from a warm-up of 0 (about 540,000 I/Os)."""

from __future__ import annotations

from collections import defaultdict

import pytest

from pathlab.advisor.turn_spread import REPELLING_LOAD, SPREAD_DWELLS, spread_s
from pathlab.loading import load

FIXTURE = "tests/data/cluster/three-esxi-hosts.toml"


def test_the_warm_up_is_forty_dwells_of_the_slowest_device_whose_turn_loads_its_port_to_half() -> None:
    # 1,000 I/Os in a row at 32,580 I/O/s: a dwell of 30.7 ms, 40 of them 1.23 s; a device at
    # 23,400 I/O/s on a 20 µs port (0.47 of it) and one choosing per I/O repel nothing.
    assert spread_s([("a", 32_580, 1000, 20e-6), ("a", 34_000, 1000, 20e-6), ("a", 23_400, 1000, 20e-6),
                     ("a", 60_000, 1, 16.6e-6)]) == pytest.approx(SPREAD_DWELLS * 1000 / 32_580)
    assert spread_s([("a", 23_400, 1000, 20e-6)] * 2) == 0.0 and REPELLING_LOAD > 23_400 * 20e-6
    # A lone device on its array has no turn to part from (C1's one LUN at 39,402 I/O/s).
    assert spread_s([("a", 39_402, 1000, 25.4e-6), ("b", 39_402, 1000, 25.4e-6)]) == 0.0
    # The generated 4 x 50 x 8 cluster: 1,000 I/O/s a device on 20 µs ports, 2% each: no warm-up.
    assert spread_s([("vmax", 1_000, 1000, 20e-6)] * 200) == 0.0


def test_the_fixtures_rate_climbs_until_the_rule_and_is_settled_after_it() -> None:
    run = load(FIXTURE).with_set({"run.duration": "3s", "run.warmup": "0s", "run.interval": "0.1s"}).run(
        path_intervals=True)
    rate: dict[float, float] = defaultdict(float)
    for row in run.data["path_intervals"]:
        rate[row["t_s"]] += row["cmds_s"]

    def mean(start: float, end: float) -> float:
        chosen = [v for t, v in rate.items() if start <= t < end - 1e-9]
        return sum(chosen) / len(chosen)

    # Each device's own rate here is about 30,000 I/O/s: 40 dwells of 1,000 I/Os, about 1.3 s.
    settled = mean(1.3, 3.0)
    assert 175_000 < settled < 195_000, settled
    # The first half second, the turns where their claims put them: 15% under or more.
    assert mean(0.0, 0.5) < 0.85 * settled, (mean(0.0, 0.5), settled)
    # After the rule's warm-up the rate has stopped climbing: its two halves within 5%.
    assert mean(1.3, 2.15) == pytest.approx(mean(2.15, 3.0), rel=0.05)
