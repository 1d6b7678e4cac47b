"""Results cross from Rust as Python objects (not JSON text), and read as typed objects."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from pathlab import Scenario
from pathlab.results import DeviceFigures, HostEvent, PathFigures, Summary


def names(kind: type) -> set[str]:
    return {f.name for f in fields(kind)}


def test_typed_rows_have_every_field_of_the_engines_rows_and_the_same_values(scenarios) -> None:
    # A path fails at 0.2 s: the run has host events as well as devices and paths.
    s = Scenario.load(scenarios / "cx4-alua-path-failure.toml",
                      set={"run.duration": "0.4s", "run.warmup": "0s", "faults.0.at": "0.2s"})
    r = s.run()
    data = r.data
    assert names(Summary) == set(data["summary"]) and len(r.summary) == len(data["summary"])
    assert names(DeviceFigures) == set(data["devices"][0]) and names(PathFigures) == set(data["paths"][0])
    assert names(HostEvent) == set(data["events"][0])
    assert dict(r.summary) == data["summary"] and list(r.summary) == list(data["summary"])
    assert r.summary.p99_ms == r.summary["p99_ms"] == data["summary"]["p99_ms"] > 0
    assert r.summary.to_pandas()["iops"] == data["summary"]["iops"]
    assert [d.name for d in r.device_rows] == [d["name"] for d in data["devices"]]
    assert r.device_rows[0].working_paths == tuple(data["devices"][0]["working_paths"])
    assert sum(p.cmds_s for p in r.path_rows) == pytest.approx(sum(d.cmds_s for d in r.device_rows))
    first = r.events[0]
    assert (first.t_s, first.path, first.event) == (0.2, "vmhba1:C0:T0:L1", "link_down")
    assert [e.event for e in r.events] == [e["event"] for e in data["events"]]
    with pytest.raises(KeyError):
        r.summary["devices"]
    html = r._repr_html_()
    assert html.startswith("<p>pathlab.Result cx4-alua-path-failure seed=") and "<td>" in html and "p99_ms" in html


def test_the_engines_objects_are_what_its_json_reads(scenarios) -> None:
    # serde_json's data model: lists where Rust has arrays and tuples (a replication's two
    # arrays, a status's settings), None for no value; nothing JSON would not write back the same.
    s = Scenario.load(scenarios / "c2-activecluster-distance.toml", set={"run.duration": "0.2s", "run.warmup": "0s"})
    r = s.run()
    replication = r.data["replication"][0]
    assert type(replication["arrays"]) is list and type(replication["writes"]) is list
    assert json.loads(json.dumps(r.data)) == r.data
    assert r.data["variant"] is None and type(r.data["summary"]["ios"]) is int
    described = s.describe()
    assert json.loads(json.dumps(described)) == described
    assert all(type(v) is not tuple for d in s.handle.simulation().devices() for v in d["status"].values())
