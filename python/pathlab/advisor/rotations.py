"""How a policy goes round its paths: the I/Os it sends down one path before it moves on, and
the rotations the run-length rule (`run_length`) and the capture fit (`fit_level`) ask of it."""

from __future__ import annotations

from typing import Any

#: Full rotations of the policy in force per device (or per group of devices going round
#: together, `fit_level`): a rotation cut short at the end of the run then weighs at most 1/20 on
#: the figures.
ROTATIONS = 20


def in_a_row(params: Any, bytes_per_io: float) -> float:
    """I/Os a policy sends down one path before it moves on: round robin's `iops` (or its `bytes`
    in I/Os of the host's size, or under `type=default` the fewer of the two), SPDK's rr_min_io;
    1 for the policies that choose per I/O. dm-multipath's `rr_min_io_rq` (and `rr_min_io`) is no
    run: the kernel clamps a path's repeat count to 1 since Linux 4.6 (`importer/conf_findings.py`)."""
    kind = params.get("type")
    if kind == "bytes" and "bytes" in params:
        return max(params["bytes"] / (bytes_per_io or 1.0), 1.0)
    if kind == "default" and "iops" in params and "bytes" in params:  # ESXi's default: whichever limit comes first
        return max(min(float(params["iops"]), params["bytes"] / (bytes_per_io or 1.0)), 1.0)
    runs = [params[k] for k in ("iops", "rr_min_io") if k in params and kind in (None, "iops")]
    return float(max([1, *runs]))
