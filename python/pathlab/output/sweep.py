"""A sweep's result as `pathlab sweep` prints it: each point's headline figures with their 95%
intervals, and the HTML report with its curves (the tables go to the sweep's Parquet and CSV
files)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pathlab.figures import HEADLINE
from pathlab.output.sink import Output

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class SweepOutput(Output):
    #: One row per run, and one per point (variant and axis values) with means and intervals.
    runs: pd.DataFrame
    points: pd.DataFrame
    axes: list[str]
    #: What the report shows of how the sweep was made (`pathlab sweep`'s table metadata).
    meta: dict[str, Any]

    def table(self) -> str:
        shown = ["variant", *self.axes, "seeds"] + [f"{f.key}_{s}" for f in HEADLINE for s in ("mean", "ci95")]
        return self.points[shown].to_string(index=False, float_format=lambda x: f"{x:.4g}")

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.output.report.sweep import sweep_report

        return sweep_report(self.runs, self.meta, setting(self.meta))


def setting(meta: dict[str, Any]) -> str:
    """The swept scenario's policy in force before the grid and cases change it."""
    from pathlab.api import Scenario

    return Scenario.from_text(meta["text"], meta["file"], set=meta["sets"]).setting
