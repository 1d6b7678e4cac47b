"""An `esxtop -b` capture's (PDH-CSV) records, as `csv.reader` reads them, a line at a time. A
line whose every field is quoted and holds no quote (every line esxtop writes, to its trailing
comma) is split at its `","`: a capture's lines run to hundreds of thousands of fields, which
`csv` reads in twice the time. Any other line (a quote inside a field, a field without quotes, a
record over several lines, a field past `csv`'s limit) is read by `csv` itself, errors and all."""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterable, Iterator


class Records:
    """`csv.reader(lines)`'s rows, and its `line_num`: how many lines have been read."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = iter(lines)
        self.line_num = 0

    def __iter__(self) -> Iterator[list[str]]:
        return self

    def __next__(self) -> list[str]:
        line = next(self._lines)
        self.line_num += 1
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
    if body.count('"') != 2 * len(fields) or max(map(len, fields)) > csv.field_size_limit():
        return None
    if trailing:
        fields.append("")
    return fields
