#!/usr/bin/env python3
"""Benchmark of pathlab's `esxtop -b` reader on a large capture: writes a capture of a busy SAN
host (by default ~17,000 counters per row and ~300 MB, the size of the -a capture of a small host
and of the large files users report: research/formats.md §1.4) into a temporary folder, then reads
it with `pathlab.readers.esxtop.read` in a child process and prints the child's wall time and peak
resident memory (its rusage, from os.wait4). Goal (issue 12): read in under 500 MB.

The capture is laid out as ESXi writes it: the PDH-CSV header, quoted fields, a trailing comma;
memory, CPU and VM columns first (VM names with commas and parentheses, as real ones have), then
per adapter the adapter's block and its paths as `Physical Disk(vmhbaN:path)`, then each device
followed by its paths and one world, then virtual disks, network ports and interrupt cookies.
Disk blocks carry the default field set (9 counters per adapter and path, 15 per device), or the
-a set with `--all-counters`. The reader keeps the Physical Disk Adapter, Path and SCSI Device
columns and must skip every other one.

    python scripts/bench_esxtop_reader.py                      # ~17,000 counters, ~300 MB
    python scripts/bench_esxtop_reader.py --devices 1000       # 3,000 devices and paths, more counters
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

HOST = "esx042.lab.example.com"
RATES9 = ("Commands/sec", "Reads/sec", "Writes/sec", "MBytes Read/sec", "MBytes Written/sec",
          "Average Driver MilliSec/Command", "Average Kernel MilliSec/Command", "Average Guest MilliSec/Command",
          "Average Queue MilliSec/Command")
QUEUE6 = ("Device Q Depth", "World Q Depth", "Active Commands", "Queued Commands", "% Used", "Load")
FILLER_OBJECTS = (
    ("Physical Cpu({i})", ("% Processor Time", "% Util Time", "% Core Util Time")),
    ("Group Cpu({i}:vm-{i:04d} (prod, web))", ("Members", "% Used", "% Run", "% System", "% Wait", "% Ready",
                                               "% Idle", "% Overlap", "% CoStop", "% Max Limited", "% Swap Wait")),
    ("Vcpu({i}:vm-{i:04d} (prod, web):{i}:vmx-vcpu-0)", ("% Used", "% Run", "% System", "% Wait", "% Ready")),
    ("Group Memory({i}:vm-{i:04d} (prod, web))", ("Members", "Memory Size MBytes", "Memory Granted MBytes",
                                                  "Memory Consumed MBytes", "Swapped MBytes", "Zero MBytes")),
    ("Virtual Disk(vm-{i:04d} (prod, web):scsi0:0)", ("Commands/sec", "Reads/sec", "Writes/sec", "MBytes Read/sec",
                                                      "MBytes Written/sec", "Average MilliSec/Read",
                                                      "Average MilliSec/Write")),
    ("Network Port(DvsPortset-0:{i}:vm-{i:04d}.eth0)", ("Packets Transmitted/sec", "MBits Transmitted/sec",
                                                         "Packets Received/sec", "MBits Received/sec",
                                                         "% Outbound Packets Dropped", "% Received Packets Dropped")),
)


def disk_counters(all_counters: bool) -> dict[str, tuple[str, ...]]:
    """Counter names per disk block: pathlab's writer for -a (the names of a real -a capture),
    the nine rates (and queue counters on a device) for the default field set."""
    if all_counters:
        from pathlab.output import esxtop_csv

        c = {kind: tuple(name for name, _ in counters) for kind, counters in esxtop_csv.COUNTERS.items()}
        # A world's block: its shares, then the device's counters up to Resets/sec (34 in all).
        return c | {"world": ("Shares",) + c["device"][:c["device"].index("Resets/sec") + 1]}
    return {"adapter_depth": (), "adapter": RATES9, "adapter_path": RATES9, "device": QUEUE6 + RATES9,
            "path": RATES9, "world": QUEUE6 + RATES9}


def header(devices: int, paths_per_device: int, adapters: int, target: int, all_counters: bool) -> list[str]:
    """The counter columns: disk objects for the host given, filler objects up to `target`."""
    c = disk_counters(all_counters)
    disk: list[str] = []
    names = [f"vmhba{64 + a}" for a in range(adapters)]
    path_names: dict[str, list[str]] = {a: [] for a in names}
    device_paths = []
    for d in range(devices):
        own = []
        for p in range(paths_per_device):
            adapter = names[(d + p) % adapters]
            own.append(f"{adapter}:C0:T{p}:L{d}")
            path_names[adapter].append(own[-1])
        device_paths.append((f"naa.624a9370{d:024x}", own))
    for a in names:
        disk += [f"Physical Disk({a})\\{k}" for k in c["adapter_depth"]]
        disk += [f"Physical Disk Adapter({a})\\{k}" for k in c["adapter"]]
        for p in path_names[a]:
            disk += [f"Physical Disk({a}:{p})\\{k}" for k in c["adapter_path"]]
    for dev, own in device_paths:
        disk += [f"Physical Disk SCSI Device({dev})\\{k}" for k in c["device"]]
        for p in own:
            disk += [f"Physical Disk Path({p})\\{k}" for k in c["path"]]
        disk += [f"Physical Disk Per-Device-Per-World({dev}-{1000 + devices})\\{k}" for k in c["world"]]
    filler: list[str] = ["Memory\\Memory Overcommit (1 Minute Avg)", "Memory\\Machine MBytes", "Memory\\Kernel MBytes"]
    i = 0
    while len(filler) + len(disk) < target:
        obj, counters = FILLER_OBJECTS[i % len(FILLER_OBJECTS)]
        filler += [obj.format(i=i) + "\\" + k for k in counters]
        i += 1
    split = len(filler) * 2 // 3  # CPU and memory before the disks, VM disks and network after
    return [f"\\\\{HOST}\\{col}" for col in filler[:split] + disk + filler[split:]]


def cell(column: str, rng: random.Random) -> str:
    counter = column.rsplit("\\", 1)[1]
    if counter in ("Adapter Q Depth", "Device Q Depth", "World Q Depth", "Members"):
        return str(rng.choice((32, 64, 128, 4096)))
    if counter in ("Active Commands", "Queued Commands"):
        return str(rng.randrange(64))
    return f"{rng.random() * rng.choice((1, 10, 100, 10_000)):.2f}"


def write_capture(path: Path, columns: list[str], size_mb: float, seed: int = 1) -> int:
    """Writes the capture, streaming (a few distinct row bodies, so that writing is fast and the
    writer stays small); returns the number of sample rows."""
    rng = random.Random(seed)
    bodies = [",".join(f'"{cell(c, rng)}"' for c in columns) + ",\n" for _ in range(7)]
    first = ",".join('"0.00"' if c.endswith("/sec") else f'"{cell(c, rng)}"' for c in columns) + ",\n"
    stamp_len = len('"04/26/2026 14:06:27",')
    rows = max(2, int(size_mb * 1e6 / (len(bodies[0]) + stamp_len)))
    start = datetime(2026, 4, 26, 14, 6, 27)
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write('"(PDH-CSV 4.0) (UTC)(0)",' + ",".join('"' + c + '"' for c in columns) + ",\n")
        for r in range(rows):
            stamp = (start + timedelta(seconds=5 * r)).strftime("%m/%d/%Y %H:%M:%S")
            f.write(f'"{stamp}",' + (first if r == 0 else bodies[r % len(bodies)]))
    return rows


CHILD = """
import json, sys, time
started = time.perf_counter()
from pathlab.readers import esxtop
imported = time.perf_counter()
tables = esxtop.read(sys.argv[1])
done = time.perf_counter()
print(json.dumps({"import_s": imported - started, "read_s": done - imported,
                  "tables": {k: list(v.shape) for k, v in tables.items()},
                  "bytes": sum(int(v.memory_usage(deep=True).sum()) for v in tables.values())}))
"""


def read_in_child(path: Path) -> tuple[dict, float, float]:
    """The reader's report, the child's wall time and its peak RSS in MiB."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if status != 0:
        sys.exit(f"bench_esxtop_reader: the reader failed (status {status})")
    return json.loads(out), wall, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", type=int, default=200, help="SCSI devices (default 200)")
    ap.add_argument("--paths-per-device", type=int, default=2, help="paths of each device (default 2)")
    ap.add_argument("--adapters", type=int, default=4, help="HBAs the paths are spread over (default 4)")
    ap.add_argument("--counters", type=int, default=17_000,
                    help="counters per row: CPU, memory, VM and network columns fill up to it (default 17,000)")
    ap.add_argument("--size-mb", type=float, default=300, help="file size in MB (default 300)")
    ap.add_argument("--all-counters", action="store_true", help="disk blocks with esxtop -a's counters")
    ap.add_argument("--keep", metavar="FILE", help="write the capture here and keep it, instead of a temporary folder")
    ap.add_argument("--limit-mb", type=float, default=500, help="the goal for the reader's peak RSS (default 500 MiB)")
    args = ap.parse_args()

    columns = header(args.devices, args.paths_per_device, args.adapters, args.counters, args.all_counters)
    with tempfile.TemporaryDirectory(prefix="esxtop-bench-") as tmp:
        path = Path(args.keep) if args.keep else Path(tmp) / "capture.csv"
        t0 = time.perf_counter()
        rows = write_capture(path, columns, args.size_mb)
        written = time.perf_counter() - t0
        size = path.stat().st_size
        disk = sum(1 for c in columns if c.split("\\")[3].split("(")[0] in
                   ("Physical Disk Adapter", "Physical Disk Path", "Physical Disk SCSI Device"))
        print(f"capture: {size / 1e6:.0f} MB, {rows} samples of {len(columns)} counters "
              f"({disk} of them Physical Disk Adapter/Path/SCSI Device for {args.adapters} adapters, {args.devices} devices, "
              f"{args.devices * args.paths_per_device} paths); written in {written:.1f} s")
        report, wall, rss = read_in_child(path)
    shapes = ", ".join(f"{k} {r}x{c}" for k, (r, c) in report["tables"].items())
    print(f"reader: {report['read_s']:.1f} s in read() ({wall:.1f} s wall for the child process); peak RSS {rss:.0f} MiB; "
          f"tables {shapes}, {report['bytes'] / 2**20:.0f} MiB")
    verdict = "under" if rss < args.limit_mb else "OVER"
    print(f"goal: peak RSS under {args.limit_mb:.0f} MiB: {verdict}")
    if rss >= args.limit_mb:
        sys.exit(1)


if __name__ == "__main__":
    main()
