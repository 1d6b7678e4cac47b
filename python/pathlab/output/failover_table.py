"""A failover study's table, as `pathlab failover` prints it and its docs page pastes it
(Markdown): one row per setting and failure, the figures the application saw, in seconds to the
millisecond (the timers' scale: a stall's last digits are the retry's service)."""

from __future__ import annotations

from pathlab.advisor.failure_theory import Prediction
from pathlab.output.seconds import seconds
from pathlab.study.failover import FailoverRow, FailoverStudy

#: The table's columns, in order.
HEADINGS = ("setting", "failure", "predicted stall", "longest stall (s)", "longest I/O (s)", "failed I/Os", "hazards",
            "back to full rate (s)", "failed back (s)")


def cells(row: FailoverRow, predicted: Prediction) -> tuple[str, ...]:
    """A row's cells: the timers' prediction as `Prediction.text` says it, then seconds to the
    millisecond; "-" for a rate that never fell, "not by the end" for one that did not come back
    (or paths not in use again) before the run ended."""
    back = "-" if row.back_to_full_rate_s == 0 else seconds(row.back_to_full_rate_s, "not by the end", suffix="")
    return (row.setting, row.failure, predicted.text(), seconds(row.stall_s, suffix=""),
            seconds(row.longest_io_s, suffix=""), str(row.failed_ios), str(row.hazards), back,
            seconds(row.failed_back_s, "not by the end", suffix=""))


def markdown(study: FailoverStudy, predicted: list[Prediction]) -> str:
    lines = ["| " + " | ".join(HEADINGS) + " |", "|" + "---|" * len(HEADINGS)]
    lines += ["| " + " | ".join(cells(r, p)) + " |" for r, p in zip(study.rows, predicted, strict=True)]
    return "\n".join(lines)
