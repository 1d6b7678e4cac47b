"""A capture's text: whole, for the readers of small listings, or a line at a time, for the
readers of counters sampled over time (memory bounded by what they keep, not the file)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pathlab.api import ScenarioError, regular_file


def text_of(path: str | Path) -> str:
    """The file's text (bytes that are not UTF-8 replaced, not refused: a capture may carry a
    stray byte), or a ScenarioError naming the file and why it cannot be read."""
    regular_file(path)
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise ScenarioError(str(path), "", e.strerror or "cannot be read") from None


def lines_of(path: str | Path) -> Iterator[str]:
    """The file's lines without their ends (LF or CRLF), read one at a time, or a ScenarioError
    naming the file and why it cannot be read."""
    regular_file(path)
    try:
        f = open(path, encoding="utf-8", errors="replace", newline="\n")  # noqa: SIM115
    except OSError as e:
        raise ScenarioError(str(path), "", e.strerror or "cannot be read") from None
    with f:
        for raw in f:
            yield raw.rstrip("\n").rstrip("\r")
