"""Under Linux dm-multipath a device's `queue_depth` is each path's: every path is a SCSI disk
with its own queue depth and the map has none (`DM_MQ_QUEUE_DEPTH` 2048, drivers/md/dm-rq.c);
an I/O the selector chose waits at its path when that disk is full
(`docs/design/2026-11-28-dm-slow-path.md`). Short runs on the dm slow-path scenario."""

from __future__ import annotations

import pytest

from conftest import SCENARIOS
from pathlab import Scenario

FILE = SCENARIOS / "reactions" / "dm-one-slow-path.toml"


def _run(queue_depth: int, faults: list[dict], seconds: int):
    # 64 outstanding 4 KiB writes over four paths under service-time, no slow path.
    return Scenario.load(FILE, variant="st_d64").with_set({
        "run.duration": f"{seconds}s", "run.warmup": "0s",
        "devices.0.queue_depth": queue_depth, "faults": faults,
    }).run()


def test_each_path_holds_queue_depth_commands_and_the_rest_wait() -> None:
    r = _run(4, [], 1)
    device = r.devices.iloc[0]
    # 4 paths x 4 slots always full (64 outstanding): 16 active, not the 4 of a device-wide
    # limit; the others queued in the kernel (at the paths or being reaped).
    assert device["actv"] == pytest.approx(16.0, abs=0.01)
    assert device["qued"] > 40


def test_a_failing_path_sends_its_waiting_ios_to_the_others() -> None:
    # host1:C0:T0's link is down from 1 s to 3 s: dm fails the path at once and requeues its
    # 4 started commands and the I/Os waiting at it; none fails, none is lost.
    down = [{"kind": "path_down", "path": "host1:C0:T0", "at": "1s", "until": "3s"}]
    r = _run(4, down, 4)
    accounting = r.data["accounting"]
    assert accounting["failed"] == 0
    assert accounting["issued"] == accounting["completed"]
    assert accounting["at_end"]["in_flight"] == 64
    paths = r.paths.set_index("name")
    assert accounting["retried"] == paths.loc["host1:C0:T0:L1", "errors"] >= 4
