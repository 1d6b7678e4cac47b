"""An imported scenario's text cut into its tables, each editable a key at a time with the
comment that says where the value came from kept: what lets a cluster be put together from its
hosts' imports without losing any value's provenance. It reads the text the importers write
(`key = value  # where`, one key a line, an array of inline tables one element a line), not TOML
at large."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

#: A table's header at the start of a line: `[run]`, `[[devices]]`.
HEADER = re.compile(r"^\[\[?([A-Za-z0-9_.-]+)\]\]?\s*$")


@dataclass
class Table:
    """One table of the text: its header line (None for the keys before the first table) and
    its lines up to the next header, blank lines and comments included."""

    header: str | None
    lines: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str | None:
        """`devices` of `[[devices]]`, None before the first table."""
        match = HEADER.match(self.header or "")
        return match.group(1) if match else None

    def values(self) -> dict[str, Any]:
        """The table's keys and values, as TOML reads them."""
        return tomllib.loads("\n".join(self.lines))

    def get(self, key: str, default: Any = None) -> Any:
        return self.values().get(key, default)

    def _line_of(self, key: str) -> int | None:
        return next((i for i, line in enumerate(self.lines) if re.match(rf"{re.escape(key)}\s*=", line)), None)

    def comment(self, key: str) -> str:
        """The comment on the key's line (without `# `), empty where it has none."""
        i = self._line_of(key)
        return split_comment(self.lines[i])[1] if i is not None else ""

    def set(self, key: str, literal: str, comment: str | None = None, after: str | None = None) -> None:
        """Sets `key` to the TOML `literal`, its comment kept (or replaced by `comment`); a key
        not there is added after the key `after` (else at the end of the table's keys). Only a
        key written on one line is set."""
        i = self._line_of(key)
        old = self.comment(key) if i is not None else ""
        note = old if comment is None else comment
        line = f"{key} = {literal}" + (f"  # {note}" if note else "")
        if i is not None:
            self.lines[i] = line
            return
        at = self._line_of(after) if after else None
        if at is None:
            at = max((j for j, text in enumerate(self.lines) if text.strip() and not text.lstrip().startswith("#")),
                     default=-1)
        self.lines.insert(at + 1, line)

    def elements(self, key: str) -> list[tuple[dict[str, Any], str]]:
        """An array of inline tables written one element a line (`ports = [` … `]`): each element
        and its line's comment."""
        start = self._line_of(key)
        if start is None:
            return []
        if not self._opens_array(start):  # the whole array on the key's line
            return [(element, self.comment(key)) for element in self.values()[key]]
        out = []
        for line in self.lines[start + 1:]:
            if line.strip() == "]":
                break
            value, note = split_comment(line)
            out.append((tomllib.loads(f"x = {value.strip().rstrip(',')}")["x"], note))
        return out

    def set_elements(self, key: str, elements: list[tuple[str, str]]) -> None:
        """Replaces the array `key` (one element a line) by `elements`, each (TOML literal, comment)."""
        start = self._line_of(key)
        assert start is not None
        if not self._opens_array(start):
            self.lines[start:start + 1] = [f"{key} = [", "]"]
        end = next(j for j in range(start + 1, len(self.lines)) if self.lines[j].strip() == "]")
        self.lines[start + 1:end] = [f"  {literal}," + (f"  # {note}" if note else "") for literal, note in elements]

    def _opens_array(self, i: int) -> bool:
        """Whether line `i` is `key = [` alone (its elements on the lines after)."""
        return split_comment(self.lines[i])[0].rstrip().endswith("= [")

    def text(self) -> str:
        return "\n".join(([self.header] if self.header else []) + self.lines)


def split_comment(line: str) -> tuple[str, str]:
    """(what is before the comment, the comment without `# `) of one line, a key's or an array
    element's: the comment starts at the first `#` before which the line reads as TOML."""
    for match in re.finditer(r"\s*#", line):
        value = line[:match.start()]
        if _reads(value) or _reads(f"x = {value.strip().rstrip(',') or '0'}"):
            return value, line[match.end():].strip()
    return line, ""


def _reads(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True


def tables(text: str) -> list[Table]:
    """The text's tables in order; the first holds the keys before any header."""
    out = [Table(None)]
    for line in text.splitlines():
        if HEADER.match(line):
            out.append(Table(line))
        else:
            out[-1].lines.append(line)
    return out
