"""C2 away from its calibration point (issue 8: a calibrated scenario's response against load,
queue depth and LUN count, checked against queueing theory). The AO-only setting (preferred
array): every write goes to the local array, which mirrors it to the remote one over the
replication link before it answers. Expected values come from the file's own figures."""

from __future__ import annotations

import sys
import tomllib

import pytest

from conftest import ROOT, SCENARIOS

sys.path.insert(0, str(ROOT / "scripts"))
from c2_curves import run  # noqa: E402 - the script that prints these curves

C2 = SCENARIOS / "c2-activecluster-distance.toml"
SPEC = tomllib.loads(C2.read_text())
WRITE = 32 * 1024
#: The replication link: "10Gb" is 1.25 GB/s, so this many 32 KiB writes a second one way.
LINK_WRITES = float(SPEC["replication"][0]["bandwidth"].removesuffix("Gb")) * 1e9 / 8 / WRITE
DQLEN = SPEC["devices"][0]["queue_depth"]


def _run(outstanding: int = 32, luns: int = 1) -> dict:
    return run(20.0, outstanding=outstanding, luns=luns)


@pytest.fixture(scope="module")
def zero_load() -> float:
    """The response of one write alone (ms): distance, links, ports and the arrays' cache."""
    return _run(outstanding=1)["summary"]["resp_ms"]


@pytest.mark.parametrize("outstanding", [8, 32])
def test_below_the_device_queue_the_rate_is_n_over_the_zero_load_response(zero_load, outstanding) -> None:
    # Nothing is shared below 32 writes (the link carries 13,500 of its 38,000 a second), so
    # every write takes the zero-load time and the closed loop runs at N / R0.
    s = _run(outstanding)["summary"]
    assert s["iops"] == pytest.approx(outstanding / (zero_load / 1e3), rel=0.01)
    assert s["resp_ms"] == pytest.approx(zero_load, rel=0.01)


def test_past_the_device_queue_the_rest_wait_in_the_kernel(zero_load) -> None:
    # 64 outstanding over a device queue of 32: the rate stays at 32 / R0, and the other 32
    # wait in the VMkernel for KAVG = 32 / X = R0 (Little's law).
    data = _run(outstanding=2 * DQLEN)
    device = data["devices"][0]
    assert data["summary"]["iops"] == pytest.approx(DQLEN / (zero_load / 1e3), rel=0.01)
    assert device["davg_ms"] == pytest.approx(zero_load, rel=0.01)
    assert device["kavg_ms"] == pytest.approx(zero_load, rel=0.01)


@pytest.mark.parametrize("luns", [2, 4])
def test_more_luns_add_rate_until_the_replication_link_is_full(zero_load, luns) -> None:
    # Each LUN runs at 32 / R0 (about 13,500 writes a second) while the one replication link has
    # room; from three LUNs it carries every write the link can (38,147 a second) and the rest
    # queue at the link.
    s = _run(luns=luns)["summary"]
    expected = min(luns * DQLEN / (zero_load / 1e3), LINK_WRITES)
    assert s["iops"] == pytest.approx(expected, rel=0.02)
