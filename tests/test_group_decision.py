"""A group of a cluster's hosts is given a setting of its own only where its figures tell it
apart from the cluster's choice (issue 33, session 14's review): on the shipped three-host VMAX
cluster, esx-c's figures at the latency sub-type (87,677 ± 38,740 I/O/s over 3 seeds) were named
its own choice over the cluster's iops=1 (50,085 ± 130), which its interval cannot tell apart.
The figures below are those runs' per seed, written out (no simulation)."""

from __future__ import annotations

from pathlab.advisor.candidate import Candidate
from pathlab.advisor.decide import Decision
from pathlab.advisor.group_decision import own_choice, per_group_decision
from pathlab.advisor.host_groups import HostGroup
from pathlab.advisor.rank import summaries
from pathlab.advisor.ranked import Ranked

WIDE, NARROW = HostGroup("EMC: 4 ports at 5 µs one way", ("esx-a",)), HostGroup("EMC: 2 ports at 5 µs one way", ("esx-c",))


def _ranked(label: str, esx_a: list[tuple[float, float]], esx_c: list[tuple[float, float]]) -> Ranked:
    """A candidate with each seed's (I/O rate, p99 ms) on each host."""
    seeds = [{"esx-a": {"iops": a, "resp_ms": 0.5, "p99_ms": a99}, "esx-c": {"iops": c, "resp_ms": 0.5, "p99_ms": c99}}
             for (a, a99), (c, c99) in zip(esx_a, esx_c)]
    cluster = [{"iops": s["esx-a"]["iops"] + s["esx-c"]["iops"], "resp_ms": 0.5,
                "p99_ms": max(s["esx-a"]["p99_ms"], s["esx-c"]["p99_ms"])} for s in seeds]
    commands = [] if label == "the setting in force" else [f"# set {label}"]
    return Ranked(Candidate(label, {}, commands), summaries(cluster, ("iops", "resp_ms", "p99_ms")), 1.0, len(seeds),
                  per_seed_hosts=seeds)


IN_FORCE = _ranked("the setting in force", [(100_000, 1.8), (101_000, 1.9), (99_000, 1.7)],
                   [(38_000, 1.80), (38_400, 1.85), (38_200, 1.78)])
IOPS1 = _ranked("round robin, iops=1", [(150_000, 0.93), (150_400, 0.935), (149_800, 0.932)],
                [(50_000, 0.930), (50_170, 0.936), (50_085, 0.933)])


def test_a_groups_choice_its_interval_cannot_tell_from_the_clusters_is_the_clusters() -> None:
    # esx-c at latency: 87,677 ± 38,740 I/O/s (its low end 48,937 under iops=1's 50,085 - 130), p99
    # 0.853 ± 1.1 ms: ahead of the setting in force beyond the intervals, not of iops=1.
    latency = _ranked("round robin, latency", [(60_000, 1.6), (70_000, 1.7), (65_000, 1.65)],
                      [(72_100, 0.4), (87_700, 1.3), (103_231, 0.86)])
    ranked = [IN_FORCE, IOPS1, latency]
    assert own_choice(ranked, NARROW, IOPS1, "balanced") is IOPS1
    assert own_choice(ranked, WIDE, IOPS1, "balanced") is IOPS1
    # Against the setting in force kept for the cluster, latency is esx-c's own: it clears that.
    assert own_choice(ranked, NARROW, IN_FORCE, "balanced") is latency


def test_a_groups_choice_that_clears_the_clusters_is_named() -> None:
    latency = _ranked("round robin, latency", [(60_000, 1.6), (70_000, 1.7), (65_000, 1.65)],
                      [(88_000, 0.50), (88_300, 0.52), (87_700, 0.51)])
    assert own_choice([IN_FORCE, IOPS1, latency], NARROW, IOPS1, "balanced") is latency


def test_the_setting_per_group_must_clear_the_one_setting_it_replaces() -> None:
    chosen = Decision(IOPS1, "it beats the setting in force")
    # The review's case: 200,319 ± 931 against iops=1's 200,175 ± 542, p99 1.281 against 0.933: kept.
    level = _ranked("a setting per host group", [(162_000, 0.95), (162_600, 0.96), (162_300, 0.955)],
                    [(38_000, 1.25), (38_100, 1.30), (37_900, 1.29)])
    assert per_group_decision(chosen, level, IN_FORCE, "balanced") is chosen
    ahead = _ranked("a setting per host group", [(150_000, 0.90), (150_400, 0.91), (149_800, 0.905)],
                    [(70_000, 0.60), (70_200, 0.61), (69_900, 0.605)])
    decided = per_group_decision(chosen, ahead, IN_FORCE, "balanced")
    assert decided.choice is ahead
    assert decided.reason == ("it beats one setting for every host (round robin, iops=1) by more than 5% on the I/O "
                              "rate, beyond the 95% intervals")
    kept = Decision(None, "no candidate beats the setting in force")
    assert per_group_decision(kept, ahead, IN_FORCE, "balanced").reason.startswith("it beats the setting in force by")
