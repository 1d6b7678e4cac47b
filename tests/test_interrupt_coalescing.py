"""An adapter's interrupt coalescing (QLogic ZIO; docs/design/2026-11-29-hba-interrupt-coalescing.md)
against what its rule gives on a port whose times are fixed: one 10 us port, no wire, no stack."""

from __future__ import annotations

from math import exp

import pytest

from pathlab import Scenario
from pathlab._core import ScenarioError
from test_theory import ONE_PORT as THEORY_PORT

#: test_theory's one port, its times fixed, with the adapter's coalescing set where given.
ONE_PORT = THEORY_PORT.replace("queue_depth = 100000 }}", "queue_depth = 100000{coalescing} }}")
FIXED = 'distribution = "fixed"'

POISSON_2000 = 'rate = 2000\narrival = "poisson"'


def resp_us(coalescing: str, load: str, duration: str = "10s") -> float:
    text = ONE_PORT.format(shape=FIXED, coalescing=coalescing, load=load, duration=duration)
    return Scenario.from_text(text, "one-port.toml").run().data["summary"]["resp_ms"] * 1000


def test_a_lone_command_waits_the_whole_delay_and_below_the_threshold_none() -> None:
    # One outstanding: nothing else is started while its completion is held, so the firmware's
    # timer delivers it; with a threshold of 2 the adapter never has 2 in flight and never holds.
    plain = resp_us("", "outstanding = 1", "3s")
    assert plain == pytest.approx(10.0, abs=0.01)
    assert resp_us(', interrupt_coalescing = { delay = "500us" }', "outstanding = 1", "3s") == pytest.approx(510.0, abs=0.01)
    assert resp_us(', interrupt_coalescing = { delay = "500us", threshold = 2 }', "outstanding = 1", "3s") == plain


def test_poisson_completions_wait_for_the_next_submission_or_the_timer() -> None:
    # Submissions Poisson at l = 2000/s; each completion is its submission 10 us later. A hold
    # opens with a completion and ends at the next submission or after D = 500 us, whichever
    # comes first; a second completion inside it would need a submission inside it (10 us
    # earlier), which would have ended it, so each completion waits min(Exp(l), D) on its own:
    # (1 - e^-lD) / l = 316.1 us (less by a hair for the 2% that land within 10 us of a hold's start).
    rate, delay = 2000.0, 500e-6
    expected_us = (1 - exp(-rate * delay)) / rate * 1e6
    plain = resp_us("", POISSON_2000, "20s")
    held = resp_us(', interrupt_coalescing = { delay = "500us" }', POISSON_2000, "20s")
    assert held - plain == pytest.approx(expected_us, rel=0.02)


@pytest.mark.parametrize(("setting", "field", "words"), [
    ('{ delay = "50us" }', "interrupt_coalescing.delay", "allowed 100us to 25.5ms"),
    ('{ delay = "100us", threshold = 0 }', "interrupt_coalescing.threshold", "at least 1"),
])
def test_a_setting_the_firmware_cannot_hold_is_refused_with_its_field(setting: str, field: str, words: str) -> None:
    text = ONE_PORT.format(shape=FIXED, coalescing=f", interrupt_coalescing = {setting}", load="outstanding = 1",
                           duration="1s")
    with pytest.raises(ScenarioError) as refused:
        Scenario.from_text(text, "one-port.toml")
    assert refused.value.args[1] == f"host.adapters.0.{field}"
    assert words in refused.value.args[2]


def test_shipped_reaction_one_path_is_dearer_only_with_the_threshold(scenarios) -> None:
    # docs/design/2026-11-29-hba-interrupt-coalescing.md: C1's one LUN at 12,500 I/O/s. Without
    # coalescing one path costs its FIFOs' waits (about +10 us); ZIO without a threshold reaps on
    # every command started, which one path's adapter sees twice as often, so iops=1000 answers
    # sooner than iops=1; with the threshold of 5 only one path's adapter holds (4 in flight on
    # average against 2 on each of iops=1's), and one path is dearer by about 40 us.
    file = scenarios / "reactions" / "hba-interrupt-coalescing.toml"

    def resp(variant: str, text: str | None = None) -> float:
        sets = ["run.duration=3s", "run.warmup=1s"]
        scenario = Scenario.from_text(text, "off.toml", variant, sets) if text else Scenario.load(file, variant).with_set(sets)
        return scenario.run().data["summary"]["resp_ms"] * 1000

    off = file.read_text().replace(', interrupt_coalescing = { delay = "100us" }', "")
    assert 5 < resp("iops1000", off) - resp("iops1", off) < 15
    assert -20 < resp("iops1000") - resp("iops1") < 0
    assert 30 < resp("zio6_iops1000") - resp("zio6_iops1") < 50
