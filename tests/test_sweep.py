"""Sweeps: grid expansion, the [sweep] table, resume, and the same table on Ray as locally."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from conftest import pathlab
from pathlab import ScenarioError
from pathlab.study.sweep import expand, file_axes, parse_axis, sweep_table

SHORT = ("--set", 'run.duration="1s"', "--set", 'run.warmup="100ms"')


def test_axis_lists_ranges_and_log_ranges() -> None:
    assert parse_axis("policy.iops=1,2,4,1000").values == ("1", "2", "4", "1000")
    assert parse_axis("policy.iops=1:10:3").values == ("1", "4", "7", "10")
    assert parse_axis("policy.iops=1:1000:*10").values == ("1", "10", "100", "1000")
    assert parse_axis("workloads.0.read_pct=0:100:25").values == ("0", "25", "50", "75", "100")
    assert parse_axis("workloads.0.access=random,sequential").values == ('"random"', '"sequential"')
    assert parse_axis('run.duration="1s","2s"').values == ('"1s"', '"2s"')


@pytest.mark.parametrize("spec", ["policy.iops", "policy.iops=1:x:2", "policy.iops=0:8:*2", "policy.iops=1:8:0"])
def test_bad_axis_is_refused_with_its_reason(spec: str) -> None:
    with pytest.raises(ScenarioError) as e:
        parse_axis(spec)
    assert e.value.args[0] == "--grid"


def test_cartesian_product_times_variants_times_seeds() -> None:
    axes = [parse_axis("policy.iops=1,1000"), parse_axis("workloads.0.outstanding=8:32:*2")]
    points = expand(axes, ["a", "b"], range(1, 4))
    assert len(points) == 2 * 2 * 3 * 3
    assert points[0].values == (("policy.iops", "1"), ("workloads.0.outstanding", "8")) and points[0].seed == 1
    assert points[3].values == (("policy.iops", "1"), ("workloads.0.outstanding", "16"))
    assert len({p.id for p in points}) == len(points)


def test_sweep_table_in_the_scenario_file_is_read_here_and_ignored_by_a_run(tmp_path, scenarios) -> None:
    text = (scenarios / "bench-minimal.toml").read_text()
    path = tmp_path / "s.toml"
    path.write_text(text + '\n[sweep]\nseeds = 2\ngrid = { "policy.iops" = [1, 8], "workloads.0.outstanding" = "16:32:*2" }\n')
    table = sweep_table(str(path))
    assert table["seeds"] == 2
    assert [a.values for a in file_axes(str(path), table)] == [("1", "8"), ("16", "32")]
    done = pathlab("run", str(path), *SHORT, "--format", "json")
    assert done.returncode == 0, done.stderr
    path.write_text(text + "\n[sweep]\nsteps = 3\n")
    done = pathlab("sweep", str(path))
    allowed = "allowed: cases, grid, scenario, seeds, variants"
    assert done.returncode == 2 and done.stderr.strip().endswith(f"sweep.steps: unknown field; {allowed}")


def sweep(tmp_path, *args: str) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    done = pathlab("sweep", "scenarios/bench-minimal.toml", "--grid", "policy.iops=1,1000", "--seeds", "2",
                   *SHORT, "--out", str(tmp_path / "bm"), *args)
    assert done.returncode == 0, done.stderr
    return pd.read_parquet(tmp_path / "bm-runs.parquet"), pd.read_parquet(tmp_path / "bm-points.parquet"), done.stderr


def test_sweep_writes_runs_and_points_and_a_restart_skips_what_is_done(tmp_path) -> None:
    runs, points, _ = sweep(tmp_path)
    assert list(runs["policy.iops"]) == [1, 1, 1000, 1000] and list(runs["seed"]) == [1, 2, 1, 2]
    assert pd.read_csv(tmp_path / "bm-runs.csv")["iops"].tolist() == runs["iops"].tolist()
    one = runs[runs["policy.iops"] == 1]["iops"]
    assert points.loc[0, "iops_mean"] == pytest.approx(one.mean())
    # two seeds: t(0.975, 1) = 12.706
    assert points.loc[0, "iops_ci95"] == pytest.approx(12.706 * one.std() / 2 ** 0.5, rel=1e-4)
    assert points.loc[0, "iops_mean"] > 3 * points.loc[1, "iops_mean"]  # iops=1 spreads over 8 paths
    journal = tmp_path / "bm-runs.jsonl"
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:3]) + "\n" + lines[3][:20])  # stopped while writing the last run
    again, _, stderr = sweep(tmp_path, "--force")  # the tables of the first run are there: replaced when told
    assert "3 of 4 runs already done" in stderr
    pd.testing.assert_frame_equal(again, runs)
    # every run once: the three kept, the one cut short run again (in whatever order they finished)
    done = sorted((r["policy.iops"], r["seed"]) for r in map(json.loads, journal.read_text().splitlines()))
    assert done == [(1, 1), (1, 2), (1000, 1), (1000, 2)]


def test_ray_gives_the_same_table_as_the_local_run(tmp_path) -> None:
    try:
        import ray
    except ImportError:
        pytest.skip("Ray does not install for this Python (pip install 'pathlab[ray]')")
    local, _, _ = sweep(tmp_path / "local")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)  # a local Ray of 2 CPUs
    try:
        done = pathlab("sweep", "scenarios/bench-minimal.toml", "--grid", "policy.iops=1,1000", "--seeds", "2", *SHORT,
                       "--out", str(tmp_path / "ray"), "--executor", "ray", "--address", "auto", "--batch", "2")
        assert done.returncode == 0, done.stderr
    finally:
        ray.shutdown()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "ray-runs.parquet"), local)
    from_csv = lambda path: json.loads(pd.read_csv(path).to_json())  # noqa: E731
    assert from_csv(tmp_path / "ray-runs.csv") == from_csv(tmp_path / "local" / "bm-runs.csv")


def test_study_file_sweeps_its_cases_over_the_scenario_it_names(tmp_path, scenarios) -> None:
    study = tmp_path / "study.toml"
    study.write_text(f'''[sweep]
scenario = "{scenarios / 'bench-minimal.toml'}"
grid = {{ "policy.iops" = [1, 1000] }}
[sweep.cases.reads]
description = "all reads"
set = {{ "run.duration" = "1s", "workloads.0.read_pct" = 100 }}
[sweep.cases.writes]
description = "all writes"
set = {{ "run.duration" = "1s", "workloads.0.read_pct" = 0 }}
''')
    done = pathlab("sweep", str(study), "--out", str(tmp_path / "st"))
    assert done.returncode == 0, done.stderr
    runs = pd.read_csv(tmp_path / "st-runs.csv")
    assert list(runs["variant"]) == ["reads", "reads", "writes", "writes"]
    assert list(runs["policy.iops"]) == [1, 1000, 1, 1000]
    # the cases reach the runs: the figures of a read-only and a write-only run differ
    assert runs.loc[0, "read_resp_ms"] > 0 and runs.loc[2, "read_resp_ms"] == 0 and runs.loc[2, "write_resp_ms"] > 0


def test_a_journal_left_by_another_sweep_to_the_same_output_is_not_reused(tmp_path) -> None:
    sweep(tmp_path)
    args = ("sweep", "scenarios/bench-minimal.toml", "--grid", "policy.iops=1,1000", "--seeds", "2",
            "--set", 'run.duration="1s"', "--set", 'run.warmup="200ms"', "--out", str(tmp_path / "bm"), "--force")
    refused = pathlab(*args)
    assert refused.returncode == 2 and "runs of another sweep" in refused.stderr
    done = pathlab(*args, "--replace")
    assert done.returncode == 0 and "already done" not in done.stderr


def test_a_sweep_with_nothing_to_sweep_says_so() -> None:
    done = pathlab("sweep", "scenarios/bench-minimal.toml")
    assert done.returncode == 2 and "sweep.grid: nothing to sweep" in done.stderr
