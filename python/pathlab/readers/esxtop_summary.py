"""An `esxtop -b` capture's disk objects summed as they are read, for `import` and `advise`: per
instance and counter, what they compute from the samples (the means without the first sample, or
without the first value; the intervals with failed commands and the changes between them), kept
as a few running figures per counter, so memory does not grow with the samples.

The first sample covers the time before esxtop started: the findings (`capture_findings`) leave
the first sample out, the scenario's figures (`importer.esxi`) each counter's first value (the
same unless a counter is missing in the first sample). Sums are compensated (Kahan): on the shipped
and generated captures the means are those of the pandas frames used before, or within 2 ulp of
them (NOTES.md, session 8)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from pathlab.readers.esxtop import Table


class _Mean:
    """A compensated running sum and count of the figures that are numbers, per field."""

    def __init__(self, size: int) -> None:
        self.sum, self.compensation, self.count = np.zeros(size), np.zeros(size), np.zeros(size, dtype=np.int64)

    def add(self, values: np.ndarray, taken: np.ndarray) -> None:
        y = values - self.compensation
        t = self.sum + y
        compensation = (t - self.sum) - y
        compensation[np.isnan(compensation)] = 0  # an infinite figure: its sum stays infinite, not NaN
        np.copyto(self.sum, t, where=taken)
        np.copyto(self.compensation, compensation, where=taken)
        self.count += taken

    def means(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count > 0, self.sum / np.maximum(self.count, 1), np.nan)


class Summary:
    """Every field read (a disk object's counter), summed sample by sample (`esxtop.Sink`)."""

    def __init__(self) -> None:
        self.samples = 0
        self.tables: dict[str, TableSummary] = {}

    def start(self, tables: dict[str, Table], where: dict[int, int], header_lines: int) -> None:
        size = len(where)
        self.first = np.full(size, np.nan)  # the first sample
        self.later = _Mean(size)  # the samples after the first
        self.erring = np.zeros(size, dtype=np.int64)  # later samples with a figure above 0
        self.changes = np.zeros(size, dtype=np.int64)  # between a later sample above 0 and one not
        self.was_erring = np.zeros(size, dtype=bool)
        self.seen = np.zeros(size, dtype=bool)  # a number met: the first value
        self.first_value = np.full(size, np.nan)
        self.after_first_value = _Mean(size)
        self.tables = {name: TableSummary(self, {inst: {c: where[i] for c, i in own} for inst, own in t.counters.items()})
                       for name, t in tables.items()}

    def add(self, line: int, stamp: str, values: np.ndarray) -> None:
        number = ~np.isnan(values)
        self.after_first_value.add(values, number & self.seen)
        np.copyto(self.first_value, values, where=number & ~self.seen)
        self.seen |= number
        if self.samples:
            self.later.add(values, number)
            erring = values > 0  # a missing figure is no failure
            self.erring += erring
            if self.samples > 1:
                self.changes += erring != self.was_erring
            self.was_erring = erring
        else:
            self.first[:] = values
        self.samples += 1

    def __getitem__(self, table: str) -> TableSummary:
        return self.tables[table]


class TableSummary:
    """One object's instances (adapters, paths or devices): `fields` gives each instance's
    counters and where their figures are in the `Summary`'s arrays."""

    def __init__(self, summary: Summary, fields: dict[str, dict[str, int]]) -> None:
        self.summary, self.fields = summary, fields
        #: Every counter of the object's instances, in header order.
        self.counters = list(dict.fromkeys(c for own in fields.values() for c in own))

    @property
    def empty(self) -> bool:
        return not self.fields or not self.summary.samples

    def _frame(self, figures: np.ndarray) -> pd.DataFrame:
        """`figures` (one per field) as a table: one row per instance, by name, one column per counter."""
        import pandas as pd

        names = sorted(self.fields)
        return pd.DataFrame([[figures[self.fields[n][c]] if c in self.fields[n] else np.nan for c in self.counters]
                             for n in names], index=pd.Index(names, name="name"), columns=self.counters, dtype=float)

    def means(self) -> pd.DataFrame:
        """Each instance's mean counters over the capture, the first sample left out (unless it
        is the only one); missing figures are not counted."""
        s = self.summary
        return self._frame(s.later.means() if s.samples > 1 else s.first)

    def mean(self, name: str, counter: str) -> float | None:
        """The instance's mean of the counter, its first value left out (unless it is the only
        one); None if the capture has no figure of it."""
        field = self.fields.get(name, {}).get(counter)
        if field is None:
            return None
        s, later = self.summary, self.summary.after_first_value
        if later.count[field]:
            return float(later.sum[field] / later.count[field])
        return float(s.first_value[field]) if s.seen[field] else None

    def failures(self, counter: str) -> pd.DataFrame:
        """Per instance, over the intervals of `means` (`intervals` of them): `erring`, those with
        the counter above 0, `changes` between such an interval and one without, and its `mean`."""
        s = self.summary
        if s.samples > 1:
            erring, changes = s.erring, s.changes
        else:
            erring, changes = (s.first > 0).astype(np.int64), np.zeros_like(s.erring)
        # An instance without the counter has no figure of it: no interval with failures.
        table = self._frame(erring)[[counter]].fillna(0).astype(int).rename(columns={counter: "erring"})
        table["changes"] = self._frame(changes)[counter].fillna(0).astype(int)
        table["mean"] = self.means()[counter]
        return table

    @property
    def intervals(self) -> int:
        return max(self.summary.samples - 1, 1) if self.summary.samples else 0
