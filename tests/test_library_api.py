"""pathlab as a library, end to end from Python (issue 35 item 1): a shipped host imported with
`import_host`, advised on with `advise` (the README's figures: round robin iops=1, a gain above
3x over the assumed values' spans), variants compared with `compare` and a tiny grid swept with
`sweep`; each result typed, with its pandas view, its JSON as the command prints it, and its
notebook view. Runs are short (1 s simulated) and shared at module scope."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

import pathlab
from conftest import SCENARIOS
from conftest import pathlab as command
from pathlab import ScenarioError
from pathlab.progress import Progress, RunProgress

#: Each advise run's length: short, the ranking and the decision those of the README's.
ADVISE_SHORT = {"seeds": 2, "duration": "1s", "warmup": "0.25s"}
ADVISE_ARGS = ("--seeds", "2", "--duration", "1s", "--warmup", "0.25s")
RUN_SHORT = {"run.duration": "0.5s", "run.warmup": "0.1s"}


class Recorded(Progress):
    """What a pipeline reported, for the tests to read."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.batches: list[list[str]] = []
        self.counts: list[tuple[int, int]] = []

    def note(self, message: str) -> None:
        self.notes.append(message)

    @contextmanager
    def runs(self, labels: Sequence[str]) -> Iterator[RunProgress | None]:
        self.batches.append(list(labels))
        yield None

    def count(self, done: int, total: int) -> None:
        self.counts.append((done, total))


@pytest.fixture(scope="module")
def host() -> pathlab.Host:
    with pytest.warns(pathlab.PathlabWarning):  # each assumed value is warned about
        return pathlab.import_host("vmax-iops1000")


@pytest.fixture(scope="module")
def advice(host: pathlab.Host) -> pathlab.Advice:
    return pathlab.advise(host, **ADVISE_SHORT)  # type: ignore[arg-type]


def test_import_host_is_the_typed_host_pathlab_import_writes(host: pathlab.Host) -> None:
    assert host.stack == "esxi" and host.measured_load
    assert host.to_toml() == command("import", "vmax-iops1000").stdout
    (device,) = host.scenario.devices
    assert device.name == "naa.60000970000197900123533030303031" and device.policy.name == "VMW_PSP_RR"
    assert any("the device queue is full" in f.title for f in host.findings)
    assumed = {a.field: a.assumed for a in host.assumptions}
    assert assumed["host.adapters.queue_depth"] == "AQLEN is not in the captures: 4096 assumed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        host.stack = "linux"  # type: ignore[misc]
    assert "esxi host, 1 device, load measured" in host._repr_html_()


def test_advise_on_the_shipped_host_recommends_iops_1_for_more_than_three_times_the_rate(advice: pathlab.Advice) -> None:
    rec = advice.recommendation
    assert rec is not None and rec.change and rec.to == "round robin, iops=1"
    assert rec.candidate is not None and rec.candidate.gain_range is not None
    low, high = rec.candidate.gain_range
    assert 3.0 < low <= rec.candidate.gain <= high < 4.5  # the README: 3.54x to 3.75x; the field: 3.96x
    assert advice.commands == [
        "esxcli storage nmp psp roundrobin deviceconfig set --device=naa.60000970000197900123533030303031 --type=iops --iops=1",
        "esxcli storage nmp satp rule add -s VMW_SATP_SYMM -V EMC -P VMW_PSP_RR -O iops=1"]
    in_force = advice.in_force
    assert in_force.gain == 1.0 and in_force.figures["iops"].low < in_force.figures["iops"].mean
    # iops=1 spreads the queue over the 8 paths: its p99 is a fraction of the setting in force's
    assert rec.candidate.figures["p99_ms"].high < in_force.figures["p99_ms"].low
    assert advice.gain_range_over and "zero-load time" in advice.gain_range_over[0]
    assert {a.field for a in advice.assumptions} >= {"fabric.latency", "arrays.EMC.read_latency"}
    assert advice.run_length is not None and advice.run_length.duration_s == 1.0


def test_the_candidates_are_a_table_and_the_advice_is_the_commands_json_and_text(advice: pathlab.Advice) -> None:
    table = advice.candidates_table
    assert list(table["setting"]) == [c.label for c in advice.candidates]
    assert table.loc[0, "setting"] == "round robin, iops=1" and table.loc[0, "gain_low"] > 3
    assert {"iops_mean", "iops_ci95", "p99_ms_mean", "gain", "gain_high", "seeds"} <= set(table.columns)
    assert list(advice.findings_table.columns) == ["title", "evidence", "normal"]
    done = command("advise", "vmax-iops1000", *ADVISE_ARGS, "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(json.dumps(advice.to_dict())) == json.loads(done.stdout)
    assert advice.to_text() + "\n" == command("advise", "vmax-iops1000", *ADVISE_ARGS).stdout
    page = advice._repr_html_()
    assert "Recommendation: round robin, iops=1" in page and "<table" in page


def test_listings_without_counters_give_no_prediction_but_what_to_capture() -> None:
    from pathlab.shipped import CAPTURES

    listings = sorted(str(p) for p in (CAPTURES / "vmax-iops1000").glob("esxcli-*.txt"))
    with pytest.warns(pathlab.PathlabWarning):
        advice = pathlab.advise(listings)
    assert advice.recommendation is None and advice.candidates == () and advice.unmeasured_stack == "esxi"
    assert advice.commands[0] == "esxtop -b -d 5 -n 61 > esxtop.csv"
    assert advice.to_dict()["capture_needed"] == advice.commands


def test_bad_advise_arguments_are_one_scenario_error_each(host: pathlab.Host) -> None:
    with pytest.raises(ScenarioError, match="advise chooses the run length"):
        pathlab.advise(host, set={"run.duration": "5s"})
    with pytest.raises(ScenarioError, match="objective"):
        pathlab.advise(host, objective="speed")
    with pytest.raises(ScenarioError, match="seeds"):
        pathlab.advise(host, seeds=1)


def test_compare_puts_the_variants_side_by_side_as_the_command_does() -> None:
    progress = Recorded()
    done = pathlab.compare("c1-vmax-1lun", set=RUN_SHORT, progress=progress)
    assert done.kind == "variants" and done.labels == ["iops1000", "iops1"]
    assert progress.batches == [["c1-vmax-1lun:iops1000", "c1-vmax-1lun:iops1"]]
    table = done.table.set_index("setting")
    # C1's field test: iops=1 moves about four times the I/O of iops=1000 (3.96x published)
    assert 3.0 < table.loc["iops1", "iops"] / table.loc["iops1000", "iops"] < 4.5
    cli = command("compare", "c1-vmax-1lun", *(a for k, v in RUN_SHORT.items() for a in ("--set", f"{k}={v}")),
                  "--format", "json")
    assert done.to_dict() == json.loads(cli.stdout)
    assert "<table" in done._repr_html_()
    one = pathlab.compare(pathlab.Scenario.load(SCENARIOS / "c1-vmax-1lun.toml", set=RUN_SHORT), variants=["iops1"])
    assert one.labels == ["iops1"] and one.results[0].data["summary"] == done.results[1].data["summary"]


def test_sweep_runs_a_tiny_grid_and_resumes_from_its_journal(tmp_path: Path) -> None:
    short = {"run.duration": "1s", "run.warmup": "100ms"}
    progress = Recorded()
    done = pathlab.sweep("bench-minimal", grid={"policy.iops": [1, 1000]}, seeds=2, set=short, workers=2,
                         out=tmp_path / "bm", progress=progress)
    assert list(done.runs["policy.iops"]) == [1, 1, 1000, 1000] and list(done.runs["seed"]) == [1, 2, 1, 2]
    assert progress.counts[0] == (0, 4) and progress.counts[-1] == (4, 4)
    points = done.table.set_index("policy.iops")
    assert points.loc[1, "iops_mean"] > 3 * points.loc[1000, "iops_mean"]  # iops=1 spreads over the paths
    assert list(points["seeds"]) == [2, 2] and done.out == tmp_path / "bm"
    assert (tmp_path / "bm-points.parquet").exists() and (tmp_path / "bm-runs.csv").exists()
    assert done.to_dict()["axes"] == ["policy.iops"] and "<table" in done._repr_html_()
    # The tables exist: replaced only when told, and refused before any run.
    with pytest.raises(ScenarioError) as refused:
        pathlab.sweep("bench-minimal", grid={"policy.iops": [1, 1000]}, seeds=2, set=short, out=tmp_path / "bm",
                      resume=True, progress=Recorded())
    assert refused.value.args == ("out", f"{tmp_path}/bm-runs.parquet", "already exists: give force=True to replace it")
    with pytest.raises(ScenarioError):
        done.write(tmp_path / "bm")
    again = Recorded()
    resumed = pathlab.sweep("bench-minimal", grid={"policy.iops": [1, 1000]}, seeds=2, set=short,
                            out=tmp_path / "bm", resume=True, force=True, progress=again)
    assert again.counts == [(4, 4)] and again.notes == [f"4 of 4 runs already done in {tmp_path}/bm-runs.jsonl"]
    assert resumed.runs.equals(done.runs)


def test_import_pathlab_stays_quick_and_advise_is_the_function() -> None:
    """No pandas and no advisor on `import pathlab`; `pathlab.advise` is the function, and the
    advisor's package (`pathlab.advisor`) imports as any package does."""
    probe = ("import sys, pathlab; assert 'pandas' not in sys.modules and 'pathlab.advisor' not in sys.modules; "
             "import pathlab.advisor.candidates as candidates; from pathlab import advise; "
             "assert callable(pathlab.advise) and advise is pathlab.advise and candidates.__name__ == "
             "'pathlab.advisor.candidates'; print('ok')")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout == "ok\n", done.stderr


def test_a_sweep_whose_output_is_under_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    with pytest.raises(ScenarioError) as refused:
        pathlab.sweep("bench-minimal", grid={"policy.iops": [1]}, out=tmp_path / "afile" / "x" / "bm")
    assert refused.value.args == ("--out", str(tmp_path / "afile" / "x" / "bm"),
                                  f"{tmp_path / 'afile'} is a file, not a folder: give a stem in a folder")


def test_compare_over_seeds_starts_at_the_seed_given_even_zero_and_a_lineup_takes_no_variants() -> None:
    over = pathlab.compare("c1-vmax-1lun", set={"run.duration": "0.1s", "run.warmup": "0s"}, seed=0, seeds=2)
    assert sorted(set(over.table["seed"])) == [0, 1]  # seed 0 was taken for 1: seeds 1 and 2 ran
    with pytest.raises(pathlab.ScenarioError) as refused:
        pathlab.compare("c1-vmax-1lun", lineup=True, variants=["iops1"])
    assert refused.value.args[1:] == ("variants", "a lineup runs every stack's policies from one setting: name it "
                                                  "with `variant`, not `variants`")
