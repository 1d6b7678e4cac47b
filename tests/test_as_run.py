"""What the advisor reads of a run (`advisor/as_run.py`) is what the engine applies: the variant's
`set`, then each `--set`, by the engine's own dotted keys (`_core.tables_as_run`), not a second
implementation of them in Python."""

from __future__ import annotations

import pytest

from conftest import ROOT
from pathlab import Scenario, ScenarioError
from pathlab._core import tables_as_run
from pathlab.advisor.as_run import as_run

TEXT = """\
name = "t"
[run]
duration = "1s"
[[devices]]
name = "a"
queue_depth = 32
[[devices]]
name = "b"
queue_depth = 32
[variants.deep]
set = { "devices.*.queue_depth" = 64 }
"""


def test_a_variants_set_then_the_overrides_in_order() -> None:
    import tomllib

    tables = tables_as_run(tomllib.loads(TEXT), "t.toml", "deep", [("devices.1.queue_depth", "8")])
    assert [d["queue_depth"] for d in tables["devices"]] == [64, 8]
    assert "variants" not in tables


def test_a_key_the_engine_refuses_is_refused_as_loading_refuses_it() -> None:
    import tomllib

    with pytest.raises(ScenarioError) as refused:
        tables_as_run(tomllib.loads(TEXT), "t.toml", None, [("devices.5.queue_depth", "8")])
    assert refused.value.args == ("t.toml", "devices.5.queue_depth", "index 5 is out of range: the list has 2 entries")


def test_as_run_of_a_loaded_scenario_is_the_engines_reading() -> None:
    scenario = Scenario.load(ROOT / "scenarios" / "bench-minimal.toml", set={"devices.0.queue_depth": 16})
    assert as_run(scenario)["devices"][0]["queue_depth"] == 16
