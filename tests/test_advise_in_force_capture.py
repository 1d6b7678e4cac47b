"""Before advise ranks anything, the setting in force, simulated, reproduces what the captures
measured: each device's rate within 5% and mean response within 20%, after fitting only what the
captures leave open (the load's shape by Little's law, the array's back end time or its ports'
service). Where that cannot be done, advise says why and predicts nothing (issue 32, item 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import pathlab, quiet
from pathlab import advise, import_host
from pathlab.advisor.capture_check import fit_to_capture

DATA = Path(__file__).parent / "data" / "linux"
#: Two maps on two arrays (their paths reach different targets).
NETAPP = DATA / "multipath_check-multipath-20_netapp-debian-squeeze.txt"
#: Two maps through the same four target ports: one array.
FALCON = DATA / "multipath_check-multipath-01_falcon-ipstor.txt"


def diskstats(path: Path, load: dict[str, tuple[float, float]], samples: int = 13, step: int = 5) -> Path:
    """`/proc/diskstats` sampled every `step` s (pt-stalk's TS lines): each device at (I/O per s,
    ms per I/O), 70% reads of 8 KiB, the rate and time moving a little from sample to sample."""
    jitter = (0.0, 0.02, -0.01, 0.015, -0.02, 0.01)
    counters = {d: [0] * 11 for d in load}
    out = []
    for k in range(samples):
        out.append(f"TS {1_700_000_000 + step * k}.000000000")
        for i, (device, (rate, ms)) in enumerate(load.items()):
            c = counters[device]
            if k:
                j = jitter[k % len(jitter)]
                ios = rate * step * (1 + j)
                reads, writes = round(0.7 * ios), round(0.3 * ios)
                c[0] += reads
                c[2] += 16 * reads
                c[3] += round(reads * ms * (1 - j))
                c[4] += writes
                c[6] += 16 * writes
                c[7] += round(writes * ms * (1 - j))
                c[9] += step * 1000
                c[10] += round((reads + writes) * ms * (1 - j))
            out.append(f" 253 {i} {device} " + " ".join(str(x) for x in c))
    path.write_text("\n".join(out) + "\n")
    return path


def _host(*files: str | Path):
    with quiet():
        return import_host(*(str(f) for f in files))


def test_the_linux_host_of_the_issue_is_simulated_at_its_captured_rates_once_fitted(tmp_path) -> None:
    # The issue's host: 20,000 and 5,000 I/O/s at about 0.55 ms. Unfitted, the setting in force
    # ran at 95,114 and 71,404 I/O/s in 0.12 and 0.04 ms: the assumed 20 µs ports alone.
    host = _host(NETAPP, diskstats(tmp_path / "diskstats.txt", {"dm-1": (20_000, 0.55), "dm-2": (5_000, 0.55)}))
    check = fit_to_capture(host.scenario, host.tables, host.captured)
    assert check is not None and check.agrees, check
    by_device = {d.device: d for d in check.devices}
    backup = by_device["360a98aaaa72d444e423464685a786175"]
    assert backup.captured_rate == pytest.approx(20_050)  # the jitter's mean: +0.25%
    assert abs(backup.rate_off) <= 0.05 and abs(backup.response_off or 1) <= 0.20
    postgres = by_device["360a98aaaa470505a684a656930385a4a"]
    assert postgres.simulated_rate == pytest.approx(5_012, rel=0.05)
    assert postgres.simulated_response_ms == pytest.approx(0.549, rel=0.20)
    fitted = {f.field: f.value for f in check.fitted}
    # Little's law: 5,012 × 0.549 ms = 2.75 in flight: 3 outstanding, 3 / 5,012 − 0.549 ms = 49.9 µs of think time.
    assert fitted["workloads.foobar_postgresql_lun0.outstanding"] == "3 outstanding, 49.9 µs of think time"
    # The rest of the 0.55 ms is the arrays' own time beyond the ports' 20 µs: about half a millisecond.
    assert fitted["arrays.NETAPP.read_latency"].startswith("0.5")
    assert check.runs <= 6


def test_advise_prints_captured_beside_simulated_and_says_each_fitted_value(tmp_path) -> None:
    rates = diskstats(tmp_path / "diskstats.txt", {"dm-1": (20_000, 0.55), "dm-2": (5_000, 0.55)})
    with quiet():
        advice = advise([str(NETAPP), str(rates)])
    out = advice.to_dict()  # what --format json prints
    check = out["in_force_against_capture"]
    assert check["agrees"] is True and check["why"] is None
    assert set(check) == {"agrees", "why", "devices", "together", "judged", "fitted", "set", "runs", "duration_s", "seed"}
    # dm's selector turns per I/O: each device judged alone; each is its array's only device, so nothing is together.
    assert check["judged"]["level"] == "device" and check["judged"]["why"].startswith("judged per device (the rotations rule)")
    assert check["together"] == []
    assert "workloads.1.outstanding=3" in check["set"] and 'workloads.1.think_time="49.880us"' in check["set"]
    row = check["devices"][0]
    assert set(row) == {"device", "captured", "simulated", "tolerance", "agrees"}
    assert row["captured"]["iops"] == pytest.approx(20_050) and row["captured"]["where"].endswith(
        "dm-1's reads and writes per second, their mean latencies")
    assert row["simulated"]["iops"] == pytest.approx(20_050, rel=0.05)
    assert row["tolerance"] == {"iops": 0.05, "resp_ms": 0.20}
    # The fitted values replace the assumed back end time in the assumptions, said as fitted.
    said = {a["field"]: a["assumed"] for a in out["assumptions"]}
    assert said["arrays.NETAPP.read_latency"].startswith("fitted to the capture: 0.5")
    assert said["workloads.foobar_backup_lun0.outstanding"].startswith("fitted to the capture: 11 outstanding")
    # Ranked against the host as captured: the setting in force runs at the captured 25,000 I/O/s.
    (in_force,) = [c for c in out["candidates"] if c["label"] == "the setting in force"]
    assert in_force["figures"]["iops"][0] == pytest.approx(25_062, rel=0.05)
    text = advice.to_text()
    assert "The setting in force, captured against simulated" in text
    assert "360a98aaaa72d444e423464685a786175             20,050" in text


def test_the_esxi_capture_is_reproduced_by_the_load_and_the_port_fitted() -> None:
    host = _host("vmax-iops1000")
    check = fit_to_capture(host.scenario, host.tables, host.captured)
    assert check is not None and check.agrees, check
    (device,) = check.devices
    # esxtop: 39,402 Commands/sec at GAVG 3.23 ms (ACTV 64 + QUED 63).
    assert device.captured_rate == pytest.approx(39_402, abs=1) and device.captured_response_ms == 3.23
    assert abs(device.rate_off) <= 0.05 and abs(device.response_off or 1) <= 0.20
    fitted = {f.field: f.value for f in check.fitted}
    # 39,402 × 3.23 ms = 127.3 in flight: 128 outstanding, 128 / 39,402 − 3.23 ms = 18.6 µs of think time.
    assert fitted["workloads.533030303031.outstanding"] == "128 outstanding, 18.6 µs of think time"
    # Round robin at iops=1000 works one path at a time under that queue: the rate is one port's
    # capacity, so a back end step barely moves the response and the port's service is fitted to
    # the rate instead (the importer's one-path rule gave 1e6 / 39,402 = 25.4 µs; the model's
    # switches overlap two paths a little, so the port is a little slower).
    assert fitted["arrays.EMC.service"] == "26.9 µs per command (was 25.4)"
    assert "arrays.EMC.read_latency" not in fitted


def test_devices_of_one_array_at_responses_one_back_end_cannot_give_are_not_ranked(tmp_path) -> None:
    rates = diskstats(tmp_path / "diskstats.txt", {"dm-0": (5_000, 0.3), "dm-1": (5_000, 3.0)})
    done = pathlab("advise", str(FALCON), str(rates), "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    check = out["in_force_against_capture"]
    assert check["agrees"] is False
    assert "array FALCON has one back end time for its devices" in check["why"], check["why"]
    assert out["candidates"] == [] and out["recommendation"] is None
    report = tmp_path / "advice.html"
    text = pathlab("advise", str(FALCON), str(rates), "--html", str(report)).stdout
    assert "They do not agree: " in text and "No prediction: the setting in force, simulated, does not reproduce" in text
    assert "Candidates" not in text
    html = report.read_text()
    assert "<h2>The setting in force, captured against simulated</h2>" in html and "They do not agree: " in html
    # The scenario block holds what was simulated: the file, and the values fitted to the captures.
    block = html[html.index("<h2>Scenario</h2>"):html.index("<h2>Provenance</h2>")]
    assert "# Set over it when simulated (dotted keys, as --set gives them):" in block
    assert "workloads.0.outstanding = " in block and \
        "  # fitted to the captures (the setting in force, captured against simulated)" in block, block[-1500:]


def test_a_response_no_array_back_end_gives_is_said_and_not_ranked(tmp_path) -> None:
    rates = diskstats(tmp_path / "diskstats.txt", {"dm-1": (200, 80.0), "dm-2": (100, 80.0)})
    host = _host(NETAPP, rates)
    check = fit_to_capture(host.scenario, host.tables, host.captured)
    assert check is not None and not check.agrees
    assert "it would need a back end slower than 30 ms beyond its ports' service" in (check.why or ""), check.why
    # Nothing is ranked, but what the listings show of the failure timers is still said.
    with quiet():
        advice = advise([str(NETAPP), str(rates)])
    assert not advice.candidates and any("Failure timers" in f.title for f in advice.findings), \
        [f.title for f in advice.findings]


def test_an_nvme_head_in_iostat_is_fitted_from_its_r_await_and_w_await(tmp_path) -> None:
    listing = DATA / "nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt"
    header = "Device            r/s     rkB/s r_await     w/s     wkB/s w_await  aqu-sz  %util\n"
    report = header + "nvme0n1      6000.00  24000.00    0.40 2000.00   8000.00    0.80    4.00  90.00\n"
    rates = tmp_path / "iostat.txt"
    rates.write_text("Linux 6.8.0 (ubuntu) \t11/28/2026 \t_x86_64_\t(8 CPU)\n\n" + report + "\n" + report)
    host = _host(listing, rates)
    (load,) = host.captured
    # (6,000 × 0.40 + 2,000 × 0.80) / 8,000 = 0.50 ms at 8,000 I/O/s: 4 in flight.
    assert load.rate == 8_000 and load.response_ms == pytest.approx(0.5) and load.outstanding == pytest.approx(4.0)
    assert load.where == f"{rates}: nvme0n1's reads and writes per second, their mean latencies"
    check = fit_to_capture(host.scenario, host.tables, host.captured)
    assert check is not None and check.agrees, check
    fitted = {f.field: f.value for f in check.fitted}
    assert fitted["workloads.nvmesubsys0.outstanding"] == "4 outstanding, 0.0 µs of think time"
    # 0.5 ms less the path's round trip and the assumed 10 µs port: the rest is the array's.
    assert fitted["arrays.NETAPP.read_latency"].startswith("0.4")


def test_a_capture_whose_intervals_spread_allows_as_much_between_captured_and_simulated(tmp_path) -> None:
    # dm-1 at 10,000 then 30,000 reads per s, 0.5 ms each: a mean of 20,000 whose 95% half-width
    # over two intervals is Student's t for 1 degree of freedom (12.706) × 10,000 / 20,000 = 635%
    # of it (1.96 said 98%: a normal quantile for two values); dm-2 steady.
    rates = tmp_path / "diskstats.txt"
    rates.write_text("TS 1700000001.0\n 253 1 dm-1 0 0 0 0 0 0 0 0 0 0 0\n 253 2 dm-2 0 0 0 0 0 0 0 0 0 0 0\n"
                     "TS 1700000002.0\n 253 1 dm-1 10000 0 160000 5000 0 0 0 0 0 1000 5000\n"
                     " 253 2 dm-2 1000 0 16000 500 0 0 0 0 0 1000 500\n"
                     "TS 1700000003.0\n 253 1 dm-1 40000 0 640000 20000 0 0 0 0 0 2000 20000\n"
                     " 253 2 dm-2 2000 0 32000 1000 0 0 0 0 0 2000 1000\n")
    host = _host(NETAPP, rates)
    bursty = next(c for c in host.captured if c.device == "360a98aaaa72d444e423464685a786175")
    assert bursty.rate == 20_000 and bursty.rate_spread == pytest.approx(12.706204736174707 / 2)
    assert bursty.response_ms == 0.5 and bursty.response_spread == 0.0
    check = fit_to_capture(host.scenario, host.tables, host.captured)
    assert check is not None
    tolerance = {d.device: d.rate_tolerance for d in check.devices}
    assert tolerance == {"360a98aaaa72d444e423464685a786175": pytest.approx(12.706204736174707 / 2),
                         "360a98aaaa470505a684a656930385a4a": 0.05}


def test_a_predicted_gain_says_the_load_it_rests_on() -> None:
    """The recommendation's gain holds at a load: the captured one where the setting in force
    reproduces it (the sum of the devices' captured rates), else the scenario's own workloads."""
    from types import SimpleNamespace

    from pathlab.advisor.capture_check import CaptureCheck, DeviceFigures
    from pathlab.output.advice import assumed_load

    def device(rate: float) -> DeviceFigures:
        return DeviceFigures("naa.1", rate, 1.0, rate, 1.0, 0.05, 0.20, "esxtop.csv")

    agreed = CaptureCheck((device(30_000.4), device(9_402)), (), None, 4, 2.0, 1)
    assert assumed_load(SimpleNamespace(capture_check=agreed, hosts=())).startswith(  # type: ignore[arg-type]
        "The load it assumes: the captured one (39,402 I/O per s in force over 2 device(s)), as the workloads fitted")
    disagreed = CaptureCheck((device(30_000),), (), "the response needs a back end slower than 30 ms", 6, 2.0, 1)
    for check in (None, disagreed):
        assert assumed_load(SimpleNamespace(capture_check=check, hosts=())) == (  # type: ignore[arg-type]
            "The load it assumes: the scenario's [[workloads]], not a capture of the host's own")
    # A cluster's scenario file: its hosts' workloads.
    assert assumed_load(SimpleNamespace(capture_check=None, hosts=("esx-a", "esx-b"))) == (  # type: ignore[arg-type]
        "The load it assumes: the scenario's [[workloads]], not a capture of the hosts' own")


def test_a_device_simulated_at_no_rate_never_agrees_and_a_capture_without_time_gives_no_response() -> None:
    """A quiet device's run may simulate no I/O: its tolerance comes from the I/Os the capture
    expects in the run, and nothing simulated never matches a captured rate. An I/O counted
    with no time (0 ms) is no response to reproduce."""
    import pandas as pd

    from pathlab.advisor.capture_check import DeviceFigures
    from pathlab.importer.captured_load import from_rates

    quiet = DeviceFigures("dm-1", 0.3, 0.5, 0.0, 0.0, 1.96, 1.96, "diskstats.txt")
    assert quiet.rate_off == -1.0 and not quiet.agrees
    rates = pd.DataFrame([{"device": "dm-1", "reads_per_s": 10_000.0, "writes_per_s": 0.0,
                           "read_latency_ms": 0.0, "write_latency_ms": float("nan")}])
    load = from_rates(rates, "dm-1", "mpatha", "diskstats.txt")
    assert load is not None and load.rate == 10_000 and load.response_ms is None
    assert load.where == "diskstats.txt: dm-1's reads and writes per second"


def test_an_arrays_many_captured_responses_are_said_as_their_range() -> None:
    """A cluster's array may hold hundreds of devices: a disagreement lists its captured
    responses one by one up to eight, and beyond that says their range (session 15: the 4 x 50
    generated cluster listed 200)."""
    from pathlab.advisor.capture_check import DeviceFigures, _Array, _why
    from pathlab.advisor.fit_level import Unit

    def device(i: int, ms: float) -> DeviceFigures:
        return DeviceFigures(f"esx01/naa.{i}", 1_000, ms, 1_500 if i == 0 else 1_000, ms, 0.05, 0.20, "esxtop.csv")

    def said(responses: list[float]) -> str | None:
        figures = [device(i, ms) for i, ms in enumerate(responses)]
        return _why([(Unit("device", f.device, (f.device,), 1.0, f.captured_rate), f) for f in figures],
                    [_Array(0, "EMC", 20.0, 0.0, True, True, [f.device for f in figures])], 6)

    assert said([1.0, 1.1, 0.9]) == ("esx01/naa.0 was captured at 1,000 I/O/s in 1.000 ms and simulated at 1,500 I/O/s in "
                                     "1.000 ms (allowed: rate ±5%, response ±20%): array EMC has one back end time for its "
                                     "devices, and their captured responses (1.000 ms, 1.100 ms, 0.900 ms) are further apart "
                                     "than one time gives")
    assert (said([1.0 + i / 100 for i in range(200)]) or "").endswith(
        "their captured responses (1.000 to 2.990 ms over 200 devices) are further apart than one time gives; furthest "
        "from the others: esx01/naa.0, captured at 1.000 ms against the median of the array's devices, 1.995 ms")
