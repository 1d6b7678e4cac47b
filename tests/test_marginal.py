"""FPIN marginal paths (issue 11): each stack's reaction to a path the fabric marks marginal, on
the same host and the same I/Os, and the I/O accounting under the new fault kind."""

from __future__ import annotations

import pytest

from conftest import SCENARIOS
from pathlab import Scenario
from pathlab.study.lineup import overrides
from pathlab.toml_values import flatten, to_toml

#: vmhba1's target 0 (port aa/P0) is marked marginal from 2 s to the end; the window is 2–6 s.
MARGINAL = {"faults": [{"kind": "marginal", "port": "aa/P0", "from": "2s"}],
            "run": {"duration": "4s", "warmup": "2s", "interval": "1s"}}
POLICIES = {
    "nvme round-robin": {"name": "nvme", "iopolicy": "round-robin"},
    # Grouped by priority: one group of every path on this array (no ALUA, every path equal),
    # which a default host would instead group failover (no hwtable entry, defaults.h).
    "dm, marginal_pathgroups fpin": {"name": "dm-multipath", "selector": "round-robin", "marginal_pathgroups": "fpin",
                                     "path_grouping_policy": "group_by_prio"},
    "dm, marginal_pathgroups off": {"name": "dm-multipath", "selector": "round-robin",
                                    "path_grouping_policy": "group_by_prio"},
    "ESXi round robin": {"name": "VMW_PSP_RR", "type": "iops", "iops": 1},
    "PowerPath adaptive, autostandby iopf": {"name": "powerpath", "policy": "adaptive", "autostandby": "iopf"},
}


def _sets(values: dict, policy: dict) -> list[str]:
    """`--set` items: the run and faults of `values`, and `policy` on every device."""
    return [f"{k}={to_toml(v)}" for k, v in flatten(values)] + overrides(policy)


def share_on_marginal_port(policy: dict) -> tuple[float, dict]:
    s = Scenario.load(SCENARIOS / "symmetric-fabric.toml", set=_sets(MARGINAL, policy))
    r = s.run()
    paths = r.paths
    on = paths[paths["target"] == "aa/P0"]["cmds_s"].sum()
    return on / paths["cmds_s"].sum(), r.data


@pytest.mark.parametrize(("label", "expected"), [
    # NVMe demotes the marginal path to the non-optimized tier: optimized paths remain, so none
    # of the I/O goes there. dm-multipath with marginal_pathgroups moves it to a group of its
    # own, below the others: none either. Without it, and on ESXi (no FPIN handling), the path
    # keeps its quarter of the round robin. PowerPath's handling of FPIN is not published (Dell
    # documents autostandby for flaky paths, asb:iopf, and for distant ones, asb:prox): a marginal
    # path that answers without errors keeps its share under adaptive balancing; once the link's
    # errors reach I/Os, iopf takes it out (tests/test_reactions.py, dm-shaky-path).
    # (Next to nothing: the I/Os already in flight when the notification came complete there.)
    ("nvme round-robin", (0.0, 0.001)),
    ("dm, marginal_pathgroups fpin", (0.0, 0.001)),
    ("dm, marginal_pathgroups off", (0.24, 0.26)),
    ("ESXi round robin", (0.24, 0.26)),
    ("PowerPath adaptive, autostandby iopf", (0.24, 0.26)),
])
def test_each_stack_reacts_to_a_marginal_path_as_it_does_to_fpin(label, expected) -> None:
    share, data = share_on_marginal_port(POLICIES[label])
    low, high = expected
    assert low <= share <= high, (label, share)
    accounting = data["accounting"]
    assert accounting["issued"] == accounting["completed"] + accounting["failed"] and accounting["failed"] == 0
    events = {e["event"] for e in data["events"]}
    assert "marginal" in events


def test_a_marginal_window_that_ends_gives_the_path_back() -> None:
    policy = POLICIES["nvme round-robin"]
    window = {"faults": [{"kind": "marginal", "port": "aa/P0", "from": "2s", "until": "4s"}],
              "run": {"duration": "4s", "warmup": "2s", "interval": "1s"}}
    s = Scenario.load(SCENARIOS / "symmetric-fabric.toml", set=_sets(window, policy))
    pi = s.run().path_intervals
    on = pi[pi["name"].str.startswith("vmhba1:C0:T0")].groupby("t_s")["cmds_s"].sum()
    total = pi.groupby("t_s")["cmds_s"].sum()
    share = (on / total).round(3)
    assert share.loc[4.0] == 0.0  # marginal (from 2 s, this whole interval)
    assert share.loc[6.0] > 0.2  # back in the rotation once the notification is cleared


def test_the_latency_iopolicy_gives_a_30_ms_path_one_credit_in_64() -> None:
    # Two paths per device, one 30 ms away: after the first 15 s window the fast path's weight is
    # floor(64 · s_fast / (s_fast + s_slow)) = 63 and the slow one's the minimum, 1 (anchors-2026.md
    # §1.1.1): the slow path carries one I/O in 64. The 2024 design sends it nothing.
    policy = {"name": "nvme-latency"}
    s = Scenario.load(SCENARIOS / "two-paths-one-30ms.toml", set=["run.duration=40s", "run.warmup=20s", *overrides(policy)])
    by_path = s.run().paths.set_index("name")["cmds_s"]
    slow = by_path[by_path < by_path.max() / 10]
    fast = by_path[by_path >= by_path.max() / 10]
    assert len(slow) == len(fast) == 4
    assert abs(fast.sum() / slow.sum() - 63) < 2, (fast.sum(), slow.sum())
    nlatency = {"name": "nvme-latency", "design": "nlatency"}
    s = Scenario.load(SCENARIOS / "two-paths-one-30ms.toml", set=["run.duration=10s", "run.warmup=5s", *overrides(nlatency)])
    assert sorted(s.run().paths["cmds_s"])[:4] == [0.0] * 4


def test_a_marginal_notice_no_stack_acts_on_is_said() -> None:
    policy = POLICIES["ESXi round robin"]
    s = Scenario.load(SCENARIOS / "symmetric-fabric.toml", set=_sets(MARGINAL, policy))
    assert any(field == "faults.0" and "changes nothing" in message for field, message in s.warnings)
    s = Scenario.load(SCENARIOS / "symmetric-fabric.toml", set=_sets(MARGINAL, POLICIES["nvme round-robin"]))
    assert not [field for field, _ in s.warnings if field.startswith("faults")]
