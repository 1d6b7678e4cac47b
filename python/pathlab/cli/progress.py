"""The library's progress (`pathlab.progress.Progress`) on stderr, as the verbs show it: notes as
`pathlab VERB: ...` lines, and a batch's runs as a bar that appears after a second."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import click

from pathlab.cli.common import LazyProgress
from pathlab.progress import Progress, RunProgress


class StderrProgress(Progress):
    def __init__(self, verb: str):
        self.verb = verb

    def note(self, message: str) -> None:
        click.echo(f"pathlab {self.verb}: {message}", err=True)

    @contextlib.contextmanager
    def runs(self, labels: Sequence[str]) -> Iterator[RunProgress | None]:
        bar = LazyProgress(labels)
        try:
            yield bar
        finally:
            bar.close()
