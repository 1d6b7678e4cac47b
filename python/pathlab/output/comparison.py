"""Settings side by side, as `pathlab compare` prints them: a scenario's variants on the same
I/Os, the standard lineup of every stack's policies, and either of them replicated over seeds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pathlab import figures
from pathlab.output.hosts_and_sites import hosts_and_sites, hosts_and_sites_by_setting, place_entries
from pathlab.output.run import summary_row
from pathlab.output.sink import Output
from pathlab.study.compare import Comparison, Lineup, lineup_of
from pathlab.study.lineup import OURS

if TYPE_CHECKING:
    import pandas as pd

#: The figures `compare` shows side by side.
SIDE_BY_SIDE = figures.pick("iops", "mbps", "resp_ms", "read_resp_ms", "write_resp_ms", "resp_max_ms", "resp_stddev_ms",
                            "queue_depth", "p50_ms", "p99_ms", "p999_ms", "errors", "failed")
#: The figures of a lineup table.
LINEUP_COLUMNS = figures.pick("iops", "resp_ms", "p99_ms", "resp_max_ms", "errors", "failed")


@dataclass
class Variants(Output):
    """Every variant of one scenario, one run each on the same I/Os."""

    scenario: str
    #: (name, description) of each variant, in file order.
    variants: list[tuple[str, str]]
    #: Each variant's JSON result.
    runs: list[dict[str, Any]]
    scenario_text: str | None

    def table(self) -> str:
        names = [name for name, _ in self.variants]
        head = f"pathlab compare: {self.scenario}, seed {self.runs[0]['seed']}, every variant on the same I/Os\n"
        notes = [f"{name}: {desc}" for name, desc in self.variants]
        return "\n".join([head, side_by_side(names, [r["summary"] for r in self.runs]), *hosts_and_sites(names, self.runs),
                          "", *notes])

    def document(self) -> Any:
        rows = [{"variant": name, "description": desc, "summary": r["summary"]} | place_entries(r, self.runs)
                for (name, desc), r in zip(self.variants, self.runs)]
        return {"scenario": self.scenario, "seed": self.runs[0]["seed"], "variants": rows}

    def rows(self) -> list[dict[str, Any]]:
        return [summary_row(r) for r in self.runs]

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.output.report.runs import compare_report

        return compare_report(f"pathlab compare: {self.scenario}", [n for n, _ in self.variants], self.runs,
                              self.scenario_text, provenance, f"{len(self.variants)} variants, each on the same I/Os",
                              self.variants)


@dataclass
class Lineups(Output):
    """The standard lineup on one scenario or on each of a folder's."""

    lineups: list[Lineup]
    #: The scenario file's text, for the report (one scenario).
    scenario_text: str | None = None

    def table(self) -> str:
        return "\n\n".join("\n".join([lineup_table(one.scenario, one.labels, [r["summary"] for r in one.runs]),
                                       *hosts_and_sites_by_setting(one.labels, one.runs)]) for one in self.lineups)

    def document(self) -> Any:
        return [{"scenario": one.scenario, "policies": [{"policy": p, "summary": r["summary"]} | place_entries(r, one.runs)
                                                        for p, r in zip(one.labels, one.runs)]} for one in self.lineups]

    def rows(self) -> list[dict[str, Any]]:
        return [{"scenario": one.scenario, "policy": p, **r["summary"]} for one in self.lineups
                for p, r in zip(one.labels, one.runs)]

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.output.report.runs import compare_report

        one = self.lineups[0]
        return compare_report(f"pathlab lineup: {one.scenario}", one.labels, one.runs, self.scenario_text, provenance,
                              f"every stack's policies ({len(one.labels)} settings), each on the same I/Os", lineup=True)


@dataclass
class Replicated(Output):
    """Settings (variants or lineup policies) of one scenario file over several seeds: one row per
    (setting, seed)."""

    file: str
    runs: pd.DataFrame
    #: The setting the others are tested against (ours in a lineup), or the best of each figure.
    reference: str | None
    scenario_text: str

    def table(self) -> str:
        from pathlab.output.over_seeds import replicated_table

        return f"{self.file}\n{replicated_table(self.runs, self.reference)}\n"

    def document(self) -> pd.DataFrame:
        return self.runs.assign(scenario=self.file)

    def rows(self) -> pd.DataFrame:
        return self.runs.assign(scenario=self.file)

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.output.report.runs import replicated_report

        settings, seeds = self.runs["setting"].nunique(), self.runs["seed"].nunique()
        return replicated_report(f"pathlab compare: {self.file}", self.runs, self.scenario_text, provenance,
                                 f"{settings} settings over {seeds} seeds, each seed's I/Os the same for every setting")


def output_of(c: Comparison) -> Output:
    """The comparison for the output sink: its variants, its lineup, or its runs over seeds."""
    if c.replicated is not None:
        return Replicated(c.file, c.replicated, c.reference, c.text)
    if c.kind == "lineup":
        return Lineups([lineup_of(c)], c.text)
    return Variants(c.scenario, list(c.settings), [r.data for r in c.results], c.text)


def notebook_html(c: Comparison) -> str:
    """What a notebook shows of a comparison: the table as the command prints it, and the runs'
    figures as a table."""
    import html

    shown = output_of(c).table()
    return f"<pre>{html.escape(shown)}</pre>\n" + c.table.to_html(index=False, float_format=lambda x: f"{x:.4g}")


def side_by_side(names: list[str], summaries: list[dict]) -> str:
    width = max(12, *(len(n) + 2 for n in names))
    lines = ["".ljust(14) + "".join(n.rjust(width) for n in names)]
    for f in SIDE_BY_SIDE:
        lines.append(f.heading.ljust(14) + "".join(f.show(s[f.key]).rjust(width) for s in summaries))
    return "\n".join(lines)


def lineup_table(name: str, labels: list[str], summaries: list[dict]) -> str:
    """One line per policy; * marks the best of a column, and ours is compared with the best of
    the others."""
    best = {f.key: f.better(s[f.key] for s in summaries) for f in LINEUP_COLUMNS if f.better}
    width = max(len(x) for x in labels) + 2
    lines = [f"{name}", "".ljust(width) + "".join(f.heading.rjust(13) for f in LINEUP_COLUMNS)]
    for label, s in zip(labels, summaries):
        cells = [(f.show(s[f.key]) + ("*" if s[f.key] == best.get(f.key) else " ")).rjust(13) for f in LINEUP_COLUMNS]
        lines.append(label.ljust(width) + "".join(cells))
    if OURS in labels:
        ours = summaries[labels.index(OURS)]
        others = [s for label, s in zip(labels, summaries) if label != OURS]
        top_rate = max(s["iops"] for s in others)
        top_resp = min(s["resp_ms"] for s in others)
        top_p99 = min(s["p99_ms"] for s in others)
        lines.append(
            f"{OURS} against the best other: I/O rate {100 * (ours['iops'] / top_rate - 1):+.1f}%, "
            f"resp {100 * (ours['resp_ms'] / top_resp - 1):+.1f}%, p99 {100 * (ours['p99_ms'] / top_p99 - 1):+.1f}%"
        )
    return "\n".join(lines)
