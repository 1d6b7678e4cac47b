"""A failover study's result as `pathlab failover` prints it: the Markdown table
(`failover_table.py`), JSON and CSV with every digit, and the HTML report; each row with the
stall its timers predict (`advisor/failover_predictions.py`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from pathlab.advisor.failover_predictions import predictions
from pathlab.output.failover_table import markdown
from pathlab.output.sink import Output
from pathlab.study.failover import FailoverStudy


@dataclass
class FailoverOutput(Output):
    study: FailoverStudy

    def table(self) -> str:
        return markdown(self.study, predictions(self.study))

    def rows(self) -> list[dict[str, Any]]:
        predicted = predictions(self.study)
        return [{**{k: v for k, v in asdict(r).items() if k not in ("data", "faults")},
                 "predicted_stall_s": p.seconds, "predicted_within_s": p.tick, "predicted_rule": p.rule}
                for r, p in zip(self.study.rows, predicted, strict=True)]

    def document(self) -> Any:
        return {"file": self.study.file, "seed": self.study.seed, "rows": self.rows()}

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.output.report.failover import failover_report

        return failover_report(self.study, predictions(self.study), provenance)
