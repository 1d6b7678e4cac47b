"""Python's garbage collector while a cluster's advice runs. The imported cluster (millions of
objects, none of them garbage) lives to the advice's end, yet every full pass of the collector
walked it again: on 32 hosts × 500 devices × 8 paths about 1.1 s of CPU a pass, five passes
before the ranking, set off by what the runs' results allocate. So it is frozen (`gc.freeze`: out
of every pass) while the advice runs. Frozen, it no longer counts among the long-lived objects
whose growth by a quarter sets a full pass off, and the passes became frequent (13 in the pilots'
step where there were 2; session 20 saw 18), each walking what the advice holds (every
candidate's resolved devices): so a full pass is made once every FULL_PASS_EVERY passes of the
middle generation instead of Python's 10. The advice's steps before the ranking make no garbage
in cycles (no pass collected an object, below); the younger generations are collected as always.
As the advice ends, one full pass walks what it made (the cluster still frozen), so that the
passes counted meanwhile do not set a full pass over the cluster off as soon as it is given back:
on 32 hosts × 500 devices × 8 paths that pass came in the advice's JSON (`to_dict`)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: A full pass once every this many passes of the middle generation while the advice runs
#: (Python's default 10). On 8 hosts × 500 devices × 8 paths, the cluster frozen, up to the
#: ranking: 12 full passes at 10 (0.78 s of CPU), none at 1,000, and not one object collected by
#: any pass of any generation at 10 (1,848 young and 167 middle passes); the pilots' peak memory the
#: same at 10, 100 and 1,000 (525-528 MiB).
FULL_PASS_EVERY = 1000


@contextlib.contextmanager
def given_frozen() -> Iterator[None]:
    """Every object alive as it starts frozen until it ends, and given back to the collector then,
    the collector's thresholds as they were. Where the caller froze objects of its own, the
    collector is left as it is: `gc.unfreeze` has no partial form, and it would give back the
    caller's (as `import_cluster`)."""
    if gc.get_freeze_count():
        yield
        return
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*thresholds[:2], max(thresholds[2], FULL_PASS_EVERY))
    try:
        yield
    finally:
        # A full pass while it is still frozen: over what the advice made alone. The middle generation's passes
        # counted while frozen (hundreds, under FULL_PASS_EVERY) would otherwise set off a full pass over
        # everything, the cluster given back with it, at the caller's next allocations (the advice's JSON).
        gc.collect()
        gc.set_threshold(*thresholds)
        gc.unfreeze()
