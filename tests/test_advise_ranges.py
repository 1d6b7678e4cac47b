"""The gain as a range over the assumptions that matter: an imported host whose port capacity no
capture shows gets, per candidate, the lowest and highest gain over the capacity's span, and those
ends are exactly the gains of separate runs at the span's ends (same seeds, same I/Os); a host whose
capture measured both its load and its ports gets one figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import pathlab
from host_text import host_tables
from pathlab.advisor.candidates import OWN_POLICY
from pathlab.advisor.ranges import assumed_settings, spans
from test_advise_in_force_capture import NETAPP, diskstats

CAPTURE = Path(__file__).parents[1] / "python" / "pathlab" / "captures" / "vmax-iops1000"
SHORT = ("--seeds", "2", "--duration", "1s", "--warmup", "0.5s", "--format", "json")


@pytest.fixture(scope="module")
def linux_host(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The NetApp listing with diskstats of its two maps at 20,000 and 5,000 I/O/s in 0.55 ms:
    the capture gives the load and the response (the back end time is fitted to them), not the
    ports' capacity, which is assumed."""
    rates = diskstats(tmp_path_factory.mktemp("linux") / "diskstats.txt", {"dm-1": (20_000, 0.55), "dm-2": (5_000, 0.55)})
    return [str(NETAPP), str(rates)]


def mru_capture(folder: Path) -> list[str]:
    """The shipped C1 capture with its device on MRU (one path carries I/O), written in `folder`:
    esxtop measures the load (ACTV + QUED), but no capture shows a port at capacity, so the
    port's was assumed; advise now fits it to the captured rate, one port's capacity under MRU
    (scripts/advise_assumption_spans.py advises on it)."""
    devices = (CAPTURE / "esxcli-storage-nmp-device-list.txt").read_text()
    lines = []
    for line in devices.splitlines():
        if "Path Selection Policy:" in line:
            line = "   Path Selection Policy: VMW_PSP_MRU"
        elif "Path Selection Policy Device Config:" in line:
            line = "   Path Selection Policy Device Config: Current Path=vmhba1:C0:T0:L1"
        elif "Working Paths:" in line:
            line = "   Working Paths: vmhba1:C0:T0:L1"
        lines.append(line)
    (folder / "devices.txt").write_text("\n".join(lines) + "\n")
    return [str(folder / "devices.txt"), str(CAPTURE / "esxcli-storage-nmp-path-list.txt"),
            str(CAPTURE / "esxtop-batch.csv")]


def _advise(files: list[str], *sets: str) -> dict:
    done = pathlab("advise", *files, *SHORT, *(a for s in sets for a in ("--set", s)))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _gains(document: dict) -> dict[str, float]:
    return {c["label"]: c["gain"] for c in document["candidates"]}


def test_the_range_ends_are_the_gains_of_runs_at_the_span_ends(linux_host: list[str]) -> None:
    central = _advise(linux_host)
    # The back end time is fitted to the capture's response (no longer a span); the port's
    # capacity the capture does not show (20,000 I/O/s over two paths keeps a 20 µs port 20% busy).
    assert central["gain_range_over"] == ["port capacity ±50% (13.33 to 40 µs per I/O instead of 20)"]
    # The span's ends, run on their own with the values fitted at the assumed ones: the ports'
    # service time 40 µs (capacity -50%) and 13.33 µs (+50%); a value the user sets is neither
    # assumed nor fitted, so these carry no range.
    fitted = central["in_force_against_capture"]["set"]
    ends = [_advise(linux_host, *fitted, *(f'arrays.{i}.service.fixed="{us}"' for i in (0, 1))) for us in ("40us", "13.33us")]
    assert all(e["gain_range_over"] is None and all(c["gain_range"] is None for c in e["candidates"]) for e in ends)
    for c in central["candidates"]:
        if c["label"] == OWN_POLICY:  # never recommended: not simulated at the ends (`rank._spanned`)
            assert c["gain_range"] is None
            continue
        gains = [c["gain"]] + [_gains(e)[c["label"]] for e in ends]
        assert c["gain_range"] == [min(gains), max(gains)], c["label"]
    assert any(c["label"] == OWN_POLICY for c in central["candidates"])


def test_the_table_and_the_report_show_the_range_and_what_it_is_over(linux_host: list[str], tmp_path: Path) -> None:
    report = tmp_path / "advice.html"
    done = pathlab("advise", *linux_host, *SHORT[:-2], "--html", str(report))
    assert done.returncode == 0, done.stderr
    document = _advise(linux_host)
    low, high = next(c["gain_range"] for c in document["candidates"] if c["label"] == "dm multibus")
    cell = f"{low:.2f}x to {high:.2f}x"
    assert cell in done.stdout and "port capacity ±50% (13.33 to 40 µs per I/O instead of 20)" in done.stdout
    html = report.read_text()
    assert cell in html and "13.33 to 40 µs per I/O instead of 20" in html


def test_a_capture_that_shows_a_port_at_capacity_spans_only_the_zero_load_time() -> None:
    """The shipped capture: round robin at iops=1000 under 127 outstanding shows one port's
    capacity, and esxtop the load; the array's latency at low load no capture shows, so the gain
    spans the zero-load time alone, and more of it lowers round robin's gain (measured 3.75x to
    3.54x in 20 s runs): queueing the change removes weighs less beside a fixed delay."""
    document = _advise(["vmax-iops1000"])
    (over,) = document["gain_range_over"]
    assert over.startswith("the array's zero-load time 0-0.3 ms")
    rr = next(c for c in document["candidates"] if c["label"] == "round robin, iops=1")
    low, high = rr["gain_range"]
    assert high == rr["gain"] and low < 0.97 * high


def test_assumed_port_capacity_and_load_are_found_by_their_provenance() -> None:
    text = "\n".join([
        "[[arrays]]", 'name = "A"', 'service = { fixed = "20.0us", distribution = "exponential" }  # capture.csv: measured',
        "[[arrays]]", 'name = "B"', 'service = { fixed = "20.0us", distribution = "exponential" }  # default: no capture',
        "[[workloads]]", 'name = "w0"', "outstanding = 12  # capture.csv: ACTV + QUED",
        "[[workloads]]", 'name = "w1"', "outstanding = 32  # default: no esxtop capture of this device",
    ])
    host = host_tables(text)  # each `# default` read back as assumed
    assert assumed_settings(host) == [("arrays", 1, "service"), ("workloads", 1, "outstanding")]
    found = spans(host, [])
    assert [s.ends for s in found] == [
        (['arrays.1.service.fixed="40us"'], ['arrays.1.service.fixed="13.33us"']),
        (["workloads.1.outstanding=8"], ["workloads.1.outstanding=64"]),
        ([], ['arrays.0.read_latency="300us"', 'arrays.0.write_latency="300us"',
              'arrays.1.read_latency="300us"', 'arrays.1.write_latency="300us"']),
    ]
    assert found[1].over == "load 8-64 outstanding per device where none was measured (w1)"
    assert [s.over.split(" ")[0] for s in spans(host, ["workloads.*.outstanding=16"])] == ["port", "the"]
    # An array whose latency a capture showed, or the user set, is not spanned.
    measured = text.replace('name = "B"', 'name = "B"\nread_latency = "120us"')
    assert spans(host_tables(measured), ['arrays.0.read_latency="50us"'])[-1].over.startswith("load")


def test_a_value_the_user_set_is_not_spanned_whatever_the_shape_of_the_override() -> None:
    """Session 9 read the override's key alone: a whole table (`arrays.1={...}`) or a whole array
    of tables (`workloads=[...]`) holding the value left it spanned as if assumed."""
    text = "\n".join([
        "[[arrays]]", 'name = "A"', 'service = { fixed = "20.0us" }  # default', 'read_latency = "100us"',
        'write_latency = "100us"',
        "[[workloads]]", 'name = "w0"', "outstanding = 32  # default",
    ])
    host = host_tables(text)
    assert [s.over.split(" ")[0] for s in spans(host, [])] == ["port", "load"]
    assert [s.over.split(" ")[0] for s in spans(host, ['arrays.0={ service = { fixed = "25us" } }'])] == ["load"]
    assert [s.over.split(" ")[0] for s in spans(host, ['arrays.*={ service = { fixed = "25us" } }'])] == ["load"]
    assert [s.over.split(" ")[0] for s in spans(host, ['workloads=[{ name = "w0", outstanding = 16 }]'])] == ["port"]
    # A table that leaves the value out still leaves it assumed.
    assert [s.over.split(" ")[0] for s in spans(host, ['arrays.0={ name = "A" }'])] == ["port", "load"]
