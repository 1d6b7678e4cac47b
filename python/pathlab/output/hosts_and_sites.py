"""A cluster's figures beside each other as `compare` and its report print them: a row per host,
then a row per site where the hosts are at several (`host_site_figures`); a lineup, whose
settings are many, and settings over seeds, a row per setting with a column per host, then per site."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pathlab.host_site_figures import per_host, per_site

if TYPE_CHECKING:
    import pandas as pd


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


def hosts_and_sites_by_setting(labels: list[str], runs: list[dict[str, Any]]) -> list[str]:
    """A lineup's figures per host and per site: a row per setting, a column per host (then per
    site, where the hosts are at several), each cell its CMDS/s and GAVG (ms); nothing for one host."""
    hosts = [per_host(r) for r in runs]
    if not any(len(h) > 1 for h in hosts):
        return []
    at = [per_site(r) for r in runs]
    out = ["", settings_by_place(labels, hosts, "per host (esxtop: CMDS/s, GAVG ms)")]
    if any(at):
        members = {site: f"{site} ({', '.join(one[site]['hosts'])})" for one in at for site in one}
        out += ["", settings_by_place(labels, at, "per site (its hosts' esxtop together: CMDS/s, GAVG ms): "
                                                  + "; ".join(members.values()))]
    return out


def settings_by_place(labels: list[str], places: list[dict[str, dict[str, Any]]], title: str,
                      cell: Callable[[dict[str, Any]], str] = lambda f: f"{f['cmds_s']:.1f} {f['gavg_ms']:.3f}") -> str:
    """A row per setting, a column per host or site: `cell` of its figures ("CMDS/s GAVG"); "-"
    where a setting has no such place."""
    every = list(dict.fromkeys(p for one in places for p in one))
    label = max(len(x) for x in labels) + 2
    cells = [[cell(one[p]) if p in one else "-" for p in every] for one in places]
    width = max(len(c) for row in cells for c in [*row, *every]) + 2
    lines = [title, "".ljust(label) + "".join(p.rjust(width) for p in every)]
    lines += [name.ljust(label) + "".join(c.rjust(width) for c in row) for name, row in zip(labels, cells)]
    return "\n".join(lines)


def places_over_seeds(runs: pd.DataFrame) -> list[str]:
    """Settings replicated over seeds (`replicate`, whose rows carry each run's `host NAME iops`,
    `host NAME gavg_ms` and `site SITE …` columns: `host_site_figures.place_columns`): a row per
    setting, a column per host, then per site where the hosts are at several, each cell its
    CMDS/s and GAVG (ms) as mean ± 95% interval; nothing for one host."""
    from pathlab.study.stats import aggregate

    out = []
    for kind, title in (("host", "per host (esxtop: CMDS/s, GAVG ms)"),
                        ("site", "per site (its hosts' esxtop together: CMDS/s, GAVG ms)")):
        names = [c[len(kind) + 1:-len(" iops")] for c in runs.columns if c.startswith(f"{kind} ") and c.endswith(" iops")]
        if not names:
            continue
        columns = [f"{kind} {n} {key}" for n in names for key in ("iops", "gavg_ms")]
        agg = aggregate(runs, ["setting"], columns)
        places = [{n: {key: row[f"{kind} {n} {column}_{stat}"] for key, column, stat in PLACE_CELL} for n in names}
                  for _, row in agg.iterrows()]
        out += ["", settings_by_place([str(s) for s in agg["setting"]], places,
                                      f"{title}, mean ± 95% interval (Student t)", _over_seeds)]
    return out


#: A replicated place's cell figures: (key in the cell, the run's column, the aggregate's statistic).
PLACE_CELL = (("cmds_s", "iops", "mean"), ("cmds_s_ci", "iops", "ci95"), ("gavg_ms", "gavg_ms", "mean"),
              ("gavg_ms_ci", "gavg_ms", "ci95"))


def _over_seeds(f: dict[str, float]) -> str:
    return f"{f['cmds_s']:.1f} ± {f['cmds_s_ci']:.1f} {f['gavg_ms']:.3f} ± {f['gavg_ms_ci']:.3f}"


def place_entries(run: dict[str, Any], runs: list[dict[str, Any]]) -> dict[str, Any]:
    """A run's `hosts` (where any of `runs` has several) and `sites` (where any has several) as
    `compare --format json` gives them beside its summary."""
    return ({"hosts": per_host(run)} if any(len(o["hosts"]) > 1 for o in runs) else {}) | \
        ({"sites": per_site(run)} if any(per_site(o) for o in runs) else {})
