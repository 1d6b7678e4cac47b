"""A sweep's result as `pathlab sweep` prints it: each point's headline figures with their 95%
intervals, and the HTML report with its curves (the tables go to the sweep's Parquet and CSV
files)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.figures import HEADLINE
from pathlab.output.files import written
from pathlab.output.sink import Output

if TYPE_CHECKING:
    import pandas as pd

    from pathlab.study.sweep_pipeline import Sweep


@dataclass
class SweepOutput(Output):
    #: One row per run, and one per point (variant and axis values) with means and intervals.
    runs: pd.DataFrame
    points: pd.DataFrame
    axes: list[str]
    #: What the report shows of how the sweep was made (`pathlab sweep`'s table metadata).
    meta: dict[str, Any]

    @classmethod
    def of(cls, s: Sweep) -> SweepOutput:
        return cls(s.runs, s.points, list(s.axes), s.meta)

    def table(self) -> str:
        return headline(self.points, self.axes).to_string(index=False, float_format=lambda x: f"{x:.4g}")

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.output.report.sweep import sweep_report

        return sweep_report(self.runs, self.meta, setting(self.meta))


def setting(meta: dict[str, Any]) -> str:
    """The swept scenario's policy in force before the grid and cases change it."""
    from pathlab.api import Scenario

    return Scenario.from_text(meta["text"], meta["file"], set=meta["sets"]).setting


def headline(points: pd.DataFrame, axes: list[str]) -> pd.DataFrame:
    """The points' columns the table shows: the point, its seeds, the headline figures, and each
    site's I/O rate where the hosts are at several sites (every host's and site's figures are in
    the tables)."""
    shown = ["variant", *axes, "seeds"] + [f"{f.key}_{s}" for f in HEADLINE for s in ("mean", "ci95")]
    return points[shown + [c for c in points.columns if c.startswith("site ") and c.endswith(" iops_mean")]]


def notebook_html(s: Sweep) -> str:
    """What a notebook shows of a sweep: the points' headline figures (every figure is `Sweep.points`)."""
    return headline(s.points, list(s.axes)).to_html(index=False, float_format=lambda x: f"{x:.4g}")


def write_table(df: pd.DataFrame, stem: Path, meta: dict[str, Any]) -> None:
    """A sweep's table as STEM.parquet (with how it was made in its metadata) and STEM.csv."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"pathlab": json.dumps(meta).encode()})
    with written(stem.with_suffix(".parquet"), "--out") as part:
        pq.write_table(table, part)
    with written(stem.with_suffix(".csv"), "--out") as part:
        df.to_csv(part, index=False)
