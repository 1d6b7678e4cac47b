"""A failover study's HTML report: the table of every setting under every failure, then for
each setting the run of its longest stall drawn through the failure (rate above latency, the
fault shaded, the host's timer marks: `through_faults`)."""

from __future__ import annotations

import html
from typing import Any

from pathlab.advisor.failure_theory import Prediction
from pathlab.output.failover_table import HEADINGS, cells
from pathlab.output.report import through_faults
from pathlab.output.report.page import figure, page
from pathlab.study.failover import FailoverRow, FailoverStudy


def _table(study: FailoverStudy, predicted: list[Prediction]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADINGS)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells(r, p)) + "</tr>"
                   for r, p in zip(study.rows, predicted, strict=True))
    return f"<table><tr>{head}</tr>{body}</table>"


def _worst_per_setting(study: FailoverStudy) -> list[FailoverRow]:
    """Each setting's run of its longest stall (the first failure among equals)."""
    worst: dict[str, FailoverRow] = {}
    for r in study.rows:
        if r.setting not in worst or r.stall_s > worst[r.setting].stall_s:
            worst[r.setting] = r
    return list(worst.values())


def failover_report(study: FailoverStudy, predicted: list[Prediction], provenance: dict[str, Any]) -> str:
    sections = [("What the application saw, and the stall the timers predict", _table(study, predicted))]
    for r in _worst_per_setting(study):
        device = r.data["devices"][0]["name"]
        fig = through_faults.device_through_faults(r.data, device, through_faults.faults_of(r.data))
        caption = (f"{r.setting} ({r.description}), {r.failure}: longest stall {r.stall_s:.3f} s, "
                   f"hazards {r.hazards}")
        sections.append((f"{r.setting}: {r.failure}", figure(fig, caption)))
    return page(f"pathlab failover: {study.file}", sections, study.text, {**provenance, "seed": study.seed})
