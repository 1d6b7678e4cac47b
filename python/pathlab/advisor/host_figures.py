"""Each host's figures in a run of several hosts, as the cluster's advice ranks and prints them:
its devices' commands a second together (what its esxtop shows), their mean response weighted by
those commands, and its p99: the highest of its devices' p99 (the engine keeps a histogram per
device, not per host, so a host's p99 is its worst device's). The cluster's objective reads the
total I/O rate and the worst host's p99."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: The figures kept per host, as the ranking's (`rank.FIGURES`) name them.
HOST_FIGURES = ("iops", "resp_ms", "p99_ms")


def host_figures(data: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Each host of a run (with its per-device rows) → iops, resp_ms and p99_ms."""
    out = {h["name"]: {"iops": 0.0, "resp_ms": 0.0, "p99_ms": 0.0} for h in data["hosts"]}
    weighted = dict.fromkeys(out, 0.0)
    for d in data["devices"]:
        figures = out[d["host"]]
        figures["iops"] += d["cmds_s"]
        weighted[d["host"]] += d["cmds_s"] * (d["gavg_ms"] or 0.0)
        figures["p99_ms"] = max(figures["p99_ms"], d["p99_ms"] or 0.0)
    for host, figures in out.items():
        figures["resp_ms"] = weighted[host] / figures["iops"] if figures["iops"] else 0.0
    return out


def group_figures(every: dict[str, dict[str, float]], hosts: Iterable[str]) -> dict[str, float]:
    """Several hosts' figures together (from `host_figures`): their rates summed, the response
    weighted by them, the worst p99."""
    chosen = [every[h] for h in hosts]
    rate = sum(f["iops"] for f in chosen)
    return {"iops": rate, "resp_ms": sum(f["iops"] * f["resp_ms"] for f in chosen) / rate if rate else 0.0,
            "p99_ms": max(f["p99_ms"] for f in chosen)}


def cluster_summary(data: dict[str, Any]) -> dict[str, float]:
    """The run's summary as the cluster's objective reads it: the total I/O rate, mean response
    and failed I/Os of every host, and the worst host's p99 in place of the p99 of all I/Os."""
    return dict(data["summary"], p99_ms=max(f["p99_ms"] for f in host_figures(data).values()))
