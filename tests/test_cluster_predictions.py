"""Clusters on the VMAX model against the predictions written before they ran
(docs/design/2026-11-28-cluster-predictions.md; issue 33 item 5). Each tolerance is the theory's:
a saturated station's capacity (utilisation law), Little's law for the closed loop, symmetry
between hosts; where a run parted from the prediction the page says why, and the test asserts
what the explanation implies. Short runs (a few hundred thousand to two million I/Os each)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from pathlab.api import Scenario

DATA = Path(__file__).parent / "data" / "cluster"
SCENARIOS = Path(__file__).parent.parent / "python" / "pathlab" / "scenarios"

# C1's components (scenarios/c1-vmax-1lun.toml): the (port, LUN) FIFO's 26.5 us and the port's 16.6 us.
LUN_AT_PORT = 1 / 26.5e-6  # 37,736 I/O/s
PORT = 1 / 16.6e-6  # 60,241 I/O/s


def _per_host(result) -> dict[str, float]:
    """Each host's I/O rate: the sum of its devices' commands a second."""
    rates: dict[str, float] = defaultdict(float)
    for d in result.device_rows:
        rates[d.host] += d.cmds_s
    return dict(rates)


def test_two_hosts_at_iops_1_share_the_luns_four_fifos() -> None:
    r = Scenario.load(DATA / "c1-two-hosts.toml").with_variant("iops1").run()
    total = r.summary.iops
    # Prediction: the four shared (port, LUN) FIFOs saturated (32 commands each, 2.5 times the
    # knee), within 2% under their 150,943; one host alone ran at 148,400.
    assert 0.98 * 4 * LUN_AT_PORT <= total <= 1.01 * 4 * LUN_AT_PORT, total
    hosts = _per_host(r)
    assert sorted(hosts) == ["esx-a", "esx-b"]
    assert hosts["esx-a"] == pytest.approx(hosts["esx-b"], rel=0.02)
    # Little's law: 2 x 128 outstanding at X, about 1.70 ms (one host alone: 0.86 ms).
    assert r.summary.resp_ms == pytest.approx(256 / total * 1000, rel=0.02)


def test_two_hosts_at_iops_1000_part_onto_ports_of_their_own() -> None:
    # Predicted: lock step on one port from the common start (both hosts' rotations start on the
    # path the NAA hashes to), drifting apart only by BUSY noise. The run: lock step for about
    # 0.1 s, then each host on a port of its own: at each switch the leading host's new port is
    # empty while the trailing one still queues behind the leader's old commands, so the leader
    # pulls ahead until they no longer meet (the page's "What the runs gave"). So two FIFOs'
    # rate, up to 64 / 1000 more from the overlap at each switch, each host C1 alone.
    r = Scenario.load(DATA / "c1-two-hosts.toml").with_variant("iops1000").run()
    total = r.summary.iops
    assert 0.97 * 2 * LUN_AT_PORT <= total <= 1.064 * 2 * LUN_AT_PORT, total
    hosts = _per_host(r)
    assert hosts["esx-a"] == pytest.approx(hosts["esx-b"], rel=0.05)
    assert r.summary.resp_ms == pytest.approx(256 / total * 1000, rel=0.02)
    # The start is the lock step predicted: the first 0.1 s run at one FIFO's rate.
    start = Scenario.load(DATA / "c1-two-hosts.toml").with_variant("iops1000")
    first = start.with_set({"run.duration": "0.1s", "run.warmup": "0s", "run.interval": "0.1s"}).run()
    assert first.summary.iops <= 1.1 * LUN_AT_PORT, first.summary.iops


def test_eight_hosts_on_c3s_luns_are_held_by_the_four_ports() -> None:
    r = Scenario.load(DATA / "c3-eight-hosts.toml").run()
    total = r.summary.iops
    # The four ports saturated (240,964; the 16 LUN FIFOs could take 603,774): within 2% under.
    assert 0.98 * 4 * PORT <= total <= 1.005 * 4 * PORT, total
    hosts = _per_host(r)
    assert len(hosts) == 8
    mean = total / 8
    assert all(rate == pytest.approx(mean, rel=0.05) for rate in hosts.values()), hosts
    # Little's law over 8 x 4 x 128 outstanding: about 17.0 ms.
    assert r.summary.resp_ms == pytest.approx(4096 / total * 1000, rel=0.02)
    # BUSY at w of about 380 a port refuses about 1.9% of commands: more than 1% wait a 100 ms
    # retry (p99 inside one), and the stddev is near sqrt(0.019) x 100 ms = 14 ms.
    assert 100 <= r.summary.p99_ms <= 120, r.summary.p99_ms
    assert 10 <= r.summary.resp_stddev_ms <= 18, r.summary.resp_stddev_ms


METRO = SCENARIOS / "srdf-metro-cluster-50km.toml"
SHORT = {"run.duration": "10s", "run.warmup": "2s"}


def _metro(variant: str):
    return Scenario.load(METRO).with_variant(variant).with_set(SHORT).run()


def _local_share(result, near: dict[str, str]) -> dict[str, float]:
    """Each host's share of commands sent to the array at its site (`near`: host to array)."""
    local: dict[str, float] = defaultdict(float)
    every: dict[str, float] = defaultdict(float)
    for p in result.path_rows:
        every[p.host] += p.cmds_s
        local[p.host] += p.cmds_s if p.target.startswith(near[p.host] + "/") else 0.0
    return {h: local[h] / every[h] for h in every}


METRO_SITES = {"esx-a1": "r1", "esx-a2": "r1", "esx-b1": "r2", "esx-b2": "r2"}


def test_metro_cluster_round_robin_within_its_predicted_ranges_and_latency_stays_local() -> None:
    rates = {v: _per_host(_metro(v)) for v in ("iops1", "iops1000", "latency")}
    # Predicted 2,600-2,950 a host at iops=1 and 2,700-3,100 at iops=1000 (the runs: 2,786-2,827
    # and 2,784-2,822). The predicted iops=1000 >= iops=1 is a tie: with four hosts both arrays
    # write the hot tracks all the time in either setting, so the two are within 3% on each host.
    for v, low, high in (("iops1", 2_600, 2_950), ("iops1000", 2_700, 3_100)):
        assert all(low <= rate <= high for rate in rates[v].values()), (v, rates[v])
    # Predicted: the sites within 5% of each other in every setting (the layout is symmetric).
    # Held at iops=1 and iops=1000; at latency r2's site runs 2-9% under r1's (the next test).
    for v in ("iops1", "iops1000"):
        at_r1 = rates[v]["esx-a1"] + rates[v]["esx-a2"]
        assert rates[v]["esx-b1"] + rates[v]["esx-b2"] == pytest.approx(at_r1, rel=0.05), (v, rates[v])
    for host in rates["latency"]:
        assert rates["iops1000"][host] == pytest.approx(rates["iops1"][host], rel=0.03), host
        # Latency stays the best setting on every host.
        assert rates["latency"][host] > 1.2 * rates["iops1000"][host], host
    latency = _metro("latency")
    assert all(share > 0.95 for share in _local_share(latency, METRO_SITES).values())


def test_metro_cluster_hosts_at_both_sites_contend_for_the_same_tracks() -> None:
    # With latency, r1's hosts write at r1 and r2's at r2, so the hot tracks of the one LUN move
    # back and forth in both directions (predicted). The sites' writes arrive interleaved at
    # random, so the last writer of a track is the other site about half the time: about half
    # the writes move a track (writes queued on one side share a grant: a little under half).
    r = _metro("latency")
    moves = r.data["replication"][0]["ownership_moves"]
    writes = r.data["replication"][0]["writes"]
    assert moves[0] > moves[1] / 3, moves
    assert 0.40 <= sum(moves) / sum(writes) <= 0.55, (moves, writes)
    # Not as predicted (3,900-4,400 a host, 10-20% under one host alone's 4,812): the prediction
    # had a fifth to two fifths of writes moving a track. The run: 3,535-3,764, 22-27% under.
    hosts = _per_host(r)
    assert all(0.70 * 4_812 < rate < 0.81 * 4_812 for rate in hosts.values()), hosts
    # Every track starts owned by r1 (the contention's side 0): r2's hosts also take over each
    # track at its first write there, which r1's never do, so they run 2-9% under r1's.
    for b in ("esx-b1", "esx-b2"):
        for a in ("esx-a1", "esx-a2"):
            assert 0.91 * hosts[a] < hosts[b] < 0.98 * hosts[a], hosts


ACTIVECLUSTER = SCENARIOS / "activecluster-uniform-cluster.toml"


def _activecluster(variant: str):
    return Scenario.load(ACTIVECLUSTER).with_variant(variant).with_set(SHORT).run()


def test_activecluster_pair_each_host_gets_c2s_local_rate_where_it_stays_local() -> None:
    # 32 / 2.371 ms = 13,500 per host (C2's AO-only rate), on both hosts, for each host's own
    # array preferred and for the latency sub-type (every I/O local).
    for variant in ("preferred_array", "latency"):
        r = _activecluster(variant)
        assert all(rate == pytest.approx(13_500, rel=0.02) for rate in _per_host(r).values()), variant
        shares = _local_share(r, {"esx-a": "fa-local", "esx-b": "fa-remote"})
        assert all(share > 0.99 for share in shares.values()), (variant, shares)


def test_activecluster_pair_round_robin_over_every_path_lies_between_its_two_bounds() -> None:
    # Predicted 8,800-9,600 a host (the run: 8,792, just under; the page says why). What the
    # theory bounds: a rotation blind to what is pending gives 32 / mean path time = 32 /
    # ((2.371 + 6.17) / 2 ms) = 7,493; the same number in flight on every path (1.6 of 32) gives
    # 10 x 1.6 / 2.371 ms + 10 x 1.6 / 6.17 ms = 9,341. Both hosts alike within 3%, and Little's
    # law on each: 32 outstanding at its rate.
    r = _activecluster("rr_all_paths")
    hosts = _per_host(r)
    assert all(7_493 < rate < 9_341 for rate in hosts.values()), hosts
    assert hosts["esx-a"] == pytest.approx(hosts["esx-b"], rel=0.03)
    assert r.summary.resp_ms == pytest.approx(64 / r.summary.iops * 1000, rel=0.02)



def test_compare_shows_each_hosts_figures_for_a_cluster_and_none_for_one_host() -> None:
    from conftest import pathlab

    short = ("--set", "run.duration=0.5s", "--set", "run.warmup=0.2s")
    done = pathlab("compare", str(DATA / "c1-two-hosts.toml"), *short, "--format", "json")
    assert done.returncode == 0, done.stderr
    for v in json.loads(done.stdout)["variants"]:
        hosts = v["hosts"]
        assert sorted(hosts) == ["esx-a", "esx-b"]
        # Both hosts' devices together are every command of the run (esxtop's CMDS/s).
        assert sum(h["cmds_s"] for h in hosts.values()) == pytest.approx(v["summary"]["iops"], rel=0.01)
        assert all(h["gavg_ms"] > 0.3 for h in hosts.values())
    table = pathlab("compare", str(DATA / "c1-two-hosts.toml"), *short).stdout
    assert "per host (esxtop)" in table and "esx-a CMDS/s" in table and "esx-b GAVG" in table
    one = pathlab("compare", str(SCENARIOS / "c1-vmax-1lun.toml"), *short)
    assert "per host" not in one.stdout and '"hosts"' not in pathlab(
        "compare", str(SCENARIOS / "c1-vmax-1lun.toml"), *short, "--format", "json").stdout
