"""The 32 × 500 × 8 cluster's import as `python -m pathlab.cli.stage_meter` times its first step
(issue 33 item 4), without the advice after it: `import_cluster` of an OPTIONS file's hosts
(`--host=NAME=FILES …`, as `/work/wt/cluster32/OPTIONS`), its wall time, its CPU (this process and
its workers, and each part) and this process's peak, and the cluster text's digest (the same
whatever the code, if the output is). Run it under the shared lock (1 GiB and 25 s of CPU):

    python scripts/import_step_meter.py OPTIONS"""

from __future__ import annotations

import hashlib
import resource
import sys
import time
import warnings
from pathlib import Path

from pathlab.importer.cluster import import_cluster


def cpu_s() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def children_s() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return children.ru_utime + children.ru_stime


def main() -> None:
    hosts: dict[str, list[str]] = {}
    for option in Path(sys.argv[1]).read_text().split():
        name, paths = option.removeprefix("--host=").split("=", 1)
        hosts[name] = paths.split(",")
    warnings.simplefilter("ignore")  # one per device on a generated cluster, as the stage meter
    wall, cpu, workers = time.perf_counter(), cpu_s(), children_s()
    cluster = import_cluster(hosts)
    wall, cpu, workers = time.perf_counter() - wall, cpu_s() - cpu, children_s() - workers
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"import_cluster: {wall:.1f} s wall, {cpu:.1f} s CPU (the workers {workers:.1f}, this process "
          f"{cpu - workers:.1f}), peak {peak:,.0f} MiB; text {hashlib.sha256(cluster.text.encode()).hexdigest()[:16]}")


if __name__ == "__main__":
    main()
