"""`esxtop -b` captures: the real samples read as the file says; what is not a capture is refused
with its line."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import pathlab
from pathlab.readers import esxtop

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "format-samples"
SMALL = SAMPLES / "esxtop-batch_rach-sharp-esxtopd_small-esxtop-data.csv"
ALL = SAMPLES / "esxtop-batch-allcounters_rach-sharp-esxtopd_esxtop-data.csv"


def raw_value(path: Path, column: str, row: int) -> float:
    with open(path, newline="") as f:
        header, *rows = list(csv.reader(f))
    return float(rows[row][header.index(column)])


@pytest.mark.skipif(not SMALL.exists(), reason="../shared/format-samples is not beside this checkout")
@pytest.mark.parametrize("capture", [SMALL, ALL], ids=["default-fields", "all-counters"])
def test_real_captures_give_the_disk_objects_with_the_files_figures(capture: Path) -> None:
    tables = esxtop.read(capture)
    paths, devices = tables["paths"], tables["devices"]
    # One SATA adapter with four local disks, three samples 5 s apart (the host of the capture).
    assert sorted(paths["name"].unique()) == ["vmhba0:C0:T2:L0", "vmhba0:C0:T3:L0", "vmhba0:C0:T4:L0",
                                              "vmhba0:C0:T5:L0"]
    assert len(devices["name"].unique()) == 4 and list(tables["adapters"]["name"].unique()) == ["vmhba0"]
    assert len(paths) == 4 * 3
    row = paths[paths.name == "vmhba0:C0:T5:L0"].iloc[2]
    assert row["Commands/sec"] == raw_value(capture, "\\\\localhost.home\\Physical Disk Path(vmhba0:C0:T5:L0)"
                                                     "\\Commands/sec", 2)
    first = {SMALL: "2018-04-26 14:06:27", ALL: "2018-04-24 10:49:12"}[capture]
    assert str(paths["time"].iloc[0]) == first


@pytest.mark.parametrize(("text", "where", "message"), [
    ("", "line 1", "expected a (PDH-CSV 4.0) header"),
    ('"time","\\\\h\\Physical Disk Path(p)\\Commands/sec"\n', "line 1", "expected a (PDH-CSV 4.0) header"),
    ('"(PDH-CSV 4.0) (UTC)(0)","\\\\h\\Physical Cpu(0)\\% Util Time"\n"04/26/2018 14:06:27","3"\n', "line 1",
     "no Physical Disk Adapter, Path or SCSI Device counters"),
    ('"(PDH-CSV 4.0) (UTC)(0)","\\\\h\\Physical Disk Path(p)\\Commands/sec"\n"yesterday","3"\n', "line 2",
     "'yesterday' is not a sample time"),
])
def test_what_is_not_a_capture_is_refused_with_its_line(tmp_path: Path, text: str, where: str, message: str) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    with pytest.raises(pathlab.ScenarioError) as e:
        esxtop.read(bad)
    assert e.value.args[1] == where and message in e.value.args[2], e.value.args


def test_line_ends_and_time_only_stamps_read_alike(tmp_path: Path) -> None:
    body = ['"(PDH-CSV 4.0) (UTC)(0)","\\\\h\\Physical Disk Path(p)\\Commands/sec",',
            '"14:06:27","1.50",', '"14:06:32","2.50",']
    for end in ("\n", "\r\n", "\r"):
        f = tmp_path / "c.csv"
        f.write_bytes(end.join(body).encode() + end.encode())
        paths = esxtop.read(f)["paths"]
        assert list(paths["Commands/sec"]) == [1.5, 2.5], repr(end)
