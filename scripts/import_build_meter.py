"""The CPU time of one cluster host's `esxi.build` (issue 33 item 4), the largest part of a host's
import in its worker in session 24: host 2 of an OPTIONS file (`--host=NAME=FILES …`, as
`/work/wt/cluster32/OPTIONS`) read as a worker reads it, the captures `build` was given kept, then
`build` run again on them ROUNDS times (default 15) with the collector off, as a worker runs;
prints the least and the median CPU milliseconds, and a digest of what it built (its pickle and its
text: the same whatever the code, if the import is). The esxtop summary's places are worked out by
the first run and kept, so the rounds after it leave out that part (2.7 ms on 32 × 500 × 8).

    python scripts/import_build_meter.py OPTIONS [ROUNDS]"""

from __future__ import annotations

import copy
import hashlib
import pickle
import statistics
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from pathlab.importer import esxi
from pathlab.importer.cluster_hosts import read_host, uncollected


def main() -> None:
    warnings.simplefilter("ignore")
    options = Path(sys.argv[1]).read_text().split()
    hosts = [tuple(o.removeprefix("--host=").split("=", 1)[1].split(",")) for o in options]
    given: list[esxi.Captures] = []
    build = esxi.build

    def kept(captures: esxi.Captures) -> Any:
        given.append(copy.copy(captures))
        return build(captures)

    esxi.build = kept  # type: ignore[assignment]
    read_host(hosts[1])
    esxi.build = build  # type: ignore[assignment]
    uncollected()
    used = []
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 15):
        captures = copy.copy(given[0])
        started = time.process_time()
        built = esxi.build(captures)
        used.append(time.process_time() - started)
    print(f"build: least {min(used) * 1000:.1f} ms, median {statistics.median(used) * 1000:.1f} ms; "
          f"pickle {hashlib.sha256(pickle.dumps(built, 5)).hexdigest()[:16]}, "
          f"text {hashlib.sha256(built.text.encode()).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
