"""`pathlab report`: one self-contained HTML file from a run, compare, lineup or sweep result."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click

from pathlab.api import Fault, Scenario, ScenarioError, _read
from pathlab.cli.common import force_option, handle_errors, set_option, writable_output
from pathlab.output.comparison import Lineup, Lineups, Variants
from pathlab.output.files import OutputFile
from pathlab.output.sink import write_html


def from_file(result: str, scenario: str | None, sets: Sequence[str] = ()) -> str:
    """The report of a result file: a sweep's -runs.parquet, a `compare --seeds --format csv`,
    or the JSON of `run`, `compare` or `compare --lineup`; a run's scenario is read with `sets`
    (the run's --set overrides) for its policy and faults."""
    from pathlab.output.report import runs as report
    from pathlab.output.report.sweep import sweep_report
    from pathlab.output.sweep import setting

    text = _read(scenario) if scenario else None
    prov = {"result file": result, **({"scenario file": scenario} if scenario else {})}
    if result.endswith(".parquet"):
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(result)
        except (OSError, ValueError) as e:
            raise ScenarioError(result, "", f"not a Parquet file ({e})") from None
        meta = (table.schema.metadata or {}).get(b"pathlab")
        if meta is None or "point" in table.column_names:
            raise ScenarioError(result, "", "not a table written by pathlab sweep (its STEM-runs.parquet)")
        meta_data = json.loads(meta)
        return sweep_report(table.to_pandas(), meta_data, setting(meta_data))
    if result.endswith(".csv"):
        import pandas as pd

        runs = pd.read_csv(result)
        if not {"setting", "seed", "iops"} <= set(runs.columns):
            raise ScenarioError(result, "", "expected the CSV of `pathlab compare --seeds N --format csv`")
        return report.replicated_report(f"pathlab compare: {result}", runs, text, prov)
    try:
        data = json.loads(_read(result))
    except json.JSONDecodeError as e:
        raise ScenarioError(result, "", f"not JSON ({e.msg} at line {e.lineno})") from None
    if isinstance(data, dict) and "path_intervals" in data:
        return report.run_report(data, text, prov, *_setting_and_faults(data, scenario, sets))
    if isinstance(data, dict) and "variants" in data:
        described = [(v["variant"], v["description"]) for v in data["variants"]]
        return Variants(data["scenario"], described, data["variants"], text).html(prov)
    if isinstance(data, list) and data and "policies" in data[0]:
        one = data[0]
        lineup = Lineup(one["scenario"], [p["policy"] for p in one["policies"]], one["policies"])
        return Lineups([lineup], text).html(prov)
    raise ScenarioError(result, "", "not a pathlab result: expected the JSON of run, compare or compare --lineup, "
                        "a compare --seeds CSV or a sweep's STEM-runs.parquet")


def _setting_and_faults(data: dict[str, Any], scenario: str | None,
                        sets: Sequence[str]) -> tuple[str, list[Fault] | None, list[str]]:
    """A run's policy in force, faults and what else is on its timeline, from its scenario file
    when given (its variant and seed, and the overrides given); else the policies the result
    names, and no faults."""
    if scenario is None:
        return ", ".join(sorted({d["policy"] for d in data["devices"]})), None, []
    loaded = Scenario.load(scenario, variant=data.get("variant") or None, set=sets, seed=data["seed"])
    return loaded.setting, loaded.faults, loaded.timeline


@click.command("report")
@click.argument("result")
@click.option("--scenario", help="The scenario file, shown in the report with its provenance.")
@set_option
@click.option("--html", "html", type=OutputFile(), required=True, help="The HTML file to write.")
@force_option
@handle_errors
def command(result: str, scenario: str | None, sets: tuple[str, ...], html: str, force: bool) -> None:
    """Write RESULT (a run, compare, lineup or sweep result file) as one self-contained HTML page.
    A run's report shades its scenario's faults: give --scenario, and the run's --set overrides."""
    if sets and not scenario:
        raise ScenarioError(result, "--set", "overrides apply to the scenario: give --scenario with them")
    writable_output(html, "--html", [result, *([scenario] if scenario else [])], force)
    write_html(html, from_file(result, scenario, sets))
