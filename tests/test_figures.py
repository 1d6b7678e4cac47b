"""`figures.py` declares every summary figure once for Python; the engine declares the summary
(`observe/result.rs`) and the figures a scenario may publish (`scenario/schema.rs`). The two lists
must agree, or a table would show a figure the engine never computes, or miss one it does."""

from __future__ import annotations

import pytest

from pathlab import Scenario, ScenarioError, figures
from test_theory import ONE_PORT

#: Summary fields that are not figures a table compares: the I/O count and the mix, which the
#: workload decides.
NOT_COMPARED = ("ios", "bytes_per_io", "read_pct")

SHORT = ONE_PORT.format(shape='distribution = "exponential"', duration="1s", load="outstanding = 4")


def test_every_summary_figure_of_the_engine_is_declared_once_in_python_in_the_engines_order() -> None:
    summary = Scenario.from_text(SHORT, "one-port.toml").run().data["summary"]
    assert list(figures.KEYS) == [k for k in summary if k not in NOT_COMPARED]
    assert len(set(figures.KEYS)) == len(figures.KEYS)
    for f in figures.ALL:  # counts print as whole numbers, the rest as decimals
        assert isinstance(summary[f.key], int) == (f.fmt == "{:d}"), f.key


def test_the_publishable_figures_are_those_the_engine_accepts_in_published() -> None:
    with pytest.raises(ScenarioError) as e:
        Scenario.from_text(SHORT + "\n[published]\nios = 1\n", "one-port.toml")
    field, message = e.value.args[1:]
    assert field == "published.ios"
    allowed = message.split("allowed: ", 1)[1].split(", ")
    assert allowed == list(figures.PUBLISHABLE)
