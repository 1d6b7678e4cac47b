"""`pathlab bench`'s figures as it prints them: each table aligned for a terminal (labels to the
left, figures to the right) or as Markdown (for docs/benchmarks.md), under its title and above its
note; and the large host's set-up line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pathlab.output.sink import Output


@dataclass
class BenchTable(Output):
    title: str
    headers: Sequence[str]
    #: One list of cells a row, the label first.
    body: Sequence[Sequence[str]]
    note: str = ""
    markdown: bool = False

    def table(self) -> str:
        lines = ["", self.title]
        if self.markdown:
            lines += ["", "| " + " | ".join(self.headers) + " |", "|" + "---|" * len(self.headers)]
            lines += ["| " + " | ".join(row) + " |" for row in self.body]
        else:
            widths = [max(len(h), *(len(r[i]) for r in self.body)) for i, h in enumerate(self.headers)]
            lines += ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))
                      for cells in (self.headers, *self.body)]
        if self.note:
            lines += [*([""] if self.markdown else []), self.note]
        return "\n".join(lines)


@dataclass
class LargeHost(Output):
    """What validating a host of many devices and starting its run cost."""

    devices: int
    validate_s: float
    start_s: float
    peak_rss_mib: float

    def table(self) -> str:
        return (f"\n{self.devices:,} devices x 8 paths: validate {self.validate_s:.2f} s, start of the run "
                f"{self.start_s:.2f} s, peak RSS {self.peak_rss_mib:.1f} MiB")
