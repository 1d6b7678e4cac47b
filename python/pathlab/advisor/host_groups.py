"""Hosts of a cluster that may need different settings: grouped by how far their paths reach each
array and through how many of its ports (a uniform metro cluster's hosts at one array's site
against those across the distance; a host zoned to fewer ports),
each group's figures taken from the cluster's runs (the same runs, the same I/Os), its own best
candidate decided on them, and the gain the cluster's choice gives it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pathlab.advisor.decide import decide
from pathlab.advisor.host_figures import group_figures
from pathlab.advisor.rank import summaries
from pathlab.advisor.ranked import Ranked


@dataclass(frozen=True)
class HostGroup:
    """Hosts that reach the arrays alike."""

    #: How they reach the arrays ("r1: 4 ports at 2 µs one way; r2: 4 ports at 252 µs one way").
    reach: str
    hosts: tuple[str, ...]


def host_groups(data: dict[str, Any]) -> list[HostGroup]:
    """The run's hosts grouped by what their paths reach of each array: how many of its ports, and
    the one-way time of the nearest (in the order of their first host); one group when every host
    reaches the arrays alike. Hosts zoned to fewer ports crowd those they have: another group."""
    nearest: dict[str, dict[str, float]] = {h["name"]: {} for h in data["hosts"]}
    ports: dict[str, dict[str, set[str]]] = {h["name"]: {} for h in data["hosts"]}
    for p in data["paths"]:
        array = p["target"].split("/", 1)[0]
        own = nearest[p["host"]]
        own[array] = min(own.get(array, p["one_way_us"]), p["one_way_us"])
        ports[p["host"]].setdefault(array, set()).add(p["target"])
    groups: dict[tuple[tuple[str, int, float], ...], list[str]] = {}
    for host, arrays in nearest.items():
        groups.setdefault(tuple(sorted((a, len(ports[host][a]), us) for a, us in arrays.items())), []).append(host)
    return [HostGroup("; ".join(f"{a}: {n} port{'s' if n > 1 else ''} at {us:g} µs one way" for a, n, us in key),
                      tuple(hosts)) for key, hosts in groups.items()]


def group_ranked(ranked: list[Ranked], group: HostGroup) -> list[Ranked]:
    """The candidates' figures over the group's hosts alone (their rates summed, their worst
    p99), seed by seed from the cluster's runs, with the gains against the setting in force's."""
    out = [Ranked(r.candidate, summaries([group_figures(seed, group.hosts) for seed in r.per_seed_hosts],
                                         ("iops", "resp_ms", "p99_ms")), 0.0, r.seeds) for r in ranked]
    in_force = out[0].figures["iops"][0]
    for r in out:
        r.gain = r.figures["iops"][0] / in_force if in_force > 0 else float("nan")
    return out


def group_choice(ranked: list[Ranked], group: HostGroup, objective: str) -> tuple[Ranked | None, list[Ranked]]:
    """The group's own choice by `objective` on its figures (None: keep), and its ranking."""
    own = group_ranked(ranked, group)
    return decide(own, objective).choice, own
