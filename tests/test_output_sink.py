"""The one output sink: each format's renderer is tested once, on a typed result, instead of once
per verb; and every verb offers exactly the formats its result renders."""

from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from conftest import SCENARIOS
from pathlab import Scenario
from pathlab.cli import main
from pathlab.output import multipath
from pathlab.output.advice import AdviceOutput
from pathlab.output.bench import BenchTable, LargeHost
from pathlab.output.catalogue import Catalogue
from pathlab.output.comparison import Replicated, Variants
from pathlab.output.configuration import Configuration
from pathlab.output.reproduction import Reproduction
from pathlab.output.run import RunOutput
from pathlab.output.sink import RENDERERS, Output, emit, formats
from pathlab.output.sweep import SweepOutput


@pytest.fixture(scope="module")
def run() -> RunOutput:
    scenario = Scenario.load(SCENARIOS / "bench-minimal.toml", set={"run.duration": "200ms", "run.warmup": "100ms"})
    data = scenario.run().data
    return RunOutput(data, [(data["host"], data)], False, None, scenario.text, scenario.setting, scenario.faults,
                     scenario.timeline)


def test_table_is_the_results_text_on_one_line_end(run, capsys) -> None:
    emit(run, "table")
    out = capsys.readouterr().out
    assert out == run.table() + "\n" and out.startswith("pathlab run: bench-minimal, seed ")


def test_an_empty_table_prints_nothing_and_a_host_listing_keeps_its_line_ends(capsys) -> None:
    desc = Scenario.load(SCENARIOS / "bench-minimal.toml").describe()
    emit(Configuration("paths", "nvme", desc, None, "bench-minimal.toml"), "table")  # no NVMe head: nvme lists none
    assert capsys.readouterr().out == ""
    emit(Configuration("paths", "linux", desc, None, "bench-minimal.toml"), "table")
    listing = multipath.multipath_ll(desc)
    assert capsys.readouterr().out == listing and listing.endswith(" running\n")  # its own line end, not one more
    emit(Configuration("paths", "json", desc, None, "bench-minimal.toml"), "json")
    assert capsys.readouterr().out == json.dumps(desc["paths"], indent=2) + "\n"


def test_a_bench_table_is_aligned_labels_left_figures_right_or_markdown(capsys) -> None:
    rows = [["minimal 20 s", "1.65"], ["C1", "0.59"]]
    emit(BenchTable("Title:", ["benchmark", "M I/O per s"], rows, "A note."), "table")
    assert capsys.readouterr().out == ("\nTitle:\nbenchmark     M I/O per s\nminimal 20 s         1.65\n"
                                       "C1                   0.59\nA note.\n")
    emit(BenchTable("Title:", ["benchmark", "M I/O per s"], rows, "A note.", markdown=True), "table")
    assert capsys.readouterr().out == ("\nTitle:\n\n| benchmark | M I/O per s |\n|---|---|\n| minimal 20 s | 1.65 |\n"
                                       "| C1 | 0.59 |\n\nA note.\n")


def test_json_of_a_tree_is_indented_and_of_a_table_is_its_records(run, capsys) -> None:
    emit(run, "json")
    assert json.loads(capsys.readouterr().out) == run.data
    table = pd.DataFrame({"setting": ["a", "b"], "seed": [1, 1], "iops": [1.5, 2.0]})
    emit(Replicated("f.toml", table, None, ""), "json")
    assert json.loads(capsys.readouterr().out) == [{"setting": "a", "seed": 1, "iops": 1.5, "scenario": "f.toml"},
                                                   {"setting": "b", "seed": 1, "iops": 2.0, "scenario": "f.toml"}]


def test_csv_has_a_header_and_a_line_per_row(run, capsys) -> None:
    emit(run, "csv")
    out = capsys.readouterr().out
    rows = pd.read_csv(io.StringIO(out))
    assert out.endswith("\n") and not out.endswith("\n\n") and len(rows) == 1
    assert rows.iloc[0]["iops"] == pytest.approx(run.data["summary"]["iops"]) and rows.iloc[0]["scenario"] == "bench-minimal"


def test_html_goes_to_its_file_with_the_provenance_and_the_format_to_stdout(run, tmp_path, capsys) -> None:
    page = tmp_path / "run.html"
    emit(run, "json", str(page), "bench-minimal.toml")
    captured = capsys.readouterr()
    assert json.loads(captured.out) == run.data
    assert captured.err == f"pathlab: report written to {page}\n"
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "bench-minimal.toml" in text and "<svg" in text


def test_each_kind_of_result_renders_the_formats_it_overrides() -> None:
    assert formats(Output) == []
    assert formats(RunOutput) == formats(Variants) == formats(Replicated) == ["table", "json", "csv"]
    assert formats(AdviceOutput) == formats(Catalogue) == formats(Reproduction) == ["table", "json"]
    assert formats(SweepOutput) == formats(BenchTable) == formats(LargeHost) == ["table"]
    assert formats(Configuration) == ["table", "json"]
    assert list(RENDERERS) == ["table", "json", "csv"]


@pytest.mark.parametrize(("verb", "kind"), [("run", RunOutput), ("compare", Variants), ("advise", AdviceOutput),
                                            ("policies", Catalogue), ("reproduce", Reproduction)])
def test_every_verb_offers_the_formats_of_its_result(verb: str, kind: type[Output]) -> None:
    option = next(p for p in main.commands[verb].params if p.name == "fmt")
    assert list(option.type.choices) == formats(kind)  # type: ignore[attr-defined]
