"""The generated hosts of `pathlab bench --scaling`: every row loads, and its ports hold what is
in service at once, so what is in flight is in the event queue and not in the ports' queues."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pathlab.cli.bench import GENERATED_ROUND_TRIP_S, GENERATED_SERVICE_S, IN_FLIGHT, generated_host
from pathlab.cli.common import load


@pytest.mark.parametrize(("devices", "paths", "outstanding"), IN_FLIGHT)
def test_each_row_loads_and_its_ports_hold_what_is_in_service(tmp_path: Path, devices: int, paths: int,
                                                              outstanding: int) -> None:
    file, paths_each = generated_host(tmp_path, devices, paths, outstanding, quick=True)
    load(str(file))  # a port's servers within the scenario bounds (10,000 and more failed here)
    scenario = tomllib.loads(file.read_text())
    assert paths_each >= paths
    for array in scenario["arrays"]:
        on_array = sum(1 for d in scenario["devices"] if d["array"] == array["name"])
        in_service = on_array * outstanding * GENERATED_SERVICE_S / GENERATED_ROUND_TRIP_S
        assert len(array["ports"]) * array["service"]["servers"] >= 1.25 * in_service
