"""An esxtop capture stopped while esxtop wrote its last line (Ctrl-C, a full disk) ends with a
line cut short, without its line end: that sample is left out and said, by either reader (the
core's and `csv`'s), where its figures used to be read as far as they went (the last one's digits
cut, the rest missing). A last line that holds every field keeps its sample, line end or not."""

from __future__ import annotations

import csv
import warnings
from pathlib import Path

import pandas as pd
import pytest

import pathlab
from conftest import ROOT
from pathlab.readers import esxtop

#: Between two fields of a line as esxtop writes them (every field quoted, none holding a quote).
SEPARATOR = b'","'
CAPTURES = {"core": ROOT / "python" / "pathlab" / "captures" / "vmax-iops1000" / "esxtop-batch.csv",
            "csv": ROOT / "tests" / "data" / "esxtop" / "esxtop-batch-allcounters_rach-sharp-esxtopd_esxtop-data.csv"}


def _read(path: Path) -> tuple[dict[str, pd.DataFrame], list[str]]:
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", pathlab.PathlabWarning)
        tables = esxtop.read(path)
    return tables, [str(w.message) for w in said]


def _same(a: dict[str, pd.DataFrame], b: dict[str, pd.DataFrame]) -> None:
    assert a.keys() == b.keys()
    for table in a:
        pd.testing.assert_frame_equal(a[table], b[table])


@pytest.mark.parametrize("reader", sorted(CAPTURES))
@pytest.mark.parametrize("kept", [0.5, 0.9, 0.0005, "a field's end"])
def test_a_last_line_cut_short_is_left_out_and_said(tmp_path: Path, reader: str, kept: float | str) -> None:
    data = CAPTURES[reader].read_bytes()
    last_start = data.rstrip(b"\r\n").rfind(b"\n") + 1
    last = data[last_start:].rstrip(b"\r\n")
    cut_at = last.index(SEPARATOR, len(last) // 3) + 1 if kept == "a field's end" else max(1, int(len(last) * float(kept)))
    whole, cut = tmp_path / "whole.csv", tmp_path / "cut.csv"
    whole.write_bytes(data[:last_start])
    cut.write_bytes(data[:last_start] + last[:cut_at])
    expected, _ = _read(whole)
    read, said = _read(cut)
    _same(read, expected)
    line = data[:last_start].count(b"\n") + 1
    fields, header = (len(next(csv.reader([text.decode()]))) for text in (last[:cut_at], data.split(b"\n", 1)[0]))
    assert [s for s in said if "last sample" in s] == [
        f"{cut}: line {line}: the last sample has {fields:,} of the header's {header:,} fields, and no line end: "
        "esxtop was stopped while it wrote it; left out"]


@pytest.mark.parametrize("reader", sorted(CAPTURES))
def test_a_whole_last_line_without_its_line_end_keeps_its_sample(tmp_path: Path, reader: str) -> None:
    data = CAPTURES[reader].read_bytes()
    ended, unended = tmp_path / "ended.csv", tmp_path / "unended.csv"
    ended.write_bytes(data)
    unended.write_bytes(data.rstrip(b"\r\n"))
    read, said = _read(unended)
    _same(read, _read(ended)[0])
    assert not [s for s in said if "last sample" in s]


@pytest.mark.parametrize("reader", sorted(CAPTURES))
@pytest.mark.parametrize("tail", ["   ", '"'])
def test_a_last_line_that_begins_no_sample_is_not_said_cut(tmp_path: Path, reader: str, tail: str) -> None:
    """A last line of spaces or a lone quote, without its line end, begins no sample: it is read as
    the same line with its line end is (both readers refuse it at that line, saying no cut sample),
    never read as a cut sample left out (which would read the unended file and refuse the other)."""
    data = CAPTURES[reader].read_bytes()
    unended, ended = tmp_path / "unended.csv", tmp_path / "ended.csv"
    unended.write_bytes(data + tail.encode())
    ended.write_bytes(data + tail.encode() + b"\n")
    outcomes = []
    for path in (unended, ended):
        try:
            _, said = _read(path)
            outcomes.append(("read", [s.replace(str(path), "F") for s in said]))
        except pathlab.ScenarioError as e:
            # The line, and whether the refusal speaks of a cut sample (its words quote the
            # field as read: with the line end or without).
            outcomes.append(("refused", [e.args[1], "cut" in str(e.args[2]) or "last sample" in str(e.args[2])]))
    assert outcomes[0] == outcomes[1]
    assert not any("last sample" in s for s in (outcomes[0][1] if outcomes[0][0] == "read" else []))
