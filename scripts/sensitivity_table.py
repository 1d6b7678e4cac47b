"""How much each published figure pathlab reproduces rests on each value that was fitted, estimated
or assumed (issue 34 item 2): every row of `python/pathlab/validated.toml`, on its model (the one
VMAX model's six fitted values for C1, C3 and C4; C2's one), run at the scenario's own values and
with each value at 0.75 and 1.25 times its value (`--set` overrides; nothing else moves), printed
as markdown tables: the figure, the published and the base simulated value, then for each value
the figure's change from base at -25% and +25%. A second table per model moves the values that
were estimated or assumed instead (host stack, fabric, directors, port service, every station's
coefficient of variation). The figures pathlab predicts and the page shows (the VMAX prediction
tables, C1's and C2's curves: no published value) have their own tables, the fitted values only,
their rows built by the scripts that print those figures (`vmax_predictions.py`, `c1_curves.py`,
`c2_curves.py`) and run shorter (2 s after 1 s; C2's 5 s after 2 s).

    python scripts/sensitivity_table.py [--only vmax|c2|vmax-predicted|c2-predicted] [--write]
                                        [--duration 30s] [--warmup 10s]

`--write` puts each model's tables, with the date, commit and run length they were measured at, into the
calibration page (docs/calibration.md, between that model's markers): the page's tables are then
this command's output, never edited by hand. `--only` measures (and writes) one model's.

The runs are shorter than the page's validated rows (300 s after 60 s) so that every run fits in
a few minutes (session 13: the VMAX fitted table's 52 runs took 4.3 minutes of CPU, its assumed
table's 36 runs 3.0); the base column is measured at the same length, so each change is against
its own run. Progress on stderr, the tables on stdout."""

from __future__ import annotations

import argparse
import datetime
import re
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import c1_curves
import c2_curves
import vmax_predictions
from c1_curves import open_loop, open_loop_at, with_luns
from calibration_table import commit  # the same "+changes" rule as the validated rows' commit

from pathlab import shipped, validated
from pathlab.api import Scenario, run_many

PAGE = Path(__file__).resolve().parent.parent / "docs" / "calibration.md"

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
#: C2's one fitted value (scenarios/c2-activecluster-distance.toml, "How each value was derived"),
#: on both arrays, and its estimated ones: the ports' 8 us, and the lab's slowed remote paths
#: (1.575 ms one way, derived from the published 8.3-8.6 ms). Its distances are published.
C2_FITTED = (("arrays' write time (C2 AO-only rate)", ("arrays.0.write_latency", "arrays.1.write_latency")),)
C2_ASSUMED = (
    ("port service (estimate)", ("arrays.0.service.fixed", "arrays.1.service.fixed")),
    ("slowed remote paths (derived)", ("fabric.2.latency",)),
)
FACTORS = (0.75, 1.25)


@dataclass(frozen=True)
class Model:
    """Figures that share their fitted values: `key` names them on the command line and in the
    page's markers; `values` are the tables, each a kind of value and the values moved; `run` the
    length of each run unless the command line says otherwise."""

    key: str
    name: str
    rows: Callable[[], list[Row]]
    values: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...]
    run: tuple[str, str] = ("30s", "10s")

    @property
    def begin(self) -> str:
        """The page's marker before this model's tables (`--write` replaces what lies between)."""
        return f"<!-- {self.key} sensitivity tables: written by python scripts/sensitivity_table.py --write -->"

    @property
    def end(self) -> str:
        return f"<!-- end of the {self.key} sensitivity tables -->"


@dataclass(frozen=True)
class Row:
    """One figure of one scenario's variant, with the published value when there is one. A figure
    predicted away from the file's own setting runs `text` (the file changed as the prediction's
    script changes it) with `sets` on top; the values the tables move are read from `scenario`."""

    name: str
    scenario: Path
    variant: str | None
    figure: str
    published: float | None = None
    text: str | None = None
    sets: dict[str, Any] = field(default_factory=dict, compare=True, hash=False)

    @property
    def setting(self) -> tuple:
        """What a run of this row is, figure aside: rows that share it share their runs."""
        return (self.scenario, self.variant, self.text, repr(sorted(self.sets.items())))

    def load(self, run: tuple[str, str]) -> Scenario:
        over = {**self.sets, "run.duration": run[0], "run.warmup": run[1]}
        if self.text is None:
            return Scenario.load(self.scenario, variant=self.variant, set=over)
        return Scenario.from_text(self.text, self.scenario.name, variant=self.variant, set=over)


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
    """Each (row's setting, key, factor) once, side by side on the machine's cores: its summary."""
    unique: list[tuple] = []
    first: dict[tuple, Row] = {}
    for row in rows:
        first.setdefault(row.setting, row)
        for key, factor in [(None, 1.0)] + [(key, f) for key in keys for f in factors]:
            if (row.setting, key, factor) not in unique:
                unique.append((row.setting, key, factor))
    scenarios = []
    for setting, key, factor in unique:
        row = first[setting]
        base = row.load(run)
        scenarios.append(base if key is None else
                         base.with_set({k: scaled(base_value(row.scenario, k), factor) for k in key}))
    done = [0]

    def progress(index: int, fraction: float) -> None:
        if fraction >= 1.0:
            done[0] += 1
            setting, key, factor = unique[index]
            print(f"  {done[0]}/{len(unique)} {first[setting].name} {'+'.join(key) if key else 'base'} x{factor:g}",
                  file=sys.stderr)

    print(f"{len(unique)} runs of {run[0]} after {run[1]}", file=sys.stderr)
    results = run_many(scenarios, progress=progress, figures_only=True, path_intervals=False)
    return {k: r.data["summary"] for k, r in zip(unique, results)}


def changes(rows: list[Row], keys: tuple[tuple[str, ...], ...], factors: tuple[float, ...],
            run: tuple[str, str]) -> list[tuple[Row, float, dict[tuple[tuple[str, ...], float], float]]]:
    """Each row's base value and its relative change from base with each key at each factor."""
    summaries = measure(rows, keys, factors, run)
    out = []
    for row in rows:
        base = summaries[(row.setting, None, 1.0)][row.figure]
        moved = {(key, f): summaries[(row.setting, key, f)][row.figure] / base - 1
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


def reproduced(*scenarios: str) -> Callable[[], list[Row]]:
    """The validated figures of these scenarios (each published figure pathlab reproduces)."""
    return lambda: [Row(f"{f.case.split()[0]} {f.variant} {f.figure}", shipped.path(f.scenario), f.variant, f.figure,
                        f.published) for f in validated.figures() if f.scenario in scenarios]


#: The figures the one-VMAX model predicts and the page shows: each row of the prediction tables
#: (scripts/vmax_predictions.py) and C1's curves (scripts/c1_curves.py), built as those scripts
#: build them. The open loop that cannot keep up (200,000 offered, iops=1000: the table shows its
#: rate only) has no steady response to move.
PREDICTED_FIGURES = ("iops", "resp_ms", "resp_stddev_ms")
CANNOT_KEEP_UP = {(200_000, "iops1000")}


def vmax_predicted() -> list[Row]:
    c1 = shipped.path("c1-vmax-1lun")
    text = c1.read_text()
    rows = []
    for n in vmax_predictions.LUNS:
        lun_text, names = with_luns(text, n)
        rows += [Row(f"{n} LUNs, closed {v} {fig}", c1, v, fig, text=lun_text, sets={"workloads.0.devices": names})
                 for v in vmax_predictions.VARIANTS for fig in PREDICTED_FIGURES]
    lun_text, names = with_luns(text, 4)
    for rate in vmax_predictions.RATES:
        each = open_loop(lun_text, rate / len(names))
        rows += [Row(f"4 LUNs, {rate:,} open {v} {fig}", c1, v, fig, text=each, sets={"workloads.0.devices": names})
                 for v in vmax_predictions.VARIANTS
                 for fig in (("iops",) if (rate, v) in CANNOT_KEEP_UP else PREDICTED_FIGURES)]
    for v in c1_curves.VARIANTS:
        rows += [Row(f"C1 {n} outstanding {v} {fig}", c1, v, fig, sets={"workloads.0.outstanding": n})
                 for n in c1_curves.OUTSTANDING if n != 128 for fig in ("iops", "resp_ms")]  # 128 is C1's own row
        rows += [Row(f"C1 open {load:.0%} {v} {fig}", c1, v, fig, text=open_loop_at(text, load, v))
                 for load in c1_curves.LOADS for fig in ("iops", "resp_ms")]
    return rows


def c2_predicted() -> list[Row]:
    """The rows of the page's "C2 away from its calibration point" (scripts/c2_curves.py)."""
    c2 = c2_curves.C2
    return ([Row(f"C2 {n} outstanding {fig}", c2, c2_curves.VARIANT, fig, sets=c2_curves.settings(outstanding=n))
             for n in c2_curves.OUTSTANDING for fig in ("iops", "resp_ms")]
            + [Row(f"C2 {luns} LUNs {fig}", c2, c2_curves.VARIANT, fig, sets=c2_curves.settings(luns=luns))
               for luns in c2_curves.LUNS if luns != 1 for fig in ("iops", "resp_ms")])  # 1 LUN is 32 outstanding


MODELS = (
    Model("vmax", "the one VMAX model (C1, C3, C4)", reproduced("c1-vmax-1lun", "c3-vmax-4lun", "c4-vmax-4lun-light"),
          (("fitted", FITTED), ("estimated or assumed", ASSUMED))),
    Model("c2", "C2", reproduced("c2-activecluster-distance"), (("fitted", C2_FITTED), ("estimated or assumed", C2_ASSUMED))),
    Model("vmax-predicted", "the one VMAX model's predictions (no published figure)", vmax_predicted,
          (("fitted", FITTED),), ("2s", "1s")),
    Model("c2-predicted", "C2's curves (no published figure)", c2_predicted, (("fitted", C2_FITTED),), ("5s", "2s")),
)


def tables(model: Model, run: tuple[str, str]) -> str:
    """A model's tables (fitted, then estimated and assumed where it has them), under a heading each."""
    out = []
    rows = model.rows()
    for kind, values in model.values:
        labels = {keys: label for label, keys in values}
        measured = changes(rows, tuple(labels), FACTORS, run)
        out.append(f"**{model.name}, its {kind} values:**\n\n{markdown(measured, labels, FACTORS)}")
    return "\n\n".join(out)


def with_tables(page: str, model: Model, text: str, measured_at: str) -> str:
    """PAGE with MODEL's block between its markers replaced by the line saying when, and TEXT."""
    start, end = page.find(model.begin), page.find(model.end)
    if start < 0 or end < start:
        raise SystemExit(f"sensitivity_table.py: {PAGE}: the markers {model.begin!r} and {model.end!r} are missing")
    return f"{page[:start]}{model.begin}\n{measured_at}\n\n{text}\n\n{page[end:]}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", help="each run's measured length (default: the model's, 30s or shorter)")
    parser.add_argument("--warmup", help="each run's warm-up (default: the model's, 10s or shorter)")
    parser.add_argument("--only", choices=[m.key for m in MODELS], help="one model's tables (default: every model's)")
    parser.add_argument("--write", action="store_true", help=f"also write the tables into {PAGE.name}")
    args = parser.parse_args(argv)
    for model in MODELS:
        if args.only not in (None, model.key):
            continue
        run = (args.duration or model.run[0], args.warmup or model.run[1])
        text = tables(model, run)
        print(text, end="\n\n", flush=True)
        if args.write:
            when = f"Measured {datetime.date.today().isoformat()} at commit {commit()}, seed 1, {run[0]} after {run[1]}."
            PAGE.write_text(with_tables(PAGE.read_text(), model, text, when))
    return 0


if __name__ == "__main__":
    sys.exit(main())
