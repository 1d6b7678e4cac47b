"""The pathlab command end to end."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, pathlab, pathlab_json, pathlab_process

SUMMARY_KEYS = ("iops", "mbps", "resp_ms", "read_resp_ms", "write_resp_ms", "resp_max_ms", "resp_stddev_ms",
                "queue_depth", "p99_ms", "ios")
SHORT = ("--set", "run.duration=2s", "--set", "run.warmup=0s")


def test_run_json_has_the_summary_and_every_table(scenarios) -> None:
    data = pathlab_json("run", str(scenarios / "c1-vmax-1lun.toml"), "--variant", "iops1", *SHORT)
    for key in SUMMARY_KEYS:
        assert key in data["summary"]
    for table in ("paths", "devices", "adapters", "intervals"):
        assert data[table], table
    assert [p["name"] for p in data["paths"]][:2] == ["vmhba1:C0:T0:L1", "vmhba1:C0:T1:L1"]
    assert data["devices"][0]["device_config"].startswith("{policy=iops,iops=1,bytes=10485760,useANO=0; lastPathIndex=")
    assert data["accounting"]["issued"] == data["accounting"]["completed"]


def test_same_seed_same_bytes_and_another_seed_other_numbers(scenarios) -> None:
    args = ("run", str(scenarios / "bench-minimal.toml"), "--set", "run.duration=1s", "--format", "json")
    # Two processes: nothing carried over in memory (hash seeds, caches) may change the bytes.
    first, second = pathlab_process(*args), pathlab_process(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    other = pathlab(*args, "--seed", "2")
    assert json.loads(other.stdout)["summary"]["iops"] != json.loads(first.stdout)["summary"]["iops"]
    table = ("run", str(scenarios / "bench-minimal.toml"), "--set", "run.duration=1s")
    assert pathlab(*table).stdout == pathlab(*table).stdout


def test_run_table_shows_vdbench_and_esxtop_layouts(scenarios) -> None:
    done = pathlab("run", str(scenarios / "bench-minimal.toml"), "--set", "run.duration=1s", "--intervals")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "interval        i/o   MB/sec   bytes   read     resp" in out
    assert "avg_" in out
    for column in ("DEVICE", "DQLEN", "ACTV", "QUED", "CMDS/s", "DAVG/cmd", "KAVG/cmd", "GAVG/cmd", "QAVG/cmd"):
        assert column in out
    assert "vmhba1:C0:T7:L1" in out


def test_run_csv_is_one_header_and_one_row(scenarios) -> None:
    done = pathlab("run", str(scenarios / "bench-minimal.toml"), "--set", "run.duration=1s", "--format", "csv")
    header, row = done.stdout.strip().splitlines()
    assert header.startswith("scenario,variant,seed,ios,iops,")
    assert row.startswith("bench-minimal,,1,")


def test_compare_runs_every_variant_on_the_same_ios(scenarios) -> None:
    data = pathlab_json("compare", str(scenarios / "c1-vmax-1lun.toml"), *SHORT)
    names = [v["variant"] for v in data["variants"]]
    assert names == ["iops1000", "iops1"]
    by_name = {v["variant"]: v["summary"] for v in data["variants"]}
    assert by_name["iops1"]["iops"] > 3 * by_name["iops1000"]["iops"]
    assert by_name["iops1"]["bytes_per_io"] == by_name["iops1000"]["bytes_per_io"] == 8192


def test_validate_and_policies() -> None:
    done = pathlab("validate", "scenarios/c1-vmax-1lun.toml")
    assert done.returncode == 0 and "variants: iops1000, iops1" in done.stdout
    catalog = pathlab_json("policies")
    rr = next(p for p in catalog if p["name"] == "VMW_PSP_RR")
    iops = next(q for q in rr["params"] if q["name"] == "iops")
    assert (iops["default"], iops["range"]) == ("1000", "1 to 2147483647")
    text = pathlab("policies").stdout
    assert "VMW_PSP_FIXED" in text and "VMW_PSP_MRU" in text


def test_bench_quick_prints_rates_and_memory() -> None:
    done = pathlab_process("bench", "--quick", "--rounds", "2", "--markdown")  # its own process: its own peak memory
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[3].startswith("| benchmark | simulated I/Os | set-up s | run s | M simulated I/O per s |")
    minimal = next(line for line in lines if line.startswith("| minimal 20 s |")).split(" | ")
    rate, low, high = map(float, re.fullmatch(r"([\d.]+) \(([\d.]+)-([\d.]+)\)", minimal[4]).groups())  # type: ignore[union-attr]
    assert 0.1 < low <= rate <= high, "millions of simulated I/Os per second of wall time: median of 2 and its spread"


def test_whole_process_child_times_each_step_of_run(scenarios) -> None:
    # The breakdown of `bench --whole-process`: every step of `pathlab run --format json` timed in
    # a fresh interpreter, the engine's run the longest of a 0.5 s simulated run after the imports.
    from pathlab.cli.whole_process import STEPS

    code = ("import time; t, c = time.perf_counter(), time.process_time(); "
            "from pathlab.cli.whole_process import child; child(t, c)")
    args = json.dumps([str(scenarios / "bench-minimal.toml"), ["run.duration=0.5s", "run.warmup=0s"]])
    done = subprocess.run([sys.executable, "-c", code, args], capture_output=True, text=True, check=True)
    report = json.loads(done.stdout)
    times = {key: step["cpu"] for key, step in report["steps"].items()}
    assert list(times) == [key for key, _ in STEPS] and all(t >= 0 for t in times.values()) and report["start_cpu"] > 0
    assert times["run_s"] > max(t for key, t in times.items() if key not in ("run_s", "import_s"))


def test_bench_spread_is_the_median_with_the_least_and_greatest() -> None:
    from pathlab.cli.bench import median, spread

    assert median([3.0, 1.0, 2.0]) == 2.0 and median([4.0, 1.0, 2.0, 3.0]) == 2.5
    assert spread([1.0, 5.0, 2.0]) == "2.00 (1.00-5.00)"
    assert spread([1234.0, 1234.0], 0) == "1,234"


BAD_INPUTS = [
    ("unknown field", 'duration = "20s"', 'duraton = "20s"', "run.duraton: unknown field"),
    ("bad unit", 'duration = "20s"', 'duration = "20 parsecs"', 'run.duration: "20 parsecs": unknown unit'),
    ("out of range", "iops = 1\n", "iops = 0\n", "policy.iops: 0 is out of range: allowed 1 to 2147483647"),
    ("unknown policy", "VMW_PSP_RR", "VMW_PSP_NOPE", "policy.name: unknown value `VMW_PSP_NOPE`"),
    ("malformed TOML", "[run]", "[run", "not valid TOML"),
    ("bad reference", 'array = "array"', 'array = "nope"', 'devices.0.array: unknown array "nope"'),
    ("wrong type", "queue_depth = 32", 'queue_depth = "deep"', "devices.0.queue_depth: \"deep\" is text: expected a whole number"),
]


@pytest.mark.parametrize(("case", "old", "new", "message"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_scenario_gives_one_line_and_exit_2(tmp_path, scenarios, case, old, new, message) -> None:
    text = (scenarios / "bench-minimal.toml").read_text()
    assert old in text
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(old, new, 1))
    done = pathlab("run", str(bad))
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"pathlab: error: {bad}: ")
    assert message in lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "no-such-file.toml"), "no-such-file.toml: no such file"),
        (("run", "scenarios"), "scenarios: is a directory"),
        (("run", "scenarios/bench-minimal.toml", "--set", "policy.iops=-3"), "policy: -3 is out of range"),
        (("run", "scenarios/bench-minimal.toml", "--set", "noequals"), "--set: noequals: expected dotted.key=value"),
        (("run", "scenarios/c1-vmax-1lun.toml", "--variant", "iops7"), 'unknown variant "iops7"; defined: iops1000, iops1'),
        (("compare", "scenarios/bench-minimal.toml"), "variants: the file defines no variants"),
        (("reproduce", "no-such-dir"), "no-such-dir: no such file or directory"),
        (("run", "c1-vmax-1lnu"), "c1-vmax-1lnu: no such file; did you mean c1-vmax-1lun?"),
        (("advise", "vmax-iops100"), "vmax-iops100: no such file; did you mean vmax-iops1000?"),
        (("import", "vmax-iops100"), "vmax-iops100: no such file; did you mean vmax-iops1000?"),
        (("import", "--host", "vmax-iops1000"), "pathlab: error: the hosts given: one host only: a cluster is two hosts or more"),
        (("scenarios", "--copy", "c1-vmax-1lnu"), "no shipped scenario of that name; did you mean c1-vmax-1lun?"),
        (("bench", "--only", "--loop", "benches/many-devices-loop"), "--loop: give --scaling too"),
        (("bench", "--only", "--scaling", "--loop", "docs"), "docs: --loop: no Cargo.toml"),
        (("bench", "--only", "--whole-process"), "--whole-process: give --reference too"),
    ],
)
def test_bad_command_input_gives_one_line_and_exit_2(args, message) -> None:
    done = pathlab(*args, cwd=ROOT)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], done.stderr


def test_advise_help_lists_every_input_kind_and_examples_on_shipped_names() -> None:
    from pathlab import shipped

    done = pathlab("advise", "--help")
    text = " ".join(done.stdout.split())
    for kind in ("ESXi", "Linux dm-multipath", "native NVMe", "PowerPath", "Windows MPIO"):
        assert kind in text, kind
    examples = [line.split() for line in done.stdout.splitlines() if line.strip().startswith("pathlab advise ")]
    assert [e[2] for e in examples] == ["vmax-iops1000", "esxcli-storage-nmp-device-list.txt", "c1-vmax-1lun", "--host",
                                        "srdf-metro-cluster-50km", "cx4-alua-path-failure", "host.toml"]
    # a cluster: shipped hosts' captures, and a shipped cluster narrowed to one host; the failure timers
    assert [e[3] for e in examples[3:]] == ["vmax-cluster-esx-a", "--host", "--failures", "--failures=path_hang,link_down"]
    assert "cx4-alua-path-failure" in shipped.names()
    assert all(shipped.capture_files(f"vmax-cluster-esx-{h}") for h in "abc") and "srdf-metro-cluster-50km" in shipped.names()
    assert "  pathlab import vmax-iops1000 -o host.toml && pathlab advise host.toml" in done.stdout
    # each name an example gives is shipped: the capture's files and the scenario
    assert [Path(f).name for f in shipped.capture_files("vmax-iops1000") or []] == \
        ["esxcli-storage-nmp-device-list.txt", "esxcli-storage-nmp-path-list.txt", "esxtop-batch.csv"]
    assert "c1-vmax-1lun" in shipped.names()


def test_the_run_verb_starts_without_the_importers_tempfile_or_the_advisor() -> None:
    """`pathlab run` imports only what a run needs (issue 35 item 7: the whole process against the
    reference loop): the importers' table is made for `import` and `advise`'s help alone, a
    temporary file only when an output file is written, `difflib` only to suggest a name."""
    probe = ("import sys; from pathlab.cli import main; main.commands['run']; "
             "print(sorted(m for m in ('pathlab.importer', 'tempfile', 'pathlab.advisor', 'rich', 'pandas', 'difflib') "
             "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout == "[]\n", done.stderr
    from pathlab.cli.common import INPUT_KINDS

    assert INPUT_KINDS.startswith("ESXi (`esxcli storage nmp device list`")
