"""What NVMe multipath's sysfs attributes (`readers/nvme_sysfs.py`) give an imported host: each
subsystem's load from its paths' `queue_depth` (one snapshot of the controllers' I/Os in flight,
not an average over time), and health findings from the failover, retry, error, reset and
no-path counters, each naming its line. The counters count since the path or controller was
created: they say that something happened, not how often per second (two captures apart would)."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TYPE_CHECKING

from pathlab.finding import Finding
from pathlab.importer import same_host
from pathlab.importer.provenance import Read

if TYPE_CHECKING:
    import pandas as pd

#: Each counter as a finding says it.
COUNTERS = {
    "diag/multipath_failover_count": "I/Os failed over to another path after an error on this one",
    "diag/command_retry_count": "commands retried",
    "diag/command_error_count": "commands ended with an error status",
    "diag/reset_count": "controller resets",
    "diag/reconnect_count": "reconnections to the target",
    "diag/io_requeue_no_usable_path_count": "I/Os queued because no path was usable",
    "diag/io_fail_no_available_path_count": "I/Os failed because no path was available",
}
_PATH = re.compile(r"nvme(\d+)c(\d+)n(\d+)")


def snapshot_load(table: pd.DataFrame, file: str) -> dict[str, tuple[float, Read]]:
    """Per namespace head (`nvmeXnZ` of the paths nvmeXcYnZ): the I/Os in flight on its paths,
    and where they were read. A controller serving several namespaces of the
    capture counts its I/Os for all of them (`nr_active`): they are shared out evenly among
    those namespaces' heads, and that is said."""
    rows = [r for r in table.itertuples() if r.attribute == "queue_depth" and r.value != ""]
    heads_of: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for r in rows:
        x, y, z = _PATH.fullmatch(r.name).groups()  # type: ignore[union-attr]
        heads_of[y].add((x, z))
    load: dict[str, float] = defaultdict(float)
    shown: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        x, y, z = _PATH.fullmatch(r.name).groups()  # type: ignore[union-attr]
        share = len(heads_of[y])
        head = f"nvme{x}n{z}"
        load[head] += int(r.value) / share
        shown[head].append(f"{r.name} {r.value} ({r.where}" + (f", shared by {share} namespaces)" if share > 1 else ")"))
    return {head: (load[head], Read(file, text="queue_depth of " + ", ".join(shown[head])
                                    + ": one snapshot of the controllers' I/Os in flight, not an average"))
            for head in load}


def refuse_other_host(table: pd.DataFrame, file: str, controllers: set[str], listing: str) -> None:
    """Refuses attributes whose paths lead to none of the listing's controllers (`nvmeY` of
    nvmeXcYnZ): a capture of another host, which would otherwise be taken as this one's load."""
    paths = [_PATH.fullmatch(str(n)) for n in table["name"]]
    same_host.refuse_other_host(file, "the controllers its paths lead to", {f"nvme{p[2]}" for p in paths if p},
                                f"the controllers of {listing}", controllers)


def counter_findings(table: pd.DataFrame, file: str) -> list[Finding]:
    """One finding per path, controller or head whose counters are not zero."""
    found = []
    for name, rows in table[table["attribute"].isin(list(COUNTERS))].groupby("name", sort=False):
        nonzero = [r for r in rows.itertuples() if int(r.value) > 0]
        if not nonzero:
            continue
        kind = str(nonzero[0].object)
        path = _PATH.fullmatch(str(name))
        what = f"path {name} (controller nvme{path[2]})" if path else \
            f"{'controller' if kind == 'controller' else 'namespace head'} {name}"
        counts = ", ".join(f"{r.value} {COUNTERS[r.attribute]}" for r in nonzero)
        found.append(Finding(f"{what}: {counts}, since it was created (captured)",
                             "; ".join(f"{file}, {r.where}: {r.attribute} {r.value}" for r in nonzero)
                             + ": counts since creation, not rates; two captures minutes apart give a rate"))
    return found
