"""The lineup and the catalogue come from the engine's policy registry: a policy registered in
Rust is listed by `pathlab policies` and compared by `pathlab compare --lineup` without a Python
list to update."""

from __future__ import annotations

import json

from conftest import SCENARIOS, pathlab
from pathlab import Scenario, policies
from pathlab.study.lineup import LINEUP, OURS, overrides

#: Every policy `crates/pathlab-policy/src/registry.rs` registers, in its order.
REGISTERED = ["VMW_PSP_RR", "VMW_PSP_FIXED", "VMW_PSP_MRU", "HPP", "gated-least-load", "dm-multipath", "nvme",
              "nvme-latency", "spdk", "mpio", "powerpath", "rnbd"]


def test_every_registered_policy_is_in_the_catalogue_and_the_lineup() -> None:
    assert [p["name"] for p in policies()] == REGISTERED
    done = pathlab("policies", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert [p["name"] for p in json.loads(done.stdout)] == REGISTERED
    table = pathlab("policies").stdout
    assert [line.split("  (")[0] for line in table.splitlines() if line and not line.startswith(" ")] == REGISTERED
    in_lineup = [policy["name"] for _, policy in LINEUP]
    assert sorted(set(in_lineup)) == sorted(REGISTERED)
    # Registration order, ours last; a policy without field settings runs at its defaults.
    assert list(dict.fromkeys(in_lineup)) == [n for n in REGISTERED if n != OURS] + [OURS]
    assert ("rnbd", {"name": "rnbd"}) in LINEUP and ("nvme-latency", {"name": "nvme-latency"}) in LINEUP
    assert len({label for label, _ in LINEUP}) == len(LINEUP) == 23


def test_every_lineup_setting_loads_on_a_scenario_with_the_policy_it_names() -> None:
    for label, policy in LINEUP:
        devices = Scenario.load(SCENARIOS / "bench-minimal.toml", set=overrides(policy)).devices
        assert {d.policy.name for d in devices} == {policy["name"]}, label
        assert all(d.policy[k] == v for d in devices for k, v in policy.items() if k != "name"), label
