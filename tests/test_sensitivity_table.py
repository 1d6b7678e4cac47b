"""The sensitivity table's builder (scripts/sensitivity_table.py) on one tiny case: bench-minimal
(32 reads outstanding in a closed loop on 8 ports of 25 us exponential service, 50 us of fabric each
way) with the ports' service at -25% and +25%."""

from __future__ import annotations

import sys

from conftest import ROOT, SCENARIOS

sys.path.insert(0, str(ROOT / "scripts"))
from sensitivity_table import Row, base_value, changes, markdown, scaled  # noqa: E402 - the script under test

KEY = ("arrays.0.service.fixed",)


def test_a_value_is_scaled_with_its_unit_and_read_from_the_file() -> None:
    assert base_value(SCENARIOS / "bench-minimal.toml", KEY[0]) == "25us"
    assert scaled("16.6us", 0.75) == "12.45us"
    assert scaled(20000, 1.25) == 25000


def test_a_slower_port_lowers_the_rate_and_raises_the_response() -> None:
    rows = [Row("rate", SCENARIOS / "bench-minimal.toml", None, "iops"),
            Row("response", SCENARIOS / "bench-minimal.toml", None, "resp_ms")]
    measured = changes(rows, (KEY,), (0.75, 1.25), ("1s", "0.2s"))
    (_, rate, rate_moved), (_, resp, resp_moved) = measured
    # 32 outstanding over about 145 us (the file's comment): a closed loop, so X = N / R and the
    # rate falls as the port's time rises; the response moves the other way.
    assert 180_000 < rate < 260_000
    assert rate_moved[(KEY, 0.75)] > 0.0 > rate_moved[(KEY, 1.25)]
    assert resp_moved[(KEY, 0.75)] < 0.0 < resp_moved[(KEY, 1.25)]
    table = markdown(measured, {KEY: "port"}, (0.75, 1.25)).splitlines()
    assert table[0] == "| figure | published | simulated | port |"
    assert table[2].startswith("| rate |  | ")
