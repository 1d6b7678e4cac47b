"""The one value a host runs where its files give several: the value most of them give, the first
given among equals ("the most give"). A Linux host's SCSI command timeout (`device/timeout`, one
per path; the engine runs one per host) is chosen so by the import (`scsi_timeouts`) and by
advise --failures (`advisor/timer_candidates`), which must agree on it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T")


def most_given(values: Sequence[T], value_of: Callable[[T], Hashable]) -> tuple[T, int]:
    """The first of `values` whose value most of them give, and how many give it."""
    counts = Counter(value_of(v) for v in values)
    value, most = counts.most_common(1)[0]  # among equal counts, the first counted (`most_common` is stable)
    return next(v for v in values if value_of(v) == value), most
