"""Captures and input files as a careless or hostile user gives them (issue 24): special files
refused, not read for ever; padding that would size the tables for millions of samples; samples
out of time order or shuffled; two captures of one kind. Each is read right or refused in one
line, under the memory and time limit of `limited`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import pathlab
from conftest import ROOT, SCENARIOS, _limit_memory, limited, one_error_line
from pathlab.readers import diskstats, esxtop

CAPTURE = Path(pathlab.__file__).parent / "captures" / "vmax-iops1000"
FILES = sorted(f.name for f in CAPTURE.iterdir() if f.name != "README.md")
MINIMAL = str(SCENARIOS / "bench-minimal.toml")


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    for name in FILES:
        shutil.copy(CAPTURE / name, tmp_path / name)
    return tmp_path


@pytest.mark.parametrize("how", ["validate", "workload", "import"])
@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_special_files_are_refused_not_read_for_ever(tmp_path: Path, how: str, special: str) -> None:
    if special == "fifo":
        special = str(tmp_path / "fifo")
        os.mkfifo(special)
    args = {"validate": ("validate", special), "workload": ("run", MINIMAL, "--workload", special),
            "import": ("import", special)}[how]
    line = one_error_line(limited(*args, timeout=60))
    assert line == f"pathlab: error: {special}: is not a regular file (a device, a FIFO or a socket): give a file"


def test_an_esxtop_capture_padded_with_blank_lines_reads_as_the_capture(capture: Path) -> None:
    csv = capture / "esxtop-batch.csv"
    plain = esxtop.read(csv)
    with csv.open("a") as f:
        f.write("\n" * 10_000_000)  # 10 MB: the tables were sized for ten million samples
    padded = limited("import", *FILES, cwd=capture, timeout=60)
    assert padded.returncode == 0, padded.stderr
    assert limited("import", *FILES, cwd=CAPTURE, timeout=60).stdout == padded.stdout
    assert all(esxtop.read(csv)[t].equals(plain[t]) for t in plain)


def test_esxtop_rows_out_of_time_order_are_refused_with_their_line(capture: Path) -> None:
    csv = capture / "esxtop-batch.csv"
    header, first, second, *rest = csv.read_text().splitlines(keepends=True)
    csv.write_text("".join([header, second, first, *rest]))
    line = one_error_line(limited("import", *FILES, cwd=capture, timeout=60))
    assert line.startswith("pathlab: error: esxtop-batch.csv: line 3: sample time ")
    assert "samples out of time order (or two captures joined)" in line


def test_two_captures_of_one_kind_are_refused_not_one_dropped(capture: Path) -> None:
    shutil.copy(capture / "esxtop-batch.csv", capture / "later.csv")
    line = one_error_line(limited("import", *FILES, "later.csv", cwd=capture, timeout=60))
    assert line == "pathlab: error: later.csv: a second esxtop capture (the first: esxtop-batch.csv): give one " \
                   "capture of each kind, of one host at one time"


SAMPLE = "8 0 sda 100 0 800 50 40 0 320 30 {q} 60 90\n8 16 sdb 100 0 800 50 40 0 320 30 {q} 60 90\n"


def test_diskstats_lines_out_of_their_sample_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    first, second = SAMPLE.format(q=15).splitlines(keepends=True)
    # Separated samples: a device twice in one is a line out of place.
    path.write_text(SAMPLE.format(q=15) + "\n" + first + first + second)
    with pytest.raises(pathlab.ScenarioError) as refused:
        diskstats.read(path)
    assert refused.value.args[1:] == ("line 5", "sda appears twice in one sample: lines out of order")
    # Without separators a device coming round again starts a sample: a shuffle shows as
    # samples of other devices than the first.
    path.write_text(SAMPLE.format(q=15) + first + first + second)
    with pytest.raises(pathlab.ScenarioError) as refused:
        diskstats.read(path)
    assert refused.value.args[1:] == ("line 4", "sample 1 lists 1 devices where the first lists 2 (without sdb): "
                                                "lines out of order, or a sample cut short")


def test_diskstats_keeps_every_sample_in_order_and_a_last_one_cut_short(tmp_path: Path) -> None:
    path = tmp_path / "d.txt"
    path.write_text(SAMPLE.format(q=15) + "\n" + SAMPLE.format(q=15) + "\n" + SAMPLE.format(q=15).splitlines()[0])
    table = diskstats.read(path)
    assert list(table["sample"]) == [0, 0, 1, 1, 2]
    assert list(table["in_flight"]) == [15] * 5
    assert list(table["device"]) == ["sda", "sdb", "sda", "sdb", "sda"]


# Memory bounded by the devices, not the samples: 100 devices, 3 MB and 30 MB of samples (sda to
# sdcv: the listing's paths sda-sdh are among them, so the capture is the same host's).
MAKE_CAPTURE = ROOT / "scripts" / "make_diskstats_capture.py"
MULTIPATH = ROOT / "tests" / "data" / "linux" / "multipath_check-multipath-20_netapp-debian-squeeze.txt"
#: Address space for `import` of the 30 MB capture: Python, pandas and the engine take about
#: 350 MB of it; the reader of session 7 (a frame of every sample, then rates) did not fit in
#: 600 MB with this capture, nor in 400 MB with the 3 MB one.
BOUNDED = 450 << 20


def _import_peak_rss(*files: Path, memory: int = BOUNDED) -> int:
    """Peak resident memory (KiB) of `pathlab import` of the files, under `memory`."""
    done = subprocess.Popen([sys.executable, "-m", "pathlab", "import", *map(str, files)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=lambda: _limit_memory(memory))
    _, status, usage = os.wait4(done.pid, 0)
    assert done.stderr is not None
    assert os.waitstatus_to_exitcode(status) == 0, done.stderr.read()
    done.stderr.close()
    return usage.ru_maxrss


def test_a_diskstats_capture_ten_times_longer_takes_no_more_memory(tmp_path: Path) -> None:
    small, large = tmp_path / "small.txt", tmp_path / "large.txt"
    for path, megabytes in ((small, "3"), (large, "30")):
        subprocess.run([sys.executable, str(MAKE_CAPTURE), str(path), megabytes], check=True, capture_output=True)
    assert large.stat().st_size >= 9.9 * small.stat().st_size
    assert _import_peak_rss(MULTIPATH, large) < 1.2 * _import_peak_rss(MULTIPATH, small)


# The same for esxtop: the disk panels of a real capture, 3 MB and 30 MB of samples (1,222 and
# 12,356), imported beside the shipped listings (whose devices the capture does not have: the
# capture is read whole all the same).
MAKE_ESXTOP = ROOT / "scripts" / "make_esxtop_capture.py"
LISTINGS = [ROOT / "python" / "pathlab" / "captures" / "vmax-iops1000" / f"esxcli-storage-nmp-{what}-list.txt"
            for what in ("device", "path")]
#: The reader of session 8's start (every sample in arrays, then frames) ran out of 350 and of 400
#: MB with the 30 MB capture (peak RSS 137 MB with the 3 MB one, 209 MB with the 30 MB one); the
#: summary imports it in 350 MB.
BOUNDED_ESXTOP = 400 << 20


def test_an_esxtop_capture_ten_times_longer_takes_no_more_memory(tmp_path: Path) -> None:
    small, large = tmp_path / "small.csv", tmp_path / "large.csv"
    for path, megabytes in ((small, "3"), (large, "30")):
        subprocess.run([sys.executable, str(MAKE_ESXTOP), str(path), megabytes], check=True, capture_output=True)
    assert large.stat().st_size >= 9.9 * small.stat().st_size
    peak = {path: _import_peak_rss(*LISTINGS, path, memory=BOUNDED_ESXTOP) for path in (small, large)}
    assert peak[large] < 1.2 * peak[small]
