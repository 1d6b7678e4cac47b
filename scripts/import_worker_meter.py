"""The CPU time of a cluster import's worker alone (issue 33 item 4): the first N hosts of an
OPTIONS file (`--host=NAME=FILES …`, as `/work/wt/cluster32/OPTIONS`) each read by
`cluster_hosts.read_host` and pickled, as the import's workers do, in a pool of one worker
process; prints each host's CPU seconds, the worker's resident and peak MiB after it, and the sum
(the first host's includes the worker's imports).

    python scripts/import_worker_meter.py OPTIONS N"""

from __future__ import annotations

import multiprocessing
import pickle
import resource
import sys
import time
import warnings
from pathlib import Path

from pathlab.importer.cluster_hosts import read_host


def one(files: tuple[str, ...]) -> tuple[float, int, int]:
    warnings.simplefilter("ignore")
    started = time.process_time()
    pickle.dumps(read_host(files), pickle.HIGHEST_PROTOCOL)
    used = time.process_time() - started
    resident = int(Path("/proc/self/statm").read_text().split()[1]) * resource.getpagesize() >> 20
    return used, resident, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10


def main() -> None:
    options = Path(sys.argv[1]).read_text().split()[: int(sys.argv[2])]
    hosts = [tuple(o.removeprefix("--host=").split("=", 1)[1].split(",")) for o in options]
    with multiprocessing.Pool(1) as pool:
        figures = pool.map(one, hosts)
    for files, (used, resident, peak) in zip(hosts, figures):
        print(f"{Path(files[0]).name}: {used:.3f} s CPU, {resident} MiB resident, peak {peak} MiB")
    print(f"the worker's CPU: {sum(f[0] for f in figures):.2f} s")


if __name__ == "__main__":
    main()
