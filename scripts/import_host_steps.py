"""The CPU time of one cluster host's import, step by step, as a worker reads it (issue 33 item 4):
hosts 2-4 of an OPTIONS file (`--host=NAME=FILES …`, as `/work/wt/cluster32/OPTIONS`: each host's
device list, path list and esxtop CSV, in that order) each read by `cluster_hosts.read_host` and
pickled, then each reader alone, in one process with the collector off after the first host (as a
worker runs); prints the least CPU seconds of the three hosts for each. The esxtop summary is
timed without a header kept by the naming, so it includes the header's split.

    python scripts/import_host_steps.py OPTIONS"""

from __future__ import annotations

import gc
import pickle
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from pathlab.importer.cluster_hosts import digest, read_host, uncollected
from pathlab.importer.host_names import host_named
from pathlab.readers import esxcli_devices, esxcli_paths, esxtop


def least(step: Callable[[tuple[str, ...]], object], hosts: list[tuple[str, ...]]) -> float:
    used = []
    for files in hosts:
        gc.collect()
        started = time.process_time()
        step(files)
        used.append(time.process_time() - started)
    return min(used)


def main() -> None:
    warnings.simplefilter("ignore")
    options = Path(sys.argv[1]).read_text().split()
    hosts = [tuple(o.removeprefix("--host=").split("=", 1)[1].split(",")) for o in options]
    read_host(hosts[0])  # the imports, once
    uncollected()
    steps: dict[str, Callable[[tuple[str, ...]], object]] = {
        "read_host and its pickle": lambda f: pickle.dumps(read_host(f), pickle.HIGHEST_PROTOCOL),
        "esxcli_paths.read": lambda f: esxcli_paths.read(f[1]),
        "esxcli_devices.read": lambda f: esxcli_devices.read(f[0]),
        "esxtop.summary": lambda f: esxtop.summary(f[2]),
        "host_named": lambda f: host_named(f, list(f)),
        "digests": lambda f: [digest(x) for x in f[1:]],
    }
    for name, step in steps.items():
        print(f"{name}: {least(step, hosts[1:4]):.3f} s")


if __name__ == "__main__":
    main()
