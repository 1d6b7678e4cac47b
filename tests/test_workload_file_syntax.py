"""fio and vdbench files read as their manuals define them (issue 24): suffixes, percentages,
repeated sections and read/write pairs give the right workload or a refusal naming the file,
its line and the option; no text makes the readers fail any other way (Hypothesis)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SCENARIOS, limited, one_error_line
from pathlab import Scenario, ScenarioError
from pathlab.workload_files import _devices, fio_overrides, vdbench_overrides

DEVICES = ["naa.1"]
MINIMAL = SCENARIOS / "bench-minimal.toml"


def fio(tmp_path: Path, text: str) -> list[dict]:
    path = tmp_path / "job.fio"
    path.write_text(text)
    return tomllib.loads(fio_overrides(str(path), DEVICES).sets[0])["workloads"]


def vdbench(tmp_path: Path, text: str) -> list[dict]:
    path = tmp_path / "parm"
    path.write_text(text)
    return tomllib.loads(vdbench_overrides(str(path), DEVICES).sets[0])["workloads"]


def refusal(read, tmp_path: Path, text: str) -> tuple[str, str, str]:
    with pytest.raises(ScenarioError) as refused:
        read(tmp_path, text)
    return refused.value.args


def test_fio_integers_take_k_of_kb_base_and_percentages_their_sign(tmp_path: Path) -> None:
    (w,) = fio(tmp_path, "[job]\nrw=randrw\nrwmixread=70%\nrate_iops=1k\nbssplit=4k/50%:8k/50%\n")
    assert w["read_pct"] == 70
    assert w["rate"] == 1024  # fio's default kb_base=1024: "1k" is 1024 (HOWTO, "int")
    assert w["bssplit"] == [["4096B", 50], ["8192B", 50]]
    (si,) = fio(tmp_path, "[job]\nkb_base=1000\nrate_iops=1k\n")
    assert si["rate"] == 1000


def test_every_fio_section_is_a_job_even_two_of_one_name(tmp_path: Path) -> None:
    text = "[global]\nbs=4k\n[job]\nrw=randread\niodepth=2\n[job]\nrw=randwrite\niodepth=8\n"
    reads, writes = fio(tmp_path, text)
    assert (reads["read_pct"], reads["outstanding"], reads["block_size"]) == (100, 2, "4096B")
    assert (writes["read_pct"], writes["outstanding"], writes["block_size"]) == (0, 8, "4096B")


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ("[job]\nrw=randread\nrwmixread=30\n", "line 3: job.rwmixread",
         "applies to mixed I/O (rw=rw, readwrite, randrw), not rw=randread"),
        ("[job]\nrate_iops=1000,200\n", "line 2: job.rate_iops", "different read and write rates are not supported"),
        ("[job]\nbssplit=4k/50:8k/50,64k/100\n", "line 2: job.bssplit", "different read and write size mixes"),
        ("[job]\nrw=randrw\n\nbs=4k,8k\n", "line 4: job.bs", "different read and write sizes are not supported"),
        ("[job]\niodepth\n", "line 2: job.iodepth", "needs a value (key=value)"),
        ("[job]\nrwmixread=170\nrw=randrw\n", "line 2: job.rwmixread", "'170' is not a percentage from 0 to 100"),
        ("[job]\niodepth=lots\n", "line 2: job.iodepth", "'lots' is not a whole number"),
        ("[job]\nrw=randread\nverify=md5\n", "line 3: job.verify", "option not supported"),
        ("bs=4k\n", "line 1", "an option before any [section]"),
        ("[job]\nkb_base=x\n", "line 2: job.kb_base", "'x': allowed 1000, 1024"),
        ("[job]\nbs=" + "9" * 400 + "\n", "line 2: job.bs", "'" + "9" * 24 + "'...: a number of more than 20 digits"),
        ("[job]\nrate_iops=" + "9" * 21 + "\n", "line 2: job.rate_iops", "'" + "9" * 21 + "'...: a number of more"),
    ],
)
def test_fio_options_are_honoured_or_refused_with_their_line(tmp_path: Path, text: str, field: str, message: str) -> None:
    file, where, said = refusal(fio, tmp_path, text)
    assert (file, where) == (str(tmp_path / "job.fio"), field) and said.startswith(message), said


VDB = "sd=sd1,lun=/dev/sdb,threads=8\nwd=wd1,sd=sd1,xfersize=4k,rdpct=70\n"


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        (VDB + "rd=rd1,wd=wd1,iorate=curve,elapsed=10\n", "line 3: iorate", "'curve' is not supported"),
        (VDB + "rd=rd1,wd=wd1,iorate=(100,200),elapsed=10\n", "line 3: iorate", "'(100,200)' is not supported"),
        (VDB + "rd=rd1,iorate=max,elapsed=10\n", "line 3: rd", "names no workload definition"),
        (VDB + "rd=rd1,wd=wd1,threads=0\n", "line 3: threads", "'0': a whole number of at least 1"),
        (VDB.replace("xfersize=4k", "xfersize=(4k,50,8k)") + "rd=rd1,wd=wd1\n", "line 2: xfersize", "a distribution is size,percent pairs"),
        (VDB + "rd=rd1,wd=wd1\nrd=rd2,wd=wd1,iorate=100\n", "line 4: rd", "a second run definition"),
        (VDB + "rd=rd1,wd=nope\n", "line 3: wd", "'nope' matches no wd= entry"),
        (VDB.replace("threads=8", "threads=²") + "rd=rd1,wd=wd1\n", "line 1: threads", "'²': a whole number of at least 1"),
        (VDB + "rd=rd1,wd=wd1,iorate=" + "9" * 400 + "\n", "line 3: iorate", "'" + "9" * 24 + "'...: a number of more"),
        (VDB.replace("xfersize=4k", "xfersize=(4k,x)") + "rd=rd1,wd=wd1\n", "line 2: xfersize",
         "'x' is not a percentage from 0 to 100"),
        (VDB.replace("rdpct=70", "streams=²") + "rd=rd1,wd=wd1\n", "line 2: streams", "'²' is not a whole number"),
    ],
)
def test_vdbench_parameters_are_honoured_or_refused_with_their_line(tmp_path: Path, text: str, field: str,
                                                                      message: str) -> None:
    file, where, said = refusal(vdbench, tmp_path, text)
    assert (file, where) == (str(tmp_path / "parm"), field) and said.startswith(message), said


def test_vdbench_threads_and_a_paired_distribution_are_read_exactly(tmp_path: Path) -> None:
    (w,) = vdbench(tmp_path, VDB.replace("xfersize=4k", "xfersize=(4k,25,64k,75)") + "rd=rd1,wd=wd1,threads=3\n")
    assert (w["outstanding"], w["read_pct"]) == (3, 70.0)
    assert w["bssplit"] == [["4096B", 25], ["65536B", 75]]


def test_a_bad_workload_file_is_one_line_from_the_command(tmp_path: Path) -> None:
    job = tmp_path / "job.fio"
    job.write_text("[job]\nrw=randread\nrwmixread=30\n")
    line = one_error_line(limited("run", str(SCENARIOS / "bench-minimal.toml"), "--workload", str(job), timeout=60))
    assert line.startswith(f"pathlab: error: {job}: line 3: job.rwmixread: applies to mixed I/O"), line


BELOW_A_SECTOR = "1 is out of range: allowed 512B (one sector) to 1GiB"


@pytest.mark.parametrize(("name", "text", "where", "message"), [
    ("job.fio", "[reads]\nrw=randread\nbs=4k\n[tiny]\nrw=randread\n\nbs=1\n", "line 7: tiny.bs (workloads.1.block_size)",
     BELOW_A_SECTOR),
    # A [global] option is blamed on its own line; it applies to the jobs below it only (fio HOWTO).
    ("global.fio", "[a]\nbs=4k\n[global]\nbs=1\n[b]\n", "line 4: b.bs (workloads.1.block_size)", BELOW_A_SECTOR),
    ("split.fio", "[a]\nbssplit=4k/50:1/50\n", "line 2: a.bssplit (workloads.0.bssplit.1)", BELOW_A_SECTOR),
    ("deep.fio", "[a]\nrw=randread\niodepth=10000000\n", "line 3: a.iodepth (workloads.0.outstanding)",
     "10000000: at most 4000000 I/Os outstanding in all (about 100 bytes each)"),
    ("long.fio", "[a]\nruntime=1000000000\n", "line 2: a.runtime (run.duration)",
     '"1000000000000ms" is too large: at most 100 days (2400h)'),
    ("small.vdb", "sd=sd1,lun=/dev/sdb,size=100\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=max\n",
     "line 1: size (workloads.0.range)", "must hold at least one block"),
    ("tiny.vdb", "sd=sd1,lun=/dev/sdb\n* a comment\nwd=wd1,sd=sd1,xfersize=1\nrd=rd1,wd=wd1,iorate=max\n",
     "line 3: xfersize (workloads.0.block_size)", BELOW_A_SECTOR),
    ("fast.vdb", "sd=sd1,lun=/dev/sdb\nwd=wd1,sd=sd1\nrd=rd1,wd=wd1,iorate=5000000000\n", "line 3: iorate (workloads.0.rate)",
     "5000000000 is out of range: allowed from 0.000001 (one I/O in 11.6 days) to 1000000000 (one per ns) I/Os per second"),
])  # fmt: skip
def test_a_value_the_engine_refuses_names_the_workload_file_and_its_line(tmp_path: Path, name: str, text: str,
                                                                         where: str, message: str) -> None:
    job = tmp_path / name
    job.write_text(text)
    line = one_error_line(limited("run", str(SCENARIOS / "bench-minimal.toml"), "--workload", str(job), timeout=60))
    assert line == f"pathlab: error: {job}: {where}: {message}"


def test_a_global_section_applies_to_the_jobs_below_it_only(tmp_path: Path) -> None:
    a, b = fio(tmp_path, "[a]\nrw=randread\n[global]\nbs=64k\n[b]\nrw=randread\n")
    assert "block_size" not in a and b["block_size"] == "65536B"


def test_jobs_with_different_runtimes_are_refused_not_the_last_kept(tmp_path: Path) -> None:
    assert refusal(fio, tmp_path, "[a]\nruntime=10\n[b]\nruntime=20\n")[1:] == (
        "line 4: b.runtime", "'20' where line 2: a.runtime gives another time: the jobs run as one run here; give one "
                             "runtime")


# Fuzzing: lines built from the readers' own vocabulary reach far deeper than random text.
NUMBERS = ["4k", "1k", "50%", "70", "0", "-1", "1e9", "1e400", "9" * 400, "²", "x", "", "(4k,50,8k,50)", "(4k,x)",
           "4k/50:8k/50", "1000,200", "curve", "max"]
FIO_KEYS = ["rw", "rwmixread", "rwmixwrite", "bs", "bssplit", "rate_iops", "rate_process", "iodepth", "numjobs", "kb_base",
            "size", "runtime", "ramp_time", "thinktime", "time_based", "x"]
FIO_LINE = st.one_of(st.sampled_from(["[job]", "[global]", "[", "# c"]),
                     st.tuples(st.sampled_from(FIO_KEYS), st.sampled_from(["=", ""]),
                               st.sampled_from(NUMBERS + ["randrw", "randread", "poisson"])).map("".join))
VDB_KEYS = ["sd", "wd", "rd", "hd", "lun", "size", "threads", "xfersize", "rdpct", "seekpct", "iorate", "streams",
            "elapsed", "interval", "warmup", "distribution", "x"]
VDB_LINE = st.tuples(st.sampled_from(["sd=sd1,lun=/dev/sdb", "wd=wd1,sd=sd1", "rd=rd1,wd=*", "hd=default", ""]),
                     st.lists(st.tuples(st.sampled_from(VDB_KEYS), st.sampled_from(["=", ""]),
                                        st.sampled_from(NUMBERS + ["sd1", "wd1", "rd1", "*", "/dev/sdb", "seq"])).map("".join),
                              max_size=4)).map(lambda entry: ",".join([entry[0], *entry[1]]))
FIO_WORDS = st.sampled_from(["[job]", "[global]", "[", "=", ",", ":", "/", *FIO_KEYS, *NUMBERS])
VDB_WORDS = st.sampled_from(["sd=sd1", "wd=wd1", "rd=rd1", "wd=*", "=", ",", "(", ")", "*", *VDB_KEYS, *NUMBERS])


def _lines(line: st.SearchStrategy[str], words: st.SearchStrategy[str], joiner: str) -> st.SearchStrategy[str]:
    loose = st.lists(words, max_size=6).map(joiner.join)
    return st.lists(line | loose, max_size=12).map("\n".join)


@pytest.mark.parametrize(("overrides", "line", "words", "joiner"), [(fio_overrides, FIO_LINE, FIO_WORDS, ""),
                                                              (vdbench_overrides, VDB_LINE, VDB_WORDS, ",")],
                         ids=["fio", "vdbench"])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_readers_give_workloads_or_one_error(tmp_path: Path, overrides, line, words, joiner: str,
                                                 data: st.DataObject) -> None:
    """The file's workloads then go to the engine's checks, as `--workload` sends them."""
    path = tmp_path / "workload"
    path.write_text(data.draw(_lines(line, words, joiner) | st.text(max_size=300)), encoding="utf-8",
                    errors="surrogatepass")
    try:
        Scenario.load(MINIMAL, set=overrides(str(path), _devices(str(MINIMAL))).sets)
    except ScenarioError as e:
        assert len(e.args) == 3 and "\n" not in e.args[2]
