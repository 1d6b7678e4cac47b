"""`readers/pdh_csv.py`: an esxtop capture's records split at `","` where a line allows it, else
read by `csv`: the rows, the line numbers and the errors are `csv.reader`'s, line for line."""

from __future__ import annotations

import csv
import io
import random

import pytest

from pathlab.readers.pdh_csv import Records, split


def _read(reader: type, text: str) -> list[object]:
    """Each row with the reader's line number after it, and the error that ended it (if one did)."""
    rows = reader(io.StringIO(text, newline=""))
    out: list[object] = []
    try:
        for row in rows:
            out.append((row, rows.line_num))
    except csv.Error as e:
        out.append(("error", str(e), rows.line_num))
    return out


@pytest.mark.parametrize("text", [
    '"(PDH-CSV 4.0) (UTC)(0)","\\\\esx01\\Physical Disk(vmhba1)\\Adapter Q Depth",\r\n"01/01/2026 00:00:00","4096",\r\n',
    '"a","b"\n"c","d"',                       # no trailing comma, no line end at the file's end
    '"a",,"c"\r\n',                           # an empty field without quotes
    '"a,b","c"\n',                            # a quoted comma
    '"say ""hi""","c"\n',                     # a doubled quote
    'a,"b"\n',                                # a first field without quotes
    '"a","b\nc","d"\n"e"\n',                  # a record over two lines: the line number counts both
    '"a"\r"b"\r\n\r\n"c"\n',                  # CR, CRLF and a blank line
    '"a","b" ,"c"\n',                         # a blank after a closing quote
    '"a","b\n',                               # a quote never closed
    '"' + "x" * 200_000 + '","b"\n',          # a field past csv's limit: csv's error
    '"",""\n",\n"\n',
])
def test_records_are_csv_readers_rows(text: str) -> None:
    assert _read(Records, text) == _read(csv.reader, text)


@pytest.mark.parametrize("before", [0, 1, 7_000, 40_000])
@pytest.mark.parametrize("extra", [-1, 0, 1, 70_000])
def test_a_long_field_is_read_or_refused_as_csv_does(before: int, extra: int) -> None:
    """A field of about csv's limit (131,072 characters: one short of it, it, one more, half as
    long again) among many short ones, at the line's start, at a few positions and at its end."""
    limit = csv.field_size_limit()
    fields = ['"0.00"'] * before + ['"' + "7" * (limit + extra) + '"'] + ['"1"'] * (40_000 - before)
    text = ",".join(fields) + ",\r\n" + '"a","b"\n'
    assert _read(Records, text) == _read(csv.reader, text)
    assert (split(text.split("\r\n")[0]) is None) == (extra > 0)  # a field past the limit is csv's to refuse


def test_random_lines_of_quotes_and_commas_are_read_as_csv_reads_them() -> None:
    draw = random.Random(33)
    for _ in range(20_000):
        text = "".join(draw.choice('",a\r\n\\') for _ in range(draw.randint(0, 12)))
        assert _read(Records, text) == _read(csv.reader, text), repr(text)


def test_a_line_esxtop_writes_is_split_without_csv() -> None:
    assert split('"01/01/2026 00:00:01","4096","0.00",\r\n') == ["01/01/2026 00:00:01", "4096", "0.00", ""]
    assert split('"a","b""c"\n') is None  # a doubled quote: csv's to read
    assert split("\n") == []


def _rows_of(file: str, keep: bool = False) -> list[object]:
    with open(file, newline="", encoding="utf-8") as f:
        rows = Records(f, file, keep)
        return [(row, rows.line_num) for row in rows]


@pytest.mark.parametrize("text", [
    '"(PDH-CSV 4.0) (UTC)(0)","\\\\esx01\\Physical Disk(vmhba1)\\Adapter Q Depth",\r\n"01/01/2026 00:00:00","4096",\r\n',
    '"(PDH-CSV 4.0)","a\nb","c"\n"d","e","f"\n',  # a header over two lines: both read past
])
def test_a_kept_header_is_taken_by_the_next_reader_of_the_same_file_alone(tmp_path, text: str) -> None:
    """The header naming a host kept (`keep`), the capture's reader takes it and reads on after
    its lines: the rows and line numbers are `csv.reader`'s; once taken it is gone, and a file
    changed since (the header kept no longer its own) is read again."""
    import os

    file = tmp_path / "esxtop.csv"
    file.write_text(text, newline="")
    expected = _read(csv.reader, text)
    with open(file, newline="", encoding="utf-8") as f:
        first = Records(f, str(file), keep=True)
        assert (next(first), first.line_num) == expected[0]
    assert _rows_of(str(file)) == expected  # taken
    assert _rows_of(str(file)) == expected  # read again: nothing kept
    _rows_of(str(file), keep=True)
    changed = text.replace("(PDH-CSV 4.0)", "(PDH-CSV 4.1)")
    file.write_text(changed, newline="")
    os.utime(file, ns=(1, 1))
    assert _rows_of(str(file)) == _read(csv.reader, changed)


def test_a_kept_header_after_a_byte_order_mark_is_taken_past_its_line(tmp_path) -> None:
    """A capture opening with a UTF-8 byte-order mark, read (as the naming and the capture's reader
    open it) without the mark: the kept header is taken and the rows after it are `csv.reader`'s of
    the text after the mark (the mark's three bytes counted in where the header ends)."""
    text = '"(PDH-CSV 4.0) (UTC)(0)","\\\\esx01\\Physical Disk(vmhba1)\\Adapter Q Depth",\r\n"01/01/2026 00:00:00","4096",\r\n'
    file = tmp_path / "esxtop.csv"
    file.write_bytes(b"\xef\xbb\xbf" + text.encode())
    with open(file, newline="", encoding="utf-8-sig") as f:
        first = Records(f, str(file), keep=True)
        assert (next(first), first.line_num) == _read(csv.reader, text)[0]
    with open(file, newline="", encoding="utf-8-sig") as f:
        rows = Records(f, str(file))
        assert [(row, rows.line_num) for row in rows] == _read(csv.reader, text)
