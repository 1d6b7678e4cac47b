"""Disk back ends through the Python face: the CX4 on its published disks (issue 8, item 0).

The theory tests of the back end (one disk, a RAID-5 group's read and write saturation, the write
cache's watermarks and forced flushing) are in crates/pathlab-sim/tests/backends.rs.
"""

from __future__ import annotations

import pytest

from conftest import SCENARIOS
from pathlab import Scenario

#: Past the write cache's first flush (about 40 s in) and 30 s of its watermark cycle, before
#: the path failure at 120 s.
STEADY = {"run.warmup": "60s", "run.duration": "30s"}


@pytest.fixture(scope="module")
def cx4() -> dict[str, dict]:
    out = {}
    for variant in ("rr_iops1", "rr_iops1000"):
        out[variant] = Scenario.load(SCENARIOS / "cx4-alua-path-failure.toml", variant=variant, set=STEADY).run().data
    return out


def test_the_cx4_on_its_published_disks_is_disk_bound(cx4) -> None:
    data = cx4["rr_iops1"]
    # Each group's 5 disks do a read per read miss and 4 operations per destaged write: with
    # 60% reads of 18 KiB on average, about 0.6 x 5.6 + 0.4 x 23.4 = 12.7 ms of disk time per
    # I/O, against 5 disks: the disks are nearly always busy, the ports and SPs hardly at all.
    assert all(g["util_pct"] > 85 for g in data["raid_groups"]), [g["util_pct"] for g in data["raid_groups"]]
    assert all(p["util_pct"] < 10 for p in data["ports"] + data["controllers"])
    # Writes are acknowledged from cache (300 us of hit latency and less): the cache cycles
    # between its watermarks and no write waits for a destage at this load.
    cache = data["write_caches"][0]
    assert 50 <= cache["dirty_pct"] <= 70 and cache["forced_waits"] == 0, cache
    assert data["summary"]["write_resp_ms"] < 0.5
    # Reads wait for disks that also destage: many times one disk operation (5.6 ms).
    assert data["summary"]["read_resp_ms"] > 3 * 5.6


def test_with_the_disks_the_limit_iops_1_and_1000_come_out_alike(cx4) -> None:
    # The field reports iops=1 ahead of iops=1000 on this array; with its published disks the
    # path policy no longer decides anything: the same I/Os (common random numbers) through
    # either policy give the same rate within 1% (measured: 0.1%).
    one, thousand = (cx4[v]["summary"]["iops"] for v in ("rr_iops1", "rr_iops1000"))
    assert one == pytest.approx(thousand, rel=0.01)
