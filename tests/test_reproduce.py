"""The published measurements the model must reproduce: one test per validated figure
(`python/pathlab/validated.toml`, the calibration page's table), each against the check its row
states, so that a change of the model shows its effect on every row in the same commit.

One run per case, shared by its rows: C1 and C2 at the page's run length (`pathlab reproduce
--check`, the files' 300 s); C3 and C4 at their rows' `pin_run`, 25 s and 60 s after 5 s instead
of the page's 300 s (about 6 and 3 million I/Os, enough for their tails, whose rate comes from the
ports' BUSY refusals): their rows at the page's length are measured by `python
scripts/calibration_table.py` only, which exits 1 when a row fails its check, and which records
the `pin_run` values the suite must get exactly."""

from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT, SCENARIOS, pathlab
from pathlab import Scenario, validated


def _reproduced(file: str) -> list[dict]:
    done = pathlab("reproduce", str(SCENARIOS / file), "--check", "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def c1() -> list[dict]:
    return _reproduced("c1-vmax-1lun.toml")


@pytest.fixture(scope="module")
def c2() -> list[dict]:
    return _reproduced("c2-activecluster-distance.toml")


def _shortened(scenario: str) -> list[dict]:
    """The iops1 variant's summary at the rows' shorter run (`pin_run`), as rows like `reproduce`'s."""
    (length,) = {row.pin_run for row in validated.figures() if row.scenario == scenario}
    assert length, f"{scenario}'s rows state the shorter run the suite pins them at"
    summary = Scenario.load(str(SCENARIOS / f"{scenario}.toml"), variant="iops1",
                            set={"run.duration": length[0], "run.warmup": length[1]}).run().data["summary"]
    return [{"variant": "iops1", "figure": k, "simulated": v} for k, v in summary.items()]


@pytest.fixture(scope="module")
def c3() -> list[dict]:
    return _shortened("c3-vmax-4lun")


@pytest.fixture(scope="module")
def c4() -> list[dict]:
    return _shortened("c4-vmax-4lun-light")


#: Each validated case's shared run, by scenario.
RUNS = {"c1-vmax-1lun": "c1", "c2-activecluster-distance": "c2", "c3-vmax-4lun": "c3", "c4-vmax-4lun-light": "c4"}


def simulated(rows: list[dict], variant: str, figure: str) -> float:
    return next(r["simulated"] for r in rows if (r["variant"], r["figure"]) == (variant, figure))


@pytest.mark.parametrize("row", validated.figures(), ids=lambda r: f"{r.scenario}-{r.variant}-{r.figure}")
def test_each_validated_figure_passes_its_check(row: validated.Figure, request) -> None:
    value = simulated(request.getfixturevalue(RUNS[row.scenario]), row.variant, row.figure)
    assert row.holds(value), f"{row.case} {row.variant} {row.figure}: {value} against {row.published}, must be {row.allowed}"


@pytest.mark.parametrize("scenario", list(RUNS))
def test_every_row_is_its_recorded_value_at_the_length_the_suite_runs(scenario: str, request) -> None:
    # No regression without a word (issue 34 item 4): a change that moves any row, by however
    # little, fails here until `python scripts/calibration_table.py` records the new value (and
    # its commit) in the same commit. Same scenario, same seed, same length: the engine gives the
    # same figures byte for byte, so only the file's rounding is allowed. C1 and C2 run at the
    # page's own length (`simulated`); C3 and C4 at their `pin_run` (25 s and 60 s after 5 s, the
    # runs the checks above share: `pinned`), their page's 300 s being 87 and 18 million I/Os.
    rows = request.getfixturevalue(RUNS[scenario])
    moved = {f"{row.variant} {row.figure}": (value, row.recorded) for row in validated.figures()
             if row.scenario == scenario and row.recorded is not None
             and abs((value := simulated(rows, row.variant, row.figure)) - row.recorded) > 0.5e-4 + 1e-9}
    assert not moved, f"{scenario}: (now, recorded) {moved}; rerun python scripts/calibration_table.py"
    assert all(row.recorded is not None for row in validated.figures() if row.scenario == scenario), scenario


def test_every_validated_case_has_its_run_here() -> None:
    assert {r.scenario for r in validated.figures()} == set(RUNS)


def test_c1_iops1_keeps_four_ports_busy_and_iops1000_one(c1) -> None:
    # The physics of C1: iops=1 keeps all four ports busy, iops=1000 one at a time.
    ratio = simulated(c1, "iops1", "iops") / simulated(c1, "iops1000", "iops")
    assert 3.6 < ratio < 4.0


def test_c2_every_variant_within_tolerance_with_nothing_left_to_explain(c2) -> None:
    rows = {r["variant"]: r for r in c2}
    assert all(rows[v]["ok"] for v in ("rr_all_paths", "preferred_array", "latency")), rows
    assert not rows["rr_all_paths"].get("explained"), "no deviation left to explain"


def test_the_page_shows_what_was_measured_last_and_it_passes_its_check() -> None:
    # The data file's values are what the page shows (scripts/calibration_table.py writes them):
    # each passes its row's check, with the date and commit it was measured at.
    for row in validated.figures():
        assert row.simulated is not None and row.holds(row.simulated), row
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", row.measured) and re.fullmatch(r"[0-9a-f]{7,}", row.commit), row


def test_each_field_report_names_a_test_that_exists_and_was_measured() -> None:
    for report in validated.reports():
        file, name = report.test.split("::")
        assert re.search(rf"^def {name}\(", (ROOT / file).read_text(), re.MULTILINE), report.test
        assert set(report.figures) == set(report.runs) and report.commit, report


def test_a_changes_error_is_its_simulated_gain_against_the_published() -> None:
    # C1: published 151,892.44 / 38,334.82 = 3.962; simulated the two iops rows' ratio.
    (c1,) = [c for c in validated.changes() if c.case == "C1"]
    assert c1.published_gain == pytest.approx(151_892.44 / 38_334.82)
    rates = {f.variant: f.simulated for f in validated.figures() if f.scenario == "c1-vmax-1lun" and f.figure == "iops"}
    assert c1.error == pytest.approx(rates["iops1"] / rates["iops1000"] / (151_892.44 / 38_334.82) - 1)


def test_the_calibration_page_draws_both_tables_from_the_data_file() -> None:
    import sys

    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    from calibration_tables import render

    page = render((ROOT / "docs" / "calibration.md").read_text())
    c1_rate = next(f for f in validated.figures() if (f.scenario, f.variant, f.figure) == ("c1-vmax-1lun", "iops1", "iops"))
    assert f"| {c1_rate.simulated:,.0f} |" in page and c1_rate.commit in page
    assert "| `cx4-two-vms-16-luns` | PowerPath/VE adaptive beats round robin" in page
