"""The CPU time of a cluster import's parent alone (issue 33 item 4): the first N hosts of an
OPTIONS file (`--host=NAME=FILES …`, as `/work/wt/cluster32/OPTIONS`) each read here as a worker
reads it (`cluster_hosts.read_host`) and pickled as a worker sends it; then `cluster_of` timed with
the pickles handed to it unpickled, in order, in place of the workers: what the parent does (each
host unpickled, checked and merged, the cluster's text and scenario). Prints both CPU times and
the cluster text's digest (the same whatever the code, if the output is).

    python scripts/import_parent_meter.py OPTIONS N [PROFILE]"""

from __future__ import annotations

import hashlib
import pickle
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pathlab.importer import cluster
from pathlab.importer.cluster_hosts import read_host


def main() -> None:
    options = Path(sys.argv[1]).read_text().split()[: int(sys.argv[2])]
    given: list[tuple[str | None, tuple[str, ...]]] = []
    for option in options:
        name, files = option.removeprefix("--host=").split("=", 1)
        given.append((name, tuple(files.split(","))))
    warnings.simplefilter("ignore")
    started = time.process_time()
    sent = [pickle.dumps(read_host(files), pickle.HIGHEST_PROTOCOL) for _, files in given]
    print(f"the workers' part (read_host, pickled): {time.process_time() - started:.2f} s CPU", file=sys.stderr)

    def unpickled(work: Callable[[Any], Any], items: Sequence[Any], workers: int) -> Iterator[Any]:
        return (pickle.loads(one) for one in sent)

    cluster.in_order = unpickled  # type: ignore[assignment]
    started = time.process_time()
    if len(sys.argv) > 3:
        import cProfile

        profile = cProfile.Profile()
        made = profile.runcall(cluster.cluster_of, given, 2)
        profile.dump_stats(sys.argv[3])
    else:
        made = cluster.cluster_of(given, 2)
    print(f"the parent's part: {time.process_time() - started:.2f} s CPU; the cluster's text "
          f"{hashlib.sha256(made.text.encode()).hexdigest()[:16]}", file=sys.stderr)


if __name__ == "__main__":
    main()
