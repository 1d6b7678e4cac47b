"""Several hosts' views printed together: each under its heading, or each to a file of its own
(`host_views.py` takes each host's view out of a scenario or a run)."""

from __future__ import annotations

import os
from pathlib import Path


def heading(host: str) -> str:
    """The line that opens one host's view when several are printed one after another."""
    return f"==> host {host} <=="


def joined(blocks: list[tuple[str, str]]) -> str:
    """Texts of host views (each ending in a newline), a single one as it is, several each under
    its heading and a blank line apart."""
    if len(blocks) == 1:
        return blocks[0][1]
    return "\n".join(f"{heading(host)}\n{text}" for host, text in blocks)


def file_for(out: str, host: str, several: bool) -> Path:
    """Where one host's output file goes: `out` itself, or with several hosts `out` with the
    host's name before its extension (`run.csv` becomes `run-esx-a.csv`)."""
    path = Path(out)
    if not several:
        return path
    safe = host.replace(os.sep, "_")
    return path.with_name(f"{path.stem}-{safe}{path.suffix}")
