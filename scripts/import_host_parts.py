"""Where a cluster host's import spends its CPU in its worker (issue 33 item 4): hosts 2 to N of an
OPTIONS file (`--host=NAME=FILES …`, as `/work/wt/cluster32/OPTIONS`) each read by
`cluster_hosts.read_host` and pickled, one after the other in one process with the collector off
after the first (as a worker reads them), with each named step's CPU taken around its outermost
call (a wrapper of its own: a step called a few times a host costs the wrapper nothing to speak
of). Prints the mean per host of the whole and of each step, largest first.

    python scripts/import_host_parts.py OPTIONS [N]"""

from __future__ import annotations

import collections
import functools
import importlib
import pickle
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pathlab.importer.cluster_hosts import read_host, uncollected

#: The steps timed: module, and the function (or class.method) in it.
STEPS = [("pathlab.importer.esxi", "build"), ("pathlab.readers.esxcli_paths", "read"),
         ("pathlab.importer.host_names", "host_named"), ("pathlab.importer.host_tables", "HostTables.render"),
         ("pathlab.readers.esxtop", "summary"), ("pathlab.importer.cluster_hosts", "digest"),
         ("pathlab.api", "Scenario.from_values"), ("pathlab.readers.esxcli_devices", "read"),
         ("pathlab.importer.host_tables", "HostTables.values")]


def timed(spent: collections.Counter[str], module: str, name: str) -> None:
    """`module.name` timed into `spent`, here and wherever a module took it by its own name."""
    owner: Any = importlib.import_module(module)
    *path, last = name.split(".")
    for part in path:
        owner = getattr(owner, part)
    step: Callable[..., Any] = getattr(owner, last)
    label, inside = f"{module.rsplit('.', 1)[-1]}.{name}", [False]

    @functools.wraps(step)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if inside[0]:
            return step(*args, **kwargs)
        inside[0], started = True, time.process_time()
        try:
            return step(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - started
            inside[0] = False

    setattr(owner, last, wrapper)
    for other in list(sys.modules.values()):  # (`from … import build` takes the function itself)
        if other is not None and getattr(other, last, None) is step:
            setattr(other, last, wrapper)


def main() -> None:
    warnings.simplefilter("ignore")
    options = Path(sys.argv[1]).read_text().split()[: int(sys.argv[2]) if len(sys.argv) > 2 else 13]
    hosts = [tuple(o.removeprefix("--host=").split("=", 1)[1].split(",")) for o in options]
    read_host(hosts[0])  # the imports, once
    uncollected()
    spent: collections.Counter[str] = collections.Counter()
    for module, name in STEPS:
        timed(spent, module, name)
    whole = 0.0
    for files in hosts[1:]:
        started = time.process_time()
        read = read_host(files)
        pickled = time.process_time()
        pickle.dumps(read, pickle.HIGHEST_PROTOCOL)
        spent["its pickle"] += time.process_time() - pickled
        whole += time.process_time() - started
    count = len(hosts) - 1
    print(f"a host, read and pickled: {whole / count * 1000:.1f} ms")
    for label, used in spent.most_common():
        print(f"{used / count * 1000:8.1f} ms  {label}")


if __name__ == "__main__":
    main()
