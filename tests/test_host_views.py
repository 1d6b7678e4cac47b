"""Each host's own views of a scenario with several hosts: its esxcli, multipath -ll, esxtop and
/proc/diskstats know only its devices, adapters and paths, and number its SCSI hosts and disks
from its own first; a scenario with one host prints as it always did."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SCENARIOS, pathlab, pathlab_json

DATA = Path(__file__).parent / "data" / "host_views"

# Host A: two adapters, two LUNs; host B: one adapter, one LUN. Both zoned to both ports of one
# array, so each device has a path per (adapter, port).
TWO_HOSTS = """
[run]
duration = "1s"
warmup = "0.5s"
interval = "0.5s"
seed = 5

[host]
name = "esx-a"
adapters = [{ name = "vmhba1" }, { name = "vmhba2" }]

[[hosts]]
name = "esx-b"
adapters = [{ name = "vmhba3" }]

[[arrays]]
name = "shared"
service = { fixed = "10us", servers = 4 }
ports = [{ name = "P0" }, { name = "P1" }]

[[fabric]]
adapters = ["vmhba1", "vmhba2", "vmhba3"]
ports = ["shared/P0", "shared/P1"]
latency = "10us"

[[devices]]
name = "naa.a1"
array = "shared"
lun = 1

[[devices]]
name = "naa.a2"
array = "shared"
lun = 2

[[devices]]
name = "naa.b1"
array = "shared"
lun = 1
host = "esx-b"

[policy]
name = "VMW_PSP_RR"

[[workloads]]
devices = ["naa.a1", "naa.a2", "naa.b1"]
outstanding = 4
read_pct = 100
"""


@pytest.fixture
def two_hosts(tmp_path) -> str:
    path = tmp_path / "two-hosts.toml"
    path.write_text(TWO_HOSTS)
    return str(path)


def blocks(text: str) -> dict[str, str]:
    """Output of several hosts, by the host each `==> host NAME <==` line names."""
    parts = re.split(r"^==> host (\S+) <==\n", text, flags=re.M)
    assert parts[0] == "", "the output opens with a host heading"
    return dict(zip(parts[1::2], parts[2::2]))


def ok(*args: str) -> str:
    done = pathlab(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_show_devices_of_one_host_lists_its_devices_and_its_adapters_paths_only(two_hosts) -> None:
    out = ok("show", "devices", two_hosts, "--host", "esx-b")
    assert re.findall(r"^\S+$", out, flags=re.M) == ["naa.b1"]
    assert re.findall(r"Working Paths: (.*)", out) == ["vmhba3:C0:T0:L1, vmhba3:C0:T1:L1"]
    paths = ok("show", "paths", two_hosts, "--host", "esx-b")
    assert re.findall(r"Runtime Name: (.*)", paths) == ["vmhba3:C0:T0:L1", "vmhba3:C0:T1:L1"]


def test_paths_keep_san_wide_wwns_in_one_hosts_view(two_hosts) -> None:
    # vmhba3 is the SAN's third adapter (its own host's first) and P1 the second target: the
    # port's WWN is the one host A sees, and no HBA WWN is another host's.
    a = ok("show", "paths", two_hosts, "--host", "esx-a")
    b = ok("show", "paths", two_hosts, "--host", "esx-b")
    assert re.findall(r"^fc\.(\w+):", b, flags=re.M) == ["2000001b32000003", "2000001b32000003"]
    assert {re.search(r"-fc\.(\w+):", line).group(1) for line in b.splitlines() if line.startswith("fc.")} == \
        {re.search(r"-fc\.(\w+):", line).group(1) for line in a.splitlines() if line.startswith("fc.")} == \
        {"5006016000000001", "5006016000000002"}


def test_multipath_ll_without_host_prints_each_hosts_maps_under_its_heading(two_hosts) -> None:
    by_host = blocks(ok("show", "paths", two_hosts, "--style", "linux"))
    assert list(by_host) == ["esx-a", "esx-b"]
    # Host A: two maps over 2 adapters x 2 ports; host B: one map, its one adapter SCSI host 0
    # and its two paths the host's first disks, as on a host of its own.
    assert re.findall(r"^mpath\w+ \((\w+)\) (dm-\d+)", by_host["esx-a"], flags=re.M) == \
        [("3a1", "dm-0"), ("3a2", "dm-1")]
    assert len(re.findall(r"\d+:0:\d+:\d+ sd", by_host["esx-a"])) == 8
    assert re.findall(r"^mpath\w+ \((\w+)\) (dm-\d+)", by_host["esx-b"], flags=re.M) == [("3b1", "dm-0")]
    assert re.findall(r"(\d+:\d+:\d+:\d+) (sd\w+) (\d+:\d+)", by_host["esx-b"]) == \
        [("0:0:0:1", "sda", "8:0"), ("0:0:1:1", "sdb", "8:16")]


def test_json_lists_every_hosts_devices_each_naming_its_host(two_hosts) -> None:
    import json

    every = json.loads(ok("show", "devices", two_hosts, "--style", "json"))
    assert [(d["name"], d["host"]) for d in every] == [("naa.a1", "esx-a"), ("naa.a2", "esx-a"), ("naa.b1", "esx-b")]
    one = json.loads(ok("show", "paths", two_hosts, "--style", "json", "--host", "esx-a"))
    assert {p["adapter"] for p in one} == {"vmhba1", "vmhba2"} and len(one) == 8


@pytest.mark.parametrize("verb", [("show", "devices"), ("show", "paths", "--style", "json"), ("run",)])
def test_an_unknown_host_is_one_line_naming_the_option_and_the_hosts(two_hosts, verb) -> None:
    done = pathlab(*verb, two_hosts, "--host", "esx-c")
    assert done.returncode == 2
    assert done.stderr == (f'pathlab: error: {two_hosts}: --host: unknown host "esx-c"; '
                           "the scenario's hosts: esx-a, esx-b\n")
    assert done.stdout == ""


def csv_header(path: Path) -> list[str]:
    return path.read_text().splitlines()[0].rstrip(",").split(",")[1:]


def instances(header: list[str], obj: str) -> set[str]:
    found = (re.fullmatch(rf'"\\\\[^\\]+\\{re.escape(obj)}\((.*)\)\\[^\\]+"', c) for c in header)
    return {m.group(1) for m in found if m}


def test_run_writes_an_esxtop_csv_and_diskstats_per_host(two_hosts, tmp_path) -> None:
    done = pathlab("run", two_hosts, "--esxtop-csv", str(tmp_path / "run.csv"),
                   "--diskstats", str(tmp_path / "ds.txt"))
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["ds-esx-a.txt", "ds-esx-b.txt", "run-esx-a.csv", "run-esx-b.csv", "two-hosts.toml"]
    b = csv_header(tmp_path / "run-esx-b.csv")
    assert all(c.startswith('"\\\\esx-b\\') for c in b)
    assert instances(b, "Physical Disk SCSI Device") == {"naa.b1"}
    assert instances(b, "Physical Disk Adapter") == {"vmhba3"}
    assert instances(b, "Physical Disk Path") == {"vmhba3:C0:T0:L1", "vmhba3:C0:T1:L1"}
    a = csv_header(tmp_path / "run-esx-a.csv")
    assert instances(a, "Physical Disk SCSI Device") == {"naa.a1", "naa.a2"}
    # 2 blocks per adapter, one per adapter's path, one per device and one per device's path.
    assert len(a) == 2 * (31 + 1 + 4 * 32) + 2 * (52 + 4 * 31)
    disks = {line.split()[2] for line in (tmp_path / "ds-esx-b.txt").read_text().splitlines() if not line.startswith("TS")}
    assert disks == {"sda", "sdb", "dm-0"}


def test_run_tables_are_per_host_and_host_picks_one(two_hosts, tmp_path) -> None:
    by_host = blocks(ok("run", two_hosts).split("\n\n", 2)[2].rsplit("ARRAY PORT", 1)[0])
    assert re.findall(r"^(naa\.\w+|vmhba\d)\s", by_host["esx-b"], flags=re.M) == ["naa.b1", "vmhba3"]
    assert re.findall(r"^(naa\.\w+|vmhba\d)\s", by_host["esx-a"], flags=re.M) == ["naa.a1", "naa.a2", "vmhba1", "vmhba2"]
    out = tmp_path / "b.csv"
    text = ok("run", two_hosts, "--host", "esx-b", "--esxtop-csv", str(out))
    assert "==> host" not in text
    assert re.findall(r"^(naa\.\w+|vmhba\d)\s", text, flags=re.M) == ["naa.b1", "vmhba3"]
    assert instances(csv_header(out), "Physical Disk SCSI Device") == {"naa.b1"}


def test_a_run_result_names_each_objects_host(two_hosts) -> None:
    data = pathlab_json("run", two_hosts)
    assert data["hosts"] == [{"name": "esx-a", "adapters": ["vmhba1", "vmhba2"]},
                             {"name": "esx-b", "adapters": ["vmhba3"]}]
    assert {d["name"]: d["host"] for d in data["devices"]} == {"naa.a1": "esx-a", "naa.a2": "esx-a", "naa.b1": "esx-b"}
    assert {a["name"]: a["host"] for a in data["adapters"]} == {"vmhba1": "esx-a", "vmhba2": "esx-a", "vmhba3": "esx-b"}
    assert {p["host"] for p in data["paths"] if p["device"] == "naa.b1"} == {"esx-b"}


@pytest.mark.parametrize(("args", "golden"), [
    ((), "c1-vmax-1lun-show-devices.txt"),
    (("--style", "linux"), "c1-vmax-1lun-show-paths-linux.txt"),
])
def test_a_single_host_prints_as_before(args, golden) -> None:
    # Captured before the views became per host.
    what = "paths" if "linux" in args else "devices"
    assert ok("show", what, str(SCENARIOS / "c1-vmax-1lun.toml"), *args) == (DATA / golden).read_text()


def test_a_single_host_run_writes_the_file_named_with_its_host_in_the_header(tmp_path) -> None:
    out = tmp_path / "c1.csv"
    text = ok("run", str(SCENARIOS / "c1-vmax-1lun.toml"), "--set", "run.duration=1s", "--set", "run.warmup=0s",
              "--esxtop-csv", str(out))
    assert [p.name for p in tmp_path.iterdir()] == ["c1.csv"]
    assert all(c.startswith('"\\\\esx-c1\\') for c in csv_header(out))
    assert "==> host" not in text and "every host's" not in text


def test_run_json_with_host_holds_that_hosts_objects(two_hosts) -> None:
    data = pathlab_json("run", two_hosts, "--host", "esx-b")
    assert [d["name"] for d in data["devices"]] == ["naa.b1"]
    assert [a["name"] for a in data["adapters"]] == ["vmhba3"]
    assert {p["host"] for p in data["paths"]} == {"esx-b"}
