"""`pathlab report`: one self-contained HTML file from a run, compare, lineup or sweep result."""

from __future__ import annotations

import json

import click

from pathlab.api import ScenarioError, _read
from pathlab.cli.common import force_option, handle_errors, writable_output
from pathlab.output.files import OutputFile
from pathlab.output.sink import write_html


def from_file(result: str, scenario: str | None) -> str:
    """The report of a result file: a sweep's -runs.parquet, a `compare --seeds --format csv`,
    or the JSON of `run`, `compare` or `compare --lineup`."""
    from pathlab.study import report

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
        return report.sweep_report(table.to_pandas(), json.loads(meta))
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
        return report.run_report(data, text, prov)
    if isinstance(data, dict) and "variants" in data:
        return report.compare_report(f"pathlab compare: {data['scenario']}", [v["variant"] for v in data["variants"]],
                                     data["variants"], text, prov)
    if isinstance(data, list) and data and "policies" in data[0]:
        one = data[0]
        return report.compare_report(f"pathlab lineup: {one['scenario']}", [p["policy"] for p in one["policies"]],
                                     one["policies"], text, prov)
    raise ScenarioError(result, "", "not a pathlab result: expected the JSON of run, compare or compare --lineup, "
                        "a compare --seeds CSV or a sweep's STEM-runs.parquet")


@click.command("report")
@click.argument("result")
@click.option("--scenario", help="The scenario file, shown in the report with its provenance.")
@click.option("--html", "html", type=OutputFile(), required=True, help="The HTML file to write.")
@force_option
@handle_errors
def command(result: str, scenario: str | None, html: str, force: bool) -> None:
    """Write RESULT (a run, compare, lineup or sweep result file) as one self-contained HTML page."""
    writable_output(html, "--html", [result, *([scenario] if scenario else [])], force)
    write_html(html, from_file(result, scenario))
