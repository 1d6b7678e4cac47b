"""Issue 34 item 1, several LUNs at iops=1000 on shared ports: what the model does with the
phases of independent rotations (docs/design/2026-11-29-lun-phases.md). C3's components and
host; expected values from the components alone: a LUN at a port 1 / 26.5 us = 37,736 I/O/s, a
port 1 / 16.6 us = 60,241 I/O/s."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT
from pathlab.api import Scenario
from pathlab.shipped import path as shipped_path

sys.path.insert(0, str(ROOT / "scripts"))
from lun_phase_check import binomial, occupancy, one_port_rate, rate_over  # noqa: E402 - the script that checks the argument

LUN_AT_PORT = 1 / 26.5e-6
PORT = 1 / 16.6e-6
C3_NAMES = [f"naa.6000097000019790012353303030303{i}" for i in range(1, 5)]
#: Names whose FNV-1a puts every device's first path on the same port (positions 0 mod 4 of the
#: eight paths, listed by adapter then target): the four rotations start all together.
SAME_PORT_NAMES = [f"naa.600009700001979001235330303{n}" for n in ("00000", "00004", "00008", "00013")]


def c3_text() -> str:
    return shipped_path("c3-vmax-4lun").read_text()


def independent_phases_rate(luns: int, ports: int) -> float:
    """The rate if each LUN's port were uniform and independent of the others' (no repulsion):
    each port carries min(K x a LUN's rate, the port's), K ~ Binomial(luns, 1 / ports)."""
    return rate_over(binomial(luns, ports), ports, LUN_AT_PORT, PORT)


def test_independent_phases_would_lose_a_sixth_of_the_stagger() -> None:
    # P3 of the design page: 126,700 against the stagger's 4 x 37,736 = 150,943.
    assert independent_phases_rate(4, 4) == pytest.approx(126_744, abs=1)
    assert independent_phases_rate(4, 4) / (4 * LUN_AT_PORT) == pytest.approx(0.840, abs=0.001)


def test_rotations_started_on_one_port_spread_to_one_lun_a_port() -> None:
    # P1: the stagger is an attractor. Started together on one port, the four LUNs share its
    # 60,241 I/O/s at first; within a second they are on four ports, each at its (port, LUN)
    # FIFO's 37,736 plus the overlap at each switch. BUSY off, so no 100 ms retry moves a
    # counter out of step during this short run.
    text = c3_text()
    for old, new in zip(C3_NAMES, SAME_PORT_NAMES, strict=True):
        text = text.replace(old, new)
    scenario = Scenario.from_text(text, "same-port.toml", "iops1000", [
        "run.duration=3s", "run.warmup=0s", "run.interval=0.5s", "arrays.0.busy.depth=1000000000"], 1)
    per_interval = scenario.run().path_intervals.groupby("t_s")["cmds_s"].sum().tolist()
    assert per_interval[0] < 0.9 * 4 * LUN_AT_PORT
    assert min(per_interval[2:]) > 4 * LUN_AT_PORT


@pytest.mark.parametrize("luns", [1, 2, 3, 4])
def test_luns_that_cannot_stagger_share_the_port(luns: int) -> None:
    # P4 and E1: one FA port, K LUNs, two paths each (two HBAs): min(K x a LUN's FIFO, the port),
    # whatever BUSY does: the per-state rate the phase argument sums (engine: 37,822, 60,210,
    # 60,186, 60,292 at 2 s, seed 1).
    assert one_port_rate(luns, 2.0) == pytest.approx(min(luns * LUN_AT_PORT, PORT), rel=0.01)


def test_the_stagger_as_a_statistic_few_ports_hold_three_luns() -> None:
    # E2: C3 as shipped, each LUN put on the port of most of its completions in each 5 ms: the
    # stagger (K = 1) most of the time, K = 0 and 2 in pairs at the switches' overlaps, K = 3 or
    # 4 almost never, where independent phases give K = 1 0.42 and K >= 3 0.051 (the page's
    # 6 s run: 0.147, 0.710, 0.140, 0.003, 0).
    counts, iops, intervals = occupancy({}, 2.0, 1.0)
    total = sum(counts.values())
    assert total == 4 * intervals == 4 * 400
    # The stagger holds one LUN a port well beyond what independent phases give (0.42).
    assert counts[1] / total > max(0.6, binomial(4, 4)[1] + 0.15)
    assert (counts[3] + counts[4]) / total < 0.01
    assert iops > 0.95 * 4 * LUN_AT_PORT
