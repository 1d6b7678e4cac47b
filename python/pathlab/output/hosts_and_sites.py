"""A cluster's figures beside each other as `compare` and its report print them: a row per host,
then a row per site where the hosts are at several (`host_site_figures`)."""

from __future__ import annotations

from typing import Any

from pathlab.host_site_figures import per_host, per_site


def hosts_and_sites(names: list[str], runs: list[dict[str, Any]]) -> list[str]:
    """The per-host rows where a run has several hosts, and the per-site rows where they are at
    several sites, each after a blank line; nothing for one host."""
    hosts = [per_host(r) for r in runs]
    if not any(len(h) > 1 for h in hosts):
        return []
    at = [per_site(r) for r in runs]
    labelled = [{f"{site} ({', '.join(one[site]['hosts'])})": one[site] for site in one} for one in at]
    return ["", hosts_side_by_side(names, hosts)] + \
        (["", hosts_side_by_side(names, labelled, "per site (its hosts' esxtop together)")] if any(at) else [])


def hosts_side_by_side(names: list[str], hosts: list[dict[str, dict[str, Any]]], title: str = "per host (esxtop)") -> str:
    """Rows per host (or site) under the variants' columns: commands a second and GAVG (ms); "-"
    where a variant has no such host (a variant may set `hosts`)."""
    every = list(dict.fromkeys(h for one in hosts for h in one))
    width = max(12, *(len(n) + 2 for n in names))
    label = max(14, *(len(h) + 10 for h in every))

    def cells(host: str, key: str, fmt: str) -> str:
        return "".join((format(one[host][key], fmt) if host in one else "-").rjust(width) for one in hosts)

    lines = [title]
    for h in every:
        lines += [f"{h} CMDS/s".ljust(label) + cells(h, "cmds_s", ".1f"), f"{h} GAVG".ljust(label) + cells(h, "gavg_ms", ".3f")]
    return "\n".join(lines)
