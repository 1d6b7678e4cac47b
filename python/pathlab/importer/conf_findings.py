"""What a host's `multipath.conf` sets that does nothing on today's kernels: `rr_min_io`,
`rr_min_io_rq` and `rr_weight`. The kernel's path selectors clamp a path's repeat count to 1
since Linux 4.6 (`dm-round-robin.c` `rr_add_path`: "repeat_count > 1 is deprecated, using 1
instead"; the other selectors likewise), so every I/O chooses its path again whatever these
say; multipath-tools 0.15.0 (2026-07-13, opensvc/multipath-tools pull request 146) deprecates
the three options and ignores them. Admins still copy them from old vendor guides, believing a
path keeps I/O for that many requests: the finding says they do nothing, with each line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pathlab.finding import Finding

if TYPE_CHECKING:
    import pandas as pd

#: The options that have had no effect since Linux 4.6 and that multipath-tools 0.15.0 deprecates,
#: with what each was meant to do.
INEFFECTIVE = {
    "rr_min_io": "I/Os down a path before the next (bio-based maps)",
    "rr_min_io_rq": "requests down a path before the next",
    "rr_weight": "the repeat count scaled by the path group's priority",
}


def ineffective_settings(conf: dict[str, pd.DataFrame] | None, conf_file: str) -> list[Finding]:
    """One finding per option multipath.conf sets among `INEFFECTIVE`, naming every line that sets it."""
    if conf is None:
        return []
    found = []
    rows = list(conf["settings"].itertuples())
    for keyword in INEFFECTIVE:
        lines = [f"line {int(r.line)}: {keyword} {r.value}" for r in rows if r.keyword == keyword]
        if lines:
            found.append(Finding(
                f"multipath.conf sets {keyword}, which does nothing: the kernel chooses a path for every I/O "
                "since Linux 4.6, and multipath-tools 0.15.0 deprecates the option (captured)",
                f"{conf_file}, " + "; ".join(lines) + f": it meant {INEFFECTIVE[keyword]}; the kernel clamps a "
                "path's repeat count to 1, so remove it"))
    return found
