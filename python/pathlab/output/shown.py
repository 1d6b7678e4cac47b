"""A scenario's devices or paths as the host's own tools print them (`pathlab show`, and the
agents' `show` tool): esxcli, multipath -ll or -l, nvme list-subsys or show-topology, or JSON;
with several hosts, each host's view in turn."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable
from typing import Any

from pathlab.api import PathlabWarning, Scenario
from pathlab.output import esxcli, hosts, multipath, nvme

STYLES = ("esxi", "linux", "linux-l", "nvme", "nvme-topology", "json")


def shown(scenario: Scenario, what: str, style: str, at: str = "0s", host: str | None = None) -> str:
    """The devices or paths (`what`) of `scenario` at simulated time `at`, in `style`; with
    several hosts, only `host`'s or each host's under a `==> host NAME <==` line."""
    desc = scenario.describe(at)
    if style == "json":
        hosts.check(desc, host, scenario.file)
        return json.dumps((hosts.view(desc, host) if host else desc)[what], indent=2) + "\n"
    if style.startswith("nvme") and not any(f["nvme_head"] for f in desc["linux"]["devices"]):
        warnings.warn("no device is a native NVMe multipath head (policy nvme or nvme-latency): nvme list-subsys lists "
                      "nothing", PathlabWarning, stacklevel=2)
    styles: dict[str, Callable[[dict[str, Any]], str]] = {
        "linux": multipath.multipath_ll, "linux-l": lambda view: multipath.multipath_ll(view, checked=False),
        "nvme": nvme.list_subsys, "nvme-topology": nvme.show_topology,
        "esxi": esxcli.device_list if what == "devices" else lambda view: esxcli.path_list(view, desc)}
    render = styles[style]
    return hosts.joined([(name, render(view)) for name, view in hosts.each(desc, host, scenario.file)])
