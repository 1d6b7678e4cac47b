"""An `esxtop -b` capture of the disk panels alone, of a given size, for measuring the reader's
memory and time: the header is the real capture's (`tests/data/esxtop`, every counter, `-a`)
cut to its disk adapter, path and device counters and the adapter's queue depth; its three
samples repeat, 5 s apart, until the file has the size asked. Usage: `python
scripts/make_esxtop_capture.py OUT MEGABYTES` (30 MB give 12,356 samples of 364 counters)."""

from __future__ import annotations

import csv
import sys
from datetime import datetime, timedelta
from pathlib import Path

REAL = Path(__file__).resolve().parent.parent / "tests/data/esxtop/esxtop-batch-allcounters_rach-sharp-esxtopd_esxtop-data.csv"
KEPT = ("\\Physical Disk Adapter(", "\\Physical Disk Path(", "\\Physical Disk SCSI Device(", "\\Physical Disk(vmhba0)\\")
TIME_FORMAT = "%m/%d/%Y %H:%M:%S"


def main() -> None:
    out, megabytes = sys.argv[1], float(sys.argv[2])
    with open(REAL, newline="", encoding="utf-8") as f:
        header, *samples = list(csv.reader(f))
    columns = [0, *(i for i, name in enumerate(header) if any(k in name for k in KEPT))]
    start = datetime.strptime(samples[0][0], TIME_FORMAT)
    target, size, k = megabytes * 1e6, 0, 0
    with open(out, "w", newline="", encoding="ascii") as f:
        writer = csv.writer(f, quoting=csv.QUOTE_ALL)
        writer.writerow([header[i] for i in columns])
        while size < target:
            row = samples[k % len(samples)]
            writer.writerow([(start + timedelta(seconds=5 * k)).strftime(TIME_FORMAT), *(row[i] for i in columns[1:])])
            size, k = f.tell(), k + 1
    print(f"{out}: {k} samples of {len(columns) - 1} counters, {size / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
