"""How much each published figure the one-VMAX model reproduces rests on each of its six fitted
values (issue 34 item 2): every VMAX row of `python/pathlab/validated.toml` (C1, C3 and C4) run at
the scenario's own values and with each fitted value at 0.75 and 1.25 times its value (`--set`
overrides; nothing else moves), printed as a markdown table: the figure, the published and the
base simulated value, then for each fitted value the figure's change from base at -25% and +25%.

    python scripts/sensitivity_table.py [--assumed] [--duration 30s] [--warmup 10s]

`--assumed` moves the values that were estimated or assumed instead (host stack, fabric,
directors, every station's coefficient of variation), each the same way.

The runs are shorter than the page's (300 s after 60 s) so that 4 runs x 13 settings fit in a few
minutes (4.3 minutes of CPU, 5.3 minutes' wall on two busy cores; `--assumed` 36 runs, 3.0 of
CPU); the base column is measured at the same length, so each change is against its own run.
Progress on stderr, the table on stdout."""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pathlab import shipped, validated
from pathlab.api import Scenario, run_many

#: The six fitted values of the one-VMAX model (scenarios/c1-vmax-1lun.toml, "How each value was
#: derived"), with what each was fitted to, by the `--set` keys that hold it in the C1, C3 and C4 files.
FITTED = (
    ("port FIFO (C3 rate)", ("arrays.0.service.fixed",)),
    ("(port, LUN) FIFO (C1 rates)", ("arrays.0.device_service.fixed",)),
    ("cache read (C4 read)", ("arrays.0.read_latency",)),
    ("cache write (C4 write)", ("arrays.0.write_latency",)),
    ("BUSY depth (C1 iops=1000 stddev)", ("arrays.0.busy.depth",)),
    ("BUSY retry (C1 maxima)", ("arrays.0.busy.retry",)),
)
#: The same files' values that are estimated or assumed, not fitted (`--assumed`): each moved
#: whole (both directors; every station's coefficient of variation).
STATIONS = ("arrays.0.service", "arrays.0.device_service", "arrays.0.controllers.0.service",
            "arrays.0.controllers.1.service")
ASSUMED = (
    ("host stack (estimate)", ("host.stack_time",)),
    ("fabric one way (estimate)", ("fabric.0.latency",)),
    ("director (data sheet)", ("arrays.0.controllers.0.service.fixed", "arrays.0.controllers.1.service.fixed")),
    ("stations' cv (assumed)", tuple(f"{station}.cv" for station in STATIONS)),
)
FACTORS = (0.75, 1.25)
#: The validated rows on the one-VMAX model.
VMAX = ("c1-vmax-1lun", "c3-vmax-4lun", "c4-vmax-4lun-light")


@dataclass(frozen=True)
class Row:
    """One figure of one scenario's variant, with the published value when there is one."""

    name: str
    scenario: Path
    variant: str | None
    figure: str
    published: float | None = None


def base_value(scenario: Path, key: str) -> Any:
    """The value at a dotted key (`arrays.0.service.fixed`) as the scenario file states it."""
    value: Any = tomllib.loads(scenario.read_text())
    for part in key.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def scaled(value: Any, factor: float) -> Any:
    """A number, or a time with its unit ("16.6us"), times a factor; an integer stays one."""
    if isinstance(value, int):
        return round(value * factor)
    if isinstance(value, float):
        return value * factor
    number, unit = re.fullmatch(r"([0-9.]+)\s*([a-zµ]*)", value).groups()  # type: ignore[union-attr]
    return f"{float(number) * factor:.6g}{unit}"


def measure(rows: list[Row], keys: tuple[tuple[str, ...], ...], factors: tuple[float, ...],
            run: tuple[str, str]) -> dict[tuple, dict[str, float]]:
    """Each (scenario, variant, key, factor) once, side by side on the machine's cores: its summary."""
    unique: list[tuple] = []
    for row in rows:
        for key, factor in [(None, 1.0)] + [(key, f) for key in keys for f in factors]:
            if (row.scenario, row.variant, key, factor) not in unique:
                unique.append((row.scenario, row.variant, key, factor))
    scenarios = []
    for path, variant, key, factor in unique:
        base = Scenario.load(path, variant=variant, set={"run.duration": run[0], "run.warmup": run[1]})
        scenarios.append(base if key is None else base.with_set({k: scaled(base_value(path, k), factor) for k in key}))
    done = [0]

    def progress(index: int, fraction: float) -> None:
        if fraction >= 1.0:
            done[0] += 1
            path, variant, key, factor = unique[index]
            print(f"  {done[0]}/{len(unique)} {path.stem} {variant} {'+'.join(key) if key else 'base'} x{factor:g}", file=sys.stderr)

    print(f"{len(unique)} runs of {run[0]} after {run[1]}", file=sys.stderr)
    results = run_many(scenarios, progress=progress, figures_only=True, path_intervals=False)
    return {k: r.data["summary"] for k, r in zip(unique, results)}


def changes(rows: list[Row], keys: tuple[tuple[str, ...], ...], factors: tuple[float, ...],
            run: tuple[str, str]) -> list[tuple[Row, float, dict[tuple[tuple[str, ...], float], float]]]:
    """Each row's base value and its relative change from base with each key at each factor."""
    summaries = measure(rows, keys, factors, run)
    out = []
    for row in rows:
        base = summaries[(row.scenario, row.variant, None, 1.0)][row.figure]
        moved = {(key, f): summaries[(row.scenario, row.variant, key, f)][row.figure] / base - 1
                 for key in keys for f in factors}
        out.append((row, base, moved))
    return out


def shown(value: float) -> str:
    """A figure as the page prints it: a rate in whole I/Os with commas, a time to four digits."""
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"


def markdown(measured: list[tuple[Row, float, dict[tuple[tuple[str, ...], float], float]]],
             labels: dict[tuple[str, ...], str], factors: tuple[float, ...]) -> str:
    """The table: one line per figure, a column per fitted value ("-25% / +25%" changes from base)."""
    head = "| figure | published | simulated | " + " | ".join(labels.values()) + " |"
    lines = [head, "|" + "---|" * 3 + "---:|" * len(labels)]
    for row, base, moved in measured:
        published = "" if row.published is None else shown(row.published)
        cells = [" / ".join(f"{moved[(key, f)] * 100:+.1f}%" for f in factors) for key in labels]
        lines.append(f"| {row.name} | {published} | {shown(base)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", default="30s", help="each run's measured length (default 30s)")
    parser.add_argument("--warmup", default="10s", help="each run's warm-up (default 10s)")
    parser.add_argument("--assumed", action="store_true",
                        help="move the estimated and assumed values (host stack, fabric, directors, cv) instead")
    args = parser.parse_args(argv)
    rows = [Row(f"{f.case.split()[0]} {f.variant} {f.figure}", shipped.path(f.scenario), f.variant, f.figure,
                f.published) for f in validated.figures() if f.scenario in VMAX]
    labels = {keys: label for label, keys in (ASSUMED if args.assumed else FITTED)}
    measured = changes(rows, tuple(labels), FACTORS, (args.duration, args.warmup))
    print(markdown(measured, labels, FACTORS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
