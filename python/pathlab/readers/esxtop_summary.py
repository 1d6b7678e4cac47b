"""An `esxtop -b` capture's disk objects summed as they are read, for `import` and `advise`: per
instance and counter, what they compute from the samples (the means, the intervals with failed
commands and the changes between them), kept as a few running figures per counter, so memory does
not grow with the samples.

One rule for every figure: a counter's first value is left out (the first sample covers the time
before esxtop started; a counter first filled in a later sample, the time before it was), unless
it is the only one. Sums are compensated (Kahan): on the shipped and generated captures the means
are those of the pandas frames used before, or within 2 ulp of them (NOTES.md, session 8)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import numpy as np

from pathlab.readers._spread import spread

if TYPE_CHECKING:
    import pandas as pd


class Counters(Protocol):
    """What `Summary.start` reads of each of the reader's tables (`esxtop.Table`): each
    instance's counters with their places among the fields read. esxtop's `summary` makes a
    Summary, so this module does not import esxtop back."""

    counters: dict[str, dict[str, int]]


class _Mean:
    """A compensated running sum and count of the figures that are numbers, per field."""

    def __init__(self, size: int) -> None:
        self.sum, self.compensation, self.count = np.zeros(size), np.zeros(size), np.zeros(size, dtype=np.int64)
        self.squares = np.zeros(size)  # for the spread (`TableSummary.spread`): no compensation needed there

    def add(self, values: np.ndarray, taken: np.ndarray) -> None:
        y = values - self.compensation
        t = self.sum + y
        compensation = (t - self.sum) - y
        compensation[np.isnan(compensation)] = 0  # an infinite figure: its sum stays infinite, not NaN
        np.copyto(self.sum, t, where=taken)
        np.copyto(self.compensation, compensation, where=taken)
        with np.errstate(invalid="ignore", over="ignore"):
            np.copyto(self.squares, self.squares + values * values, where=taken)
        self.count += taken

    def means(self) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count > 0, self.sum / np.maximum(self.count, 1), np.nan)


class Summary:
    """Every field read (a disk object's counter), summed sample by sample (`esxtop.Sink`)."""

    def __init__(self) -> None:
        self.samples = 0
        self.tables: dict[str, TableSummary] = {}

    def start(self, tables: Mapping[str, Counters], fields: int, header_lines: int) -> None:
        size = fields
        self.seen = np.zeros(size, dtype=bool)  # a number met: the field's first value
        self.first_value = np.full(size, np.nan)
        self.later = _Mean(size)  # the field's values after its first
        self.erring = np.zeros(size, dtype=np.int64)  # of those, the ones above 0
        self.changes = np.zeros(size, dtype=np.int64)  # between one of them above 0 and the next not, or back
        self.was_erring = np.zeros(size, dtype=bool)  # the last of them above 0
        self._figures: np.ndarray | None = None
        self.tables = {name: TableSummary(self, t.counters) for name, t in tables.items()}

    def add(self, line: int, stamp: str, values: np.ndarray) -> None:
        number = ~np.isnan(values)
        counted = number & self.seen
        followed = self.later.count > 0  # a counted value before this one
        self.later.add(values, counted)
        erring = values > 0  # a missing figure is none
        self.erring += erring & counted
        self.changes += counted & followed & (erring != self.was_erring)
        np.copyto(self.was_erring, erring, where=counted)
        np.copyto(self.first_value, values, where=number & ~self.seen)
        self.seen |= number
        self.samples += 1
        self._figures = None

    def figures(self) -> np.ndarray:
        """Each field's mean without its first value, or its only value; NaN where it has none."""
        if self._figures is None:
            self._figures = np.where(self.later.count > 0, self.later.means(), self.first_value)
        return self._figures

    def __getitem__(self, table: str) -> TableSummary:
        return self.tables[table]


class TableSummary:
    """One object's instances (adapters, paths or devices): `fields` gives each instance's
    counters and where their figures are in the `Summary`'s arrays."""

    def __init__(self, summary: Summary, fields: dict[str, dict[str, int]]) -> None:
        self.summary, self.fields = summary, fields
        #: Every counter of the object's instances, in header order.
        self.counters = list(dict.fromkeys(itertools.chain.from_iterable(fields.values())))
        self._at: tuple[list[str], np.ndarray] | None = None

    @property
    def empty(self) -> bool:
        return not self.fields or not self.summary.samples

    def _frame(self, figures: np.ndarray) -> pd.DataFrame:
        """`figures` (one per field) as a table: one row per instance, by name, one column per counter."""
        import pandas as pd

        names, at = self._places()
        return pd.DataFrame(np.where(at >= 0, figures[at].astype(float), np.nan), index=pd.Index(names, name="name"),
                            columns=self.counters, dtype=float)

    def _places(self) -> tuple[list[str], np.ndarray]:
        """The instances by name, and where each one's counters are among the fields (-1: a
        counter it lacks), worked out once."""
        if self._at is None:
            names, counters = sorted(self.fields), self.counters
            each = list(map(self.fields.__getitem__, names))
            if all(map(counters.__eq__, map(list, each))):
                # Every instance with every counter, in the table's order (each, in a real capture):
                # their fields as they are, read into the array at once.
                at = np.fromiter(itertools.chain.from_iterable(map(dict.values, each)), dtype=np.intp,
                                 count=len(names) * len(counters))
            else:
                at = np.array([[own.get(c, -1) for c in counters] for own in each], dtype=np.intp)
            self._at = names, at.reshape(len(names), len(counters))
        return self._at

    def means(self) -> pd.DataFrame:
        """Each instance's mean counters over the capture (`Summary.figures`)."""
        return self._frame(self.summary.figures())

    def mean_of_each(self, counter: str) -> dict[str, float]:
        """`means()[counter]` as {instance: mean} (NaN where the instance has no figure of it), in
        the same order: without a table of every counter made for one (4,000 paths' 31)."""
        names, at = self._places()
        column = at[:, self.counters.index(counter)]
        return dict(zip(names, np.where(column >= 0, self.summary.figures()[column], np.nan).tolist()))

    def any_above_zero(self, counter: str) -> bool:
        """Whether any instance has a figure of `counter` above 0 (`failures`' `erring` not 0)."""
        s, column = self.summary, self._places()[1][:, self.counters.index(counter)]
        fields = column[column >= 0]
        return bool(np.where(s.later.count[fields] > 0, s.erring[fields], s.first_value[fields] > 0).any())

    def mean(self, name: str, counter: str) -> float | None:
        """The instance's mean of the counter (`Summary.figures`); None if the capture has no
        figure of it."""
        field = self.fields.get(name, {}).get(counter)
        if field is None or not self.summary.seen[field]:
            return None
        return float(self.summary.figures()[field])

    def spread(self, name: str, counter: str) -> float | None:
        """The 95% half-width of the instance's mean of the counter over the capture's figures
        (`mean`'s) as a share of the mean; None with fewer than two figures."""
        field = self.fields.get(name, {}).get(counter)
        later = self.summary.later
        if field is None or later.count[field] < 2:
            return None
        value = spread(float(later.count[field]), float(later.sum[field]), float(later.squares[field]))
        return None if value != value else value

    def failures(self, counter: str) -> pd.DataFrame:
        """Per instance, over the figures of `means` (`intervals` of them where a counter is
        filled in every sample): `erring`, those with the counter above 0, `changes` between such
        a figure and one without, and its `mean`."""
        s = self.summary
        erring = np.where(s.later.count > 0, s.erring, s.first_value > 0)
        # An instance without the counter has no figure of it: no interval with failures.
        table = self._frame(erring)[[counter]].fillna(0).astype(int).rename(columns={counter: "erring"})
        table["changes"] = self._frame(s.changes)[counter].fillna(0).astype(int)
        table["mean"] = self.means()[counter]
        return table

    @property
    def intervals(self) -> int:
        return max(self.summary.samples - 1, 1) if self.summary.samples else 0
