"""How long work says how it goes. The library's pipelines (advise, compare, sweep) report to a
`Progress`: notes on what the work will be as it is decided, each batch of simulated runs as it
is simulated, and a sweep's count of runs done. The base reports nothing; the command line's
prints on stderr (`cli/progress.py`), and a notebook may print or draw what it likes."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence

from pathlab.api import Result, Scenario, run_many

#: Called while a batch runs, with a run's index in the batch and the fraction of it simulated.
RunProgress = Callable[[int, float], None]


class Progress:
    """Reports nothing; override what you want to see."""

    def note(self, message: str) -> None:
        """What the work will be, said as it is decided (advise's run length, a sweep's resume)."""

    def stage(self, name: str) -> None:
        """A step of the work starts (a cluster's advice: its scenario, the capture fit, the pilot
        runs, the ranking...), the step before it ended: what `pathlab bench` measures step by step."""

    @contextlib.contextmanager
    def runs(self, labels: Sequence[str]) -> Iterator[RunProgress | None]:
        """A batch of runs side by side, one per label: yields the callback the runs report to
        (or None), and ends when the batch ends."""
        yield None

    def count(self, done: int, total: int) -> None:
        """A sweep's runs done of its total: once before it starts (the runs already done in its
        journal), then after each run."""


def run_batch(scenarios: Sequence[Scenario], progress: Progress | None = None,
              path_intervals: bool = True, rows: Mapping[str, Sequence[str]] | None = None) -> list[Result]:
    """`run_many` on every core, reporting to `progress` (`rows`: the tables' fields kept, `Scenario._run`)."""
    with (progress or Progress()).runs([s.label for s in scenarios]) as report:
        return run_many(scenarios, report, path_intervals=path_intervals, rows=rows)
