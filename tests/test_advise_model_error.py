"""Issue 34 item 3: advise states the model's own error beside each gain (the simulated gain
against the published one on the nearest validated change, `python/pathlab/validated.toml`),
names the case, and never prints a gain more precisely than that error."""

from __future__ import annotations

import math

import pytest

import pathlab
from pathlab import validated
from pathlab.advisor.model_error import ModelError, host_families, of_candidate


def change(case: str) -> validated.Change:
    (found,) = [c for c in validated.changes() if c.case == case]
    return found


@pytest.mark.parametrize(("error", "gain", "printed"), [
    (-0.049, 3.75, "3.8x"),   # ± 0.18: tenths
    (0.028, 1.6, "1.60x"),    # ± 0.045: hundredths
    (0.3, 4.04, "4x"),        # ± 1.2: units
    (0.001, 3.7512, "3.75x"),  # ± 0.004: never finer than two places
    (-0.2, 0.98, "1.0x"),     # ± 0.196: tenths
])
def test_a_gain_is_printed_to_its_errors_first_significant_figure(error: float, gain: float, printed: str) -> None:
    assert ModelError("a case", error, "a match").gain_text(gain) == printed


def test_a_gain_whose_seed_interval_is_wider_than_the_models_error_is_rounded_to_that() -> None:
    """± 0.0056 (0.28% of 2.04) would print hundredths; the seeds' ± 0.3 prints tenths."""
    assert ModelError("a case", 0.0028, "a match").gain_text(2.04) == "2.04x"
    assert ModelError("a case", 0.0028, "a match", seed_half_width=0.3).gain_text(2.04) == "2.0x"
    assert ModelError("a case", 0.0028, "a match", seed_half_width=math.nan).gain_text(2.04) == "2.04x"


def test_the_gains_seed_interval_adds_both_rates_relative_intervals() -> None:
    """A gain of 2 from 2,000 ± 60 I/O/s (3%) against 1,000 ± 40 (4%): ± 2 × 5% = 0.1, and a
    candidate's error carries it."""
    from pathlab.advisor.advice import IN_FORCE, gain_half_width, typed
    from pathlab.advisor.candidates import Candidate
    from pathlab.advisor.ranked import Ranked

    in_force = Ranked(Candidate(IN_FORCE, {}, []), {"iops": (1000.0, 40.0)}, 1.0, 3)
    other = Ranked(Candidate("iops=1", {}, []), {"iops": (2000.0, 60.0)}, 2.0, 3)
    assert gain_half_width(other, in_force) == pytest.approx(0.1)
    (_, result) = typed([in_force, other], None)
    assert result.model_error is not None and result.model_error.seed_half_width == pytest.approx(0.1)


def test_the_c1_host_takes_c1s_error_for_iops1_and_c2s_for_latency() -> None:
    vmax = host_families([("EMC", "SYMMETRIX", None)])
    # An esxcli listing names the vendor and the SATP, not the model: the SATP that claims only
    # Symmetrix arrays places it.
    assert vmax == host_families([("EMC", "", "VMW_SATP_SYMM")]) == {"VMAX"}
    assert host_families([("EMC", "", "VMW_SATP_ALUA")]) == set()
    rr = {"VMW_PSP_RR"}
    iops1 = of_candidate("round robin, iops=1", vmax, rr)
    c1 = change("C1")
    # C1's error: the simulated iops=1 / iops=1000 against the published 151,892.44 / 38,334.82.
    assert iops1.error == c1.error and iops1.case.startswith("C1 (c1-vmax-1lun, iops1000 to iops1: published 3.962x")
    assert iops1.match == "the same array family (VMAX) and change"
    latency = of_candidate("round robin, latency", vmax, rr)
    assert latency.error == change("C2").error
    assert latency.match.startswith("the same change on another array family (Pure FlashArray)")
    # No validated case of a dm selector: the largest error of any validated change stands for it.
    # A host on MRU changing to iops=1: C1's change, from another policy (said).
    mru = of_candidate("round robin, iops=1", vmax, {"VMW_PSP_MRU"})
    assert mru.error == c1.error and mru.match == "the same change from VMW_PSP_RR, where this host runs VMW_PSP_MRU"
    dm = of_candidate("dm service-time", vmax, {"dm-multipath"})
    assert abs(dm.error) == max(abs(c.error) for c in validated.changes())
    assert dm.match.startswith("no validated case of this change")


@pytest.fixture(scope="module")
def advice() -> pathlab.Advice:
    return pathlab.advise("vmax-iops1000", seeds=2, duration="1s", warmup="0.25s")


def test_advise_on_the_c1_host_carries_c1s_error_in_text_and_json(advice) -> None:
    c1 = change("C1")
    rec = advice.recommendation.candidate
    assert rec.label == "round robin, iops=1" and rec.model_error.error == c1.error
    low, high = rec.gain_range
    digits = -math.floor(math.log10(abs(c1.error) * rec.gain))
    assert 0 <= digits <= 2
    text = advice.to_text()
    assert f"Model error: {c1.error * 100:+.1f}% on {c1.says}, the same array family (VMAX) and change" in text
    assert f"{low:.{digits}f}x to {high:.{digits}f}x the I/O rate in force" in text
    assert f"{rec.gain:.{digits}f}x at the assumed values" in text
    assert f"{rec.gain:.2f}x" not in text or digits == 2
    (doc,) = [c for c in advice.to_dict()["candidates"] if c["label"] == "round robin, iops=1"]
    assert doc["model_error"] == {"case": c1.says, "error": c1.error, "match": "the same array family (VMAX) and change",
                                  "gain": round(rec.gain, digits), "gain_range": [round(low, digits), round(high, digits)]}
    (in_force,) = [c for c in advice.to_dict()["candidates"] if c["label"] == "the setting in force"]
    assert in_force["model_error"] is None
    # The notebook's view prints the gains as the table does, with the case beside them.
    page = advice._repr_html_()
    assert f"{low:.{digits}f}x to {high:.{digits}f}x" in page and c1.says in page
