"""The standard lineup: the policies of every stack with the settings their users run, to put
side by side on one storage network and the same I/Os (`pathlab compare --lineup`)."""

from __future__ import annotations

from typing import Any

from pathlab.toml_values import to_toml

OURS = "gated-least-load"

#: (label, policy table) in the order they are shown.
LINEUP: list[tuple[str, dict[str, Any]]] = [
    ("VMW_PSP_RR iops=1000", {"name": "VMW_PSP_RR", "type": "iops", "iops": 1000}),
    ("VMW_PSP_RR iops=1", {"name": "VMW_PSP_RR", "type": "iops", "iops": 1}),
    # type=latency keeps the device's I/O limit: 1, as the vendors that recommend it set it.
    ("VMW_PSP_RR latency", {"name": "VMW_PSP_RR", "type": "latency", "iops": 1}),
    ("VMW_PSP_FIXED", {"name": "VMW_PSP_FIXED"}),
    ("VMW_PSP_MRU", {"name": "VMW_PSP_MRU"}),
    ("HPP LB-Latency", {"name": "HPP", "scheme": "LB-Latency"}),
    # Grouped by priority on every array: by ALUA where the array reports it, else one group of
    # every path (a default host would group a non-ALUA array without a hwtable entry failover,
    # one path per group, and the selectors would have nothing to choose from). The rest of
    # each map is what the array's hwtable entry gives a default host.
    ("dm round-robin", {"name": "dm-multipath", "selector": "round-robin", "path_grouping_policy": "group_by_prio"}),
    ("dm queue-length", {"name": "dm-multipath", "selector": "queue-length", "path_grouping_policy": "group_by_prio"}),
    ("dm service-time", {"name": "dm-multipath", "selector": "service-time", "path_grouping_policy": "group_by_prio"}),
    ("dm historical-st", {"name": "dm-multipath", "selector": "historical-service-time",
                          "path_grouping_policy": "group_by_prio"}),
    ("nvme numa", {"name": "nvme", "iopolicy": "numa"}),
    ("nvme round-robin", {"name": "nvme", "iopolicy": "round-robin"}),
    ("nvme queue-depth", {"name": "nvme", "iopolicy": "queue-depth"}),
    ("spdk active_passive", {"name": "spdk", "policy": "active_passive"}),
    ("spdk round_robin", {"name": "spdk", "policy": "active_active", "selector": "round_robin"}),
    ("spdk queue_depth", {"name": "spdk", "policy": "active_active", "selector": "queue_depth"}),
    ("mpio round_robin", {"name": "mpio", "policy": "round_robin"}),
    ("mpio least_queue_depth", {"name": "mpio", "policy": "least_queue_depth"}),
    ("mpio least_blocks", {"name": "mpio", "policy": "least_blocks"}),
    ("powerpath adaptive", {"name": "powerpath", "policy": "adaptive"}),
    (OURS, {"name": OURS}),
]


def overrides(policy: dict[str, Any]) -> list[str]:
    """`--set` items that give every device this policy (and drop per-device esxcli settings,
    which name VMware policies)."""
    table = to_toml(policy)
    return [f"policy={table}", f"devices.*.policy={table}", "esxcli=[]"]
