"""A cluster's run length counts its policy's rotations where the devices going round together
complete them (`run_length.rotations`: a host's devices on one array through the same ports, as
the capture fit's `fit_level` counts them), not on each device alone: checked here against the
figures of runs as long as each device's own rotations ask, on a small generated cluster.

The cluster is `bench --advise`'s (4 hosts on 50 LUNs of one array, 8 paths, one I/O outstanding
on each device), ten times slower: ports of 200 µs in place of 20, round robin at iops=100 in
place of 1,000. Its turns and queues are those of the bench's 4 x 50 x 8 on a time ten times as
long, at a tenth of the I/Os to simulate (a 20 s run is 400,000 I/Os)."""

from __future__ import annotations

import pytest

from pathlab.advisor import alike, run_length
from pathlab.advisor.candidates import candidates
from pathlab.advisor.decide import decide
from pathlab.advisor.rank import rank_together
from pathlab.api import Scenario
from pathlab.large_host import cluster_text

SLOW = {"arrays.0.service.fixed": "200us", "policy.iops": 100}


@pytest.fixture(scope="module")
def cluster() -> Scenario:
    return Scenario.from_text(cluster_text(4, 50, 8), set=SLOW)


def test_the_rotations_are_counted_per_port_group_where_each_device_alone_needs_more_than_the_full_length(
        cluster: Scenario) -> None:
    # Each device: about 98 I/O/s (the ports' 20,000 shared by 200 devices), 8 paths, 100 I/Os a turn:
    # its own 20 rotations take 8 x 100 x 20 / 98 = 163 s, past the full 20 s. A host's 50 devices on
    # the same four ports go round together: 20 rotations in 163 / 50 = 3.3 s, and the ports saturated
    # (100% busy) leave each device 100 I/Os per path of its own: 8 x 100 / 98 = 8.2 s.
    pilot = cluster.with_set(run_length.pilot_length()).run(path_intervals=False)
    classes = alike.classes(cluster, pilot)
    assert len(run_length.saturated(pilot)) == 200
    rates = run_length._device_rates(pilot)
    level, need = run_length.rotations(pilot, rates, dict.fromkeys(rates, 100.0), dict.fromkeys(rates, 8), 20.0)
    assert level == "port group" and 3.0 < need < 3.6
    alone = run_length.rotations(pilot, rates, dict.fromkeys(rates, 100.0), dict.fromkeys(rates, 8), 200.0)
    # Where each device's own rotations fit the full length, they are counted: the slowest device's in the pilot.
    assert alone[0] == "device" and 160 < alone[1] < 200
    chosen = run_length.choose(pilot, 20.0, 5.0, classes, [])
    assert 8.0 <= chosen.duration_s <= 9.0 and "per port group" in chosen.reason


def test_a_clusters_length_counts_each_hosts_ios_where_one_host_counts_each_devices(cluster: Scenario) -> None:
    # The cluster's ranking reads each host's rate and the p99 of its own I/Os: each host needs
    # HOST_IOS = 20,000 I/Os, at about 4,800 I/O/s a host (the ports' 20,000 shared by 4) 4.2 s,
    # and the devices at the saturated ports are counted over their host's 50 (one host's rule,
    # each device's own 800 I/Os, asks 8.2 s; the port groups' rotations 3.3 s).
    pilot = cluster.with_set(run_length.pilot_length()).run(path_intervals=False)
    classes = alike.classes(cluster, pilot)
    hosts = run_length.choose(pilot, 20.0, 5.0, classes, [], per_host=True)
    assert (hosts.duration_s, hosts.warmup_s) == (4.2, 1.05)
    assert "counted over 4 classes of alike devices, 20,000 I/Os of each host for its p99" in hosts.reason
    assert run_length.choose(pilot, 20.0, 5.0, classes, []).duration_s == 8.5


def test_the_hosts_length_ranks_as_the_full_length_does(cluster: Scenario) -> None:
    """The setting in force and round robin iops=1 over 3 seeds, at the length the hosts' own
    counts ask (4.2 s: `per_host`) and at the full 20 s each device's own rotations would ask: each
    figure of each candidate, the cluster's and each host's, lies within the full-length runs' 95%
    interval, and the decision is the same (session 18: the cluster's rate 19,521 against 19,525
    I/O/s, each host's within 5%, the worst host's p99 21.2 against 22.3 ms; iops=1 19,722 against
    19,737 I/O/s, p99 30.0 against 31.9 ms)."""
    in_force = cluster.run(path_intervals=False)
    cands = [c for c in candidates(cluster, in_force) if c.label in ("the setting in force", "round robin, iops=1")]
    short = {"run.duration": "4200000us", "run.warmup": "1050000us"}
    full = {"run.duration": "20000000us", "run.warmup": "5000000us"}
    (grouped,) = rank_together([cluster], cands, 3, [[short] * 2], per_host=True)
    (each,) = rank_together([cluster], cands, 3, [[full] * 2], per_host=True)
    for g, e in zip(grouped, each, strict=True):
        assert g.seeds == e.seeds == 3
        for figure in ("iops", "p99_ms"):
            (mean, _), (reference, half) = g.figures[figure], e.figures[figure]
            assert abs(mean - reference) <= half, (g.candidate.label, figure, mean, reference, half)
        for host, figures in g.hosts.items():
            (mean, _), (reference, half) = figures["iops"], e.hosts[host]["iops"]
            assert abs(mean - reference) <= max(half, 0.05 * reference), (g.candidate.label, host, mean, reference)
    assert abs(grouped[0].figures["iops"][0] / each[0].figures["iops"][0] - 1) < 0.02
    for objective in ("balanced", "throughput", "latency"):
        assert decide(grouped, objective).choice is None and decide(each, objective).choice is None
