"""A cluster's `[run]` interval, sized so its rows of interval figures stay within the engine's
limit (`MAX_INTERVAL_ROWS`, 2,000,000: about 400 MB). A row is kept per interval for the host's
summary and every device, path and adapter (`ScenarioHandle.interval_objects`); 32 hosts of 500
devices and 8 paths each are 144,065 objects, which the 5 s interval every import writes would
give 14 rows each. The rule: the interval the hosts' imports wrote, else the shortest whole number
of seconds that keeps the rows within the limit. Only the figures over time get coarser: what is
simulated, the summary and each device's totals are the same at any interval, and advise's
decision reads those."""

from __future__ import annotations

from collections.abc import Sequence

from pathlab import _core
from pathlab.importer.host_tables import HostTables
from pathlab.importer.provenance import Derived

NS = 1_000_000_000


def cluster_objects(hosts: Sequence[int]) -> int:
    """The cluster's objects with rows of interval figures: one summary, and each host's devices,
    paths and adapters (`hosts`: each host's own scenario's count, less its summary): a host
    keeps them in a cluster."""
    return 1 + sum(objects - 1 for objects in hosts)


def intervals(warmup_ns: int, duration_ns: int, interval_ns: int) -> int:
    """The rows each object gets: boundaries every interval up to the warm-up, then from it to the
    end (as the engine counts them, `limits::check`)."""
    return -(-warmup_ns // interval_ns) + -(-duration_ns // interval_ns)


def size_interval(tables: HostTables, objects: int) -> None:
    """Sets the `[run]` interval of `tables` by the rule (left as it is where it fits), said in
    its comment."""
    run = next(t for t in tables.tables if t.kind == "run")
    warmup, duration, interval = (_core.parse_duration_ns(str(run.get(k))) for k in ("warmup", "duration", "interval"))
    if intervals(warmup, duration, interval) * objects <= _core.MAX_INTERVAL_ROWS:
        return
    written = run.get("interval")
    seconds = max(1, -(-interval // NS))
    # Past the run's length an object has its fewest rows (one or two): the engine refuses more objects.
    while intervals(warmup, duration, seconds * NS) * objects > _core.MAX_INTERVAL_ROWS and seconds * NS < warmup + duration:
        seconds += 1
    run.set("interval", f"{seconds}s", Derived(
        f"derived: the shortest whole seconds that keep {objects:,} objects' rows of interval figures within "
        f"{_core.MAX_INTERVAL_ROWS:,} (the hosts' {written} would give {intervals(warmup, duration, interval) * objects:,})"))
