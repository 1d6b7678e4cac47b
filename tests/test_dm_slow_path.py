"""Issue 34 item 1: dm-multipath with one slow path. The slow path's share under service-time
and historical-service-time at depth 1 and 64, against what the kernel's arithmetic gives
(`docs/design/2026-11-28-dm-slow-path.md`; the exact choices on fixed inputs are the selector's
own tests in `crates/pathlab-policy/src/dm/historical_service_time.rs`). Short runs: 2 s."""

from __future__ import annotations

import math

import pytest

from conftest import SCENARIOS
from pathlab import Scenario

FILE = SCENARIOS / "reactions" / "dm-one-slow-path.toml"
SLOW = "host2:C0:T1:L1"


def _slow_share(variant: str) -> float:
    r = Scenario.load(FILE, variant=variant).with_set({"run.duration": "2s", "run.warmup": "0.5s"}).run()
    rates = r.paths.set_index("name")["cmds_s"]
    return float(rates[SLOW] / rates.sum())


def _stale_race(fast_us: float, slow_us: float, gap_us: float) -> float:
    """Depth 1 under historical-service-time: every path idle at every choice, the path whose
    last finish + 4 x its service time is oldest wins. The oldest of three fast paths taking
    turns is fresh until 2 fast - 3 gaps after the choice, the slow one 4 slow after its end: the
    slow path wins (ties too: it stays first in the list) once (4 slow - 2 fast + 3 gap) / (fast +
    gap) fast I/Os have passed, a whole number of them."""
    between = math.ceil((4 * slow_us - 2 * fast_us + 3 * gap_us) / (fast_us + gap_us))
    return 1 / (1 + between)


@pytest.mark.parametrize("variant", ["st_d1", "port_st_d1"])
def test_service_time_at_depth_one_takes_turns_whatever_the_speeds(variant: str) -> None:
    # Every choice finds 0 bytes in flight everywhere: the first in the list, moved to the tail.
    assert _slow_share(variant) == pytest.approx(0.25, abs=0.001)


@pytest.mark.parametrize(("variant", "slow_us", "low", "high"), [
    # A fast path's 4 KiB write takes about 130 us, the host 20 us between I/Os; the slow route
    # 520 us: 13 fast I/Os between slow ones, 1/14 (0.071) with the times fixed.
    ("hst_d1", 520, 0.065, 0.075),
    # The slow port: 186 us at light load: 4 between, 1/5.
    ("port_hst_d1", 186, 0.19, 0.205),
])
def test_historical_service_time_at_depth_one_is_a_staleness_race(variant, slow_us, low, high) -> None:
    assert low <= _stale_race(130, slow_us, 20) <= high
    assert low <= _slow_share(variant) <= high


def test_at_depth_64_service_time_gives_a_slow_route_more_than_its_light_load_quarter() -> None:
    # About 16 I/Os on every path; the fast ports saturated (15 us a command: 66.7k/s each); the
    # slow route's rate is its 16 over its 520 us delay and the wait at its port: at most
    # 30.8k/s, so at most 30.8 / (200 + 30.8) = 0.133, far above the 1/13 of the light-load ratio.
    share = _slow_share("st_d64")
    assert 0.11 <= share <= 0.134


def test_at_depth_64_historical_service_time_sends_a_slow_route_only_its_probes() -> None:
    # Its one-I/O estimate (520 us) stays above a fast path's (1 + 21) x 15 us, so it gets only
    # the I/O its staleness allows: one per 520 us + 4 x 520 us, 385/s of about 200,000/s.
    assert _slow_share("hst_d64") < 385 / 150_000


def test_at_depth_64_a_slow_port_gets_its_capacity_share_under_service_time() -> None:
    # Every port saturated: 1/60 us against 3/15 us: 1/13.
    assert _slow_share("port_st_d64") == pytest.approx(1 / 13, abs=0.003)


def test_at_depth_64_historical_service_time_keeps_a_slow_port_a_little_below_its_capacity() -> None:
    # Equal (1 + out) x time between completions: about 4 outstanding on the slow port, which
    # then idles at times (a closed loop of 4 through 60 us of port and 126 us of delay: 90%
    # busy), and an idle port's longer time between completions sends it fewer still.
    share = _slow_share("port_hst_d64")
    assert 0.055 <= share < 1 / 13
