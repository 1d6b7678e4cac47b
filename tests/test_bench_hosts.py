"""The generated hosts of `pathlab bench --scaling`: every row loads, and its ports hold what is
in service at once, so what is in flight is in the event queue and not in the ports' queues."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from pathlab.cli.bench import GENERATED_ROUND_TRIP_S, GENERATED_SERVICE_S, IN_FLIGHT, generated_host
from pathlab.cli.common import load


@pytest.mark.parametrize(("devices", "paths", "outstanding"), IN_FLIGHT)
def test_each_row_loads_and_its_ports_hold_what_is_in_service(tmp_path: Path, devices: int, paths: int,
                                                              outstanding: int) -> None:
    """Every port holds what is in service at once; on hosts of many devices, as the hand-written
    loop's port (which serves every I/O at once), a server for every I/O its array's devices have
    in flight, so the engine can prove no I/O waits there (`sim/never_wait.rs`): 10,000 x 8 x 1
    takes 10 arrays, x 10 takes 99."""
    file, paths_each, arrays = generated_host(tmp_path, devices, paths, outstanding, quick=True)
    load(str(file))  # a port's servers within the scenario bounds (10,000 and more failed here)
    scenario = tomllib.loads(file.read_text())
    assert paths_each >= paths and len(scenario["arrays"]) == arrays
    for array in scenario["arrays"]:
        on_array = sum(1 for d in scenario["devices"] if d["array"] == array["name"])
        in_service = on_array * outstanding * GENERATED_SERVICE_S / GENERATED_ROUND_TRIP_S
        assert len(array["ports"]) * array["service"]["servers"] >= 1.25 * in_service
        if devices > 1:
            assert array["service"]["servers"] >= on_array * outstanding
    if devices > 1:
        assert arrays == {(10_000, 1): 10, (10_000, 10): 99}.get((devices, outstanding), 1)


LOOP = Path(__file__).resolve().parents[1] / "benches" / "many-devices-loop"


def test_the_hand_written_loop_simulates_the_generated_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--loop`'s loop is the same host: its mean response is the round trip (50 µs of fabric
    each way and 20 µs of service: nothing queues), as pathlab's is, and every I/O went down a
    path of its device."""
    from pathlab.cli.bench import loop_binary, loop_fields

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    binary = loop_binary(LOOP, "--loop", "many-devices-loop")
    fields = loop_fields(binary, "--loop", [100, 1, 8, 200_000])
    assert int(fields["ios"]) == int(fields["path_commands"]) == 200_000
    assert float(fields["mean_us"]) == pytest.approx(GENERATED_ROUND_TRIP_S * 1e6, rel=0.01)
    assert float(fields["ns_per_io"]) > 0


def test_the_generated_clusters_captures_import_as_its_hosts_sharing_every_lun_and_port(tmp_path: Path) -> None:
    """`bench --advise`'s cluster row imports what it captured: every host on every LUN through
    the same four ports, each host's load one I/O outstanding per device as generated."""
    import pathlab
    from pathlab.cli.cluster_bench import cluster_captures

    options = cluster_captures(tmp_path, 2, 3, 8)
    assert [o.split("=", 2)[1] for o in options] == ["esx01", "esx02"]
    with pytest.warns(pathlab.PathlabWarning):  # the values the captures do not give (assumed, said)
        cluster = pathlab.import_cluster({o.split("=", 2)[1]: o.split("=", 2)[2].split(",") for o in options})
    assert list(cluster.hosts) == ["esx01", "esx02"]
    assert len(cluster.shared_devices) == 3 and all(h == ("esx01", "esx02") for h in cluster.shared_devices.values())
    assert len(cluster.ports) == 4 and all(h == ("esx01", "esx02") for h in cluster.ports.values())
    assert cluster.text.count("outstanding = 1  # ") == 6


def test_the_stage_meter_reads_a_steps_memory_while_it_holds_it() -> None:
    """`bench --advise`'s steps (`stage_meter`): a step that holds 128 MiB peaks at least that
    much above where it started, and the next step, after it is let go, ends below it."""
    from pathlab.cli.stage_meter import StageMeter

    meter = StageMeter()
    meter.stage("holds")
    held = b"\x01" * (128 * 2**20)  # every page written, so resident (a zeroed one may not be)
    meter.stage("lets go")
    del held
    first, second = meter.end()
    assert [first["stage"], second["stage"]] == ["holds", "lets go"]
    assert first["end_mib"] - second["end_mib"] >= 100 and first["peak_mib"] >= first["end_mib"]
    assert first["cpu_s"] >= 0 and second["wall_s"] >= 0


def test_bench_advise_runs_the_clusters_advice_once_a_round_and_tables_the_last_rounds_steps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The step table is one of the advise rounds (its child is `stage_meter`), not one advice
    more: two rounds run two imports and two advices, and the steps shown are the second's."""
    import json

    from pathlab.cli import bench, cluster_bench

    ran: list[list[str]] = []

    def child(command: list[str]) -> tuple[float, float, float, int, str, str]:
        ran.append(command)
        if "import" in command:
            return 1.0, 1.0, 10.0, 0, "", ""
        step = {"stage": f"ranking {len(ran)}", "wall_s": 2.0, "cpu_s": 3.0, "peak_mib": 40.0, "end_mib": 30.0}
        return 5.0, 6.0, 50.0, 0, json.dumps({"stages": [step], "candidates": 3, "runs": 6,
                                              "run_length": "1 s after 0.25 s", "why": "no counters"}), ""

    shown: list[tuple[str, list]] = []
    monkeypatch.setattr(cluster_bench, "run_child", child)
    monkeypatch.setattr(cluster_bench, "cluster_captures", lambda folder, *shape: ["--host=a=x", "--host=b=y"])
    monkeypatch.setattr(bench, "ADVISE_DEVICES", ())
    monkeypatch.setattr(bench.Tables, "show", lambda self, title, headers, rows, note="": shown.append((title, rows)))
    bench.advise_table(bench.Tables(False), rounds=2, quick=True)
    assert [c[2] for c in ran] == ["pathlab", "pathlab", "pathlab.cli.stage_meter", "pathlab.cli.stage_meter"]
    steps = shown[-1][1]
    assert steps == [["ranking 4", "2.0", "3.0", "40", "30"], ["the whole process", "5.0", "6.0", "50", ""]]
    assert shown[-2][1][1][:3] == ["4 x 50 x 8", "advise", "3 candidates, 6 runs of 1 s after 0.25 s"]
