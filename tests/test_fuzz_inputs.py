"""Fuzzing the Python side with hypothesis: whatever a user passes as overrides, seeds or a
capture file, the answer is a result or a ScenarioError, never another exception."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pathlab
from conftest import SCENARIOS
from pathlab.readers import esxtop

BASE = str(SCENARIOS / "bench-minimal.toml")
KEYS = st.sampled_from([
    "run.duration", "run.interval", "run.seed", "policy", "policy.iops", "policy.name", "devices.0.queue_depth",
    "devices.0.lun", "host.adapters.0.name", "host.cpus", "workloads.0.outstanding", "workloads.0.block_size",
    "workloads.0.read_pct", "arrays.0.service.fixed", "fabric.0.latency", "faults", "x.y", "devices.9.lun",
])  # fmt: skip
VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.sampled_from(["name", "iops", "kind", "at"]), st.integers(), max_size=3),
    st.none(),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=KEYS, value=VALUES, seed=st.one_of(st.none(), st.integers(min_value=-(2**65), max_value=2**65)))
def test_any_override_and_seed_loads_or_says_what_is_wrong(key: str, value: object, seed: int | None) -> None:
    try:
        scenario = pathlab.Scenario.load(BASE, set={key: value}, seed=seed)
    except pathlab.ScenarioError as e:
        assert len(e.args) == 3 and e.args[2]
        return
    # Loading checks everything a run needs: a scenario that loads is one the engine builds.
    assert [d["name"] for d in scenario.describe()["devices"]] == ["naa.600000000000000000000000000000b1"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000))
def test_any_bytes_as_an_esxtop_capture_read_or_refused(tmp_path_factory, data: bytes) -> None:
    path = Path(tmp_path_factory.mktemp("capture")) / "c.csv"
    path.write_bytes(data)
    try:
        tables = esxtop.read(path)
    except pathlab.ScenarioError as e:
        assert e.args[0] == str(path)
        return
    # Read: the disk objects' tables, each sample and instance with its time and name.
    assert sorted(tables) == ["adapters", "devices", "paths"]
    for table in tables.values():
        assert list(table.columns[:2]) == ["time", "name"] and table["name"].notna().all()
