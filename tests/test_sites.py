"""Figures per host and per site on the shipped cluster scenarios (issue 33 item 3): a host's
site comes from the scenario (the arrays it reaches within 50 µs one way), so the uniform
SRDF/Metro cluster's hosts next to r1 are one site and those next to r2 another, and `compare`
(text, JSON, its report) and `sweep` (its tables) give each site's hosts together beside each
host. Runs of 0.3 s: the figures asserted are sums of each other, not the model's."""

from __future__ import annotations

import pytest

import pathlab
from conftest import pathlab as command
from conftest import pathlab_json
from pathlab.loading import load
from pathlab.sites import host_sites, sites
from pathlab.study.stats import half_width

METRO = "srdf-metro-cluster-50km"
SHORT = ("--set", "run.duration=0.3s", "--set", "run.warmup=0.1s")


def _run(name: str, *sets: str) -> dict:
    return load(name).with_set({"run.duration": "0.1s", "run.warmup": "0.05s", **dict(s.split("=") for s in sets)}).run(
        path_intervals=False).data


def test_a_uniform_metro_clusters_hosts_are_at_their_own_arrays_site() -> None:
    data = _run(METRO)
    assert host_sites(data) == {"esx-a1": "at r1", "esx-a2": "at r1", "esx-b1": "at r2", "esx-b2": "at r2"}
    assert sites(data) == {"at r1": ["esx-a1", "esx-a2"], "at r2": ["esx-b1", "esx-b2"]}
    # The cross-connect brought into the room: site A's hosts are at both arrays, still a site of their own.
    assert sites(_run(METRO, "fabric.1.latency=2us"))["at r1, r2"] == ["esx-a1", "esx-a2"]
    # Hosts in one room (the VMAX3 rig): one site, nothing told apart.
    assert sites(_run("vmax3-shared-director")) == {}


def test_compare_gives_each_sites_hosts_together_in_text_json_and_report(tmp_path) -> None:
    document = pathlab_json("compare", METRO, *SHORT)
    for variant in document["variants"]:
        hosts, at = variant["hosts"], variant["sites"]
        assert list(at) == ["at r1", "at r2"]
        for figures in at.values():
            rate = sum(hosts[h]["cmds_s"] for h in figures["hosts"])
            assert figures["cmds_s"] == rate
            assert figures["gavg_ms"] == pytest.approx(sum(hosts[h]["cmds_s"] * hosts[h]["gavg_ms"]
                                                           for h in figures["hosts"]) / rate)
    report = tmp_path / "compare.html"
    done = command("compare", METRO, *SHORT, "--html", str(report))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = lines.index("per site (its hosts' esxtop together)")
    assert [line.split("  ")[0] for line in lines[at + 1:at + 5]] == [
        "at r1 (esx-a1, esx-a2) CMDS/s", "at r1 (esx-a1, esx-a2) GAVG", "at r2 (esx-b1, esx-b2) CMDS/s",
        "at r2 (esx-b1, esx-b2) GAVG"]
    first = document["variants"][0]["sites"]["at r1"]["cmds_s"]
    assert lines[at + 1].split()[-3] == f"{first:.1f}"  # the first variant's column
    page = report.read_text()
    assert "Per host and per site" in page and "at r2 (esx-b1, esx-b2) GAVG" in page


def test_a_sweep_keeps_each_hosts_and_each_sites_figures() -> None:
    swept = pathlab.sweep(METRO, {"fabric.1.latency": ["2us", "252us"]}, variants=["latency"], workers=1,
                          set={"run.duration": "0.3s", "run.warmup": "0.1s"})
    near, far = swept.runs.to_dict(orient="records")
    # 252 µs: two sites; the cross-connect at 2 µs puts site A's hosts at both arrays.
    assert far["site at r1 iops"] == far["host esx-a1 iops"] + far["host esx-a2 iops"]
    assert far["site at r2 iops"] == far["host esx-b1 iops"] + far["host esx-b2 iops"]
    assert near["site at r1, r2 iops"] == near["host esx-a1 iops"] + near["host esx-a2 iops"]
    points = swept.points.set_index("fabric.1.latency")
    assert points.loc["252us", "site at r1 iops_mean"] == far["site at r1 iops"]
    assert "site at r2 iops_mean" in swept.table.columns


def test_compare_over_seeds_gives_each_hosts_and_each_sites_figures_per_setting() -> None:
    compared = pathlab.compare(METRO, seeds=2, set={"run.duration": "0.3s", "run.warmup": "0.1s"})
    runs = compared.replicated
    assert runs is not None
    for row in runs.to_dict(orient="records"):  # each run: its sites' hosts together
        assert row["site at r1 iops"] == row["host esx-a1 iops"] + row["host esx-a2 iops"]
    from pathlab.output.comparison import output_of

    lines = output_of(compared).table().splitlines()  # as `compare --seeds` prints it
    latency = runs[runs["setting"] == "latency"]
    for kind, places, column in (("host", ["esx-a1", "esx-a2", "esx-b1", "esx-b2"], "host esx-b2"),
                                 ("site", ["at r1", "at r2"], "site at r2")):
        head = next(i for i, line in enumerate(lines) if line.startswith(f"per {kind} ") and "mean ± 95%" in line)
        assert lines[head + 1].split() == [w for p in places for w in p.split()]
        row = next(line for line in lines[head:] if line.startswith("latency"))
        iops, gavg = latency[f"{column} iops"], latency[f"{column} gavg_ms"]
        # The last place's cell: CMDS/s and GAVG, each as mean ± half-width over the two seeds.
        assert row.endswith(f"{iops.mean():.1f} ± {half_width(iops.tolist()):.1f} "
                            f"{gavg.mean():.3f} ± {half_width(gavg.tolist()):.3f}")


def test_a_lineup_gives_each_hosts_and_each_sites_figures_per_policy() -> None:
    from pathlab.output.comparison import output_of

    shown = output_of(pathlab.compare(METRO, lineup=True, set={"run.duration": "0.3s", "run.warmup": "0.1s"}))
    (one,) = shown.document()  # as `compare --lineup --format json` prints it
    for policy in one["policies"]:
        hosts, at = policy["hosts"], policy["sites"]
        assert list(hosts) == ["esx-a1", "esx-a2", "esx-b1", "esx-b2"]
        # Every host's commands are the run's: esxtop's CMDS/s together is the summary's rate (its
        # completions: the commands still in flight at the end apart).
        assert sum(h["cmds_s"] for h in hosts.values()) == pytest.approx(policy["summary"]["iops"], rel=0.01)
        assert at["at r1"]["hosts"] == ["esx-a1", "esx-a2"] and at["at r2"]["hosts"] == ["esx-b1", "esx-b2"]
        assert at["at r2"]["cmds_s"] == hosts["esx-b1"]["cmds_s"] + hosts["esx-b2"]["cmds_s"]
    lines = shown.table().splitlines()
    head = lines.index("per host (esxtop: CMDS/s, GAVG ms)")
    assert lines[head + 1].split() == ["esx-a1", "esx-a2", "esx-b1", "esx-b2"]
    latency = next(p for p in one["policies"] if p["policy"] == "VMW_PSP_RR latency")["hosts"]["esx-b2"]
    row = next(line for line in lines[head:] if line.startswith("VMW_PSP_RR latency"))
    assert row.split()[-2:] == [f"{latency['cmds_s']:.1f}", f"{latency['gavg_ms']:.3f}"]
    assert any(line.startswith("per site (its hosts' esxtop together") and "at r2 (esx-b1, esx-b2)" in line
               for line in lines)
    page = shown.html({})
    assert "Per host and per site" in page and "per host (esxtop: CMDS/s, GAVG ms)" in page
    # One host: the lineup's table as before, nothing per host.
    single = output_of(pathlab.compare("c1-vmax-1lun", lineup=True, set={"run.duration": "0.1s", "run.warmup": "0.05s"}))
    assert "per host" not in single.table() and "hosts" not in single.document()[0]["policies"][0]
