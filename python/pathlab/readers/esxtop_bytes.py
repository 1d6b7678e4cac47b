"""An `esxtop -b` capture opened by the core (`_core.EsxtopCapture`, crates/pathlab-py/src/
esxtop_columns.rs): its header's 278,000 fields split, its disk counters placed and the hosts it
names found in one pass over its bytes, then each sample line's fields of the columns read turned
into numbers, with no Python string made per field. Only lines as esxtop writes them are read
there (`pdh_csv.split`'s rule: every field quoted, no quote inside, within csv's limit); any other
sample line comes back whole for `csv` to read, and a header that is not such a line leaves the
file to the Python reader (`pdh_csv.Records`), which gives the same rows, errors and all.

A cluster's worker opens a capture to name its host, then reads its samples: the capture opened
for the naming is kept (`keep`) and taken by the reader of the same file unchanged, past its
header, so the 20 MB line is read once. One its reader does not take (the host's import refused
before reading it) is let go once the host is done (`let_go`): its file is closed then, not held
open, with its header, until the worker keeps another."""

from __future__ import annotations

import csv
import os
import threading

from pathlab._core import EsxtopCapture

#: (the header's first field, the hosts its columns name in the order first named, each table's
#: instances in the order first named, each counter's place among the fields read: `columns`).
Header = tuple[str, list[str], dict[str, dict[str, dict[str, int]]]]

#: The capture `opened` last kept: its file's identity, and the capture past its header (the
#: header's first field, the hosts named, the disk counters placed).
_kept: tuple[tuple[int, int, int, int], EsxtopCapture, Header] | None = None
#: Held to take or keep it: one capture is read by one thread (the core's reader is not shared).
_keeping = threading.Lock()


def opened(file: str, keep: bool = False) -> tuple[EsxtopCapture, Header] | None:
    """The capture and its header, read past it; None where its header is not a line esxtop
    writes (or the file cannot be opened: the Python reader says why). Taken where `keep` kept it
    from the same file unchanged, else read, and kept where `keep` is set (one at a time)."""
    global _kept
    try:
        found = os.stat(file)
    except OSError:
        return None
    identity = (found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns)
    with _keeping:
        if _kept is not None and _kept[0] == identity:
            (_, capture, header), _kept = _kept, None
            return capture, header
    try:
        capture = EsxtopCapture(file, csv.field_size_limit())
        read = capture.header()
    except (OSError, UnicodeError):  # (a file name not UTF-8 the core cannot take: the Python reader reads it)
        return None
    if read is None:
        return None
    if keep:
        with _keeping:
            _kept = (identity, capture, read)
    return capture, read


def let_go() -> None:
    """Closes the capture `opened` kept, where its reader did not take it: dropped, the core's
    reader closes its file (one descriptor), and its header goes with it."""
    global _kept
    with _keeping:
        _kept = None
