"""A /proc/diskstats capture of a given size, for measuring the reader's memory and time: `devices`
SCSI disks named as the kernel names them (sda … sdz, sdaa …, so that a listing's paths are among
them and import takes it as the same host's) sampled once a second (pt-stalk's `TS` lines), every
counter growing as under a steady load. Usage: `python scripts/make_diskstats_capture.py OUT MEGABYTES [DEVICES]` (100 devices and
200 MB give 16,668 samples)."""

from __future__ import annotations

import sys


def disk_name(d: int) -> str:
    """The d-th SCSI disk's name (from 0), as the kernel's `sd_format_disk_name` gives it."""
    name = ""
    d += 1
    while d:
        d, letter = divmod(d - 1, 26)
        name = chr(ord("a") + letter) + name
    return "sd" + name


def sample(devices: int, k: int) -> str:
    lines = [f"TS {1_700_000_000 + k}.000000000"]
    for d in range(devices):
        reads, writes = 1_000_000 + 1_500 * k + d, 500_000 + 700 * k + d
        lines.append(f"   8 {16 * d:>4} {disk_name(d)} {reads} {k} {8 * reads} {2 * reads} {writes} {k} {16 * writes} "
                     f"{3 * writes} {d % 32} {900 * k} {(d % 32) * 1000 * k} 0 0 0 0 {k} {k}")
    return "\n".join(lines) + "\n"


def main() -> None:
    out, megabytes = sys.argv[1], float(sys.argv[2])
    devices = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    target, size, k = megabytes * 1e6, 0, 0
    with open(out, "w", encoding="ascii") as f:
        while size < target:
            text = sample(devices, k)
            f.write(text)
            size, k = size + len(text), k + 1
    print(f"{out}: {k} samples of {devices} devices, {size / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
