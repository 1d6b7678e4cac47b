"""Devices alike in everything the simulation gives them: the same resolved policy, stack, array
and claim (`pathlab.devices.Device` without its name and runtime status), the same device table
but for its name and LUN, the same workloads and replication groups driving it (as the engine
resolved the scenario: `ScenarioHandle.device_settings`), and paths in the same places (adapter,
array port, state, ALUA state, target port group, fabric distance, in the same order). Such
devices are exchangeable: a host-wide figure gains as much from an I/O on one of them as on
another, so the run length can count their I/Os together (`run_length.choose`)."""

from __future__ import annotations

import dataclasses
from operator import attrgetter, itemgetter
from typing import Any

from pathlab.advisor import pilot_rows
from pathlab.advisor.pilot_rows import PATH_PLACE
from pathlab.api import Result, Scenario
from pathlab.devices import Device

#: A path row's place, as a tuple of PATH_PLACE's values (one call a row: 128,000 rows a pilot on 32 × 500 × 8).
_place = itemgetter(*PATH_PLACE)
#: A device's fields but its name and its status (of which the policy's kind is kept), as a tuple.
_SHARED = tuple(f.name for f in dataclasses.fields(Device) if f.name not in ("name", "status"))
_shared = attrgetter(*_SHARED)


def classes(scenario: Scenario, run: Result) -> list[list[str]]:
    """The devices of a run of `scenario` in classes of alike devices (`pilot_rows.device_keys`: names, or
    `HOST/NAME` for a LUN several hosts have; in the run's order; classes in the order of their
    first device)."""
    rows = pilot_rows.grouped(run)
    found: dict[tuple[Any, ...], list[str]] = {}
    # The run's devices, its setups and the scenario's device settings are in the scenario's order.
    for key, setup, row, (_, table, driven_by) in zip(rows.keys, run.setups, run.data["devices"],
                                                      scenario.handle.device_settings, strict=True):
        places = tuple(map(_place, rows.paths.get((row["host"], row["name"]), ())))
        alike = (_without_identity(setup), (table, tuple(driven_by)), places, row["dqlen"], row["nvme_head"])
        found.setdefault(alike, []).append(key)
    return list(found.values())


def _without_identity(setup: Device) -> tuple[str, str]:
    """The resolved setup but for the device's name and what its policy shows of its own state
    (the path it is on, its I/Os pending): the policy's kind stays. As text: the policy's
    parameters are a mapping, and its text is the same for the same parameters in the same order.
    (The fields' text without a copy of the device made: 16,000 devices a pilot on 32 × 500 × 8.)"""
    return repr(_shared(setup)), setup.status.kind
