"""The Python API: load, override, run, DataFrames."""

from __future__ import annotations

import json
import pickle

import pytest

import pathlab
from pathlab import Scenario, ScenarioError


def test_load_override_run_and_read_dataframes(scenarios) -> None:
    s = Scenario.load(scenarios / "c1-vmax-1lun.toml", variant="iops1", set={"run.duration": "1s", "run.warmup": "0s"})
    assert s.variant == "iops1" and s.published["iops"] == pytest.approx(151892.44)
    r = s.run()
    assert list(r.summary)[:3] == ["ios", "iops", "mbps"] and r.summary.iops == r.data["summary"]["iops"] > 0
    assert len(r.paths) == 8 and set(r.paths["device"]) == {"naa.60000970000197900123533030303031"}
    assert r.paths["cmds_s"].sum() == pytest.approx(r.devices["cmds_s"].sum())
    assert len(r.intervals) == 1 and r.intervals["measured"].all()
    assert set(r.path_intervals["name"]) == set(r.paths["name"])


def test_bad_override_raises_scenario_error_with_file_and_field(scenarios) -> None:
    with pytest.raises(ScenarioError) as e:
        Scenario.load(scenarios / "bench-minimal.toml", set={"devices.0.queue_depth": 0})
    file, field, message = e.value.args
    assert file.endswith("bench-minimal.toml") and field == "devices.0.queue_depth" and "allowed 1 to 4000000" in message


def test_a_scenario_error_pickles_as_its_args(scenarios) -> None:
    """A process pool or Ray sends a bad scenario's error back pickled: the class is found by
    its module's full name (`pathlab._core`) and rebuilt from its (file, field, message)."""
    with pytest.raises(ScenarioError) as e:
        Scenario.load(scenarios / "bench-minimal.toml", set={"devices.0.queue_depth": 0})
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is ScenarioError and again.args == e.value.args
    assert ScenarioError.__module__ == "pathlab._core"


def test_policies_lists_every_stack() -> None:
    catalog = {p["name"]: p for p in pathlab.policies()}
    assert {"VMW_PSP_RR", "VMW_PSP_FIXED", "VMW_PSP_MRU", "dm-multipath", "nvme", "spdk", "mpio", "powerpath",
            "HPP"} <= set(catalog)
    rr = {q["name"]: q for q in catalog["VMW_PSP_RR"]["params"]}
    assert rr["latency_eval_time"]["range"] == "30000 to 2147483647"
    assert rr["num_sampling_cycles"]["default"] == "16"


def test_a_figures_only_run_gives_the_full_runs_figures_as_written(scenarios) -> None:
    # Both branches of `finish` write the same fields alike: the same values in the same order
    # (figures-only went through a sorted JSON tree before, and unwrapped its conversion).
    s = Scenario.load(scenarios / "bench-minimal.toml", set={"run.duration": "0.05s", "run.warmup": "0s"}, seed=3)
    full, figures = s.run().data, s.run(figures_only=True).data
    assert list(figures) == ["scenario", "variant", "seed", "warmup_s", "duration_s", "summary", "accounting"]
    assert json.dumps(figures) == json.dumps({key: full[key] for key in figures})
    # With the device rows (a cluster's ranking): the hosts as the full run has them, and of each
    # device's row the fields a host's figures read (its host, rate and response), nothing else.
    rows = s.run(device_rows=True).data
    assert list(rows) == [*figures, "hosts", "devices"] and len(rows["devices"]) == 1
    read = ("host", "cmds_s", "gavg_ms")
    assert list(rows["devices"][0]) == list(read) and rows["devices"][0]["cmds_s"] > 1000
    assert json.dumps(rows) == json.dumps({key: full[key] for key in rows} |
                                          {"devices": [{k: d[k] for k in read} for d in full["devices"]]})


def test_a_clusters_device_rows_run_gives_its_full_runs_host_figures_bit_for_bit(scenarios) -> None:
    # Four hosts on one shared LUN: each host's p99 (`host_latency`) and figures, and the
    # cluster's summary, as the ranking reads them from either end of the run, compared exactly.
    from pathlab.advisor.host_figures import cluster_summary, host_figures

    s = Scenario.load(scenarios / "vmax3-shared-director.toml", set={"run.duration": "0.3s", "run.warmup": "0.1s"})
    full, rows = s.run().data, s.run(device_rows=True).data
    assert rows["host_latency"] == full["host_latency"] and len(rows["host_latency"]) == 4
    assert host_figures(rows) == host_figures(full) and len(host_figures(rows)) == 4
    assert cluster_summary(rows) == cluster_summary(full)


def test_a_simulation_keeps_the_responses_its_end_reads_and_an_end_reading_more_is_refused(scenarios) -> None:
    # A device-rows run keeps each host's responses alone (above: its p99s are the full run's);
    # a figures-only run keeps none beyond the summary's, whose figures are the full run's too.
    s = Scenario.load(scenarios / "vmax3-shared-director.toml", set={"run.duration": "0.3s", "run.warmup": "0.1s"})
    full, summary = s.run().data, s.run(figures_only=True).data
    assert summary["summary"] == full["summary"] and summary["accounting"] == full["accounting"]
    end = s.handle.end_ns
    for kept, finish in [("hosts", {}), ("summary", {}), ("summary", {"figures_only": True, "device_rows": True})]:
        sim = s.handle.simulation(False, None, 1, kept)
        sim.run_until(end)
        with pytest.raises(RuntimeError, match=f"made to keep {kept.title()} responses"):
            sim.finish(**finish)
    with pytest.raises(ValueError, match='responses: "device" is not one of "devices", "hosts", "summary"'):
        s.handle.simulation(False, None, 1, "device")


def test_a_run_without_path_intervals_builds_none_and_the_rest_is_the_full_runs(scenarios) -> None:
    # The simulation is told before it runs (it built every row and `finish` dropped them before):
    # its result is the full run's, byte for byte, with the per-path interval table empty.
    s = Scenario.load(scenarios / "flaky-path.toml", set={"run.duration": "0.3s", "run.warmup": "0.1s",
                                                          "run.interval": "0.1s"})
    runs = {}
    for rows in (True, False):
        sim = s.handle.simulation(path_intervals=rows)
        sim.run_until(s.handle.end_ns)
        runs[rows] = sim.finish()[0]
    assert len(runs[True]["path_intervals"]) == 4 * len(runs[True]["paths"]) > 0
    assert runs[False]["path_intervals"] == []
    assert json.dumps(runs[False]) == json.dumps(runs[True] | {"path_intervals": []})
    assert s.run(path_intervals=False).path_intervals.empty


def test_a_scenario_with_another_seed_shares_its_handle_and_runs_as_one_loaded_with_that_seed(scenarios) -> None:
    # A ranking's seeds of one candidate: no copy of the engine's scenario (200 MiB on a cluster of 32 hosts).
    short = {"run.duration": "0.05s", "run.warmup": "0s"}
    s = Scenario.load(scenarios / "bench-minimal.toml", set=short, seed=3)
    other = s.with_seed(5)
    assert other.handle is s.handle and other.seed == 5
    loaded = Scenario.load(scenarios / "bench-minimal.toml", set=short, seed=5)
    assert json.dumps(other.run().data) == json.dumps(loaded.run().data) != json.dumps(s.run().data)
    assert other.run().data["seed"] == 5 and s.run().data["seed"] == 3


def test_runs_on_one_handle_share_one_model_build_and_each_is_its_seeds_run_alone(scenarios) -> None:
    # `simulation(runs=3)`: the model built once and kept for the two simulations to come (each
    # a copy, the last the model itself). A flaky path's errors and failovers as well: every run
    # is byte for byte the run of its seed simulated alone, and `run_many` counts the runs per handle.
    short = {"run.duration": "0.2s", "run.warmup": "0.05s", "faults.0.from": "0.1s", "faults.1.from": "0.1s"}
    s = Scenario.load(scenarios / "flaky-path.toml", set=short)
    alone = {seed: s.with_seed(seed).run().to_json() for seed in (1, 2, 3)}
    assert len(set(alone.values())) == 3 and json.loads(alone[1])["accounting"]["failovers"] > 0
    sims = [s.handle.simulation(True, seed, 3) for seed in (1, 2, 3)]
    for seed, sim in zip((1, 2, 3), sims, strict=True):
        sim.run_until(s.handle.end_ns)
        assert json.dumps(sim.finish()[0], indent=2) == alone[seed]
    assert [r.to_json() for r in pathlab.run_many([s.with_seed(k) for k in (1, 2, 3)])] == list(alone.values())
    # A handle whose kept model is used up builds again: the same run once more.
    assert s.with_seed(2).run().to_json() == alone[2]


def test_a_scenario_loaded_to_run_from_values_is_converted_once_without_its_listings_and_runs_the_same() -> None:
    # An imported host's scenarios loaded to be run (a ranking's candidates, its span ends, the pilots) start
    # from its tables converted once, without what the listings printed (no run reads it): each run is the run
    # of the scenario checked in full, byte for byte, and only the checked one gives the listings back to `show`.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        host = pathlab.import_host("vmax-iops1000")
    short = {"run.duration": "0.05s", "run.warmup": "0.01s"}
    checked = Scenario.from_values(host.tables.values(), host.text, host.scenario.file, set=short)
    assert checked.listed and checked.run_tables.converted is None
    to_run = checked.with_set({}, to_run=True)
    converted = checked.run_tables.converted
    assert converted is not None and to_run.listed == {} and to_run.run_tables is checked.run_tables
    candidate = {"devices.*.policy": {"name": "VMW_PSP_RR", "type": "iops", "iops": 1}}
    assert checked.with_seed(2).with_set(candidate, to_run=True).run().to_json() == \
        checked.with_set(candidate).with_seed(2).run().to_json()
    assert checked.run_tables.converted is converted  # not converted again
    assert to_run.run().to_json() == checked.run().to_json()
    assert to_run.devices == checked.devices


def test_a_scenario_with_many_overrides_loads_to_run_from_its_tables_kept_applied_and_runs_the_same(monkeypatch) -> None:
    # A cluster fitted to its captures carries two overrides a workload (32,000 on 32 hosts × 500 devices):
    # the scenarios loaded to be run with more (a ranking's candidates) start from its tables kept with its
    # variant and overrides applied, only their own read and applied. Each is the scenario loaded with every
    # override (byte for byte, its devices, its overrides), and refuses what that one refuses, alike.
    import warnings

    from pathlab import api

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        host = pathlab.import_host("vmax-iops1000")
    tables = {**host.tables.values(), "variants": {"deep": {"set": {"devices.0.queue_depth": 64}}}}
    fitted = {"run.duration": "0.05s", "run.warmup": "0.01s", "workloads.0.outstanding": 3,
              "workloads.0.think_time": "20us"}
    base = Scenario.from_values(tables, host.text, host.scenario.file, variant="deep", set=fitted)
    candidate = {"devices.*.policy": {"name": "VMW_PSP_RR", "type": "iops", "iops": 1}, "run.duration": "0.04s"}

    monkeypatch.setattr(api, "_APPLIED_AT_LEAST", len(base.overrides))
    kept = base.with_seed(2).with_set(candidate, to_run=True)
    applied = base.run_tables.applied
    assert applied is not None and applied[0] == ("deep", base.overrides) and applied[1] is not None
    again = base.with_set({"run.duration": "0.03s"}, to_run=True)
    assert base.run_tables.applied is applied  # applied once for both
    monkeypatch.setattr(api, "_APPLIED_AT_LEAST", len(base.overrides) + 1)  # every override read and applied
    whole = base.with_seed(2).with_set(candidate, to_run=True)
    assert kept.overrides == whole.overrides and kept.variant == whole.variant == "deep" and kept.seed == 2
    assert kept.run().to_json() == whole.run().to_json() == base.with_set(candidate).with_seed(2).run().to_json()
    assert kept.devices == whole.devices and json.loads(kept.run().to_json())["devices"][0]["dqlen"] == 64
    assert again.run().to_json() == base.with_set({"run.duration": "0.03s"}).run().to_json()
    # A scenario with more overrides of its own after the base's (a ranking's, the run length after the
    # fitted values) loads from the base's tables kept, its own overrides applied after them, and back.
    longer = base.with_set({"run.duration": "0.045s"})
    from_longer = longer.with_set(candidate, to_run=True)
    assert base.run_tables.applied is applied and base.with_set({"run.duration": "0.03s"}, to_run=True) is not None
    assert base.run_tables.applied is applied  # not made again at each turn from one to the other
    assert from_longer.overrides == longer.overrides + tuple(api._overrides(api.set_strings(candidate)))
    assert from_longer.run().to_json() == longer.with_set(candidate).run().to_json()
    for bad in ({"devices.*.policy.iops": "many"}, {"workloads.7.outstanding": 1}, {"devices.*.nonsense": 1}):
        refused = []
        for at_least in (len(base.overrides), len(base.overrides) + 1):
            monkeypatch.setattr(api, "_APPLIED_AT_LEAST", at_least)
            with pytest.raises(ScenarioError) as e:
                base.with_set(bad, to_run=True)
            refused.append(e.value.args)
        assert refused[0] == refused[1] and refused[0][1].split(".")[0] in ("devices", "workloads")
    # An override given as a mapping's key with `=` in it (a listing's field) does not read back from
    # `key=value`, the form `with_set` reads a scenario's own from: loaded as before, from the tables.
    monkeypatch.setattr(api, "_APPLIED_AT_LEAST", 1)
    listed = Scenario.from_values(tables, host.text, host.scenario.file, set={"devices.0.listed.device.A=B": "x"})
    listed_run = listed.with_set({"run.warmup": "0s"}, to_run=True)
    assert listed.run_tables.applied is not None and listed.run_tables.applied[1] is None
    assert listed_run.overrides == (("devices.0.listed.device.A", 'B="x"'), ("run.warmup", '"0s"'))


def test_the_tables_two_threads_ask_kept_applied_at_once_are_applied_once(monkeypatch) -> None:
    # A ranking's two cores load their first candidates at once: one applies the scenario's overrides
    # while the other waits for its tables (two copies made at once would raise the ranking's peak).
    import time
    import warnings
    from concurrent.futures import ThreadPoolExecutor

    from pathlab import api

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        host = pathlab.import_host("vmax-iops1000")
    base = Scenario.from_values(host.tables.values(), host.text, host.scenario.file,
                                set={"run.duration": "0.05s", "run.warmup": "0s"})
    made = []
    apply = api._core.applied_run_tables

    def slowly(*args: object) -> object:
        made.append(args[2:])
        time.sleep(0.2)
        return apply(*args)

    monkeypatch.setattr(api._core, "applied_run_tables", slowly)
    monkeypatch.setattr(api, "_APPLIED_AT_LEAST", 1)
    with ThreadPoolExecutor(2) as pool:
        loaded = list(pool.map(lambda seed: base.with_seed(seed).with_set({"run.duration": "0.03s"}, to_run=True),
                               (1, 2)))
    assert made == [(None, list(base.overrides))] and [s.seed for s in loaded] == [1, 2]
    assert loaded[0].run().to_json() == base.with_seed(1).with_set({"run.duration": "0.03s"}).run().to_json()


def test_a_scenario_loaded_to_run_refuses_at_its_run_what_the_load_refuses_and_runs_the_same(scenarios) -> None:
    # `to_run` leaves the checks that build the model to the run (a cluster's candidate builds it once).
    text = (scenarios / "bench-minimal.toml").read_text()
    short = {"run.duration": "0.05s", "run.warmup": "0s"}
    bad = {"workloads.0.devices": ["no-such-device"]}
    with pytest.raises(ScenarioError) as at_load:
        Scenario.from_text(text, "bench-minimal.toml", set=short).with_set(bad)
    to_run = Scenario.from_text(text, "bench-minimal.toml", set=short).with_set(bad, to_run=True)
    with pytest.raises(ScenarioError) as at_run:
        to_run.run()
    assert at_run.value.args == at_load.value.args and at_load.value.args[1].startswith("workloads.0")
    checked = Scenario.from_text(text, "bench-minimal.toml", set=short)
    assert json.dumps(checked.with_set({}, to_run=True).run().data) == json.dumps(checked.run().data)
