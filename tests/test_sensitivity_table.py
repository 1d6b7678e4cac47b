"""The sensitivity table's builder (scripts/sensitivity_table.py) on one tiny case: bench-minimal
(32 reads outstanding in a closed loop on 8 ports of 25 us exponential service, 50 us of fabric each
way) with the ports' service at -25% and +25%; every value its models move read from their files;
the calibration page's block, which `--write` replaces whole."""

from __future__ import annotations

import sys

from conftest import ROOT, SCENARIOS
from pathlab import shipped, validated

sys.path.insert(0, str(ROOT / "scripts"))
from sensitivity_table import MODELS, PAGE, Row, base_value, changes, markdown, scaled, with_tables  # noqa: E402 - the script under test

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


def test_every_validated_figure_is_on_a_model_whose_values_its_file_states() -> None:
    # Each published figure pathlab reproduces has its row in one model's tables, and every value
    # a table moves is read from the file of each row it moves (a renamed key fails here, not in
    # the minutes-long run).
    by_key = {model.key: model.rows() for model in MODELS}
    assert len(by_key["vmax"]) + len(by_key["c2"]) == len(validated.figures()) == 16
    for model in MODELS:
        for scenario in {row.scenario for row in by_key[model.key]}:
            for _, values in model.values:
                for _, keys in values:
                    for key in keys:
                        assert base_value(scenario, key) is not None, (scenario, key)
    (c2,) = [m for m in MODELS if m.key == "c2"]
    assert [base_value(shipped.path("c2-activecluster-distance"), k) for k in c2.values[0][1][0][1]] == ["58us", "58us"]


def test_every_predicted_figure_on_the_page_has_a_row() -> None:
    # The prediction tables: 5 LUN counts x 2 settings x 3 figures closed; 6 offered rates x 2 x 3
    # open, less the response and stddev of the one that cannot keep up; C1's curves: 7
    # outstanding counts (128 is C1's own row) and 5 offered loads, x 2 settings x 2 figures. C2's
    # curves: 5 outstanding counts and 4 LUN counts (1 LUN is the 32 outstanding row), x 2.
    rows = {model.key: model.rows() for model in MODELS}
    assert len(rows["vmax-predicted"]) == 30 + 36 - 2 + 28 + 20 == 112
    assert len(rows["c2-predicted"]) == (5 + 4) * 2
    four_luns = next(r for r in rows["vmax-predicted"] if r.name == "4 LUNs, 100,000 open iops1000 resp_ms")
    assert four_luns.sets["workloads.0.devices"][3].endswith("4") and 'rate = 25000.0\n' in four_luns.text
    two_luns = next(r for r in rows["c2-predicted"] if r.name == "C2 2 LUNs iops")
    assert two_luns.sets["workloads.0.outstanding"] == 32 and len(two_luns.sets["devices"]) == 2


def test_a_models_page_block_is_replaced_whole_and_nothing_else() -> None:
    vmax, c2 = MODELS[:2]
    page = (f"before\n{vmax.begin}\nold\n\n| vmax |\n\n{vmax.end}\nbetween\n"
            f"{c2.begin}\nold line\n\n| old | table |\n\n{c2.end}\nafter\n")
    written = with_tables(page, c2, "| new | table |", "Measured 2026-11-29 at commit abc1234.")
    assert written == (f"before\n{vmax.begin}\nold\n\n| vmax |\n\n{vmax.end}\nbetween\n"
                       f"{c2.begin}\nMeasured 2026-11-29 at commit abc1234.\n\n| new | table |\n\n{c2.end}\nafter\n")
    # The shipped page carries each model's markers once, in order.
    text = PAGE.read_text()
    for model in MODELS:
        assert text.count(model.begin) == 1 and text.count(model.end) == 1, model.key
        assert text.index(model.begin) < text.index(model.end), model.key
