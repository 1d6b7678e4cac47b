"""A pilot run asked only for the fields its passes read (`pilot_rows.ROWS`, the core's
`finish(rows=...)`), and its rows grouped once for the passes (`pilot_rows.grouped`): the same
rows, classes and run length as from the whole result."""

from __future__ import annotations

import json

import pytest

from pathlab.advisor import alike, fit_level, pilot_rows, run_length
from pathlab.api import Result, Scenario, run_many
from pathlab.large_host import cluster_text

#: A small cluster of the bench's kind, its round robin sending 100 I/Os a path in a row (rotations counted).
SLOW = {"arrays.0.service.fixed": "200us", "policy.iops": 100}


def test_a_run_asked_for_some_fields_of_its_tables_rows_gives_those_fields_in_order_and_the_rest_whole(
        scenarios) -> None:
    s = Scenario.load(scenarios / "flaky-path.toml", set={"run.duration": "0.3s", "run.warmup": "0.1s",
                                                          "run.interval": "0.1s"})
    kept = {"paths": ["state", "name", "cmds_s"], "device_intervals": ["name"], "adapters": []}
    runs = []
    for rows in (None, kept):
        sim = s.handle.simulation(path_intervals=False)
        sim.run_until(s.handle.end_ns)
        runs.append(sim.finish() if rows is None else sim.finish(rows=rows))
    (full, full_setups), (some, some_setups) = runs
    assert some_setups == full_setups and len(full["paths"]) == 16 and len(full["device_intervals"]) > 0
    # Each row its fields in the result's order (not the order asked), the other tables and fields as they were.
    expected = full | {table: [{k: v for k, v in row.items() if k in fields} for row in full[table]]
                       for table, fields in kept.items()}
    assert json.dumps(some) == json.dumps(expected)
    assert list(some["paths"][0]) == ["name", "state", "cmds_s"] and some["adapters"][0] == {}
    # What cannot be kept is refused, the first in the names' order: no table, a table that is no rows, a field no row has.
    for rows, said in [({"path": ["name"]}, 'rows: "path" is no table of rows'),
                       ({"summary": ["iops"]}, 'rows: "summary" is no table of rows'),
                       ({"paths": ["name", "nmae"], "devices": ["iops"]}, 'rows: no row of "devices" has a field "iops"'),
                       ({"paths": ["name", "nmae"]}, 'rows: no row of "paths" has a field "nmae"')]:
        sim = s.handle.simulation(path_intervals=False)
        sim.run_until(s.handle.end_ns)
        with pytest.raises(ValueError, match=said):
            sim.finish(rows=rows)
    # Asked with the figures alone, refused before the run is finished: it can still be.
    sim = s.handle.simulation(path_intervals=False)
    sim.run_until(s.handle.end_ns)
    with pytest.raises(ValueError, match="not with figures_only or device_rows"):
        sim.finish(figures_only=True, rows={"paths": ["name"]})
    assert sim.finish()[0] == full


def test_a_pilot_of_the_rows_its_passes_read_gives_the_classes_units_and_length_of_the_whole_result() -> None:
    cluster = Scenario.from_text(cluster_text(4, 50, 8), set=SLOW)
    pilot = cluster.with_set(run_length.pilot_length(), to_run=True)
    full, some = (run_many([pilot], path_intervals=False, rows=rows)[0] for rows in (None, pilot_rows.ROWS))
    assert len(some.data["paths"][0]) == len(pilot_rows.ROWS["paths"]) < len(full.data["paths"][0])
    classes = alike.classes(pilot, full)
    assert classes == alike.classes(pilot, some) and len(classes) == 4
    rates = run_length._device_rates(full)
    key = pilot_rows.grouped(full).key_of
    array_of = {k: d.array.name for k, d in zip(pilot_rows.grouped(full).keys, full.setups, strict=True)}
    units = fit_level.units(full, rates, lambda h, n: key[h, n], array_of)
    assert units == fit_level.units(some, rates, lambda h, n: key[h, n], array_of)
    assert [u.level for u in units].count("port group") == 4
    for per_host in (False, True):
        chosen = run_length.choose(full, 20.0, 5.0, classes, [], per_host)
        assert chosen == run_length.choose(some, 20.0, 5.0, classes, [], per_host)
        assert "20 rotations of the policy per port group" in chosen.reason


def test_a_runs_paths_are_grouped_by_device_in_order_whether_or_not_each_devices_rows_follow_each_other() -> None:
    devices = [{"host": h, "name": n} for h in ("a", "b") for n in ("lun0", "lun1")]
    paths = [{"host": h, "device": n, "name": f"p{i}"} for h in ("a", "b") for n in ("lun0", "lun1") for i in (0, 1)]
    # Every device's paths apart from each other's (the fall back): each device's rows in the run's order still.
    apart = paths[0::2] + paths[1::2]
    for rows in (paths, apart):
        grouped = pilot_rows.grouped(Result({"devices": devices, "paths": rows}))
        assert grouped.keys == ["a/lun0", "a/lun1", "b/lun0", "b/lun1"]
        assert grouped.key_of[("b", "lun0")] == "b/lun0"
        assert grouped.paths == {(h, n): [p for p in paths if (p["host"], p["device"]) == (h, n)]
                                 for h in ("a", "b") for n in ("lun0", "lun1")}
        assert [p["name"] for p in grouped.paths["a", "lun1"]] == ["p0", "p1"]
