"""`readers/esxtop_bytes.py` and the core's `EsxtopCapture`: a capture read over its bytes gives
what the Python reader gives (`pdh_csv.Records`, `esxtop._header_columns`, `host_names._hosts_of`):
the same lines (any line end, a byte-order mark, bytes that are not UTF-8), the same header's
placed counters and hosts, the same figures and refusals (file, line, words) on random captures
with quoted commas, doubled quotes, unquoted fields, records over two lines, blank lines, a cut
last row, figures that only Python's `float` reads, times out of order and figures out of range."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import random
from pathlib import Path

import numpy as np
import pytest
from tests.test_esxtop_header_columns import _by_column, _header

import pathlab
from pathlab._core import EsxtopCapture
from pathlab.importer import host_names
from pathlab.readers import esxtop, esxtop_bytes
from pathlab.readers.pdh_csv import split

LIMIT = csv.field_size_limit()


def _python_lines(data: bytes) -> list[str]:
    return list(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", errors="replace", newline=""))


def test_lines_are_pythons_text_lines_whatever_their_ends_and_bytes(tmp_path: Path) -> None:
    """Each line with its end as a text file opened with `newline=""`, `utf-8-sig` and
    `errors="replace"` gives it: LF, CR, CRLF (one end), a mark only at the file's start, and
    every byte that is not UTF-8 (cut sequences, surrogates, overlongs) as Python replaces it."""
    draw = random.Random(24)
    pieces = [b"\r", b"\n", b"\r\n", b'"', b",", b"a", b"\xef\xbb\xbf", b"\xe2\x82", b"\xe2\x82\xac", b"\xed\xa0\x80",
              b"\xc0\xaf", b"\xff", b"\xf0\x9f\x98", b"\xf0\x9f\x98\x80", b"\x80", "é".encode()]
    file = tmp_path / "lines.csv"
    for _ in range(3_000):
        data = b"".join(draw.choice(pieces) for _ in range(draw.randint(0, 14)))
        file.write_bytes(data)
        capture = EsxtopCapture(str(file), LIMIT)
        assert list(capture) == _python_lines(data), data
        assert capture.line_num == len(_python_lines(data))


def test_the_header_is_placed_as_column_by_column_and_names_the_hosts(tmp_path: Path) -> None:
    """The core's placed counters are the rule's a column at a time (`_by_column`, on the random
    headers `test_esxtop_header_columns` draws: instances alike, counters missing, added, doubled,
    reordered, heads named again, adapters' own entries, objects not read, columns of no host),
    and its hosts `_hosts_of`'s."""
    draw = random.Random(24)
    file = tmp_path / "header.csv"
    for k in range(1_000):
        header = _header(draw)
        if k % 3 == 0:  # a second host's columns here and there
            header = [c.replace("esx01", "esx02") if draw.random() < 0.1 else c for c in header]
        file.write_text(",".join(f'"{c}"' for c in header) + ("," if k % 2 else "") + "\r\n", newline="")
        capture = EsxtopCapture(str(file), LIMIT)
        read = capture.header()
        assert read is not None
        first, hosts, placed = read
        assert first == header[0] and hosts == host_names._hosts_of(header[1:] + ([""] if k % 2 else []))
        columns = capture.columns()  # each counter placed by its file column's place among those read
        assert columns == sorted(i for t in _by_column(header).values() for _, own in t for _, i in own)
        assert {t: [(inst, [(c, columns[at]) for c, at in own.items()]) for inst, own in instances.items()]
                for t, instances in placed.items()} == _by_column(header), header


@pytest.mark.parametrize("text", [
    "", "\r\n", '"a","b""c"\n', 'a,"b"\n', '"a","b" ,"c"\n', '"' + "x" * (LIMIT + 1) + '","b"\n', '",\n', '"\n',
])
def test_a_header_esxtop_does_not_write_is_left_to_the_python_reader(tmp_path: Path, text: str) -> None:
    file = tmp_path / "header.csv"
    file.write_text(text, newline="")
    assert EsxtopCapture(str(file), LIMIT).header() is None and split(text) in (None, [])


HEADER = ",".join(['"(PDH-CSV 4.0)"', *(f'"\\\\h\\Physical Disk Path(p)\\C{i}"' for i in range(11))])


def test_fields_split_as_pdh_csv_splits_them(tmp_path: Path) -> None:
    """A line of random quotes, commas, blanks and letters: read by the core where `split` reads
    it, the fields csv reads; any other line handed back whole, for csv."""
    draw = random.Random(7)
    file = tmp_path / "line.csv"
    read = 0
    for _ in range(20_000):
        if draw.random() < 0.5:  # any line
            body = "".join(draw.choice('",a -') for _ in range(draw.randint(1, 12)))
        else:  # quoted fields, then perhaps a trailing comma or a last field without quotes
            texts = ["".join(draw.choice('a -,') for _ in range(draw.randint(0, 3))) for _ in range(draw.randint(1, 4))]
            body = ",".join(f'"{t}"' for t in texts) + draw.choice(["", ",", ",   -", ",-", ",,x", ', "', ",a,b"])
        file.write_text(HEADER + "\n" + body + "\n", newline="")
        capture = EsxtopCapture(str(file), LIMIT)
        assert capture.header() is not None and capture.columns() == list(range(1, 12))
        got = capture.sample()
        if isinstance(got, str):
            assert got == body + "\n" and split(body) is None, body
            continue
        read += 1
        fields = next(csv.reader([body]))
        assert split(body) == fields, body
        assert got is not None and got[0] == fields[0], body
        assert [text for _, text in got[2]] == [f for f in fields[1:12] if f], body
        assert all(np.isnan(np.frombuffer(got[1]))), body  # (no field of these is a number)
    assert read > 2_500


NUMBERS = ["0.00", "4096", "-1.5", "+2", "1.", ".5", "1e3", "1E-3", "-0", "0.1000000000000000055511151231257827", "2e+400",
           " 1", "1_000", "nan", "-inf", "Infinity", "x", "", ".", "e5", "1e", "١٢", "0x10", "1.5\t", "9" * 400]


def test_figures_are_pythons_floats_or_missing(tmp_path: Path) -> None:
    file = tmp_path / "figures.csv"
    columns = [f'"\\\\h\\Physical Disk Path(p)\\C{i}"' for i in range(len(NUMBERS))]
    file.write_text(",".join(['"(PDH-CSV 4.0)"', *columns]) + "\n" + ",".join(f'"{n}"' for n in ["t", *NUMBERS]) + "\n")
    capture = EsxtopCapture(str(file), LIMIT)
    assert capture.header() is not None and capture.columns() == list(range(1, len(NUMBERS) + 1))
    got = capture.sample()
    assert isinstance(got, tuple)
    figures = np.frombuffer(got[1]).copy()
    for at, text in got[2]:
        figures[at] = esxtop._number(text)
    for number, figure in zip(NUMBERS, figures):
        expected = esxtop._number(number)
        assert (figure != figure and expected != expected) or (figure == expected and str(figure) == str(expected)), number


def _capture(draw: random.Random) -> bytes:
    """A small capture: a header of disk and other columns, then sample lines esxtop writes and
    lines it does not, with edits at random."""
    counters = ["Commands/sec", "Failed Commands/sec", "Reads/sec"]
    header = ["(PDH-CSV 4.0) (UTC)(0)", "\\\\h\\Physical Disk(vmhba1)\\Adapter Q Depth"]
    header += [f"\\\\h\\{obj}({inst})\\{c}" for obj, inst in [("Physical Disk Path", "p,1"), ("Physical Cpu", "0"),
                                                              ("Physical Disk SCSI Device", "d"),
                                                              ("Physical Disk Path", "q")] for c in counters]
    if draw.random() < 0.1:
        header = header[:1] + ["\\\\h\\Physical Cpu(0)\\Util"]
    end = draw.choice(["\n", "\r\n", "\r"])
    lines = [",".join(f'"{c}"' for c in header) + draw.choice([",", ""])]
    for i in range(draw.randint(0, 6)):
        second = 10 + i * 5 if draw.random() < 0.95 else 5
        fields = [f"01/01/2026 00:00:{second:02d}"] + [draw.choice(NUMBERS[:10]) for _ in header[1:]]
        if draw.random() < 0.15:
            fields[draw.randrange(1, len(fields))] = draw.choice(NUMBERS)
        if draw.random() < 0.03:
            fields[0] = header[1]  # a counter's name where a time should be
        if draw.random() < 0.03:
            fields[draw.randrange(1, len(fields))] = "1e16"
        line = ",".join(f'"{f}"' for f in fields) + draw.choice([",", ""])
        edit = draw.random()
        if edit < 0.05:
            line = line.replace('","', ",", 1)  # a field without quotes
        elif edit < 0.1:
            line = line.replace('"0.00"', '"0.""00"', 1)  # a doubled quote
        elif edit < 0.15:
            line = line.replace('","', '","a\nb","', 1)  # a record over two lines
        elif edit < 0.18:
            line = line[:-draw.randint(1, 8)]  # a row cut short
        elif edit < 0.2:
            line = line.replace('","', '"x","', 1)
        lines.append(line)
        if draw.random() < 0.1:
            lines.append("")
    data = end.join(lines) + (end if draw.random() < 0.8 else "")
    raw = data.encode()
    if draw.random() < 0.1:
        raw = b"\xef\xbb\xbf" + raw
    if draw.random() < 0.05:
        raw = raw.replace(b"Reads", b"Re\xffads", 1)
    return raw


def _outcome(file: Path) -> object:
    try:
        tables = esxtop.read(file)
    except pathlab.ScenarioError as e:
        return ("refused", e.args)
    return {name: (list(t.columns), t.astype(str).values.tolist()) for name, t in tables.items()}


def test_random_captures_read_as_the_python_reader_reads_them(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    draw = random.Random(2024)
    file = tmp_path / "esxtop.csv"
    core_read = 0
    for _ in range(1_500):
        raw = _capture(draw)
        file.write_bytes(raw)
        by_core = _outcome(file)
        with monkeypatch.context() as m:
            m.setattr(esxtop_bytes, "opened", lambda *_: None)
            assert _outcome(file) == by_core, raw
        core_read += esxtop_bytes.opened(str(file)) is not None
    assert core_read > 1_000  # (most headers are lines esxtop writes)


def test_a_capture_opened_to_name_its_host_is_taken_by_its_reader_once(tmp_path: Path) -> None:
    file = tmp_path / "esxtop.csv"
    file.write_text('"(PDH-CSV 4.0)","\\\\esx07\\Physical Disk Path(p)\\Commands/sec"\n"01/01/2026 00:00:00","1"\n')
    kept = esxtop_bytes.opened(str(file), keep=True)
    assert kept is not None and esxtop_bytes.opened(str(file)) == kept  # taken past its header
    again = esxtop_bytes.opened(str(file))
    assert again is not None and again[0] is not kept[0]  # read again: it was taken
    esxtop_bytes.opened(str(file), keep=True)
    os.utime(file, ns=(1, 1))  # the file changed: not taken
    changed = esxtop_bytes.opened(str(file))
    assert changed is not None and changed[0].line_num == 1
    assert host_names.host_named([], [str(file)]) is not None
    assert esxtop.summary(file)["paths"].mean("p", "Commands/sec") == 1.0


def _descriptors_on(file: Path) -> int:
    """How many of this process's file descriptors are open on `file` (/proc/self/fd's links)."""
    opened = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # (the listing's own descriptor, closed by now)
            opened += os.readlink(f"/proc/self/fd/{fd}") == str(file.resolve())
    return opened


def test_a_capture_kept_to_name_its_host_is_closed_once_the_host_is_read(tmp_path: Path) -> None:
    """A cluster's worker keeps the capture it opened to name the host for the capture's reader;
    where nothing reads it (the naming refused: two hosts' counters; the import refused at the
    device list, before the capture), it was held open (one descriptor) until the worker kept
    another host's: now closed once the host is read, as a capture read is."""
    from conftest import ROOT
    from conftest import pathlab as command
    from pathlab.importer.cluster_hosts import read_host

    two = tmp_path / "two-hosts.csv"
    two.write_text('"(PDH-CSV 4.0)","\\\\esx07\\Physical Disk Path(p)\\Commands/sec",'
                   '"\\\\esx08\\Physical Disk Path(p)\\Commands/sec"\n"01/01/2026 00:00:00","1","2"\n')
    assert _descriptors_on(two) == 0
    assert "counters of hosts esx07, esx08" in str(read_host((str(two),)).naming_refused)
    assert _descriptors_on(two) == 0
    one = tmp_path / "esxtop.csv"
    one.write_text('"(PDH-CSV 4.0)","\\\\esx07\\Physical Disk Path(p)\\Commands/sec"\n"01/01/2026 00:00:00","1"\n')
    devices = command("show", "devices", str(ROOT / "scenarios" / "cx4-alua-path-failure.toml")).stdout
    first = devices.split("\n\n")[0]
    twice = tmp_path / "devices.txt"  # a device listed again, differently: refused before the capture is read
    twice.write_text(devices + "\n" + first.replace("VMW_SATP_ALUA", "VMW_SATP_CX") + "\n")
    read = read_host((str(twice), str(one)))
    assert read.named is not None and read.import_refused is not None and "a second time" in read.import_refused[2]
    assert _descriptors_on(one) == 0
    assert esxtop.summary(one)["paths"].mean("p", "Commands/sec") == 1.0 and _descriptors_on(one) == 0  # read: closed


@pytest.mark.parametrize("capture", sorted((Path(__file__).parent / "data" / "esxtop").glob("*.csv")),
                         ids=lambda p: p.name)
def test_real_captures_read_as_the_python_reader_reads_them(capture: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped captures as read: the Python reader's tables, figure for figure. The default
    fields' is read by the core; every counter's is not (its header holds `",   -"` between two
    columns, a field csv reads with its quotes: the Python reader's)."""
    assert (esxtop_bytes.opened(str(capture)) is not None) == ("allcounters" not in capture.name)
    by_core = _outcome(capture)
    monkeypatch.setattr(esxtop_bytes, "opened", lambda *_: None)
    assert _outcome(capture) == by_core


def test_a_file_name_the_core_cannot_take_is_read_by_the_python_reader(tmp_path: Path) -> None:
    """A name not UTF-8 (a str with a lone surrogate, as Python hands such a name over) is read
    as any other capture, not a traceback."""
    name = os.fsdecode(bytes(tmp_path) + b"/esxtop-\xff.csv")
    Path(name).write_text('"(PDH-CSV 4.0)","\\\\esx07\\Physical Disk Path(p)\\Commands/sec"\n"01/01/2026 00:00:00","3"\n')
    assert esxtop_bytes.opened(name) is None
    assert esxtop.summary(name)["paths"].mean("p", "Commands/sec") == 3.0
    assert esxtop_bytes.opened(str(tmp_path / "absent.csv")) is None  # the Python reader says why


def test_a_header_past_csvs_field_limit_is_refused_at_its_line_when_naming_the_host(tmp_path: Path) -> None:
    file = tmp_path / "esxtop.csv"
    file.write_text('"(PDH-CSV 4.0)","' + "x" * (csv.field_size_limit() + 1) + '"\n')
    with pytest.raises(pathlab.ScenarioError, match="not CSV: field larger than field limit") as refused:
        host_names.host_named([], [str(file)])
    assert refused.value.args[:2] == (str(file), "line 1")
