"""Issue 4: pathlab's own policy against every stack's, on every shipped scenario."""

from __future__ import annotations

import pytest

from conftest import SCENARIOS
from pathlab import Scenario
from pathlab.study.compare import run_lineup
from pathlab.study.lineup import LINEUP, OURS, comparable, without_device_queue

#: 15 s measured after 3 s of warm-up: long enough for every figure asserted below to settle (the
#: same assertions held at 40 s).
SHORT = ("run.duration=15s", "run.warmup=3s")
#: The steady scenarios of 200,000 I/O/s or more (no fault, nothing that changes in time) are
#: measured for 5 s: a million I/Os or more a policy, every policy of a lineup on the same I/Os
#: (one seed), so their ratios settle sooner than the slower and faulted scenarios'. From 15 s to
#: 5 s (session 15), of the best comparable: bench-minimal's rate 1.0004 -> 1.0007, p99 1.0018
#: both; C3's rate 1.0000 -> 1.0001, p99 1.0054 -> 1.0063; symmetric-fabric's rate 1.0015 ->
#: 1.0013, p99 1.0056 both; four paths one slow's p99 1.028 (the gap below) -> 1.0284. Their
#: lineups took about 250 s of CPU at 15 s (bench-minimal 33, C3 97, symmetric-fabric 65), 112 s at
#: 5 s. Three steady scenarios under 200,000 I/O/s joined them in session 17, their ratios the
#: same at both lengths (the test's figures, best comparable over ours, 15 s -> 5 s): C1 (one LUN
#: at 150,000 I/O/s: 750,000 I/Os a policy) rate 1.0004 both, mean 1.0005 -> 1.0006, p99 1.0010
#: both, its lineup 57 -> 26 s of CPU; C4 (50,000 I/O/s, light: its ratios are set by the paths'
#: service times, not by queues) rate 1.0000 both, mean 1.0035 -> 1.0031, p99 1.0042 both, 27 ->
#: 11 s; VMAX3 with four hosts (47,000 I/O/s) rate and mean 1.0020 -> 1.0013, p99 1.0026 ->
#: 1.0031, 20 -> 8 s (CPU at load 20-30). The replicated lineups on the own-policy page (10 s +
#: 2 s, over seeds) put ours within +-0.3% on rate and p99 in all three: about +-0.5% at 5 s,
#: inside the 2% margin.
STEADY = {name: ("run.duration=5s", "run.warmup=3s")
          for name in ("bench-minimal", "c1-vmax-1lun", "c3-vmax-4lun", "c4-vmax-4lun-light", "four-paths-one-slow",
                       "symmetric-fabric", "vmax3-shared-director")}
#: Faults moved inside that window, so that the comparison covers them: the congestion (20 s
#: in the file) and the CX4's path failure (120 s in the file). The congested path is measured for
#: 8 s, congested from 5 s (6 of the 8 s, as 10 of 15 before session 17): every other policy is
#: not comparable there (more than twice our p99), and ours leads the best of them by 9% in rate
#: and 60% in p99 at either length (rate 0.915 -> 0.906, p99 0.405 -> 0.411 of theirs), so the
#: shorter run's spread (+-0.3% on rate over seeds at 15 s on the own-policy page) cannot bring
#: it near the 2% margin; its lineup 55 -> 33 s of CPU.
CONGESTED = ("run.duration=8s", "run.warmup=3s", "faults.0.from=5s")
INSIDE_THE_WINDOW = {"cx4-alua-path-failure": ("faults.0.at=9s",)}
#: Where the aim is not met, what is measured instead, and why (README: "Our own policy").
#: Four paths, one slow (session 8, with full-duplex ports: the fast ports' command processors
#: are the limit, 96-99% busy): ours balances expected completion times and gives the slow port
#: (60 us a command) 13,455 I/O/s, 81% busy; ESXi's latency type, which chooses by commands
#: pending among the paths its evaluation kept, gives it 11,700 (70%). The slow port's queue makes
#: our tail: our p99 is 2.8% above the latency type's (0.518 against 0.504 ms) for a rate 0.7%
#: higher (207,638 against 206,196 I/O/s).
#: Measured in session 8 and no longer needing a margin (within 2%): C1 (its host pauses are
#: gone; p99 +0.1% over the latency type's), VMAX3 with four hosts (+0.3% over iops=1's; its
#: stations lognormal since session 7), two paths one +30 ms (+1.7% over PowerPath-style adaptive's).
#: A flaky path (session 14, after MPIO's 1 s RetryInterval landed): MPIO least_queue_depth now
#: fails no I/O and so is held against ours, with a p99 of 0.408 ms against our 0.418 (+2.5%) at
#: 17% less rate (200,903 against 242,133 I/O/s): its errored I/Os wait out the interval, so fewer
#: of the 64 are in flight and the paths queue less. A shorter tail bought by parking I/O, as the
#: `comparable` rule's 30 ms path is, but under the p99 it keeps (`run_lineup` of flaky-path, 15 s).
KNOWN_GAPS = {("four-paths-one-slow", "p99_ms"): 1.035, ("flaky-path", "p99_ms"): 1.03}
UNQUEUED = without_device_queue(SCENARIOS / "bench-minimal.toml")


@pytest.fixture(scope="module")
def lineups() -> dict[str, dict[str, dict]]:
    out = {}
    for file in sorted(SCENARIOS.glob("*.toml")):
        sets = CONGESTED if file.stem == "congested-path" else STEADY.get(file.stem, SHORT)
        one = run_lineup(str(file), None, sets + INSIDE_THE_WINDOW.get(file.stem, ()), None)
        out[file.stem] = {label: run["summary"] for label, run in zip(one.labels, one.runs)}
    return out


def test_every_shipped_scenario_is_in_the_comparison(lineups) -> None:
    assert set(lineups) == {p.stem for p in SCENARIOS.glob("*.toml")}
    assert all(len(policies) == len(LINEUP) == 23 for policies in lineups.values())


@pytest.mark.parametrize("scenario", sorted(p.stem for p in SCENARIOS.glob("*.toml")))
def test_own_policy_is_within_2_percent_of_the_best_comparable_policy(lineups, scenario) -> None:
    results = lineups[scenario]
    ours = results[OURS]
    others = {k: v for k, v in results.items() if k != OURS}
    comparable_ones = comparable(results, UNQUEUED)
    # None comparable: every other policy fails more I/O or has more than twice our p99 (the
    # congested path); then ours must still match the best of all of them.
    pool = comparable_ones or others
    best_rate = max(v["iops"] for v in pool.values())
    best_resp = min(v["resp_ms"] for v in pool.values())
    best_p99 = min(v["p99_ms"] for v in pool.values())
    margin = lambda figure: KNOWN_GAPS.get((scenario, figure), 1.02)  # noqa: E731
    assert ours["iops"] >= best_rate / margin("iops"), (scenario, ours["iops"], best_rate)
    assert ours["resp_ms"] <= margin("resp_ms") * best_resp, (scenario, ours["resp_ms"], best_resp)
    assert ours["p99_ms"] <= margin("p99_ms") * best_p99, (scenario, ours["p99_ms"], best_p99)


def test_own_policy_moves_load_off_a_path_that_slows_down_within_a_second() -> None:
    congested = "vmhba1:C0:T1"

    def share_after_congestion(policy: str, interval: str = "250ms") -> list[float]:
        # The congestion moved from 20 s to 5 s, the 3 s after it measured as before: the 15 s
        # before it were steady running (each share below within 0.0006 of the 20 s run's, in a
        # third of the CPU: 18 -> 6 s for the three runs, session 17).
        over = {"run.duration": "6s", "run.warmup": "2s", "run.interval": interval, "faults.0.from": "5s"}
        s = Scenario.load(SCENARIOS / "congested-path.toml", variant=policy, set=over)
        pi = s.run().path_intervals
        window = pi[(pi["t_s"] > 5) & (pi["t_s"] <= 8)]
        total = window.groupby("t_s")["cmds_s"].sum()
        on_it = window[window["name"].str.startswith(congested)].groupby("t_s")["cmds_s"].sum()
        return list((on_it / total).round(4))

    ours = share_after_congestion("gated_least_load")
    # Congestion starts at 5 s: by the fourth 250 ms interval (within 1 s) the path carries
    # next to nothing (probes only), where it carried a quarter before.
    assert max(ours[3:]) < 0.01, ours
    # Finer: in 50 ms intervals, below 1% from the second one on (within 100 ms).
    fine = share_after_congestion("gated_least_load", "50ms")
    assert fine[0] < 0.1 and max(fine[1:]) < 0.01, fine
    # Round robin passes over the congested path while it holds more commands than the others
    # (nmp/round_robin.rs), but never leaves it: it still takes its turn whenever every path
    # holds as many, about 5% of the I/O (0.052 in every quarter second) against our 0.1% or less
    # (a strict rotation would give it 25%).
    rr = share_after_congestion("rr_iops1")
    assert min(rr) > 0.05 and max(rr) < 0.15, rr
