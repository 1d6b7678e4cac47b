"""A capture's text, for the readers that read it whole."""

from __future__ import annotations

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
