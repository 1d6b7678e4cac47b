"""A pilot run's rows as the passes that read it take them (`alike.classes`, `run_length.choose`,
`fit_level.units`; the cluster's own pilot's candidates), and grouped once for them.

The passes read a few fields of the run's three large tables (`ROWS`): asked of the run
(`run_batch(..., rows=ROWS)`), the others are never made into Python objects (32 hosts × 500
devices × 8 paths: 128,000 path rows of 28 fields, of which the passes read 10). And each pass
went over the 128,000 path rows for its own grouping by device: `grouped` goes once a run, kept
with the run for the passes after it."""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any

from pathlab.api import Result

#: Per path, what places it in the topology (the path's name and device aside): `alike.classes`.
PATH_PLACE = ("host", "adapter", "target", "state", "alua", "tpg_id", "one_way_us", "connected")

#: What the pilot's passes read of each row of the run's large tables (the others whole).
ROWS: dict[str, tuple[str, ...]] = {
    # Where each path is (`alike`), its device and its name (`fit_level.units` reads a working path's target by it).
    "paths": ("name", "device", *PATH_PLACE),
    # Each device's key (`device_keys`), its place (`alike`), its paths working (`run_length`,
    # `fit_level`), its rate and response (`host_figures`, the capture fit's `_checked`).
    "devices": ("name", "host", "working_paths", "dqlen", "nvme_head", "cmds_s", "gavg_ms"),
    # Each device's rate over the pilot (`run_length._device_rates`).
    "device_intervals": ("name", "cmds_s"),
}

_owner = itemgetter("host", "device")


@dataclass(frozen=True)
class Grouped:
    """A run's devices by key (`keys`, in the run's order; `key_of` from host and name) and each
    device's path rows, in the run's order, by its host and name (`paths`)."""

    keys: list[str]
    key_of: dict[tuple[str, str], str]
    paths: dict[tuple[str, str], list[dict[str, Any]]]


_grouped: weakref.WeakKeyDictionary[Result, Grouped] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def grouped(run: Result) -> Grouped:
    """`run`'s rows grouped (once a run: the result holds them until it is let go)."""
    with _lock:
        found = _grouped.get(run)
    if found is None:
        found = _group(run.data)
        with _lock:
            _grouped[run] = found
    return found


def device_keys(data: dict[str, Any]) -> list[str]:
    """Each device of a run (its rows in order) by the name its interval rows carry: its own name,
    or `HOST/NAME` where several hosts have the name (a LUN of a cluster)."""
    hosts_of: dict[str, set[str]] = {}
    for d in data["devices"]:
        hosts_of.setdefault(d["name"], set()).add(d["host"])
    return [d["name"] if len(hosts_of[d["name"]]) == 1 else f"{d['host']}/{d['name']}" for d in data["devices"]]


def _group(data: dict[str, Any]) -> Grouped:
    keys = device_keys(data)
    key_of = {(d["host"], d["name"]): key for key, d in zip(keys, data["devices"], strict=True)}
    # A device's paths follow each other in the run's rows: grouped by runs of one owner, or, where an
    # owner's rows are apart, one row at a time (the same lists, in the same order).
    runs = [(owner, list(rows)) for owner, rows in groupby(data["paths"], _owner)]
    paths = dict(runs)
    if len(paths) < len(runs):
        paths = {}
        for p in data["paths"]:
            paths.setdefault(_owner(p), []).append(p)
    return Grouped(keys, key_of, paths)
