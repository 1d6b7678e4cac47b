"""An `esxtop -b` capture's (PDH-CSV) records, as `csv.reader` reads them, a line at a time. A
line whose every field is quoted and holds no quote (every line esxtop writes, to its trailing
comma) is split at its `","`: a capture's lines run to hundreds of thousands of fields, which
`csv` reads in twice the time. Any other line (a quote inside a field, a field without quotes, a
record over several lines, a field past `csv`'s limit) is read by `csv` itself, errors and all."""

from __future__ import annotations

import codecs
import csv
import itertools
import os
from collections.abc import Iterable, Iterator

#: The header `Records` last kept: (its file's identity, its fields, the lines it took, and where it
#: ends in the file where that is known: one line of ASCII). A cluster's worker reads a capture's
#: header to name its host, then again to read its counters: the 20 MB line of 278,000 fields is
#: read and split once.
_kept: tuple[tuple[int, int, int, int], list[str], int, int | None] | None = None


def let_go() -> None:
    """Drops the header `Records` kept, where no reader took it (its host's import refused before
    reading the capture): its 278,000 fields are not held until the next header is kept."""
    global _kept
    _kept = None


class Records:
    """`csv.reader(lines)`'s rows, and its `line_num`: how many lines have been read. Given the
    `file` the lines are read from (opened with `newline=""`, a byte-order mark skipped by its
    decoder, and by the keeper and the taker alike), its header is taken where `keep` kept it from
    the same file unchanged (the file sought past it where it is one line of ASCII, as esxtop writes
    it, else its lines read past; not split again), else read, and kept where `keep` is set (one
    header at a time: the one kept before is let go)."""

    def __init__(self, lines: Iterable[str], file: str | None = None, keep: bool = False) -> None:
        self._lines = iter(lines)
        self.line_num = 0
        self._file, self._keep = file, keep
        self._end: int | None = None  # the last line's length where it is ASCII (its bytes in the file)

    def __iter__(self) -> Iterator[list[str]]:
        return self

    def __next__(self) -> list[str]:
        if self.line_num == 0 and self._file is not None:
            return self._header(self._file)
        return self._record()

    def _header(self, file: str) -> list[str]:
        global _kept
        found = os.stat(file)
        identity = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)
        if _kept is not None and _kept[0] == identity:
            (_, header, lines, end), _kept = _kept, None
            if end is not None and hasattr(self._lines, "seek"):
                self._lines.seek(end)  # (a text file's position at a line's end, as its `tell` would give it)
            else:
                for _ in range(lines):
                    next(self._lines)
            self.line_num = lines
            return header
        header = self._record()
        if self._keep:
            end = self._end + _mark_length(file) if self._end is not None and self.line_num == 1 else None
            _kept = (identity, header, self.line_num, end)
        return header

    def _record(self) -> list[str]:
        line = next(self._lines)
        self.line_num += 1
        self._end = len(line) if line.isascii() else None
        row = split(line)
        if row is not None:
            return row
        return next(csv.reader(itertools.chain((line,), self._counted())))

    def _counted(self) -> Iterator[str]:
        """The lines after the one `csv` was given, counted as `csv` reads them (a record that
        goes on over several lines)."""
        for line in self._lines:
            self.line_num += 1
            yield line


def _mark_length(file: str) -> int:
    """The bytes of the UTF-8 byte-order mark `file` opens with (a capture re-saved by an editor),
    which its decoder skipped and its header's line does not count; 0 where it has none."""
    with open(file, "rb") as f:
        return len(codecs.BOM_UTF8) if f.read(len(codecs.BOM_UTF8)) == codecs.BOM_UTF8 else 0


def split(line: str) -> list[str] | None:
    """The fields of one line (its end, LF, CR or CRLF, left off) where each is quoted, holds no
    quote and is within `csv`'s limit, with an empty last one after a trailing comma, as `csv`
    reads them; [] for an empty line; None for any other line (`csv`'s to read)."""
    body = line.rstrip("\r\n")
    if not body:
        return []
    if body[0] != '"':
        return None
    trailing = body.endswith('",')
    if not trailing and (len(body) < 2 or body[-1] != '"'):
        return None
    fields = body[1:-2 if trailing else -1].split('","')
    # The quotes are the fields' own two each, and no more: no field holds one (a doubled `""`).
    if body.count('"') != 2 * len(fields) or not _within_limit(body, fields):
        return None
    if trailing:
        fields.append("")
    return fields


def _within_limit(body: str, fields: list[str]) -> bool:
    """Whether no field is longer than `csv`'s limit. A field longer than it holds a whole stretch
    of half the limit starting at a multiple of it, and so that stretch has no quote: where every
    such stretch of the line has one, no field is too long (a few searches of the line, not a
    length taken of each of its 278,000 fields); else the fields are measured."""
    limit = csv.field_size_limit()
    half = limit // 2
    if half >= 1024 and all(body.find('"', start, start + half) >= 0 for start in range(0, len(body), half)):
        return True
    return max(map(len, fields)) <= limit
