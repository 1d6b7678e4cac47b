"""Replications: means with Student-t 95% intervals, and paired comparisons on common random
numbers (two settings run with the same seeds see the same generated I/Os)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas and scipy load when a statistic is computed: `pathlab` starts fast
    import pandas as pd

LEVEL = 0.95


def half_width(values: Sequence[float]) -> float:
    """Half the width of the Student-t 95% interval of the mean (NaN for fewer than 2 values)."""
    n = len(values)
    if n < 2:
        return math.nan
    # numpy, not pandas: a second less to import for `pathlab advise`.
    import numpy as np

    from pathlab.student_t import two_sided

    sd = np.std(np.asarray(values, dtype=float), ddof=1)
    return float(two_sided(n, LEVEL) * sd / math.sqrt(n))


def aggregate(runs: pd.DataFrame, by: list[str], figures: Sequence[str]) -> pd.DataFrame:
    """One row per point: `seeds`, and `<figure>_mean`, `<figure>_ci95` (half-width) for each."""
    groups = runs.groupby(by, sort=False, dropna=False)
    out = groups.size().rename("seeds").to_frame()
    for f in figures:
        out[f"{f}_mean"] = groups[f].mean()
        out[f"{f}_ci95"] = groups[f].agg(lambda v: half_width(list(v)))
    return out.reset_index()


def paired_difference(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean and 95% half-width of a - b over seeds paired by seed. With common random numbers
    the per-seed differences vary far less than either figure, so this tells two policies apart
    where overlapping intervals of each would not (overlap is a conservative test)."""
    if len(a) != len(b):
        raise ValueError("paired figures need one value per seed on both sides")
    d = [x - y for x, y in zip(a, b)]
    return float(sum(d) / len(d)), half_width(d)


def distinguishable(a: Sequence[float], b: Sequence[float]) -> bool:
    """True when the paired 95% interval of a - b excludes zero."""
    mean, hw = paired_difference(a, b)
    if math.isnan(hw):
        return mean != 0
    return abs(mean) > hw
