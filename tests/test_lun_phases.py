"""Issue 34 item 1, several LUNs at iops=1000 on shared ports: what the model does with the
phases of independent rotations (docs/design/2026-11-29-lun-phases.md). C3's components and
host; expected values from the components alone: a LUN at a port 1 / 26.5 us = 37,736 I/O/s, a
port 1 / 16.6 us = 60,241 I/O/s."""

from __future__ import annotations

from math import comb

import pytest

from pathlab.api import Scenario
from pathlab.shipped import path as shipped_path

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
    p = 1 / ports
    per_port = sum(comb(luns, k) * p**k * (1 - p) ** (luns - k) * min(k * LUN_AT_PORT, PORT) for k in range(luns + 1))
    return ports * per_port


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


def test_two_luns_that_cannot_stagger_share_the_port() -> None:
    # P4: one FA port, two LUNs, two paths each (two HBAs): the port's capacity, whatever BUSY does.
    text = c3_text()
    text = text.replace('''ports = [
  { name = "FA-1D:4", controller = "1D" },
  { name = "FA-2D:4", controller = "2D" },
  { name = "FA-1D:5", controller = "1D" },
  { name = "FA-2D:5", controller = "2D" },
]''', 'ports = [{ name = "FA-1D:4", controller = "1D" }]')
    text = text.replace('"vmax250f/FA-1D:4", "vmax250f/FA-2D:4", "vmax250f/FA-1D:5", "vmax250f/FA-2D:5"', '"vmax250f/FA-1D:4"')
    text = text.replace(f', "{C3_NAMES[2]}", "{C3_NAMES[3]}"]', "]")
    start = text.index(f'[[devices]]\nname = "{C3_NAMES[2]}"')
    text = text[:start] + text[text.index("[policy]"):]
    scenario = Scenario.from_text(text, "one-port.toml", "iops1000", ["run.duration=2s", "run.warmup=0.2s"], 1)
    assert scenario.run().summary.iops == pytest.approx(PORT, rel=0.01)
