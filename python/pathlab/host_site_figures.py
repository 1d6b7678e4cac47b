"""A run's figures per host and per site, as `compare`, its report and `sweep` print them: each
host's commands a second and GAVG as its esxtop shows them, and each site's hosts together
(`sites`: where a scenario's hosts are at more than one)."""

from __future__ import annotations

from typing import Any

from pathlab.sites import sites


def per_host(run: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Each host's figures as its esxtop shows them: its devices' commands a second together, and
    their GAVG weighted by those commands (the response the host measures, stack time left out)."""
    rates: dict[str, float] = {h["name"]: 0.0 for h in run["hosts"]}
    weighted: dict[str, float] = dict.fromkeys(rates, 0.0)
    for d in run["devices"]:
        rates[d["host"]] += d["cmds_s"]
        weighted[d["host"]] += d["cmds_s"] * (d["gavg_ms"] or 0.0)
    return {h: {"cmds_s": rate, "gavg_ms": weighted[h] / rate if rate else 0.0} for h, rate in rates.items()}


def per_site(run: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each site's figures (`sites`: the arrays its hosts reach at a site's distance), its hosts'
    together as `per_host` gives them: commands a second summed, GAVG weighted by them; empty
    where every host is at one site."""
    hosts = per_host(run)
    out = {}
    for site, members in sites(run).items():
        rate = sum(hosts[h]["cmds_s"] for h in members)
        out[site] = {"hosts": members, "cmds_s": rate,
                     "gavg_ms": sum(hosts[h]["cmds_s"] * hosts[h]["gavg_ms"] for h in members) / rate if rate else 0.0}
    return out


#: The columns a sweep's run row gets per host and per site: `host NAME iops`, `site SITE gavg_ms`.
PLACE_COLUMNS = ("host", "site")


def place_columns(run: dict[str, Any]) -> dict[str, float]:
    """A run's figures per host and per site as a sweep's columns (`host esx-a1 iops`, `host
    esx-a1 gavg_ms`, `site at r1 iops`, ...); none for a run of one host."""
    hosts = per_host(run)
    if len(hosts) < 2:
        return {}
    places = [("host", h, f) for h, f in hosts.items()] + [("site", s, f) for s, f in per_site(run).items()]
    return {f"{kind} {name} {key}": figures[figure] for kind, name, figures in places
            for key, figure in (("iops", "cmds_s"), ("gavg_ms", "gavg_ms"))}
