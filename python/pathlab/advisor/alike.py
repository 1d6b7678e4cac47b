"""Devices alike in everything the simulation gives them: the same resolved policy, stack, array
and claim (`pathlab.devices.Device` without its name and runtime status), the same device table
but for its name and LUN, the same workloads and replication groups driving it (as the engine
resolved the scenario: `ScenarioHandle.device_settings`), and paths in the same places (adapter,
array port, state, ALUA state, target port group, fabric distance, in the same order). Such
devices are exchangeable: a host-wide figure gains as much from an I/O on one of them as on
another, so the run length can count their I/Os together (`run_length.choose`)."""

from __future__ import annotations

import dataclasses
from operator import itemgetter
from typing import Any

from pathlab.api import Result, Scenario
from pathlab.devices import Device

#: Per path, what places it in the topology (the path's name and device aside).
PATH_PLACE = ("host", "adapter", "target", "state", "alua", "tpg_id", "one_way_us", "connected")
#: A path row's place, as a tuple of PATH_PLACE's values (one call a row: 128,000 rows a pilot on 32 × 500 × 8).
_place = itemgetter(*PATH_PLACE)
#: A device's fields but its name and its status (of which the policy's kind is kept).
_SHARED = tuple(f.name for f in dataclasses.fields(Device) if f.name not in ("name", "status"))


def classes(scenario: Scenario, run: Result) -> list[list[str]]:
    """The devices of a run of `scenario` in classes of alike devices (`device_keys`: names, or
    `HOST/NAME` for a LUN several hosts have; in the run's order; classes in the order of their
    first device)."""
    keys = device_keys(run.data)
    paths: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for p in run.data["paths"]:
        paths.setdefault((p["host"], p["device"]), []).append(_place(p))
    found: dict[tuple[Any, ...], list[str]] = {}
    # The run's devices, its setups and the scenario's device settings are in the scenario's order.
    for key, setup, row, (_, table, driven_by) in zip(keys, run.setups, run.data["devices"],
                                                      scenario.handle.device_settings, strict=True):
        alike = (_without_identity(setup), (table, tuple(driven_by)), tuple(paths.get((row["host"], row["name"]), [])),
                 row["dqlen"], row["nvme_head"])
        found.setdefault(alike, []).append(key)
    return list(found.values())


def device_keys(data: dict[str, Any]) -> list[str]:
    """Each device of a run (its rows in order) by the name its interval rows carry: its own name,
    or `HOST/NAME` where several hosts have the name (a LUN of a cluster)."""
    hosts_of: dict[str, set[str]] = {}
    for d in data["devices"]:
        hosts_of.setdefault(d["name"], set()).add(d["host"])
    return [d["name"] if len(hosts_of[d["name"]]) == 1 else f"{d['host']}/{d['name']}" for d in data["devices"]]


def _without_identity(setup: Device) -> tuple[str, str]:
    """The resolved setup but for the device's name and what its policy shows of its own state
    (the path it is on, its I/Os pending): the policy's kind stays. As text: the policy's
    parameters are a mapping, and its text is the same for the same parameters in the same order.
    (The fields' text without a copy of the device made: 16,000 devices a pilot on 32 × 500 × 8.)"""
    return repr(tuple(getattr(setup, name) for name in _SHARED)), setup.status.kind
