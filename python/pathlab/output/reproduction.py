"""Published against simulated, as `pathlab reproduce` prints it: one row per figure a
scenario publishes, with its error, tolerance and status."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pathlab.output.sink import Output


@dataclass
class Reproduction(Output):
    #: One row per (scenario, variant, figure): published, simulated, error, tolerance, ok, explained.
    comparisons: list[dict[str, Any]]

    def table(self) -> str:
        return table(self.comparisons)

    def document(self) -> Any:
        return self.comparisons

    def out_unexplained(self) -> bool:
        """A checked figure is out of tolerance and its scenario does not say why."""
        return any(r["ok"] is False and not r["explained"] for r in self.comparisons)


def number(v: float) -> str:
    """Readable at any scale: thousands separated, three significant decimals for small values."""
    return f"{v:,.1f}" if abs(v) >= 100 else f"{v:.4g}"


def table(rows: list[dict]) -> str:
    head = f"{'scenario':<28} {'variant':<16} {'figure':<15} {'published':>12} {'simulated':>12} {'error':>9} {'tolerance':>9}  status"
    lines = [head, "-" * len(head)]
    notes: list[str] = []
    last = None
    for r in rows:
        label = (r["scenario"], r["variant"])
        scen, var = (r["scenario"], r["variant"] or "-") if label != last else ("", "")
        last = label
        tol = f"±{r['tolerance'] * 100:g}%" if r["tolerance"] is not None else "-"
        status = {True: "ok", False: "OUT", None: "(not checked)"}[r["ok"]]
        if r["ok"] is False and r["explained"]:
            notes.append(r["explained"])
            status = f"OUT, explained [{len(notes)}]"
        lines.append(
            f"{scen:<28} {var:<16} {r['figure']:<15} {number(r['published']):>12} {number(r['simulated']):>12} "
            f"{r['error'] * 100:>+8.1f}% {tol:>9}  {status}"
        )
    checked = [r for r in rows if r["ok"] is not None]
    out = sum(1 for r in checked if not r["ok"] and not r["explained"])
    explained = sum(1 for r in checked if not r["ok"] and r["explained"])
    lines.append("")
    summary = f"{len(checked) - out - explained} of {len(checked)} checked figures within tolerance"
    summary += f"; {explained} out with an explanation" if explained else ""
    summary += f"; {out} out" if out else ""
    lines.append(summary)
    lines += [f"[{i}] {note}" for i, note in enumerate(notes, start=1)]
    return "\n".join(lines)
