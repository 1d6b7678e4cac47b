"""The advisor's report: its findings, its recommendation with the values it assumed, the
candidates' figures with 95% error bars, and each one's commands and caveat."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from pathlab.figures import HEADLINE
from pathlab.output.report import plots
from pathlab.output.report.page import figure, page


def advise_report(title: str, findings: Sequence[Any], ranked: Sequence[Any], seeds: str, scenario_text: str,
                  provenance: dict[str, Any], recommendation: Sequence[str] = (),
                  assumptions: Sequence[tuple[str, str] | str] = (), gains: Sequence[str] = (),
                  gains_note: Sequence[str] = (), setting: str | None = None, against_capture: str = "") -> str:
    """The advisor's findings, its recommendation with the values it assumed, the candidates'
    figures with 95% error bars, and each one's commands and caveat. `gains` are the gain cells
    as the table shows them (ranges over the assumptions' spans, `gains_note` says over what);
    `setting` the host's policy in force; `against_capture` the setting in force, captured against
    simulated (an HTML fragment), shown before the recommendation."""

    # A line counting alike findings (or assumptions) left out comes as text (`output.advice.said_findings`).
    items = "".join(f"<li>{html.escape(f)}</li>" if isinstance(f, str) else
                    f"<li><b>{html.escape(f.title)}</b><br>{html.escape(f.evidence)}</li>"
                    for f in findings if isinstance(f, str) or not f.normal)
    sections = [("Findings", f"<ul>{items}</ul>" if items else "<p>Nothing stands out.</p>")]
    normal = "".join(f"<li>{html.escape(f.title)}<br>{html.escape(f.evidence)}</li>"
                     for f in findings if not isinstance(f, str) and f.normal)
    if normal:
        sections.append(("As the array works (not findings)", f"<ul>{normal}</ul>"))
    if against_capture:
        sections.append(("The setting in force, captured against simulated", against_capture))
    assumed = "".join(f"<li>{html.escape(x)}</li>" if isinstance(x, str) else
                      f"<li><code>{html.escape(x[0])}</code>: {html.escape(x[1])}</li>" for x in assumptions)
    sections.append(("Recommendation", f"<pre>{html.escape(chr(10).join(recommendation))}</pre>"
                     + (f"<p>Assumed, not in the captures:</p><ul>{assumed}</ul>" if assumed else "")))
    if not ranked:
        return page(title, sections, scenario_text, provenance, setting)
    labels = [r.candidate.label for r in ranked]
    bars = plots.bars(labels, [(f.name, [r.figures[f.key][0] for r in ranked], [r.figures[f.key][1] for r in ranked])
                               for f in HEADLINE])
    drawn = figure(bars, f"Each candidate's mean over {seeds} seeds with its 95% interval, every candidate on the same I/Os.")
    head = "".join(f"<th>{h}</th>" for h in ("candidate", *(f.heading for f in HEADLINE), "gain"))
    rows = "".join(
        f"<tr><th style='text-align:left'>{html.escape(r.candidate.label)}</th>"
        + "".join(f"<td>{f.show(r.figures[f.key][0])} ± {f.show(r.figures[f.key][1])}</td>" for f in HEADLINE)
        + f"<td>{html.escape(gain)}</td></tr>" for r, gain in zip(ranked, gains, strict=True))
    note = f"<p>{html.escape(' '.join(line.strip() for line in gains_note))}</p>" if gains_note else ""
    sections.append(("Candidates", drawn + f"<table><tr>{head}</tr>{rows}</table>" + note))
    how = "".join(f"<h3>{html.escape(r.candidate.label)}</h3><pre>{html.escape(chr(10).join(r.candidate.commands))}</pre>"
                  + (f"<p>{html.escape(r.candidate.caveat)}</p>" if r.candidate.caveat else "")
                  for r in ranked if r.candidate.commands)
    sections.append(("How to apply each", how or "<p>No commands: the setting in force is kept.</p>"))
    return page(title, sections, scenario_text, provenance, setting)
