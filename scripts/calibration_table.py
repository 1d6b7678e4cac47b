"""Regenerates the calibration page's measured tables (issue 34 item 4): runs every validated
figure's scenario at the row's run length (seed 1, the files' own) and every field report's
variants at the file's run length (as `pathlab compare FILE` does), and rewrites the measured
fields of `python/pathlab/validated.toml` (`simulated`, a report's `figures`, `measured` and
`commit`; `pinned` where a row has a `pin_run`, the shorter run the test suite pins it at),
keeping everything else. The page (docs/calibration.md) draws its tables from that
file when the site builds (docs/hooks/calibration_tables.py), and advise reads the errors from it.

    python scripts/calibration_table.py [--only SCENARIO ...]

Progress on stderr; what each row gave, and whether it passes its check, on stdout. Exit 1 when
a figure fails its check (the file is written all the same: the page then shows the failure).
4.3 minutes of CPU, side by side on the machine's cores (12.5 minutes' wall on two cores shared with
other work, load 11): C1's, C3's and C4's 300 s runs and the CX4 reports' are the long ones."""

from __future__ import annotations

import argparse
import datetime
import subprocess
import sys
from pathlib import Path
from typing import Any

from pathlab import shipped, validated
from pathlab.api import Scenario, run_many
from pathlab.toml_values import to_toml

ROOT = Path(__file__).resolve().parent.parent
#: Where a change of the model shows: a measurement at a commit with changes here is marked.
MODEL = ("crates", "python/pathlab")


def commit() -> str:
    """HEAD's short hash, with "+changes" when the model's files differ from it (the data file aside)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()
    changed = subprocess.run(["git", "status", "--porcelain", "--", *MODEL,
                              f":!{validated.FILE.relative_to(ROOT)}"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.strip()
    return head + ("+changes" if changed else "")


def measure(runs: list[tuple[str, str, tuple[str, str] | None]]) -> dict[tuple, dict[str, Any]]:
    """Each (scenario, variant, run length or the file's) once, side by side: its summary."""
    unique = sorted(set(runs), key=runs.index)
    scenarios = []
    for name, variant, length in unique:
        sets = {"run.duration": length[0], "run.warmup": length[1]} if length else {}
        scenarios.append(Scenario.load(shipped.path(name), variant=variant, set=sets))
        print(f"  {name} {variant} {'the file' + chr(39) + 's length' if length is None else ' after '.join(length)}",
              file=sys.stderr)
    results = run_many(scenarios, figures_only=True, path_intervals=False)
    return {key: r.data["summary"] for key, r in zip(unique, results)}


def write(doc: dict[str, Any]) -> None:
    """The data file with its leading comments kept and each table's keys in their order."""
    head = []
    for line in validated.FILE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            head.append(line)
        else:
            break
    out = "\n".join(head).rstrip("\n") + "\n"
    for table in ("family", "figure", "change", "report"):
        for entry in doc[table]:
            out += f"\n[[{table}]]\n" + "".join(f"{k} = {to_toml(v)}\n" for k, v in entry.items())
    validated.FILE.write_text(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="SCENARIO", help="measure these scenarios' rows only")
    only = parser.parse_args(argv).only
    doc = validated.document()
    wanted = lambda name: not only or name in only  # noqa: E731
    figures = [f for f in doc["figure"] if wanted(f["scenario"])]
    reports = [r for r in doc["report"] if wanted(r["scenario"])]
    runs = [(f["scenario"], f["variant"], tuple(f[length])) for f in figures for length in ("run", "pin_run") if length in f]
    runs += [(r["scenario"], v, None) for r in reports for v in r["runs"]]
    today, at = datetime.date.today().isoformat(), commit()  # the code as it was when the runs began
    summaries = measure(runs)
    failed = 0
    for f in figures:
        row = next(r for r in validated.figures() if (r.scenario, r.variant, r.figure) == (f["scenario"], f["variant"], f["figure"]))
        value = summaries[(f["scenario"], f["variant"], row.run)][f["figure"]]
        f.update(simulated=round(value, 4), measured=today, commit=at)
        if row.pin_run:  # the shorter run the suite pins the row at
            f.update(pinned=round(summaries[(f["scenario"], f["variant"], row.pin_run)][f["figure"]], 4))
        ok = row.holds(value)
        failed += not ok
        print(f"{row.case:<36} {row.variant:<16} {row.figure:<15} {row.published:>12,.3f} {value:>12,.3f} "
              f"{row.error(value) * 100:>+7.1f}%  {row.allowed:<12} {'ok' if ok else 'FAILS ITS CHECK'}")
    for r in reports:
        r["figures"] = {v: f"{summaries[(r['scenario'], v, None)]['iops']:,.0f} I/O/s, "
                           f"{summaries[(r['scenario'], v, None)]['resp_ms']:.3f} ms" for v in r["runs"]}
        r.update(measured=today, commit=at)
        print(f"{r['scenario']}: " + "; ".join(f"{v} {text}" for v, text in r["figures"].items()))
    write(doc)
    validated.document.cache_clear()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
