"""Settings over seeds as `compare --seeds` prints them and its report shows them: each figure's
mean and 95% interval per setting and what the seeds cannot tell apart (`replicate.table`), then
on a scenario of several hosts each host's and each site's figures (`places_over_seeds`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pathlab.output.hosts_and_sites import places_over_seeds

if TYPE_CHECKING:
    import pandas as pd


def replicated_table(runs: pd.DataFrame, reference: str | None = None) -> str:
    """The table of `runs` (a row per setting and seed), against `reference` (default: the best of each figure)."""
    from pathlab.study.replicate import table

    return "\n".join([table(runs, reference), *places_over_seeds(runs)])
