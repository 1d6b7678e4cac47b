"""Each host's figures in a run of several hosts, as the cluster's advice ranks and prints them:
its devices' commands a second together (what its esxtop shows), their mean response weighted by
those commands, and its p99: the quantile of the host's own responses, its devices' histograms
added (the engine's `host_latency`). The cluster's objective reads the total I/O rate and the
worst host's p99: figures of a host's I/Os, which a run resolves with the host's I/Os
(`run_length.HOST_IOS` of them), not each device's (until session 18 a host's p99 was its worst
device's, which needed every device's own 800 I/Os: 64 s of simulation on 32 hosts × 500
devices)."""

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
        out[d["host"]]["iops"] += d["cmds_s"]
        weighted[d["host"]] += d["cmds_s"] * (d["gavg_ms"] or 0.0)
    for h in data["host_latency"]:
        out[h["name"]]["p99_ms"] = h["p99_ms"] or 0.0
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
