"""`esxtop -b` captures: the real samples read as the file says; what is not a capture is refused
with its line."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pandas as pd
import pytest

import pathlab
from conftest import pathlab as pathlab_cli
from pathlab.output import esxtop_csv
from pathlab.readers import esxtop

# Real captures, with their source in the folder's README.
SAMPLES = Path(__file__).resolve().parent / "data" / "esxtop"
SMALL = SAMPLES / "esxtop-batch_rach-sharp-esxtopd_small-esxtop-data.csv"
ALL = SAMPLES / "esxtop-batch-allcounters_rach-sharp-esxtopd_esxtop-data.csv"


def raw_value(path: Path, column: str, row: int) -> float:
    with open(path, newline="") as f:
        header, *rows = list(csv.reader(f))
    return float(rows[row][header.index(column)])


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


def blocks_of(header: list[str]) -> list[tuple[str, list[str]]]:
    """(`Object(instance)`, its counters) in header order, without `\\\\host\\`."""
    blocks: list[tuple[str, list[str]]] = []
    for column in header[1:]:
        if not column:
            continue
        obj, counter = column.split("\\")[3], column.rsplit("\\", 1)[1]
        if not blocks or blocks[-1][0] != obj:
            blocks.append((obj, []))
        blocks[-1][1].append(counter)
    return blocks


FLAKY = ("run", "scenarios/flaky-path.toml", "--set", "run.duration=20s", "--format", "json")


@pytest.fixture(scope="module")
def flaky_capture(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    """flaky-path for 20 s after its 10 s of warm-up (a path erring from 15 s), with its capture."""
    out = tmp_path_factory.mktemp("esxtop") / "flaky.csv"
    done = pathlab_cli(*FLAKY, "--esxtop-csv", str(out))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), out


def test_the_writer_lays_out_objects_and_counters_as_a_real_all_counters_capture(flaky_capture) -> None:
    data, out = flaky_capture
    raw = out.read_bytes()
    assert b"\r" not in raw and all(line.endswith(b'",') for line in raw.split(b"\n")[:-1]) and raw.endswith(b",\n")
    with open(out, newline="", encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert header[0] == "(PDH-CSV 4.0) (UTC)(0)" and header[-1] == ""
    assert all(c.startswith("\\\\esx-lab\\") for c in header[1:-1])
    blocks = blocks_of(header)
    # Each adapter, then its paths as the adapter panel expands them; then each device and its paths.
    expected = []
    for a in data["adapters"]:
        expected += [f"Physical Disk({a['name']})", f"Physical Disk Adapter({a['name']})"]
        expected += [f"Physical Disk({a['name']}:{p['name']})" for p in data["paths"] if p["adapter"] == a["name"]]
    for d in data["devices"]:
        expected += [f"Physical Disk SCSI Device({d['name']})"]
        expected += [f"Physical Disk Path({p['name']})" for p in data["paths"] if p["device"] == d["name"]]
    assert [obj for obj, _ in blocks] == expected
    with open(ALL, newline="", encoding="latin-1") as f:
        real = dict(blocks_of(next(csv.reader(f))[:-1]))
    # The counters of each object, named and ordered as ESXi prints them with -a.
    kinds = {"Physical Disk(vmhba1)": "Physical Disk(vmhba0)", "Physical Disk Adapter(vmhba1)": "Physical Disk Adapter(vmhba0)",
             "Physical Disk(vmhba1:vmhba1:C0:T0:L1)": "Physical Disk(vmhba0:vmhba0:C0:T2:L0)",
             "Physical Disk SCSI Device(naa.60000000000000000000000000000101)": "Physical Disk SCSI Device(mpx.vmhba0:C0:T5:L0)",
             "Physical Disk Path(vmhba1:C0:T0:L1)": "Physical Disk Path(vmhba0:C0:T5:L0)"}
    mine = dict(blocks)
    for ours, theirs in kinds.items():
        assert mine[ours] == real[theirs], ours
    assert {"Failed Commands/sec", "Failed Reads/sec", "Failed Writes/sec", "Aborts/sec", "Resets/sec"} <= set(
        mine["Physical Disk Path(vmhba1:C0:T0:L1)"])


def test_the_capture_is_the_measured_window_stamped_from_its_start(flaky_capture, tmp_path: Path) -> None:
    data, out = flaky_capture
    with open(out, newline="", encoding="utf-8") as f:
        stamps = [row[0] for row in csv.reader(f)][1:]
    measured = [r for r in data["intervals"] if r["measured"]]
    assert len(measured) == 4 and len(data["intervals"]) == 6  # two warm-up intervals left out
    assert stamps == ["01/01/2026 00:00:00", "01/01/2026 00:00:05", "01/01/2026 00:00:10", "01/01/2026 00:00:15",
                      "01/01/2026 00:00:20"]
    # Another start (a zone's time is written in UTC); the same run gives the same bytes.
    again = tmp_path / "again.csv"
    esxtop_csv.write(data, again)
    assert again.read_bytes() == out.read_bytes()
    esxtop_csv.write(data, again, start=datetime(2025, 3, 1, 9, 30, 2, tzinfo=timezone(timedelta(hours=2))))
    with open(again, newline="", encoding="utf-8") as f:
        assert [row[0] for row in csv.reader(f)][1:3] == ["03/01/2025 07:30:02", "03/01/2025 07:30:07"]


#: The reader's counters and the run's figures they come from.
FIGURES = {"Commands/sec": "cmds_s", "Reads/sec": "reads_s", "Writes/sec": "writes_s", "MBytes Read/sec": "mbread_s",
           "MBytes Written/sec": "mbwrtn_s", "Average Driver MilliSec/Command": "davg_ms",
           "Average Kernel MilliSec/Command": "kavg_ms", "Average Guest MilliSec/Command": "gavg_ms",
           "Average Queue MilliSec/Command": "qavg_ms", "Average Driver MilliSec/Read": "davg_rd_ms",
           "Average Guest MilliSec/Read": "gavg_rd_ms", "Average Driver MilliSec/Write": "davg_wr_ms",
           "Average Guest MilliSec/Write": "gavg_wr_ms"}


def test_the_reader_gives_back_the_runs_figures_per_path_errors_included(flaky_capture) -> None:
    data, out = flaky_capture
    tables = esxtop.read(out)
    paths = tables["paths"]
    assert list(paths["name"].unique()) == [p["name"] for p in data["paths"]]
    warmup, interval = data["warmup_s"], data["interval_s"]
    start = pd.Timestamp("2026-01-01")
    errors = 0
    for p in data["paths"]:
        mine = paths[paths.name == p["name"]].reset_index(drop=True)
        run = [r for r in data["path_intervals"] if r["name"] == p["name"] and r["t_s"] > warmup]
        assert len(mine) == 1 + len(run)
        assert (mine.iloc[0][list(FIGURES)] == 0).all()  # esxtop's first row: nothing to difference yet
        for i, want in enumerate(run, start=1):
            row = mine.iloc[i]
            assert row["time"] == start + pd.Timedelta(seconds=want["t_s"] - warmup)
            for counter, key in FIGURES.items():
                # The CSV has two decimals: half a unit of the last (36.875 prints as 36.88),
                # plus the binary error of the printed figure (36.88 is not exact in a float).
                assert row[counter] == pytest.approx(want[key], abs=0.005 + 1e-9), (p["name"], want["t_s"], counter)
            # Failed commands per second, back to the interval's count of errors.
            assert round(row["Failed Commands/sec"] * interval) == want["errors"]
            errors += want["errors"]
    assert errors == sum(r["errors"] for r in data["path_intervals"] if r["t_s"] > warmup) > 1000
    devices, adapters = tables["devices"], tables["adapters"]
    assert round(devices["Failed Commands/sec"].sum() * interval) == errors
    for a in data["adapters"]:
        assert adapters[adapters.name == a["name"]]["Adapter Q Depth"].eq(a["aqlen"]).all()
    assert devices["Device Q Depth"].eq(32).all() and devices["World Q Depth"].eq(0).all()


def test_a_real_all_counters_capture_gives_the_adapters_queue_depth() -> None:
    adapters = esxtop.read(ALL)["adapters"]
    assert list(adapters.columns[:4]) == ["time", "name", "Adapter Q Depth", "Commands/sec"]
    assert list(adapters["Adapter Q Depth"]) == [31, 31, 31]


def test_uneven_rows_and_counters_blank_lines_and_a_byte_order_mark(tmp_path: Path) -> None:
    head = ['"(PDH-CSV 4.0) (UTC)(0)"', '"\\\\h\\Physical Disk Path(p)\\Commands/sec"', '"\\\\h\\Physical Cpu(0)\\% Util"',
            '"\\\\h\\Physical Disk Path(p)\\Reads/sec"', '"\\\\h\\Physical Disk Path(q)\\Commands/sec"']
    rows = [f'"04/26/2018 14:06:{27 + 5 * i:02d}","{i}.25","9","{i}.5","{"x" if i == 1 else i + 10}"' for i in range(3)]
    f = tmp_path / "c.csv"
    # A byte-order mark (as a re-saved file may have), a blank line, a short last row.
    f.write_text("\ufeff" + "\n".join([",".join(head), rows[0], "", rows[1], rows[2].rsplit(",", 1)[0]]) + "\n")
    paths = esxtop.read(f)["paths"]
    assert list(paths.columns) == ["time", "name", "Commands/sec", "Reads/sec"]
    assert list(paths["name"]) == ["p"] * 3 + ["q"] * 3
    assert list(paths["Commands/sec"])[:3] == [0.25, 1.25, 2.25] and list(paths["Reads/sec"])[:3] == [0.5, 1.5, 2.5]
    q = paths[paths.name == "q"]
    assert q["Reads/sec"].isna().all() and q["Commands/sec"].iloc[0] == 10 and q["Commands/sec"].isna().iloc[1:].all()
    assert str(q["time"].iloc[2]) == "2018-04-26 14:06:37"
    f.write_text("\n".join([",".join(head), rows[0], "", '"later",1,2,3,4']) + "\n")
    with pytest.raises(pathlab.ScenarioError, match="'later' is not a sample time") as e:
        esxtop.read(f)
    assert e.value.args[1] == "line 4"


@pytest.mark.parametrize(("text", "lines"), [
    (b"", 0), (b"a", 1), (b"a\n", 1), (b"a\nb", 2), (b"a\r\nb\r\n", 2), (b"a\rb\r", 2), (b"a\n\rb\r\n\r\n", 2),
    (b"a\n\n", 1), (b"\r\n\r\r\n\n", 0), (b"\na\r\r\nb\n\n\n", 2),
])
def test_non_blank_lines_are_counted_whatever_their_ends(tmp_path: Path, text: bytes, lines: int) -> None:
    f = tmp_path / "c.csv"
    f.write_bytes(text)
    for chunk_size in (1, 2, 3, 1 << 24):  # a CRLF split between two reads is one end
        assert esxtop._line_ends(f, chunk_size) == lines, chunk_size


def test_the_summary_gives_each_users_figures_from_the_samples(tmp_path: Path) -> None:
    # Path p: Commands/sec missing in the first sample; failures on, off, on, off after it. Path
    # q has no Failed Commands/sec column; device d has a single number, in the last sample.
    head = ['"(PDH-CSV 4.0) (UTC)(0)"', '"\\\\h\\Physical Disk Path(p)\\Commands/sec"',
            '"\\\\h\\Physical Disk Path(p)\\Failed Commands/sec"', '"\\\\h\\Physical Disk Path(q)\\Commands/sec"',
            '"\\\\h\\Physical Disk SCSI Device(d)\\Commands/sec"']
    figures = [("", "5", "1", ""), ("2", "0", "2", ""), ("4", "3", "4", ""), ("6", "0", "6", ""), ("8", "3", "8", "7")]
    f = tmp_path / "c.csv"
    f.write_text("\n".join([",".join(head), *(f'"04/26/2018 14:06:{5 * i:02d}",' + ",".join(row)
                                              for i, row in enumerate(figures))]) + "\n")
    summary = esxtop.summary(f)
    paths, devices = summary["paths"], summary["devices"]
    # One rule for the findings' means and the importer's: each counter's first value left out,
    # p's 2 (sample 1: (4+6+8)/3), q's 1 (sample 0: (2+4+6+8)/4); the only value is kept.
    means = paths.means()
    assert list(means.index) == ["p", "q"] and list(means.columns) == ["Commands/sec", "Failed Commands/sec"]
    assert list(means["Commands/sec"]) == [6.0, 5.0] and means.loc["p", "Failed Commands/sec"] == 1.5
    assert pd.isna(means.loc["q", "Failed Commands/sec"])
    assert paths.mean("p", "Commands/sec") == 6.0 and paths.mean("q", "Commands/sec") == 5.0
    assert devices.mean("d", "Commands/sec") == 7.0 and devices.means().loc["d", "Commands/sec"] == 7.0
    assert paths.mean("q", "Failed Commands/sec") is None and paths.mean("x", "Commands/sec") is None
    assert devices.mean("d", "Reads/sec") is None
    # Four intervals after the first sample: p errs in two, with three changes between them.
    failures = paths.failures("Failed Commands/sec")
    assert paths.intervals == 4
    assert failures.loc["p"].tolist() == [2, 3, 1.5] and failures.loc["q", "erring"] == 0


@pytest.mark.parametrize("capture", [SMALL, ALL], ids=["default-fields", "all-counters"])
def test_the_summary_agrees_with_the_frames_of_every_sample(capture: Path) -> None:
    tables, summary = esxtop.read(capture), esxtop.summary(capture)
    for name, frame in tables.items():
        later = frame[frame["time"] > frame["time"].min()]
        expected = later.groupby("name").mean(numeric_only=True)
        pd.testing.assert_frame_equal(summary[name].means(), expected, check_exact=False, rtol=1e-12)
        for instance in expected.index:
            values = frame.loc[frame["name"] == instance, "Commands/sec"].dropna()
            assert summary[name].mean(instance, "Commands/sec") == pytest.approx(values.iloc[1:].mean(), rel=1e-12)
