"""A cluster's `[run]` interval (issue 33 item 4): the hosts' own unless the cluster's rows of
interval figures would pass the engine's limit, then the shortest whole seconds that fit; the
objects counted from each host's own scenario are those the engine counts on the cluster."""

from __future__ import annotations

import warnings

import pathlab
from pathlab import _core
from pathlab.importer.host_tables import HostTables, Table
from pathlab.importer.provenance import Derived, Own
from pathlab.importer.run_interval import cluster_objects, intervals, size_interval

S = 1_000_000_000
#: How each host's import gives its `[run]` (the run's length is the scenario's own).
HOSTS_RUN = Own("the run's length")


def _run(interval: str = "5s") -> HostTables:
    tables = HostTables()
    run = tables.table("run")
    run.key("duration", "60s", HOSTS_RUN)
    run.key("warmup", "10s", HOSTS_RUN)
    run.key("interval", interval, HOSTS_RUN)
    return tables


def _the_run(tables: HostTables) -> Table:
    return next(t for t in tables.tables if t.kind == "run")


def test_the_interval_is_the_hosts_own_where_the_rows_fit() -> None:
    tables = _run()
    size_interval(tables, 142_857)  # 14 intervals x 142,857 = 1,999,998 rows
    assert _the_run(tables).get("interval") == "5s" and _the_run(tables).source("interval") is HOSTS_RUN


def test_32_hosts_of_500_devices_and_8_paths_take_6_s() -> None:
    # 144,065 objects: 5 s gives 2 + 12 = 14 intervals (2,016,910 rows); 6 s gives 2 + 10 = 12 (1,728,780).
    assert intervals(10 * S, 60 * S, 5 * S) == 14 and intervals(10 * S, 60 * S, 6 * S) == 12
    tables = _run()
    size_interval(tables, 144_065)
    run = _the_run(tables)
    assert run.get("interval") == "6s"
    assert run.source("interval") == Derived(
        "derived: the shortest whole seconds that keep 144,065 objects' rows of interval figures within 2,000,000 "
        "(the hosts' 5s would give 2,016,910)")
    assert "interval = \"6s\"  # derived: the shortest whole seconds" in tables.render()


def test_past_the_runs_length_the_engine_says_why() -> None:
    # A million objects and more cannot fit even at one interval each side of the warm-up: the
    # rule stops at the run's length and the engine's own refusal names the limit.
    tables = _run()
    size_interval(tables, _core.MAX_INTERVAL_ROWS)
    assert _the_run(tables).get("interval") == "70s"


def test_the_hosts_objects_are_the_clusters_as_the_engine_counts_them() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cluster = pathlab.import_cluster(["vmax-cluster-esx-a", "vmax-cluster-esx-b", "vmax-cluster-esx-c"])
    hosts = [h.scenario.handle.interval_objects for h in cluster.hosts.values()]
    assert cluster_objects(hosts) == cluster.scenario.handle.interval_objects
    # esx-a and esx-b: 2 LUNs x 8 paths, 2 adapters; esx-c: 2 LUNs x 2 paths, 1 adapter; one summary.
    assert [objects - 1 for objects in hosts] == [20, 20, 7]
    assert cluster_objects(hosts) == 48
