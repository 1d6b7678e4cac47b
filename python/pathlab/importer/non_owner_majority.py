"""One non-owner state for an array from what its devices show: the state most of them show (the
first shown among equals, so the listing's order decides a tie, not a preference of pathlab's),
each device that shows another keeping its own. An ESXi path list's `TPG_state`s
(`esxi_non_owner`) and a Linux host's maps' priorities (`linux_non_owner`) are read by this one
rule, so a host's standby LUNs are simulated standby beside its non-optimized ones."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Majority:
    #: The state most devices show: the array's.
    state: str
    #: How many devices show it, of how many show one.
    most: int
    of: int
    #: Each device that shows another state: its own.
    apart: dict[str, str]

    def rule(self) -> str:
        """The rule's words where the devices differ (" (the state most of its devices show: 3 of
        4)"), else nothing."""
        return "" if not self.apart else f" (the state most of its devices show: {self.most} of {self.of})"


def majority(shown: dict[str, str]) -> Majority | None:
    """The array's state from each device's (`shown`: device → its state, in the listing's
    order); None where no device shows one."""
    if not shown:
        return None
    counts = Counter(shown.values())
    most = max(counts.values())
    common = next(state for state in shown.values() if counts[state] == most)
    return Majority(common, most, len(shown), {d: s for d, s in shown.items() if s != common})
