"""What the application sees through a fault, as `pathlab run` prints it (table, JSON, HTML) and
`Result.application` types it. The figures themselves are tested against theory in the engine
(`crates/pathlab-sim/tests/faults.rs`, `mod application`); here they must reach every output."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

from conftest import pathlab
from pathlab import Scenario
from pathlab.results import ApplicationSaw, FaultWindow, Recovery
from two_controllers import two_controllers

#: A path lost without a link event under dm-multipath: found by the 2 s I/O timeout, taken back
#: at the checker's tick (1 s) after its link returns at 5.5 s.
SILENT_LOSS = dict(duration="8s", stack='io_timeout = "2s", checker_interval = "1s"',
                   policy='name = "dm-multipath"\nfailback = "immediate"', outstanding=4,
                   fault='kind = "path_down"\nat = "1s"\nuntil = "5500ms"\npath = "vmhba1:C0:T0:L3"\n'
                         'detection = "timeout"')

#: ESXi's all-paths-down with a 20 s APD timeout (the shortest it allows).
APD = dict(duration="22s", stack='apd_timeout = "20s"', policy='name = "VMW_PSP_RR"', outstanding=24,
           fault='kind = "all_paths_down"\nat = "500ms"')


def write(tmp_path: Path, case: dict[str, object]) -> Path:
    path = tmp_path / "case.toml"
    path.write_text(two_controllers(duration=str(case["duration"]), seed=7, stack=str(case["stack"]),
                                    policy=str(case["policy"]), fault=str(case["fault"]),
                                    workload=f'outstanding = {case["outstanding"]}\nblock_size = "4KiB"\nread_pct = 100',
                                    write_latency="50us", link_speed="16Gb", queue_depth=32))
    return path


def names(kind: type) -> set[str]:
    return {f.name for f in fields(kind)}


def test_the_typed_view_has_every_field_of_the_engines_rows(tmp_path: Path) -> None:
    r = Scenario.load(write(tmp_path, SILENT_LOSS)).run()
    data = r.data["application"]
    assert names(ApplicationSaw) == set(data["devices"][0]) == set(data["hosts"][0])
    assert names(FaultWindow) == set(data["faults"][0]) and names(Recovery) == set(data["recovery"][0])
    app = r.application
    assert app.faults[0] == FaultWindow(kind="path_down", target="vmhba1:C0:T0:L3", start_s=1.0, end_s=5.5)
    device, host = app.recovery
    assert (device.device, device.back_to_full_rate_s, device.failed_back_s) == ("naa.1", 2.0, 0.5)
    assert device.paths_before == ("vmhba1:C0:T0:L3", "vmhba2:C0:T0:L3")
    assert (host.device, host.host, host.failed_back_s) == ("", "esx01", 0.5)
    # The other path of the group kept answering while the I/Os on the lost one waited: the device
    # never stalled beyond one response (142.048 us at zero load; 4 I/Os on 2 paths queue a little).
    assert 0.000_142 < app.devices[0].longest_stall_s < 0.001


def test_run_prints_the_stall_the_failed_ios_and_a_timeline(tmp_path: Path) -> None:
    done = pathlab("run", str(write(tmp_path, APD)))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "what the application saw" in out
    # 24 I/Os waited from the loss (0.5 s) to the APD timeout (20.5 s), then failed; the workers'
    # reissues 1 s later failed at once; the run ends at 22 s.
    host = next(line for line in out.splitlines() if line.startswith("host esx01"))
    assert host.split() == ["host", "esx01", "20.000", "s", "0.500", "s", "48", "20.500-21.500", "s"]
    timeline = out[out.index("timeline of naa.1:"):].split("\n\n")[0].splitlines()[1:]
    assert "20.500 s  gave up (give-up)" in timeline[-5]
    assert [line.split("  ")[-1] for line in timeline[-4:]] == [
        "longest stall ends", "first failed I/O (of 48)", "last failed I/O", "all paths down every device ends"]
    recovery = next(line for line in out.splitlines() if line.startswith("all paths down every device 0.5-22 s  naa.1"))
    # Never back to full rate; no fail back to measure, as the paths are down to the end.
    assert [c.strip() for c in recovery.split("  ") if c.strip()][-4:] == [
        "0/s", "not by the end", "vmhba1:C0:T0:L3, vmhba2:C0:T0:L3", "-"], recovery
    assert "168,912/s" in recovery


def test_json_carries_it_and_the_report_draws_each_touched_device(tmp_path: Path) -> None:
    scenario = write(tmp_path, SILENT_LOSS)
    done = pathlab("run", str(scenario), "--format", "json")
    assert done.returncode == 0, done.stderr
    app = json.loads(done.stdout)["application"]
    assert [r["failed_back_s"] for r in app["recovery"]] == [0.5, 0.5]
    report = tmp_path / "report.html"
    done = pathlab("run", str(scenario), "--html", str(report))
    assert done.returncode == 0, done.stderr
    page = report.read_text()
    assert "What the application saw" in page and "Timeline of naa.1" in page
    # The timers' marks, drawn: detection (the path failed), path back, back to full rate, failed back.
    for mark in ("mark-detection", "mark-path-back", "mark-back-to-full-rate", "mark-failed-back"):
        assert f'id="{mark}"' in page, mark
    assert "path failed vmhba1:C0:T0:L3 (detection)" in page
