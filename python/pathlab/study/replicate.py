"""Settings side by side over several seeds: means with 95% intervals, and which settings the
seeds cannot tell apart (paired on common random numbers, `stats.distinguishable`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded when replications are tabulated: `pathlab` starts fast
    import pandas as pd

from pathlab.api import _read
from pathlab.figures import KEYS, REPLICATED
from pathlab.host_site_figures import PLACE_COLUMNS
from pathlab.study.stats import aggregate, distinguishable
from pathlab.study.sweep import Job, Point, default_workers, run_local


def replicate(file: str, sets: Sequence[str], settings: Sequence[tuple[str, str | None, Sequence[str]]],
              seeds: Sequence[int], text: str | None = None) -> pd.DataFrame:
    """One row per (setting, seed); a setting is (label, variant, its own `key=value` overrides).
    `text`: the scenario's, when it is in memory rather than in `file`."""
    job = Job(_read(file) if text is None else text, file, tuple(sets))
    points = [Point(variant, tuple(tuple(o.split("=", 1)) for o in own), seed)  # type: ignore[misc]
              for _, variant, own in settings for seed in seeds]
    job.check(points)
    rows: dict[str, dict] = {}
    run_local(job, points, default_workers(), lambda row: rows.__setitem__(row["point"], row))
    labels = [label for label, _, _ in settings for _ in seeds]
    import pandas as pd

    return pd.DataFrame([{"setting": label, "seed": p.seed, **{f: rows[job.key(p)][f] for f in KEYS},
                          **{f: v for f, v in rows[job.key(p)].items() if f.split(" ", 1)[0] in PLACE_COLUMNS}}
                         for label, p in zip(labels, points)])


def table(runs: pd.DataFrame, reference: str | None = None) -> str:
    """Mean ± 95% half-width per setting; then, against `reference` (default: the best of each
    figure), the settings the seeds cannot tell apart from it."""
    agg = aggregate(runs, ["setting"], [f.key for f in REPLICATED]).set_index("setting")
    width = max(len(s) for s in agg.index) + 2
    lines = [f"{runs['seed'].nunique()} seeds each, mean ± 95% interval (Student t)",
             "".ljust(width) + "".join(f.heading.rjust(22) for f in REPLICATED)]
    for name, row in agg.iterrows():
        cells = [f"{f.show(row[f'{f.key}_mean'])} ± {f.show(row[f'{f.key}_ci95'])}".rjust(22) for f in REPLICATED]
        lines.append(str(name).ljust(width) + "".join(cells))
    for f in REPLICATED:
        key = f.key
        pick = max if f.better is max else min
        best = reference or pick(agg.index, key=lambda s: agg.loc[s, f"{key}_mean"])
        ties = [s for s in agg.index if s != best and not distinguishable(figure(runs, s, key), figure(runs, best, key))]
        verdict = f"cannot be told apart from it: {', '.join(ties)}" if ties else "told apart from every other"
        lines.append(f"{f.heading}: {'against' if reference else 'best'} {best}; {verdict} "
                     "(paired 95% interval of the difference over the same seeds)")
    return "\n".join(lines)


def figure(runs: pd.DataFrame, setting: str, key: str) -> list[float]:
    return runs[runs["setting"] == setting].sort_values("seed")[key].tolist()
