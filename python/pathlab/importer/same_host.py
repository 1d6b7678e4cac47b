"""One rule for a capture imported beside a listing: when none of the names it holds (devices,
SCSI hosts, controllers) is one of the listing's, it is of another host (or another boot), and
taking it would give this host another's load or portals. It is refused in one line naming the
capture, with some names of each side for the admin to compare. A capture sharing some names is
this host's: what it lacks is said where it is missed."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError

if TYPE_CHECKING:
    import pandas as pd

#: How many names of each side the refusal shows.
SHOWN = 4
OTHER_HOST = "a capture of another host: give the listing and the capture of one host"


def refuse_other_host(capture: str, its: str, captured: Iterable[object], theirs: str, listed: Iterable[object],
                      why: str = OTHER_HOST) -> None:
    """Refuses `capture` when it names something (`captured`) and nothing of `listed`: "{its}
    (…) are none of {theirs} (…): {why}"."""
    seen, known = {str(n) for n in captured}, {str(n) for n in listed}
    if seen and not seen & known:
        raise ScenarioError(capture, "", f"{its} ({_some(seen)}) are none of {theirs} ({_some(known)}): {why}")


def refuse_other_hosts_rates(rates: pd.DataFrame, rates_file: str, theirs: str, listed: Iterable[object]) -> None:
    """`refuse_other_host` for the devices' rates (iostat, diskstats). A capture that leaves idle
    devices out (iostat -z) names none of the listing's devices either when all of them were
    idle: that is said too."""
    from pathlab.readers.iostat import LEAVES_IDLE_OUT

    idle = "; or every one of them was idle and iostat -z left it out: capture without -z"
    refuse_other_host(rates_file, "its devices", rates["device"], theirs, listed,
                      OTHER_HOST + (idle if rates.attrs.get(LEAVES_IDLE_OUT) else ""))


def _some(names: set[str]) -> str:
    """The first names in natural order (`dm-2` before `dm-10`), and how many more."""
    ordered = sorted(names, key=lambda n: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", n)])
    more = len(ordered) - SHOWN
    return ", ".join(ordered[:SHOWN]) + (f" and {more} more" if more > 0 else "") if ordered else "none"
