"""How closely a capture gives a mean: what `diskstats.device_means` and esxtop's
`TableSummary.spread` say of each device's rate and response, for the tolerance advise allows
between the captured and the simulated figures."""

from __future__ import annotations

from pathlab.student_t import two_sided  # (scipy only when first asked: an import here, not a call's, 2 µs a call)

_NAN = float("nan")
#: The two-sided level of the interval.
LEVEL = 0.95


def spread(count: float, total: float, squares: float) -> float:
    """The 95% half-width of a mean of `count` values (with their sum and sum of squares) as a
    share of the mean: Student's t for `count - 1` degrees of freedom × the standard error (a
    capture of a few intervals is wider than 1.96 would say: 4.30 for three); missing with
    fewer than two values."""
    if count < 2 or total == 0:
        return _NAN
    mean = total / count
    variance = max(squares / count - mean * mean, 0.0) * count / (count - 1)
    return two_sided(count, LEVEL) * (variance / count) ** 0.5 / abs(mean)
