"""Issue 23: C3 and C4 (CALIBRATION.md) from C1's components, as the scenario files ship them:
four LUNs on C1's host and VMAX 250F, saturated (C3) and at light load (C4). Each file states
what it fits (C3 the port, C4 the cache times); the rest, and every tail, is predicted. Shorter
runs than the published 300 s keep the suite fast: C3's run still holds about 6 million I/Os and
C4's 3 million, and their tails come from the ports' BUSY refusals, whose rate the runs resolve
(each asserted figure is checked against the full-length `pathlab reproduce` in docs/calibration.md)."""

from __future__ import annotations

import pytest

from conftest import SCENARIOS
from pathlab import Scenario


def measured(file: str, duration: str) -> tuple[dict, dict]:
    scenario = Scenario.load(str(SCENARIOS / file), variant="iops1",
                             set={"run.duration": duration, "run.warmup": "5s"})
    return scenario.run().data["summary"], scenario.published


@pytest.mark.parametrize(("file", "duration"), [("c3-vmax-4lun.toml", "25s"), ("c4-vmax-4lun-light.toml", "60s")])
def test_four_luns_at_iops1_within_calibrations_tolerances(file: str, duration: str) -> None:
    summary, published = measured(file, duration)
    assert summary["iops"] == pytest.approx(published["iops"], rel=0.10)
    assert summary["resp_ms"] == pytest.approx(published["resp_ms"], rel=0.10)
    assert 0.5 <= summary["resp_stddev_ms"] / published["resp_stddev_ms"] <= 2.0
