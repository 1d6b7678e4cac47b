"""Each host's site, from the scenario: the arrays it reaches at a site's distance (its nearest
port of the array at most `SITE_US` one way), the rest across the distance. A uniform metro
cluster's hosts next to r1 are `at r1` (r2 across the distance), those next to r2 `at r2`; every
host in one room is at every array, one site. Read from a run's paths (`one_way_us`, the fabric's
latency the scenario gives each adapter-to-port connection), so `compare`, its report and `sweep`
can print figures per site where a scenario's hosts are at more than one."""

from __future__ import annotations

from typing import Any

#: The farthest one-way time to an array's nearest port at which a host is at the array's site:
#: 50 µs is 10 km of fibre (about 5 µs per km one way). A site's own fabric is a few µs (the shipped
#: scenarios give 2 to 5), a metro cluster's sites tens of km apart (the SRDF/Metro cluster's
#: cross-connect is 252 µs one way, 50 km).
SITE_US = 50.0


def host_sites(data: dict[str, Any]) -> dict[str, str]:
    """Each host of a run (with its path rows) → its site: `at A, B` (the arrays it reaches
    within `SITE_US`), or `away from A, B` where it reaches none so near; hosts in the run's order."""
    nearest: dict[str, dict[str, float]] = {h["name"]: {} for h in data["hosts"]}
    for p in data["paths"]:
        array = p["target"].split("/", 1)[0]
        own = nearest[p["host"]]
        own[array] = min(own.get(array, p["one_way_us"]), p["one_way_us"])
    out = {}
    for host, arrays in nearest.items():
        near = sorted(a for a, us in arrays.items() if us <= SITE_US)
        out[host] = f"at {', '.join(near)}" if near else f"away from {', '.join(sorted(arrays))}"
    return out


def sites(data: dict[str, Any]) -> dict[str, list[str]]:
    """Each site of a run's hosts → its hosts, in the order of their first host; empty where
    every host is at one site (nothing to tell apart)."""
    out: dict[str, list[str]] = {}
    for host, site in host_sites(data).items():
        out.setdefault(site, []).append(host)
    return out if len(out) > 1 else {}
