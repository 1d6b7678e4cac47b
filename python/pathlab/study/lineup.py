"""The standard lineup: every registered policy (the engine's catalogue, in registration order),
each with the settings its users run, to put side by side on one storage network and the same
I/Os (`pathlab compare --lineup`). A policy registered without settings here runs at its
defaults, so a new policy joins the lineup by being registered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pathlab.api import policies
from pathlab.toml_values import to_toml

OURS = "gated-least-load"

#: The settings the field runs, by policy, as (label, parameters), in the order shown.
SETTINGS: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "VMW_PSP_RR": [
        ("VMW_PSP_RR iops=1000", {"type": "iops", "iops": 1000}),
        ("VMW_PSP_RR iops=1", {"type": "iops", "iops": 1}),
        # type=latency keeps the device's I/O limit: 1, as the vendors that recommend it set it.
        ("VMW_PSP_RR latency", {"type": "latency", "iops": 1}),
    ],
    "HPP": [("HPP LB-Latency", {"scheme": "LB-Latency"})],
    # Grouped by priority on every array: by ALUA where the array reports it, else one group of
    # every path (a default host would group a non-ALUA array without a hwtable entry failover,
    # one path per group, and the selectors would have nothing to choose from). The rest of
    # each map is what the array's hwtable entry gives a default host.
    "dm-multipath": [
        ("dm round-robin", {"selector": "round-robin", "path_grouping_policy": "group_by_prio"}),
        ("dm queue-length", {"selector": "queue-length", "path_grouping_policy": "group_by_prio"}),
        ("dm service-time", {"selector": "service-time", "path_grouping_policy": "group_by_prio"}),
        ("dm historical-st", {"selector": "historical-service-time", "path_grouping_policy": "group_by_prio"}),
    ],
    "nvme": [
        ("nvme numa", {"iopolicy": "numa"}),
        ("nvme round-robin", {"iopolicy": "round-robin"}),
        ("nvme queue-depth", {"iopolicy": "queue-depth"}),
    ],
    "spdk": [
        ("spdk active_passive", {"policy": "active_passive"}),
        ("spdk round_robin", {"policy": "active_active", "selector": "round_robin"}),
        ("spdk queue_depth", {"policy": "active_active", "selector": "queue_depth"}),
    ],
    "mpio": [
        ("mpio round_robin", {"policy": "round_robin"}),
        ("mpio least_queue_depth", {"policy": "least_queue_depth"}),
        ("mpio least_blocks", {"policy": "least_blocks"}),
    ],
    "powerpath": [("powerpath adaptive", {"policy": "adaptive"})],
}


def lineup() -> list[tuple[str, dict[str, Any]]]:
    """(label, policy table) of every registered policy's settings; ours last, as the bar the
    others are compared with."""
    names = [p["name"] for p in policies()]
    ordered = [n for n in names if n != OURS] + [OURS]
    return [(label, {"name": name, **params}) for name in ordered for label, params in SETTINGS.get(name, [(name, {})])]


#: (label, policy table) in the order they are shown.
LINEUP: list[tuple[str, dict[str, Any]]] = lineup()


def overrides(policy: dict[str, Any]) -> list[str]:
    """`--set` items that give every device this policy (and drop per-device esxcli settings,
    which name VMware policies)."""
    table = to_toml(policy)
    return [f"policy={table}", f"devices.*.policy={table}", "esxcli=[]"]


def without_device_queue(file: str | Path) -> set[str]:
    """The lineup's policies on FILE whose host stack has no device-wide queue depth (DQLEN): a
    Linux NVMe head (the block layer's tags per controller, `model/tags.rs`) and a dm-multipath
    map (each path a SCSI disk with its own queue depth)."""
    from pathlab.api import Scenario

    return {label for label, policy in LINEUP
            if Scenario.load(file, set=overrides(policy)).devices[0].stack in ("linux-nvme", "linux-dm")}


def comparable(results: dict[str, dict], unqueued: set[str]) -> dict[str, dict]:
    """The others that ours is held to: they fail no more I/O than ours and keep their p99 within
    twice ours (a better mean bought by failing I/O, or by parking I/O on a path 30 ms away, is
    not the better one), and queue as ours does: not one without a device queue (`unqueued`,
    `without_device_queue`), which, where a scenario's DQLEN holds I/O back, keeps more I/O in
    flight: an advantage of the host stack, not of its policy. RESULTS are run summaries by
    lineup label."""
    ours = results[OURS]
    return {k: v for k, v in results.items()
            if k != OURS and v["failed"] <= ours["failed"] and v["p99_ms"] <= 2 * ours["p99_ms"]
            and k not in unqueued}
