"""The failover timer study (issue 36 item 5) from its one command: `pathlab failover` on the
study file reproduces the rows its docs page shows, byte for byte, and its key stalls are the
timers' (the stall rule advise uses, and TP4129's hold), within one I/O. Five of its thirteen
settings run here (15 runs of 100 simulated seconds: a few seconds); the page must have a row
for every setting and failure of the file."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from conftest import pathlab
from pathlab.advisor import stall_rule
from pathlab.study.failover import failure_name
from pathlab.toml_values import to_toml

ROOT = Path(__file__).resolve().parents[1]
STUDY = ROOT / "scenarios" / "studies" / "failover-timers.toml"
PAGE = ROOT / "docs" / "studies" / "failover-timers.md"
CHECKED = ("fc-default", "iscsi-default", "nvme-cqt5", "nvme-tp4129-2x", "nvme-ccr")
SEEN, HANG, LINK = "controller reboot, seen", "controller reboot, not seen", "port down, seen"
#: One I/O on the non-optimized path (1.24 ms) and the millisecond the table rounds to.
ONE_IO_S = 0.0025


def rows(text: str) -> dict[tuple[str, str], str]:
    """The table's rows by (setting, failure): each line as printed."""
    found = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 9 and cells[0] != "setting":
            found[(cells[0], cells[1])] = line
    return found


@pytest.fixture(scope="module")
def printed() -> dict[tuple[str, str], str]:
    args = [a for v in CHECKED for a in ("--variant", v)]
    done = pathlab("failover", str(STUDY), *args)
    assert done.returncode == 0, done.stderr
    return rows(done.stdout)


def figures(printed: dict[tuple[str, str], str], setting: str, failure: str) -> tuple[float, int]:
    """The stall (s) and the hazards of one row."""
    cells = [c.strip() for c in printed[(setting, failure)].strip("|").split("|")]
    return float(cells[3]), int(cells[6])


def test_the_command_prints_the_pages_rows_byte_for_byte(printed: dict[tuple[str, str], str]) -> None:
    page = rows(PAGE.read_text(encoding="utf-8"))
    assert len(printed) == 3 * len(CHECKED)
    assert {k: page.get(k) for k in printed} == printed
    study = tomllib.loads(STUDY.read_text(encoding="utf-8"))["sweep"]
    failures = [failure_name(to_toml(f)) for f in study["grid"]["faults"]]
    assert failures == [SEEN, HANG, LINK]
    assert list(page) == [(v, f) for v in study["variants"] for f in failures]


def test_the_stalls_are_the_timers(printed: dict[tuple[str, str], str]) -> None:
    """Lost 1 ms after every probe's tick: the worst phase, as the rules assume."""
    def stall(setting: str, failure: str) -> float:
        return figures(printed, setting, failure)[0]

    fast_io_fail, scsi_timeout, kato, cqt = 5.0, 30.0, 5.0, 5.0
    expected = {
        ("fc-default", SEEN): stall_rule.dm_link_down(fast_io_fail, None).seconds,
        ("fc-default", HANG): stall_rule.dm_path_hang(scsi_timeout, max_polling=20.0, checker_timeout=scsi_timeout).seconds,
        ("fc-default", LINK): fast_io_fail,
        ("iscsi-default", SEEN): fast_io_fail,  # multipathd's replacement_timeout
        ("iscsi-default", HANG): stall_rule.dm_iscsi_connection_lost(fast_io_fail, noop_interval=5.0, noop_timeout=5.0).seconds,
        ("nvme-cqt5", SEEN): 0.0,
        ("nvme-cqt5", HANG): stall_rule.nvme_controller_silent(kato, io_timeout=30.0).seconds,
        ("nvme-tp4129-2x", SEEN): 2 * kato + cqt,
        ("nvme-tp4129-2x", HANG): 1.5 * kato + 2 * kato + cqt,
        ("nvme-tp4129-2x", LINK): 2 * kato + cqt,
        ("nvme-ccr", SEEN): 0.0,
        ("nvme-ccr", HANG): 1.5 * kato,
    }
    assert expected[("fc-default", HANG)] == 30.0 and expected[("iscsi-default", HANG)] == 15.0
    assert expected[("nvme-cqt5", HANG)] == 7.5
    for (setting, failure), seconds in expected.items():
        assert seconds is not None
        assert abs(stall(setting, failure) - seconds) <= ONE_IO_S, (setting, failure)


def test_every_row_is_within_the_prediction_the_command_prints(printed: dict[tuple[str, str], str]) -> None:
    """The predicted column (`advisor/failover_predictions.py`) holds each measured stall: at
    most the prediction and one I/O, at least the prediction less its grid's period."""
    for (setting, failure), line in printed.items():
        predicted = [c.strip() for c in line.strip("|").split("|")][2]
        match = re.fullmatch(r"([\d.]+) s(?: \(at most; within ([\d.]+) s\))?", predicted)
        assert match, (setting, failure, predicted)
        seconds, within = float(match[1]), float(match[2] or 0)
        stall = figures(printed, setting, failure)[0]
        assert seconds - within - ONE_IO_S <= stall <= seconds + ONE_IO_S, (setting, failure, predicted, stall)
    assert [c.strip() for c in printed[("nvme-tp4129-2x", HANG)].strip("|").split("|")][2] == \
        "22.5 s (at most; within 2.5 s)"


def test_the_hold_removes_the_hazards_linux_leaves(printed: dict[tuple[str, str], str]) -> None:
    """Linux retries a lost controller's writes at once: within KATO + CQT = 10 s of the loss,
    found at once or at 7.5 s, they are hazards; TP4129's hold and TP8028's reset leave none."""
    for failure in (SEEN, HANG, LINK):
        assert figures(printed, "nvme-cqt5", failure)[1] > 0
        assert figures(printed, "nvme-tp4129-2x", failure)[1] == 0
        assert figures(printed, "nvme-ccr", failure)[1] == 0


@pytest.mark.parametrize(("change", "message"), [
    ("seeds = 1", "sweep.seeds: 2: a failover study runs one seed (its timers are deterministic)"),
    ("[sweep.grid]", "sweep.grid: a failover study's [sweep] grid is over `faults` alone (a list of [[faults]] "
                     "lists, one per failure): this one is over policy.iops, faults"),
])
def test_a_file_that_is_no_failover_study_is_one_line(tmp_path: Path, change: str, message: str) -> None:
    """Refused before any run: another grid, or more than one seed."""
    text = STUDY.read_text(encoding="utf-8")
    wrong = text.replace(change, "seeds = 2" if change == "seeds = 1" else '[sweep.grid]\n"policy.iops" = [1]', 1)
    assert wrong != text
    study = tmp_path / "study.toml"
    study.write_text(wrong, encoding="utf-8")
    done = pathlab("failover", str(study))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"pathlab: error: {study}: {message}\n"


def test_a_scenario_without_failures_is_one_line() -> None:
    done = pathlab("failover", "bench-minimal")
    assert done.returncode == 2
    assert done.stderr == ("pathlab: error: bench-minimal: sweep.grid: a failover study's [sweep] grid is over "
                           "`faults` alone (a list of [[faults]] lists, one per failure): this file has no grid\n")


def test_the_study_is_a_sweep_too() -> None:
    """`pathlab sweep` reads the grid of `faults` tables (they were written back as JSON, which
    TOML does not read) and keeps each as its TOML text in a run's row, which the points group by
    (a list there stopped the sweep)."""
    import pandas as pd

    from pathlab.study.stats import aggregate
    from pathlab.study.sweep import FIGURES
    from pathlab.study.sweep_pipeline import plan

    planned = plan(str(STUDY), variants=["nvme-ccr"])
    runs = pd.DataFrame([planned.job.run(p) for p in planned.points]).drop(columns="point")
    study = tomllib.loads(STUDY.read_text(encoding="utf-8"))["sweep"]
    assert list(runs["faults"]) == [to_toml(f) for f in study["grid"]["faults"]]
    points = aggregate(runs, ["variant", "faults"], FIGURES)
    assert list(points["seeds"]) == [1, 1, 1] and (points["failed_mean"] == 0).all()
