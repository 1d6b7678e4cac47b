"""`advise --failures`' answer (`advisor.failure_advice.FailureAdvice`) as the CLI prints it: the
failures simulated, each candidate's timers with where each value comes from, the table of
candidate × failure (predicted, then measured), the ranking and the objective that orders it,
and the commands that apply the recommended timers; as JSON and as an HTML report."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from pathlab.advisor.failure_advice import FailureAdvice, FailureRow
from pathlab.advisor.failure_kinds import SAID
from pathlab.output.application import _table
from pathlab.output.failure_places import place_lines
from pathlab.output.seconds import FIGURES, seconds
from pathlab.output.sink import Output

HEAD = ["candidate", "failure", "predicted", "longest I/O wait", "longest stall", "failed I/Os", "hazards", "IOPS",
        "back to full rate"]


@dataclass
class FailureAdviceOutput(Output):
    advice: FailureAdvice

    def table(self) -> str:
        return "\n".join(text(self.advice))

    def document(self) -> Any:
        return self.advice.to_dict()

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.output.report.failure_waits import waits_figure
        from pathlab.output.report.page import page

        a = self.advice
        sections = [("Failures simulated", _pre(_failures(a))), ("Timers", _pre(_timers(a))),
                    ("Candidate × failure", waits_figure(a) + html_table(a))]
        if a.hosts:
            sections.append(("Per host and per site", _pre(place_lines(a)[1:])))
        sections += [("Ranking", _pre(_ranking(a))),
                    ("Recommendation", _pre(_recommendation(a)))]
        if a.findings:
            sections.append(("Findings", _pre(_findings(a))))
        if a.notes:
            sections.append(("Notes", _pre(list(a.notes))))
        return page(f"pathlab advise --failures: {a.subject}", sections, None, provenance,
                    f"timers recommended: {a.recommended.label}")


def _pre(lines: list[str]) -> str:
    return f"<pre>{html.escape(chr(10).join(lines))}</pre>"


def cells(r: FailureRow) -> list[str]:
    m = r.measured
    back = seconds(m.back_to_full_rate_s, precision=FIGURES) if m.back_known else "not back"
    return [r.candidate, r.kind, r.predicted.text(), seconds(m.longest_wait_s, precision=FIGURES),
            seconds(m.longest_stall_s, precision=FIGURES), f"{m.failed_ios:,}",
            f"{m.hazards:,}", f"{m.iops:,.0f}", back]


def text(a: FailureAdvice) -> list[str]:
    lines = _failures(a) + [""] + _timers(a) + [""]
    lines += ["Candidate × failure (predicted: from the timers, before the runs, the worst case of a probe's grid; "
              "measured: the worst seed, the mean IOPS):", *("  " + row for row in _table(HEAD, [cells(r) for r in a.rows])),
              ]
    lines += place_lines(a) + [""]
    lines += _ranking(a) + [""] + _recommendation(a)
    if a.findings:
        lines += ["", *_findings(a)]
    if a.notes:
        lines += ["", *(f"Note: {n}" for n in a.notes)]
    return lines


def _failures(a: FailureAdvice) -> list[str]:
    out = [f"Failures simulated ({a.stack}; {len(a.seeds)} seeds each, the same for every candidate; 1 s of warm-up):"]
    for k, (_, start, end, run_end) in zip(a.kinds, a.windows):
        out.append(f"  {k.kind}: {SAID[k.kind]}, {k.target}, from {start:g} s to {end:g} s (run to {run_end:g} s)")
    return out


def _timers(a: FailureAdvice) -> list[str]:
    out = ["Timers (read: from the host's files or the scenario; derived: by a named rule; assumed: the built-in "
           "default; candidate: what the candidate changes):"]
    for i, c in enumerate(a.candidates):
        out.append(f"  {c.label} ({c.source})" + (":" if i == 0 else ", changes:"))
        out += [f"    {s.name} {s.value} ({s.provenance}: {s.where})" for s in c.settings
                if i == 0 or s.provenance == "candidate"]
        if not c.settings:
            out.append(f"    none said: advise --failures has no timer table or rule for the {a.stack} stack yet "
                       "(the engine's own defaults run)")
    return out


def _ranking(a: FailureAdvice) -> list[str]:
    out = [f"Ranked (objective {a.objective}) by {a.ranks_by}:"]
    for i, r in enumerate(a.ranking, 1):
        hazards = f"{r.hazards:,} hazard{'' if r.hazards == 1 else 's'}"
        out.append(f"  {i}. {r.candidate}: {hazards}, {r.failed_ios:,} I/Os failed, longest waits "
                   f"{r.wait_s:.1f} s in all, {r.iops:,.0f} IOPS")
    return out


def _recommendation(a: FailureAdvice) -> list[str]:
    rec = a.recommended
    on = f" on {'every host: ' if not a.shown_host else ''}{', '.join(a.applied_on)}" if a.hosts else ""
    if rec.label == "in force":
        return [f"Recommendation: keep the timers in force{on}" + (" (no candidate does better by this objective)"
                                                                    if len(a.candidates) > 1 else
                                                                    " (no other candidate: see the notes)")]
    commands = "\n".join(rec.commands).splitlines()
    if a.hosts:  # one set of timers: the same commands, run on each host
        return [f"Recommendation: {rec.label}'s timers ({rec.source}){on}; to apply them:",
                *(f"  on {host}:\n" + "\n".join(f"    {c}" for c in commands) for host in a.applied_on)]
    return [f"Recommendation: {rec.label}'s timers ({rec.source}); to apply them:", *(f"  {c}" for c in commands)]


def _findings(a: FailureAdvice) -> list[str]:
    return ["Timer findings (the host's files):", *(f"  - {f.title}\n      {f.evidence}" for f in a.findings)]


def html_table(a: FailureAdvice) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEAD)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells(r)) + "</tr>" for r in a.rows)
    return f"<p>Ranked (objective {html.escape(a.objective)}) by {html.escape(a.ranks_by)}.</p>" \
           f"<table><tr>{head}</tr>{body}</table>"
