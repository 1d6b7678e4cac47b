"""Student's t quantile for a 95% (or other) interval of a mean of few values: what a sweep's
replications (`study.stats`) and a capture's intervals (`readers._spread`) both need."""

from __future__ import annotations

import functools


@functools.cache  # a capture's thousands of instances have the same count of intervals
def two_sided(count: float, level: float) -> float:
    """The t value whose two-sided interval holds `level` for a mean of `count` values (`count`
    − 1 degrees of freedom): 12.71 for two at 95%, 4.30 for three, 1.96 in the limit. scipy's
    `stdtrit` is scipy.stats.t's own quantile, without importing scipy.stats (a second of start-up)."""
    from scipy.special import stdtrit

    return float(stdtrit(count - 1, 0.5 + level / 2))
