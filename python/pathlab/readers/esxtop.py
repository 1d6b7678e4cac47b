"""`esxtop -b` batch captures (PDH-CSV): the disk objects only. The file is read once, a row at a
time: by the core where its header is a line as esxtop writes it (`esxtop_bytes`: the header's
columns placed and each sample's disk fields made numbers over the bytes, a line esxtop does not
write handed back to `csv`), else by `pdh_csv` (csv's rows, quoted commas and any line end, a line
as esxtop writes it split at its `","`), the same rows either way; only the disk objects' fields
become numbers, handed sample by sample to what keeps them: `read` writes them into each table's
array (memory grows with the samples), `summary` (`esxtop_summary`, what `import` and `advise`
use) into running figures per instance and counter (memory bounded by the counters, whatever the
capture's length).
A capture of every counter (17,000 columns and more, hundreds of MB) costs the memory of the disk
figures kept, not of the file (research/formats.md §1; `scripts/bench_esxtop_reader.py`,
`scripts/make_esxtop_capture.py` and their figures in NOTES.md).

A column is named `\\\\host\\Object(instance)\\Counter`; the first column is the sample time."""

from __future__ import annotations

import csv
import itertools
import operator
import os
import re
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pathlab.api import ScenarioError, regular_file, warn
from pathlab.readers import esxtop_bytes
from pathlab.readers.pdh_csv import Records

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    import numpy as np
    import pandas as pd

    from pathlab._core import EsxtopCapture
    from pathlab.readers.esxtop_summary import Summary

#: The objects read, with the table each becomes. `Physical Disk` (paths listed under their
#: adapter) repeats `Physical Disk Path` and is skipped, but for the adapter's own entry,
#: `Physical Disk(vmhbaN)\\Adapter Q Depth` (with -a), which goes to the adapters' table.
OBJECTS = {
    "Physical Disk Adapter": "adapters",
    "Physical Disk Path": "paths",
    "Physical Disk SCSI Device": "devices",
}
ADAPTER_DEPTH = ("Physical Disk", "Adapter Q Depth")
TIME_FORMATS = ("%m/%d/%Y %H:%M:%S", "%H:%M:%S")


#: A column's name up to its last `\\`: `\\\\host\\Object(instance)`, the host up to its first `\\`,
#: the object up to its first `(`, the instance to the last `)`.
_HEAD = re.compile(r"\\\\[^\\]*\\([^(]*)\((.*)\)", re.DOTALL)


def _place(head: str) -> tuple[str, str] | None:
    """(object, instance) of `\\\\host\\Object(instance)`, or None."""
    found = _HEAD.fullmatch(head)
    return (found[1], found[2]) if found else None


def _table_of(place: tuple[str, str] | None, counter: str) -> str | None:
    """The table a column of this object and instance goes to, or None for a column skipped."""
    if place is None:
        return None
    obj, instance = place
    if obj in OBJECTS:
        return OBJECTS[obj]
    if (obj, counter) == ADAPTER_DEPTH and ":" not in instance:
        return "adapters"
    return None


def _header_columns(header: list[str], tables: dict[str, dict[str, list[tuple[str, int]]]]) -> None:
    """Each disk counter's file column into its table (`OBJECTS`' names, each a dict), under its
    instance, as (counter, file column) pairs (a counter named twice: the first). A capture of
    every counter has hundreds of thousands of columns: each `\\\\host\\Object(instance)` is
    parsed once, for the counters after it, and where its counters are those of the object's
    instance before it, in the same order (every instance, in a real capture), they are taken at
    once (`_alike`), not a column at a time. (The Python reader's: the core places a header as
    esxtop writes it, `esxtop_bytes`.)"""
    places: dict[str, tuple[str, str] | None] = {}
    found: dict[tuple[str, str], dict[str, int]] = {}  # (table, instance) → counter → its first column
    alike: dict[str | None, list[str]] = {}  # an object → its last instance's counters read one by one (each once)
    i, width = 1, len(header)
    while i < width:
        head, _, counter = header[i].rpartition("\\")
        place = places[head] if head in places else places.setdefault(head, _place(head))
        table = _table_of(place, counter)
        if place is not None and place[0] == ADAPTER_DEPTH[0] and ":" not in place[1]:
            # An adapter's own entry (`_table_of`): each of its columns placed by its counter.
            if table is not None:
                found.setdefault((table, place[1]), {}).setdefault(counter, i)
            i += 1
            continue
        # A head's columns stand together; where its object and instance decide the table, its
        # counters go to the instance's dict (None: not read, as a path's `Physical Disk` entry).
        into = found.setdefault((table, place[1]), {}) if table is not None and place is not None else None
        kind = place[0] if place is not None else None
        counters = alike.get(kind)
        if counters is not None and _alike(header, i, head, counters):
            _put(into, counters, i)
            i = _columns_of(header, i + len(counters), head, into, [])  # any counters its object's last lacked
            continue
        read: list[str] = []
        i = _columns_of(header, i, head, into, read)
        if len(set(read)) == len(read):
            alike[kind] = read
    for (table, instance), own in found.items():
        tables[table][instance] = list(own.items())


#: What a run's columns are joined by to be compared at once: no text decoded from a file holds a
#: lone surrogate (an undecodable byte is read as U+FFFD), so joined runs are equal only where
#: each column is.
_APART = "\ud800"


def _alike(header: list[str], i: int, head: str, counters: list[str]) -> bool:
    """Whether the columns from `i` are `head`'s `counters`, in order (one comparison in C)."""
    return _APART.join(header[i:i + len(counters)]) == head + "\\" + (_APART + head + "\\").join(counters)


def _put(into: dict[str, int] | None, counters: list[str], i: int) -> None:
    """`counters` (each once) at the columns from `i` into the instance's dict, where it reads them."""
    if into is None:
        return
    if not into:
        into.update(zip(counters, range(i, i + len(counters))))
        return
    for counter, column in zip(counters, range(i, i + len(counters))):  # (an instance named again further on)
        into.setdefault(counter, column)


def _columns_of(header: list[str], i: int, head: str, into: dict[str, int] | None, read: list[str]) -> int:
    """`head`'s columns from `i`, a column at a time, into the instance's dict (where it reads
    them) and `read`; the column after them."""
    for column in range(i, len(header)):
        at, _, counter = header[column].rpartition("\\")
        if at != head:
            return column
        if into is not None:
            into.setdefault(counter, column)
        read.append(counter)
    return len(header)


class _Group:
    """Instances of one object with the same counters (every instance, in a real capture): their
    figures as one array (instance, sample, counter), filled a sample at a time."""

    def __init__(self, counters: tuple[str, ...], ranks: list[int], picks: list[list[int]], rows: int) -> None:
        import numpy as np

        self.counters, self.ranks = counters, ranks
        self.picks = np.array(picks, dtype=np.intp).reshape(len(ranks), len(counters))  # among the fields read
        # np.empty: the pages are only taken as samples are written, so a generous `rows` costs nothing.
        self.values = np.empty((len(ranks), rows, len(counters)))


class Table:
    """One object's columns: the instances in the order the header first names them, each with
    its counters (`counters`), then their figures (`start`, `put`) and the table (`frame`)."""

    def __init__(self) -> None:
        #: instance → counter → its place among the fields read (their file columns in order).
        self.counters: dict[str, dict[str, int]] = {}
        self.groups: list[_Group] = []

    def start(self, rows: int) -> None:
        """Room for `rows` samples."""
        groups: dict[tuple[str, ...], tuple[list[int], list[list[int]]]] = {}
        for rank, own in enumerate(self.counters.values()):
            ranks, picks = groups.setdefault(tuple(own), ([], []))
            ranks.append(rank)
            picks.append(list(own.values()))
        self.groups = [_Group(key, ranks, picks, rows) for key, (ranks, picks) in groups.items()]

    def put(self, row: int, values: np.ndarray) -> None:
        for g in self.groups:
            g.values[:, row] = values[g.picks]

    def frame(self, times: pd.Series) -> pd.DataFrame:
        """One row per sample and instance (instance after instance), `time`, `name` and one
        column per counter; the figures are the group's array itself, not a copy."""
        import numpy as np
        import pandas as pd

        rows, names = len(times), list(self.counters)
        frames = []
        while self.groups:
            g = self.groups.pop(0)
            values = g.values if g.values.shape[1] == rows else np.ascontiguousarray(g.values[:, :rows])
            del g.values
            frame = pd.DataFrame(values.reshape(len(g.ranks) * rows, len(g.counters)), columns=list(g.counters),
                                 copy=False)
            frame.insert(0, "name", np.repeat(np.array([names[r] for r in g.ranks], dtype=object), rows))
            frame.insert(0, "time", np.tile(times.to_numpy(), len(g.ranks)))
            frames.append((frame, g.ranks, g.counters))
        if not frames:
            return pd.DataFrame(columns=["time", "name"])
        if len(frames) == 1:
            return frames[0][0]
        # Instances with other counters: the union of the counters, instances in header order.
        order = np.argsort(np.repeat(np.concatenate([ranks for _, ranks, _ in frames]), rows), kind="stable")
        counters = list(dict.fromkeys(c for _, _, key in frames for c in key))
        return pd.concat([f for f, _, _ in frames], ignore_index=True).take(order).reset_index(drop=True)[
            ["time", "name", *counters]]


def _line_ends(path: Path, chunk_size: int = 1 << 24) -> int:
    """How many lines of the file are not blank (LF, CR or CRLF ends; a last line without one
    counts): at least as many as its CSV records, and not inflated by blank lines (a capture
    padded with megabytes of them would otherwise size the tables for millions of samples)."""
    ends = 0
    last = b"\n"  # the file starts as after a line end: a first empty line is blank
    with open(path, "rb") as f:
        while chunk := f.read(chunk_size):
            lf = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            blank = len(lf) - len(re.sub(rb"\n+", b"\n", lf))  # line ends right after another
            ends += lf.count(b"\n") - blank - (lf[:1] == b"\n" and last in (b"\n", b"\r"))
            last = chunk[-1:]
    return ends + (last not in (b"", b"\n", b"\r"))


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return float("nan")


#: The largest figure a capture may hold: esxtop's counters are rates, times in ms, queue
#: depths and counts, far below it (a billion commands a second is 1e9); a figure beyond it
#: (1e308, inf) would overflow the sums and rates made of it.
LARGEST = 1e15


def _refuse_huge(name: str, line: int, values: np.ndarray, columns: list[int],
                 column_name: Callable[[int], str | None]) -> None:
    """Refuses the first figure beyond `LARGEST` (a missing one, NaN, is let be)."""
    import numpy as np

    i = int(np.flatnonzero(np.abs(values) > LARGEST)[0])
    raise ScenarioError(name, f"line {line}", f"{values[i]:g} in column \"{column_name(columns[i])}\" is out of range: "
                                                  f"esxtop's figures are at most {LARGEST:g}")


class Sink(Protocol):
    """What keeps a capture's samples: told the tables (instances and their counters, each with
    its place among the fields read), how many fields are read and how many lines the header took,
    then given each sample's fields read, in file column order, once its time is checked."""

    def start(self, tables: dict[str, Table], fields: int, header_lines: int) -> None: ...

    def add(self, line: int, stamp: str, values: np.ndarray) -> None: ...


def _time(name: str, line: int, stamp: str, fmt: str | None) -> tuple[datetime, str]:
    """The sample time and its format: the first sample's decides it among `TIME_FORMATS`."""
    for candidate in (fmt,) if fmt else TIME_FORMATS:
        try:
            return datetime.strptime(stamp, candidate), candidate
        except ValueError:
            pass
    raise ScenarioError(name, f"line {line}", f"{stamp!r} is not a sample time like 04/26/2018 14:06:27")


def _read(path: Path, sink: Sink) -> str:
    """Read the capture into `sink`, refusing what is not an esxtop capture of the disk objects
    and samples out of time order; the format of its sample times. Its lines as esxtop writes
    them are read by the core (`esxtop_bytes`), any other by `csv` (`pdh_csv`), with the same rows."""
    name = str(path)
    regular_file(path)
    tables = {table: Table() for table in OBJECTS.values()}
    core = esxtop_bytes.opened(name)
    if core is not None and core[1][0].startswith("(PDH-CSV") and any(core[1][2].values()):
        capture, (_, _, by_place) = core
        for table, counters in by_place.items():
            tables[table].counters = counters
        return _samples_into(sink, name, tables, _CoreRows(capture), _cut_last_line(path))
    with open(path, newline="", encoding="utf-8-sig", errors="replace") as f:
        rows = Records(f, name)  # the header naming the host read, where it was read
        try:
            header = next(rows, [])
        except csv.Error as e:
            raise ScenarioError(name, "line 1", f"not CSV: {e}") from None
        if not header or not header[0].startswith("(PDH-CSV"):
            raise ScenarioError(name, "line 1", "not an esxtop batch capture: expected a (PDH-CSV 4.0) header")
        placed: dict[str, dict[str, list[tuple[str, int]]]] = {table: {} for table in OBJECTS.values()}
        _header_columns(header, placed)
        if not any(placed.values()):
            following = next((row for row in rows if row), [])
            if following[:1] and following[0].startswith("\\\\"):  # a counter's name where a sample's time should be
                raise _rearranged(name, rows.line_num, header[1:3])
            raise ScenarioError(name, "line 1", "no Physical Disk Adapter, Path or SCSI Device counters: capture the "
                                                "disk panels (esxtop -b with its default fields or -a)")
        columns = sorted(i for own in itertools.chain.from_iterable(t.values() for t in placed.values()) for _, i in own)
        where = dict(zip(columns, range(len(columns))))
        for table, instances in placed.items():
            tables[table].counters = {inst: {c: where[i] for c, i in own} for inst, own in instances.items()}
        return _samples_into(sink, name, tables, _CsvRows(rows, header, columns), _cut_last_line(path))


class _Rows(Protocol):
    """A capture's samples after its header, as one of the two readers reads them."""

    @property
    def line_num(self) -> int: ...

    def column_name(self, i: int) -> str | None:
        """The header's field `i` (a column's name); None past its last."""
        ...

    def columns(self) -> list[int]:
        """The file columns read, in order."""
        ...

    def samples(self) -> Iterator[tuple[str, np.ndarray]]:
        """Each sample line's time and its figures of the columns read (NaN where a field is
        missing or not a number), blank lines passed."""
        ...


def _samples_into(sink: Sink, name: str, tables: dict[str, Table], rows: _Rows, cut: tuple[int, int] | None) -> str:
    """The samples after the header into `sink`, checked; the format of their times. `cut`: the
    last line's fields and the header's where the last is cut short (`_cut_last_line`): that
    sample is left out and said, where its figures would be what was written of them (the last
    one's digits cut, the rest missing)."""
    import numpy as np

    # The adapter's queue depth comes first, as on esxtop's adapter panel.
    adapters = tables["adapters"]
    adapters.counters = {inst: dict(sorted(own.items(), key=lambda c: c[0] != ADAPTER_DEPTH[1]))
                         for inst, own in adapters.counters.items()}
    sink.start(tables, sum(map(len, itertools.chain.from_iterable(t.counters.values() for t in tables.values()))),
               rows.line_num)
    fmt, previous, before = None, None, ""
    samples: Iterator[tuple[str, np.ndarray, int]] = ((stamp, values, rows.line_num) for stamp, values in rows.samples())
    if cut is not None:
        samples = _but_the_last(samples, lambda line: warn(name, f"line {line}", (
            f"the last sample has {cut[0]:,} of the header's {cut[1]:,} fields, and no line end: esxtop was stopped "
            "while it wrote it; left out")))
    try:
        for stamp, values, line in samples:
            if stamp.startswith("\\\\"):
                raise _rearranged(name, line, [c for c in map(rows.column_name, (1, 2)) if c is not None])
            # Samples in time order, each once: rates between them are meaningless otherwise.
            when, fmt = _time(name, line, stamp, fmt)
            if previous is not None and when <= previous:
                raise ScenarioError(name, f"line {line}",
                                    f"sample time {stamp!r} is not after the previous sample's {before!r}: samples "
                                    "out of time order (or two captures joined): give one capture, in order")
            previous, before = when, stamp
            if (np.abs(values) > LARGEST).any():
                _refuse_huge(name, line, values, rows.columns(), rows.column_name)
            sink.add(line, stamp, values)
    except csv.Error as e:
        raise ScenarioError(name, f"line {rows.line_num}", f"not CSV: {e}") from None
    return fmt or TIME_FORMATS[0]


def _but_the_last(samples: Iterator[tuple[str, np.ndarray, int]],
                  dropped: Callable[[int], None]) -> Iterator[tuple[str, np.ndarray, int]]:
    """Every sample (with its line) but the last, whose line `dropped` is told. A sample is yielded
    once the next is read: each is copied, as a source may refill one array."""
    held = None
    for stamp, values, line in samples:
        if held is not None:
            yield held
        held = stamp, values.copy(), line
    if held is not None:
        dropped(held[2])


def _cut_last_line(path: Path) -> tuple[int, int] | None:
    """The fields of the capture's last line and of its header, where the last line has no line
    end and fewer fields than the header: esxtop was stopped while it wrote the line (it writes
    every field of its header on each line, then the line end). None otherwise (the usual file
    ends its last line: one byte read)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0 or (f.seek(size - 1) is not None and f.read(1) in (b"\n", b"\r")):
            return None
        start = size
        while start > 0:  # back to the last line's start, a megabyte at a time
            step = min(start, 1 << 20)
            f.seek(start - step)
            chunk = f.read(step)
            if (end := max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))) >= 0:
                start = start - step + end + 1
                break
            start -= step
        if start == 0:
            return None  # the header alone
        f.seek(start)
        last = f.read().decode("utf-8", errors="replace")
        if not last.strip(' \t\x00\x1a"'):
            return None  # no sample begun (spaces, a lone quote, an end-of-file mark): read as any such line
        f.seek(0)
        first = b""
        while (chunk := f.read(1 << 20)) and not re.search(rb"[\r\n]", chunk):  # a megabyte at a time
            first += chunk
        header = re.split(r"[\r\n]", (first + chunk).decode("utf-8-sig", errors="replace"), maxsplit=1)[0]
    try:
        fields = [len(next(csv.reader([text]), [])) for text in (last, header)]
    except csv.Error:  # not a capture's line: the reading says what it is
        return None
    return (fields[0], fields[1]) if fields[0] < fields[1] else None


def _picker(columns: list[int]) -> Callable[[list[str]], tuple[str, ...]]:
    """`columns`' fields of a row, in order."""
    return operator.itemgetter(*columns) if len(columns) > 1 else lambda row: (row[columns[0]],)


def _values_of(row: list[str], columns: list[int], pick: Callable[[list[str]], tuple[str, ...]],
               values: np.ndarray) -> np.ndarray:
    """`columns`' fields of a row `csv` read (`pick`) into `values` (a missing field or one that
    is not a number: NaN)."""
    width = columns[-1] + 1
    if len(row) < width:
        row += [""] * (width - len(row))
    fields = pick(row)
    try:
        values[:] = fields
    except ValueError:  # not all numbers
        values[:] = [_number(v) for v in fields]
    return values


class _CsvRows:
    """The samples as `pdh_csv.Records` reads them (a header that is not a line esxtop writes)."""

    def __init__(self, rows: Records, header: list[str], columns: list[int]) -> None:
        self.rows, self.header, self._columns = rows, header, columns

    @property
    def line_num(self) -> int:
        return self.rows.line_num

    def column_name(self, i: int) -> str | None:
        return self.header[i] if i < len(self.header) else None

    def columns(self) -> list[int]:
        return self._columns

    def samples(self) -> Iterator[tuple[str, np.ndarray]]:
        import numpy as np

        columns = self._columns
        pick, values = _picker(columns), np.empty(len(columns))
        for row in self.rows:
            if row:  # (not a blank line)
                yield row[0], _values_of(row, columns, pick, values)


class _CoreRows:
    """The samples as the core reads them (`esxtop_bytes`), a line it does not read by `csv`."""

    def __init__(self, capture: EsxtopCapture) -> None:
        self.capture = capture

    @property
    def line_num(self) -> int:
        return self.capture.line_num

    def column_name(self, i: int) -> str | None:
        return self.capture.column_name(i)

    def columns(self) -> list[int]:
        return self.capture.columns()

    def samples(self) -> Iterator[tuple[str, np.ndarray]]:
        import numpy as np

        columns: list[int] = []  # (asked of the core for a line it hands back)
        while (got := self.capture.sample()) is not None:
            if isinstance(got, str):  # not a line as esxtop writes it: csv's, with the lines after it
                row = next(csv.reader(itertools.chain((got,), self.capture)), None)
                if row is None:
                    return
                if row:
                    columns = columns or self.capture.columns()
                    yield row[0], _values_of(row, columns, _picker(columns), np.empty(len(columns)))
                continue
            stamp, figures, odd = got
            values = np.frombuffer(figures)
            if odd:  # fields Python's `float` decides (`_number`): " 1", "1_000", "inf", "nan"
                values = values.copy()
                for at, text in odd:
                    values[at] = _number(text)
            yield stamp, values


def _rearranged(name: str, line: int, first: list[str]) -> ScenarioError:
    """A sample line that starts with a counter's name (`\\\\host\\Object(instance)\\Counter`): the
    capture was rearranged after esxtop wrote it. Transposed by a spreadsheet (counters down the
    first column, one sample per column: the first line holds the sample times), its times and
    numbers are the spreadsheet's rewriting (locale dates, rounded figures), not esxtop's; its
    header split over several lines (a paste that wrapped it), its columns cannot be told from
    its samples. Either is refused, naming what is read. `first`: the header's columns after
    its first field, the first two (fewer where it has fewer)."""
    times = len(first) > 0 and all(_is_time(h) for h in first)
    how = ("transposed (the counters down the first column, one sample per column, as a spreadsheet's transpose "
           "writes it: its times and figures are the spreadsheet's, not esxtop's)" if times else
           "split: its header continues on this line (wrapped or cut when pasted)")
    return ScenarioError(name, f"line {line}", f"the esxtop capture is {how}: give the file `esxtop -b` wrote as it "
                                               "wrote it (the counters across its first line, one sample per line)")


def _is_time(text: str) -> bool:
    for fmt in TIME_FORMATS:
        try:
            datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
        return True
    return False


class _Samples:
    """Every sample, in each table's arrays (sized by the file's lines, `_line_ends`)."""

    def __init__(self, path: Path) -> None:
        self.path, self.stamps = path, []  # type: ignore[var-annotated]

    def start(self, tables: dict[str, Table], fields: int, header_lines: int) -> None:
        self.tables, self.room = tables, max(_line_ends(self.path) - header_lines, 0)
        for t in tables.values():
            t.start(self.room)

    def add(self, line: int, stamp: str, values: np.ndarray) -> None:
        if len(self.stamps) == self.room:  # (cannot happen: a record ends a line at least)
            raise ScenarioError(str(self.path), f"line {line}", "more rows than lines")
        for t in self.tables.values():
            t.put(len(self.stamps), values)
        self.stamps.append(stamp)


def read(path: str | Path) -> dict[str, pd.DataFrame]:
    """The capture's adapters, paths and devices: one table each, one row per sample and
    instance, with `time` (the sample's timestamp), `name` and one column per counter (float64;
    a figure that is not a number is missing). Every sample is kept: `summary` is what a long
    capture needs."""
    import pandas as pd

    samples = _Samples(Path(path))
    fmt = _read(samples.path, samples)
    times = pd.to_datetime(pd.Series(samples.stamps, dtype=object), format=fmt)
    return {table: t.frame(times) for table, t in samples.tables.items()}


def summary(path: str | Path) -> Summary:
    """The capture's adapters, paths and devices as `esxtop_summary.Summary`: each instance's
    counters summed as they are read (means, intervals with failures), in memory that does not
    grow with the samples."""
    from pathlab.readers.esxtop_summary import Summary

    figures = Summary()
    _read(Path(path), figures)
    return figures
