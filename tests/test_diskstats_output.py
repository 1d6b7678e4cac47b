"""`pathlab run --diskstats`: /proc/diskstats once an interval, read back by the diskstats reader to
the run's own per-path figures."""

from __future__ import annotations

import json

from conftest import pathlab
from pathlab.readers import diskstats


def test_diskstats_samples_read_back_to_the_runs_path_figures(tmp_path) -> None:
    out = tmp_path / "diskstats.txt"
    done = pathlab("run", "cx4-alua-path-failure", "--set", "run.duration=4s", "--set", "run.warmup=1s",
                   "--set", "run.interval=1s", "--diskstats", str(out), "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    rates = diskstats.rates(out)
    # sda is the first path the kernel would find: host 0 (vmhba1), target 0, LUN 1.
    sda = rates[rates["device"] == "sda"].reset_index(drop=True)
    run = [r for r in data["path_intervals"] if r["name"] == "vmhba1:C0:T0:L1"]
    for rate, r in zip(sda.itertuples(), run[1:]):
        # Whole I/Os per second, and the read latency to the counters' millisecond.
        assert abs(rate.reads_per_s - r["reads_s"]) <= 1 and abs(rate.writes_per_s - r["writes_s"]) <= 1
        assert abs(rate.read_latency_ms - r["davg_rd_ms"]) < 0.01
    # Every path device and map appears in every sample: 32 paths and 8 maps of the CX4 host.
    assert set(rates.groupby("time")["device"].count()) == {40}
    assert {d for d in rates["device"] if d.startswith("dm-")} == {f"dm-{i}" for i in range(8)}


def test_nvme_heads_and_paths_are_named_as_the_kernel_names_them(tmp_path) -> None:
    # nvme-shared-controllers: two namespaces of one subsystem over two controllers. The heads are
    # nvme0n1 and nvme0n2, their paths nvme0c0n1 … nvme0c1n2 (major 259); no sd or dm devices.
    out = tmp_path / "diskstats.txt"
    done = pathlab("run", "scenarios/reactions/nvme-shared-controllers.toml", "--variant", "round_robin",
                   "--set", "run.duration=2s", "--diskstats", str(out), "--format", "json")
    assert done.returncode == 0, done.stderr
    table = diskstats.read(out)
    assert set(table["device"]) == {"nvme0n1", "nvme0n2", "nvme0c0n1", "nvme0c1n1", "nvme0c0n2", "nvme0c1n2"}
    assert set(table["major"]) == {259}
    # The bulk namespace keeps 1,024 outstanding; each of its paths holds a full tag map (126).
    last = table[table["time"] == table["time"].max()].set_index("device")
    assert last.loc["nvme0n1", "in_flight"] == 1024
    assert last.loc["nvme0c0n1", "in_flight"] == last.loc["nvme0c1n1", "in_flight"] == 126
