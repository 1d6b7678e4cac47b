"""Times in seconds as the output's tables and labels print them: one helper, each caller choosing
its precision and suffix (the failover study to the millisecond without a unit in its headings,
what the application saw to the millisecond with " s", the cluster's failure table in three
figures), and a fault's window as every view names it."""

from __future__ import annotations

#: Three significant figures under 10 s, tenths from 10 s up (`seconds(..., precision=FIGURES)`).
FIGURES = "figures"


def seconds(value: float | None, missing: str = "—", *, precision: str = ".3f", suffix: str = " s") -> str:
    """`value` seconds as text: formatted by `precision` (a format spec, or `FIGURES`) then
    `suffix`; `missing` where there is no value."""
    if value is None:
        return missing
    if precision == FIGURES:
        precision = ".3g" if value < 10 else ".1f"
    return f"{value:{precision}}{suffix}"


def window(start_s: float, end_s: float | None) -> str:
    """When a fault falls: `at 5 s` for one that does not end, `5-10 s` for one that does."""
    return f"at {seconds(start_s, precision='g')}" if end_s is None else \
        f"{seconds(start_s, precision='g', suffix='')}-{seconds(end_s, precision='g')}"
