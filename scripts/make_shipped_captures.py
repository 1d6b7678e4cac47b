#!/usr/bin/env python3
"""Writes the host captures that ship with pathlab (python/pathlab/captures/): what an admin of the
C1 host (VMAX 250F, one LUN, round robin iops=1000) would collect, made by pathlab's own views of
that host and an esxtop batch capture of its simulated run; and the same of each host of a small
cluster (tests/data/cluster/three-esxi-hosts.toml: three ESXi hosts sharing a VMAX), which the
docs import as one. Run again when the views or the esxtop writer change:
`python scripts/make_shipped_captures.py`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "python" / "pathlab" / "captures" / "vmax-iops1000"
SCENARIO = ["c1-vmax-1lun", "--variant", "iops1000"]
CLUSTER = ROOT / "tests" / "data" / "cluster" / "three-esxi-hosts.toml"
CLUSTER_HOSTS = ("esx-a", "esx-b", "esx-c")


def pathlab(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "pathlab", *args], capture_output=True, text=True, check=True)
    return done.stdout


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "esxcli-storage-nmp-device-list.txt").write_text(pathlab("show", "devices", *SCENARIO))
    (OUT / "esxcli-storage-nmp-path-list.txt").write_text(pathlab("show", "paths", *SCENARIO))
    pathlab("run", *SCENARIO, "--set", "run.duration=30s", "--set", "run.warmup=5s",
            "--esxtop-csv", str(OUT / "esxtop-batch.csv"))
    (OUT / "README.md").write_text(
        "# vmax-iops1000: the C1 host as its admin would capture it\n\n"
        "The host of CALIBRATION.md's C1 (ESXi 6.0, a VMAX 250F LUN on 8 paths, round robin at the\n"
        "default iops=1000, 128 outstanding 8 KiB I/Os, half reads). The field report published its\n"
        "vdbench lines and `esxcli storage nmp device list`, not a capture: these files are what\n"
        "pathlab's views print for that host and an `esxtop -b` capture of 30 s of its simulated run\n"
        "(made by `scripts/make_shipped_captures.py`). `pathlab advise vmax-iops1000` reads them as\n"
        "it would read a real host's.\n")
    cluster()


def cluster() -> None:
    """Each host of the cluster as its admin would capture it: its listings (`show --host`) and its
    own esxtop capture (`run --esxtop-csv` writes one per host)."""
    scratch = OUT.parent / "vmax-cluster-esxtop.csv"
    pathlab("run", str(CLUSTER), "--set", "run.duration=30s", "--set", "run.warmup=5s", "--set", "run.interval=5s",
            "--esxtop-csv", str(scratch))
    for host in CLUSTER_HOSTS:
        out = OUT.parent / f"vmax-cluster-{host}"
        out.mkdir(exist_ok=True)
        for what, listing in (("devices", "device"), ("paths", "path")):
            (out / f"esxcli-storage-nmp-{listing}-list.txt").write_text(pathlab("show", what, str(CLUSTER), "--host", host))
        (OUT.parent / f"vmax-cluster-esxtop-{host}.csv").replace(out / "esxtop-batch.csv")
        (out / "README.md").write_text(
            f"# vmax-cluster-{host}: one host of a cluster as its admin would capture it\n\n"
            f"Host {host} of tests/data/cluster/three-esxi-hosts.toml (three ESXi hosts sharing a VMAX: esx-a and\n"
            "esx-b on all four ports with two LUNs, esx-c on the two 2D ports with LUN 1 and one of its own): what\n"
            "pathlab's views print for the host and an `esxtop -b` capture of 30 s of the cluster's simulated run\n"
            "(made by `scripts/make_shipped_captures.py`). `pathlab import --host vmax-cluster-esx-a --host\n"
            "vmax-cluster-esx-b --host vmax-cluster-esx-c` reads the three as one cluster.\n")


if __name__ == "__main__":
    main()
