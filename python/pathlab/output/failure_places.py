"""`advise --failures` on a cluster as the CLI prints it beside the cluster's table: what each
host, then each site, saw through each failure under each candidate (the worst seed; the rate the
mean), so a site loss shows the hosts at the surviving site against those across the distance."""

from __future__ import annotations

from pathlab.advisor.failure_advice import FailureAdvice
from pathlab.output.application import _table
from pathlab.output.seconds import FIGURES, seconds

HEAD = ["candidate", "failure", "host or site", "longest stall", "failed I/Os", "hazards", "IOPS", "IOPS during",
        "back to full rate"]


def place_rows(a: FailureAdvice) -> list[list[str]]:
    """A row per candidate, failure and host (then site), as the table shows them."""
    out = []
    for r in a.rows:
        for p in r.places(a.shown_host):
            s = p.seen
            during = "—" if s.during is None else f"{s.during:,.0f}"
            out.append([r.candidate, r.kind, p.place, seconds(s.longest_stall_s, precision=FIGURES), f"{s.failed_ios:,}", f"{s.hazards:,}",
                        f"{s.iops:,.0f}", during, _back(s.back_to_full_rate_s, p.back_known, s.touched)])
    return out


def _back(back: float | None, known: bool, touched: bool) -> str:
    """Back to full rate: "untouched" where the failure reached none of the host's devices."""
    return "untouched" if not touched else seconds(back, precision=FIGURES) if known else "not back"


def place_lines(a: FailureAdvice) -> list[str]:
    """The table per host and per site, after a blank line; nothing for one host."""
    if not a.hosts:
        return []
    narrowed = f", narrowed to {a.shown_host} and its site" if a.shown_host else ""
    return ["", f"Per host and per site (the same runs, every host at once{narrowed}; the worst seed, the mean IOPS "
                "over the run and while the failure lasted; a site is the hosts at the arrays they reach within 50 µs "
                "one way):",
            *("  " + row for row in _table(HEAD, place_rows(a)))]
