"""A failover study's result as `pathlab failover` prints it: the Markdown table
(`failover_table.py`), JSON and CSV with every digit, and the HTML report."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from pathlab.output.failover_table import markdown
from pathlab.output.sink import Output
from pathlab.study.failover import FailoverStudy


@dataclass
class FailoverOutput(Output):
    study: FailoverStudy

    def table(self) -> str:
        return markdown(self.study)

    def rows(self) -> list[dict[str, Any]]:
        return [{k: v for k, v in asdict(r).items() if k != "data"} for r in self.study.rows]

    def document(self) -> Any:
        return {"file": self.study.file, "seed": self.study.seed, "rows": self.rows()}

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.output.report.failover import failover_report

        return failover_report(self.study, provenance)
