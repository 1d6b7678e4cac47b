"""The advisor's answer as `pathlab advise` prints it: findings, the candidates with their
figures over seeds, and the recommendation with the commands to paste."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from pathlab.advise.candidates import OWN_POLICY
from pathlab.advise.decide import MARGIN, Decision
from pathlab.advise.ranges import GainRanges
from pathlab.advise.ranked import Ranked
from pathlab.advise.run_length import RunLength
from pathlab.finding import Finding
from pathlab.output.sink import Output

#: What to capture so that advise can predict a gain, by the host's stack: the performance
#: counters each importer reads as the host's load (5 s samples for 5 minutes).
CAPTURE_COMMANDS = {
    "esxi": ["esxtop -b -d 5 -n 61 > esxtop.csv",
             "esxcli storage nmp device list > devices.txt; esxcli storage nmp path list > paths.txt"],
    "linux": ["multipath -ll > multipath.txt", "iostat -xt 5 61 > iostat.txt   # or: for i in $(seq 61); do date +%s; "
              "cat /proc/diskstats; sleep 5; done > diskstats.txt"],
    "nvme": ["nvme list-subsys > subsys.txt", "iostat -xt 5 61 > iostat.txt",
             "grep -r . /sys/block/nvme*c*n*/{queue_depth,ana_state,diag/*} /sys/class/nvme/nvme*/diag/* > sysfs.txt"
             "   # kernels of 2026: per-path failover, retry and error counters"],
}


@dataclass
class Advice(Output):
    #: What was advised on, for the report's title.
    subject: str
    findings: list[Finding]
    #: The candidates in the objective's order; empty when nothing was simulated (no measured load).
    ranked: list[Ranked]
    scenario_text: str
    decision: Decision | None = None
    objective: str = "balanced"
    #: Values the captures did not give, as (field, what was assumed): the prediction rests on them.
    assumptions: list[tuple[str, str]] = field(default_factory=list)
    #: Set when the captures carry no performance counters: the host's stack, for what to capture.
    unmeasured_stack: str | None = None
    #: Each candidate's gain over the spans of the assumptions that matter (port capacity, load);
    #: None when the prediction rests on none of them.
    ranges: GainRanges | None = None
    #: How long each run simulated (chosen from a pilot run with `--duration auto`); None when
    #: nothing was simulated.
    run_length: RunLength | None = None
    #: The run length at each span's end the ranges were simulated at, as (end, length).
    run_lengths_at_ends: list[tuple[str, RunLength]] = field(default_factory=list)

    @property
    def ranked_in_force(self) -> Ranked:
        return next(r for r in self.ranked if r.candidate.label == "the setting in force")

    def table(self) -> str:
        return text(self)

    def document(self) -> Any:
        choice = self.decision.choice if self.decision else None
        return {
            "findings": [asdict(f) for f in self.findings],
            "objective": self.objective,
            "candidates": [{**asdict(r.candidate), "figures": r.figures, "gain": _number(r.gain),
                            "gain_range": self._gain_range(r), "simulated": True, "seeds": r.seeds}
                           for r in self.ranked],
            "gain_range_over": self.ranges.over if self.ranges else None,
            "run_length": None if self.run_length is None else {
                **asdict(self.run_length), "at_span_ends": [{"end": end, **asdict(length)}
                                                             for end, length in self.run_lengths_at_ends]},
            "recommendation": None if self.decision is None else {
                "change": choice is not None, "to": choice.candidate.label if choice else "the setting in force",
                "reason": self.decision.reason, "margin": MARGIN},
            "assumptions": [{"field": f, "assumed": m} for f, m in self.assumptions],
            "capture_needed": CAPTURE_COMMANDS[self.unmeasured_stack] if self.unmeasured_stack else None,
        }

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.api import Scenario
        from pathlab.output.report.advice import advise_report

        return advise_report(f"pathlab advise: {self.subject}", self.findings, self.ranked, seeds_taken(self.ranked),
                             self.scenario_text, provenance, recommendation(self), self.assumptions,
                             [self.gain_cell(r) for r in self.ranked], ranges_note(self) + run_length_note(self),
                             f"in force: {Scenario.from_text(self.scenario_text).setting}" if self.scenario_text else None)

    def _gain_range(self, r: Ranked) -> list[float | None] | None:
        if self.ranges is None:
            return None
        return [_number(g) for g in self.ranges.gains[r.candidate.label]]

    def gain_cell(self, r: Ranked) -> str:
        """The gain as the table shows it: the range over the assumptions' spans where there are
        some, else the one figure."""
        if self.ranges is None:
            return gain_text(r.gain)
        low, high = self.ranges.gains[r.candidate.label]
        return gain_text(low) if math.isnan(low) or f"{low:.2f}" == f"{high:.2f}" else f"{low:.2f}x to {high:.2f}x"


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def ranges_note(a: Advice) -> list[str]:
    """What the gain ranges are over, or nothing when the gains are single figures."""
    if a.ranges is None:
        return []
    own = [f"  {OWN_POLICY}'s range leaves the fabric's distance out, which moves its gain about twice as much as the",
           "  port capacity's span does (measured: advise.ranges); it is never recommended"]
    return (["Gains are ranges: each candidate simulated at both ends of each assumption's span (the others at their",
             "assumed value, the same seeds and I/Os), lowest to highest, over:"] + [f"    {o}" for o in a.ranges.over]
            + (own if any(r.candidate.label == OWN_POLICY for r in a.ranked) else []))


def run_length_note(a: Advice) -> list[str]:
    """How long each run simulated and why, with the span ends' lengths where they differ."""
    if a.run_length is None:
        return []
    ends = [f"    at {end}: {length.duration_s:g} s after {length.warmup_s:g} s"
            + (f" ({length.reason})" if length.reason != a.run_length.reason else "")
            for end, length in a.run_lengths_at_ends if length != a.run_length]
    return [f"Each run simulated {a.run_length.duration_s:g} s after {a.run_length.warmup_s:g} s of warm-up "
            f"({a.run_length.reason}){'; the ends of the spans where they differ:' if ends else '.'}", *ends]


def gain_text(gain: float) -> str:
    """A gain as people read it; none where the setting in force moved no I/O at all."""
    return "-" if math.isnan(gain) else f"{gain:.2f}x"


def _cell(figure: tuple[float, float], digits: int) -> str:
    mean, hw = figure
    return f"{mean:,.{digits}f} ± {hw:,.{digits}f}"


def recommendation(a: Advice) -> list[str]:
    """The recommendation's lines: the change and its commands, or keep, or what to capture."""
    if a.unmeasured_stack:
        return ["No prediction: the captures carry no performance counters, so the host's load is not known and a",
                "gain cannot be predicted from them. Take a capture on the host and run advise again with it:"] + \
               [f"    {c}" for c in CAPTURE_COMMANDS[a.unmeasured_stack]]
    assert a.decision is not None
    choice = a.decision.choice
    if choice is None:
        return [f"Recommendation: keep the setting in force ({a.decision.reason})."]
    f, base = choice.figures, a.ranked_in_force.figures
    p99 = f["p99_ms"][0] / base["p99_ms"][0] if base["p99_ms"][0] > 0 else float("nan")
    gain = f"{choice.gain:.2f}x the I/O rate in force" if a.ranges is None else \
        f"{a.gain_cell(choice)} the I/O rate in force over the assumptions' spans, {choice.gain:.2f}x at the assumed values"
    lines = [f"Recommendation: {choice.candidate.label} (simulated: {gain}, "
             f"p99 {p99:.2f}x; {a.decision.reason})"]
    if choice.candidate.commands:
        lines += ["  Commands:"] + [f"    {c}" for c in choice.candidate.commands]
    if choice.candidate.caveat:
        lines.append(f"  Note: {choice.candidate.caveat}")
    if a.ranges is not None and a.objective != "latency":
        low = a.ranges.gains[choice.candidate.label][0]
        if low < 1 + MARGIN:  # the decision is on the assumed values; at a span's end the gain is within the margin
            lines.append(f"  Note: at the low end of the assumptions' spans the gain is {low:.2f}x, within the "
                         f"{MARGIN:.0%} that matters: the change pays only if the assumed values hold; a capture "
                         "with the host's load and its ports' figures tells")
    return lines


def seeds_taken(ranked: list[Ranked]) -> str:
    """The seeds the candidates were simulated over, as the outputs say them ("2", "2 to 3")."""
    taken = sorted({r.seeds for r in ranked})
    return f"{taken[0]}" if len(taken) == 1 else f"{taken[0]} to {taken[-1]}"


def text(a: Advice) -> str:
    lines = ["Findings (the setting in force):"]
    lines += [f"  - {f.title}\n      {f.evidence}" for f in a.findings] or ["  (nothing stands out)"]
    if a.ranked:
        lines += ["", f"Candidates, simulated on this host on the same I/Os over {seeds_taken(a.ranked)} seeds (mean ± 95% "
                      "interval), "
                      f"in the order of the objective ({a.objective}):"]
        width = max(6, *(len(a.gain_cell(r)) for r in a.ranked))
        lines.append(f"  {'setting':<28} {'I/O per s':>22} {'mean ms':>16} {'p99 ms':>16} {'gain':>{width}}")
        for r in a.ranked:
            f = r.figures
            lines.append(f"  {r.candidate.label:<28} {_cell(f['iops'], 0):>22} {_cell(f['resp_ms'], 3):>16} "
                         f"{_cell(f['p99_ms'], 3):>16} {a.gain_cell(r):>{width}}")
        if len({r.seeds for r in a.ranked}) > 1:
            lines.append("  Seeds per candidate (more only while the intervals left the decision open): "
                         + ", ".join(f"{r.candidate.label} {r.seeds}" for r in a.ranked))
        lines += [f"  {line}" for line in ranges_note(a) + run_length_note(a)]
    lines += [""] + recommendation(a)
    if a.ranked:
        lines.append("  Simulated figures, not measured ones: they rest on the scenario's workload and hardware figures"
                     + (", and on these values the captures do not give:" if a.assumptions else "."))
        lines += [f"    {field_name}: {message}" for field_name, message in a.assumptions]
    return "\n".join(lines)
