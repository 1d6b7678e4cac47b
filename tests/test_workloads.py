"""Workloads as the field runs them: bursts on a base load, fio job files, vdbench parameter
files (the real samples in tests/data/workloads), named mixes."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from conftest import ROOT, pathlab
from pathlab import Scenario, ScenarioError
from pathlab.workload_files import workload_overrides
from test_theory import ONE_PORT

# 20,000 I/O/s of Poisson base, +40,000 I/O/s for 200 ms of every 800 ms (duty 0.25).
BURSTY = ONE_PORT.format(shape='distribution = "exponential"', duration="8s",
                         load='rate = 20000\nburst = { rate = 40000, length = "200ms", duty = 0.25 }').replace(
    'interval = "10s"', 'interval = "100ms"')


def test_bursts_have_the_configured_rate_and_duty_cycle() -> None:
    data = Scenario.from_text(BURSTY, "bursty.toml").run().data
    lines = [i for i in data["intervals"] if i["measured"]]
    assert len(lines) == 80
    bursts = [i["iops"] for i in lines if i["iops"] > 40_000]
    calm = [i["iops"] for i in lines if i["iops"] <= 40_000]
    assert len(bursts) / len(lines) == pytest.approx(0.25)  # bursts fill 2 of every 8 intervals
    assert sum(bursts) / len(bursts) == pytest.approx(60_000, rel=0.02)
    assert sum(calm) / len(calm) == pytest.approx(20_000, rel=0.02)
    assert data["summary"]["iops"] == pytest.approx(30_000, rel=0.02)


@pytest.mark.parametrize(("burst", "field", "message"), [
    ('{ rate = 40000, length = "200ms", duty = 1.0 }', "workloads.0.burst.duty", "allowed above 0 and below 1"),
    ('{ rate = 0, length = "200ms", duty = 0.5 }', "workloads.0.burst.rate", "0 is out of range: allowed from 0.000001"),
    ('{ rate = 10, length = "200ms", duty = 0.5, every = "1s" }', "workloads.0.burst", "every"),
])
def test_bad_bursts_are_refused_by_field(burst: str, field: str, message: str) -> None:
    text = BURSTY.replace('burst = { rate = 40000, length = "200ms", duty = 0.25 }', f"burst = {burst}")
    with pytest.raises(ScenarioError) as e:
        Scenario.from_text(text, "bursty.toml")
    assert e.value.args[1].startswith(field) and message in e.value.args[2]


def test_bursts_need_an_open_loop_base() -> None:
    text = BURSTY.replace("rate = 20000\n", "outstanding = 4\n")
    with pytest.raises(ScenarioError, match="open-loop Poisson base"):
        Scenario.from_text(text, "bursty.toml")


# Real fio and vdbench files, with their sources and licences in the folder's README.
SAMPLES = ROOT / "tests" / "data" / "workloads"
C1 = "scenarios/c1-vmax-1lun.toml"


def csv_summary(*args: str) -> dict:
    done = pathlab("run", C1, *args, "--format", "csv")
    assert done.returncode == 0, done.stderr
    return pd.read_csv(io.StringIO(done.stdout)).iloc[0].to_dict()


def test_fio_iometer_file_server_job_loads_with_its_size_mix_and_depth() -> None:
    sets = workload_overrides(str(SAMPLES / "fio-jobfile_axboe-fio_examples_iometer-file-access-server.fio"), C1).sets
    assert "outstanding = 64" in sets[0] and 'access = "random"' in sets[0] and "read_pct = 80" in sets[0]
    s = csv_summary("--workload", str(SAMPLES / "fio-jobfile_axboe-fio_examples_iometer-file-access-server.fio"),
                    "--set", "run.duration=2s", "--set", "run.warmup=1s")
    # bssplit 512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10 has a mean of 11,345.9 bytes
    assert s["bytes_per_io"] == pytest.approx(11_345.9, rel=0.02)
    assert s["read_pct"] == pytest.approx(80, abs=1)


def test_fio_poisson_rate_job_is_an_open_loop_at_its_rate() -> None:
    sets = workload_overrides(str(SAMPLES / "fio-jobfile_axboe-fio_examples_poisson-rate-submission.fio"), C1).sets
    assert "rate = 50.0" in sets[0] and 'arrival = "poisson"' in sets[0] and "134217728B" in sets[0]
    sets = workload_overrides(str(SAMPLES / "fio-jobfile_bensonjohnson-FIO-tests_mixed_read_write.ini"), C1).sets
    assert sets[1:] == ['run.duration="300000ms"'] and "read_pct = 70" in sets[0] and "outstanding = 16" in sets[0]


def test_vdbench_parameter_file_loads_with_abbreviations() -> None:
    # sd=sd1,lun=...,size=40m / wd=wd1,sd=sd1,xf=1k,rdpct=50 / rd=rd1,wd=wd1,iorate=100,elapsed=5,interval=1
    s = csv_summary("--workload", str(SAMPLES / "vdbench_masakioui-vdb_oceanstor_output_parmfile.html"))
    assert s["bytes_per_io"] == 1024 and s["read_pct"] == pytest.approx(50, abs=6)
    assert s["iops"] == pytest.approx(100, rel=0.15)  # iorate=100 over elapsed=5


@pytest.mark.parametrize(("file", "message"), [
    ("vdbench_masakioui-vdb_oceanstor_test_parmfile.html", "line 25: range: WD parameter not supported"),
    ("verify.fio", "line 3: job.verify: option not supported"),
])
def test_unsupported_option_is_refused_by_name_in_one_line(tmp_path, file: str, message: str) -> None:
    (tmp_path / "verify.fio").write_text("[job]\nrw=randread\nverify=md5\n")
    path = SAMPLES / file if file.startswith("vdbench") else tmp_path / file
    done = pathlab("run", C1, "--workload", str(path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"pathlab: error: {path}: {message}")


def test_named_oltp_mix_is_8k_random_70_percent_read() -> None:
    s = csv_summary("--workload", "oltp", "--set", "run.duration=2s", "--set", "run.warmup=1s")
    assert s["bytes_per_io"] == 8192 and s["read_pct"] == pytest.approx(70, abs=1)


def test_vdbench_flatfile_has_vdbench_columns_and_the_interval_rates(tmp_path) -> None:
    flat = tmp_path / "flatfile.html"
    done = pathlab("run", C1, "--set", "run.duration=4s", "--set", "run.warmup=1s", "--set", "run.interval=1s",
                   "--vdbench-flatfile", str(flat), "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    table = pd.read_csv(flat, sep=" ", comment="*", skipinitialspace=True)
    assert list(table.columns[:6]) == ["tod", "timestamp", "Run", "Interval", "reqrate", "rate"]
    assert len(table.columns) == 34 and table["cpu_used"].isna().all()  # n/a: the host CPU is not simulated
    assert table["rate"].tolist()[:-1] == pytest.approx([i["iops"] for i in data["intervals"]], abs=0.01)
    assert table["Interval"].iloc[-1] == "avg_2-5" and table["rate"].iloc[-1] == pytest.approx(data["summary"]["iops"], abs=0.01)


def test_vdbench_flatfile_columns_are_those_of_a_real_flatfile(tmp_path) -> None:
    import re

    from pathlab.output.vdbench_flatfile import COLUMNS

    real = re.sub(r"<[^>]+>", "", (SAMPLES / "vdbench_masakioui-vdb_oceanstor_output_flatfile.html").read_text())
    header = next(line for line in real.splitlines() if line.startswith(" ") and "tod" in line)
    assert header.split() == list(COLUMNS)


def test_vdbench_streams_become_sequential_streams(tmp_path) -> None:
    parm = tmp_path / "parm"
    parm.write_text("sd=sd1,lun=/dev/sdb,threads=16\nwd=w1,sd=sd1,xf=64k,seek=seq,streams=4,rdpct=100\n"
                    "rd=r1,wd=w1,iorate=max,elapsed=2,interval=1\n")
    (sets, *run) = workload_overrides(str(parm), C1).sets
    assert "streams = 4" in sets and 'access = "sequential"' in sets and "outstanding = 16" in sets
    assert run == ['run.duration="2000ms"', 'run.interval="1000ms"']
    s = csv_summary("--workload", str(parm), "--set", "run.warmup=1s")
    assert s["bytes_per_io"] == 65536 and s["read_pct"] == 100


def test_fio_thinktime_spaces_a_closed_loop_by_the_think_time(tmp_path) -> None:
    # One outstanding I/O, 100 us of think time after each completion: one I/O per response
    # plus think time. The minimal model's read costs 2 x 50 us on the wire and 25 us of
    # exponential port service on average, 125 us, so 1 / (225 us) = 4,444 I/O/s.
    job = tmp_path / "think.fio"
    job.write_text("[job]\nrw=randread\nbs=8k\niodepth=1\nthinktime=100\n")
    done = pathlab("run", str(ROOT / "scenarios" / "bench-minimal.toml"), "--workload", str(job), "--set", "run.duration=20s",
                   "--format", "json")
    assert done.returncode == 0, done.stderr
    s = json.loads(done.stdout)["summary"]
    assert s["iops"] == pytest.approx(1e6 / (125 + 100), rel=0.02)
    assert s["resp_ms"] == pytest.approx(0.125, rel=0.02)


def test_a_named_mix_on_a_shipped_scenario_by_name_goes_to_its_devices() -> None:
    # `pathlab run c1-vmax-1lun --workload oltp` from any directory: the mix goes to the devices
    # of the shipped file the name resolves to, exactly as with the file's path.
    by_name = pathlab("run", "c1-vmax-1lun", "--workload", "oltp", "--set", "run.duration=1s", "--set", "run.warmup=0.5s",
                      "--format", "json", cwd=ROOT / "tests")
    assert by_name.returncode == 0, by_name.stderr
    by_path = pathlab("run", C1, "--workload", "oltp", "--set", "run.duration=1s", "--set", "run.warmup=0.5s",
                      "--format", "json")
    assert by_name.stdout == by_path.stdout
    s = json.loads(by_name.stdout)["summary"]
    assert s["bytes_per_io"] == 8192 and s["read_pct"] == pytest.approx(70, abs=2)
