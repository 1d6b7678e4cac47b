"""The advisor's answer as `pathlab advise` prints it: findings, the candidates with their
figures over seeds, and the recommendation with the commands to paste."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from pathlab.advise.rank import Ranked
from pathlab.finding import Finding
from pathlab.output.sink import Output


@dataclass
class Advice(Output):
    #: What was advised on, for the report's title.
    subject: str
    findings: list[Finding]
    ranked: list[Ranked]
    seeds: int
    scenario_text: str

    def table(self) -> str:
        return text(self.findings, self.ranked, self.seeds)

    def document(self) -> Any:
        return {
            "findings": [asdict(f) for f in self.findings],
            "candidates": [{**asdict(r.candidate), "figures": r.figures, "gain": r.gain} for r in self.ranked],
        }

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.study.report import advise_report

        return advise_report(f"pathlab advise: {self.subject}", self.findings, self.ranked, self.seeds,
                             self.scenario_text, provenance)


def _cell(figure: tuple[float, float], digits: int) -> str:
    mean, hw = figure
    return f"{mean:,.{digits}f} ± {hw:,.{digits}f}"


def text(found: list[Finding], ranked: list[Ranked], seeds: int) -> str:
    lines = ["Findings (the setting in force):"]
    lines += [f"  - {f.title}\n      {f.evidence}" for f in found] or ["  (nothing stands out)"]
    lines += ["", f"Candidates, simulated on this host on the same I/Os over {seeds} seeds (mean ± 95% interval):"]
    head = f"  {'setting':<28} {'I/O per s':>22} {'mean ms':>16} {'p99 ms':>16} {'gain':>6}"
    lines.append(head)
    for r in ranked:
        f = r.figures
        lines.append(f"  {r.candidate.label:<28} {_cell(f['iops'], 0):>22} {_cell(f['resp_ms'], 3):>16} "
                     f"{_cell(f['p99_ms'], 3):>16} {r.gain:>5.2f}x")
    best = next((r for r in ranked if r.candidate.commands or r.candidate.label == "the setting in force"), ranked[0])
    lines += ["", f"Recommendation: {best.candidate.label} (predicted {best.gain:.2f}x the I/O rate in force)"]
    if best.candidate.commands:
        lines += ["  Commands:"] + [f"    {c}" for c in best.candidate.commands]
    if best.candidate.caveat:
        lines.append(f"  Note: {best.candidate.caveat}")
    lines.append("  The prediction assumes the scenario's workload and hardware figures; see its comments.")
    return "\n".join(lines)
