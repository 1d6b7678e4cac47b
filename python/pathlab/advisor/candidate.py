"""A setting worth simulating on a host: its label, the scenario overrides that give it, the
commands that apply it on the host, and what to know before applying it. `candidates.py` and each
stack's own list (`powerpath_candidates.py`, `mpio_candidates.py`) make them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlab.devices import Device


@dataclass(frozen=True)
class Candidate:
    label: str
    #: Overrides applied to the host's scenario (dotted key to Python value).
    overrides: dict[str, Any]
    #: The commands that apply it on the host, one per line.
    commands: list[str] = field(default_factory=list)
    caveat: str = ""
    #: Where the setting in force it is ranked against is assumed, not read: what was assumed
    #: and which file settles it (said once under the candidates' table).
    against_assumed: str = ""

    @property
    def recommendable(self) -> bool:
        """A recommendation may choose it: it has the commands that apply it. pathlab's own policy
        has none (no stack ships it): it is shown beside the others, never recommended."""
        return bool(self.commands)


def at_ends(cands: Sequence[Candidate]) -> list[int]:
    """The candidates simulated at a span's end: the setting in force (the first) and each one a
    recommendation may choose. An end gives them a gain range and decides nothing, so a candidate
    never recommended is shown at the assumed values alone, and an end's run length is chosen for
    these alone (on 32 hosts × 500 devices × 8 paths the own policy's six runs at the ends were a
    fifth of the ranking)."""
    return [i for i, c in enumerate(cands) if i == 0 or c.recommendable]


def devices_at_ends(cands: Sequence[Candidate], resolved: Sequence[list[Device]]) -> list[list[Device]]:
    """The resolved devices of the candidates simulated at a span's end (`at_ends`): what an end's
    run length is chosen for."""
    return [resolved[i] for i in at_ends(cands)]


def as_given(device: Device, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """The device's policy table as the scenario gives it (the rest is the claim's), without the
    parameters `leave_out` names (those that mean nothing under another policy)."""
    return {"name": device.policy.name,
            **{k: device.policy[k] for k in device.policy.given if k not in leave_out}}
