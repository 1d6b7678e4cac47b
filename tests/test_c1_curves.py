"""C1's array away from its calibration point: response and rate against outstanding I/Os, against
offered load in an open loop, and against LUN count, each expected value derived here from the
component figures the scenario file states (host stack, fabric, link, port, the LUN's FIFO at
the port, director, cache).

The ports' BUSY refusals (fitted to the published tails) are taken out: these curves are the
queues', and a refusal would only add its own retry delay to the few I/Os it meets.
"""

from __future__ import annotations

import re
import sys
import tomllib

import pytest

from conftest import ROOT, SCENARIOS
from pathlab import Scenario

sys.path.insert(0, str(ROOT / "scripts"))
from c1_curves import open_loop, with_luns, without_busy  # noqa: E402 - the script that prints these curves

SCENARIO = "c1-vmax-1lun"


def _ns(text: str) -> float:
    value, unit = re.fullmatch(r"([0-9.]+)\s*(ns|us|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]


class Components:
    """What the scenario file states, in ns, and the figures that follow from it."""

    def __init__(self, text: str) -> None:
        spec = tomllib.loads(text)
        array = spec["arrays"][0]
        self.host_ns = _ns(spec["host"]["stack_time"])
        self.one_way_ns = _ns(spec["fabric"][0]["latency"])
        # Fibre Channel's speed name: 100 MB/s of payload per "G" (16GFC: 1.6 bytes per ns).
        link = spec["host"]["adapters"][0]["link_speed"]
        assert link.endswith("GFC"), link
        link_bytes_per_ns = float(link.removesuffix("GFC")) / 10
        self.serialise_ns = 8192 / link_bytes_per_ns
        self.port_ns = _ns(array["service"]["fixed"])
        self.lun_ns = _ns(array["device_service"]["fixed"])
        # Every station's time is lognormal with this coefficient of variation.
        self.cv = array["service"]["cv"]
        assert array["device_service"]["cv"] == self.cv
        self.ports = len(array["ports"])
        self.director_ns = _ns(array["controllers"][0]["service"]["fixed"])
        self.read_cache_ns = _ns(array["read_latency"])
        self.write_cache_ns = _ns(array["write_latency"])
        self.queue_depth = spec["devices"][0]["queue_depth"]

    def zero_load_ns(self) -> float:
        """An 8 KiB I/O through an idle host, half reads and half writes, as the route walks it:
        a read crosses once each way and its data comes back serialised; a write waits a round
        trip for the target's transfer-ready, then sends its data."""
        inside = self.port_ns + self.lun_ns + self.director_ns
        read = 2 * self.one_way_ns + self.serialise_ns + inside + self.read_cache_ns
        write = 4 * self.one_way_ns + self.serialise_ns + inside + self.write_cache_ns
        return self.host_ns + (read + write) / 2

    def port_capacity(self) -> float:
        """One LUN through one port: its FIFO there, the slower of the two stations in series."""
        return 1e9 / max(self.lun_ns, self.port_ns)

    def mg1_wait_ns(self, station_ns: float, rate: float) -> float:
        """Pollaczek-Khinchine: the mean wait of a Poisson stream at `rate` into one FIFO server."""
        rho = rate * station_ns / 1e9
        return rho * station_ns * (1 + self.cv**2) / (2 * (1 - rho))


def switch_overlap(parts: Components, variant: str) -> float:
    """How much more than the working ports' capacity a closed loop past the knee can get: at
    each switch of iops=1000 the old port still holds up to a device queue of I/Os and drains
    them while the new port starts, so up to `queue_depth` of every 1000 I/Os are served in
    parallel with the next path's (less the new port's zero-load pipeline); at iops=1, 0.5% for
    the sample mean of lognormal service times."""
    return 1 + parts.queue_depth / 1000 if variant == "iops1000" else 1.005


@pytest.fixture(scope="module")
def c1_text() -> str:
    return without_busy((SCENARIOS / f"{SCENARIO}.toml").read_text())


@pytest.fixture(scope="module")
def parts(c1_text) -> Components:
    return Components(c1_text)


def run(text: str, variant: str, **overrides) -> dict:
    settings = {"run.duration": "4s", "run.warmup": "1s", **overrides}
    return Scenario.from_text(text, f"{SCENARIO}.toml", variant=variant, set=settings).run().data["summary"]


@pytest.mark.parametrize("variant", ["iops1", "iops1000"])
def test_one_outstanding_io_answers_in_the_sum_of_the_zero_load_times(c1_text, parts, variant) -> None:
    s = run(c1_text, variant, **{"workloads.0.outstanding": 1})
    assert s["resp_ms"] * 1e6 == pytest.approx(parts.zero_load_ns(), rel=0.005)
    assert s["iops"] == pytest.approx(1e9 / parts.zero_load_ns(), rel=0.005)


@pytest.mark.parametrize(("variant", "ports_at_work"), [("iops1", 4), ("iops1000", 1)])
@pytest.mark.parametrize("outstanding", [128, 512])
def test_past_the_knee_the_rate_is_the_working_ports_capacity_and_littles_law_gives_response(
    c1_text, parts, variant, ports_at_work, outstanding
) -> None:
    s = run(c1_text, variant, **{"workloads.0.outstanding": outstanding})
    capacity = ports_at_work * parts.port_capacity()
    # At iops=1 each LUN FIFO holds a quarter of the device queue, 16, a little past its knee
    # (0.34 ms / 26.5 us, about 13): with variable service it now and then runs dry (-1%).
    floor = 0.98 if variant == "iops1" else 0.995
    assert capacity * floor <= s["iops"] <= capacity * switch_overlap(parts, variant)
    assert s["resp_ms"] / 1000 == pytest.approx(outstanding / s["iops"], rel=0.005)


def test_below_the_knee_iops1_rate_grows_with_outstanding_ios_as_the_closed_loop_bounds_say(c1_text, parts) -> None:
    # Asymptotic bounds of a closed network: X(N) <= min(N / R0, capacity). With all four ports
    # working, the knee N* = R0 x capacity is about 50 I/Os (0.34 ms x 151,000 I/O/s).
    zero_load_s = parts.zero_load_ns() / 1e9
    capacity = parts.ports * parts.port_capacity()
    rates = {}
    for n in (2, 8, 32):
        rates[n] = run(c1_text, "iops1", **{"workloads.0.outstanding": n})["iops"]
        # (0.5% for the sample mean of lognormal service times, cv 0.5, over a 4 s run)
        assert rates[n] <= min(n / zero_load_s, capacity) * 1.005
    # Two and eight in flight barely queue (each port holds at most two): near N / R0; 32 (8 a
    # port, under each LUN FIFO's knee of about 13) waits a little more.
    assert rates[2] == pytest.approx(2 / zero_load_s, rel=0.01)
    assert rates[8] == pytest.approx(8 / zero_load_s, rel=0.03)
    assert rates[32] == pytest.approx(32 / zero_load_s, rel=0.10)


@pytest.mark.parametrize("load", [0.1, 0.5, 0.8])
def test_open_loop_iops1000_waits_as_mg1_stations_in_series_at_the_one_working_port(c1_text, parts, load) -> None:
    # iops=1000 keeps the stream on one port for 1000 I/Os at a time: the port's FIFO is an
    # M/G/1 queue (lognormal service) and the LUN's FIFO after it is fed by the port's
    # departures, smoother than Poisson, so it waits at most its own M/G/1 wait (the director,
    # at a fifth of a core per 12, hardly queues). Above 90% a queue takes longer to build than
    # a path keeps the stream, so M/G/1 overstates it.
    rate = load * parts.port_capacity()
    s = run(open_loop(c1_text, rate), "iops1000")
    port_wait = parts.mg1_wait_ns(parts.port_ns, rate)
    lun_wait = parts.mg1_wait_ns(parts.lun_ns, rate)
    assert s["iops"] == pytest.approx(rate, rel=0.01)
    assert (parts.zero_load_ns() + port_wait) * 0.99 <= s["resp_ms"] * 1e6
    assert s["resp_ms"] * 1e6 <= (parts.zero_load_ns() + port_wait + lun_wait) * 1.01


@pytest.mark.parametrize("load", [0.5, 0.9])
def test_open_loop_iops1_waits_less_than_mg1_since_rotation_evens_each_ports_arrivals(c1_text, parts, load) -> None:
    # Strict rotation hands each port every fourth arrival of a Poisson stream: Erlang-4 gaps,
    # less variable than Poisson, so each port waits less than M/G/1 at the same utilisation.
    capacity = parts.ports * parts.port_capacity()
    s = run(open_loop(c1_text, load * capacity), "iops1")
    per_port = load * parts.port_capacity()
    mg1_wait_ns = parts.mg1_wait_ns(parts.port_ns, per_port) + parts.mg1_wait_ns(parts.lun_ns, per_port)
    resp_ns = s["resp_ms"] * 1e6
    assert parts.zero_load_ns() < resp_ns < parts.zero_load_ns() + mg1_wait_ns


@pytest.mark.parametrize("luns", [1, 2, 4, 8])
def test_iops1_rate_is_the_luns_fifos_or_the_ports_whichever_binds_first(c1_text, parts, luns) -> None:
    text, names = with_luns(c1_text, luns)
    s = run(text, "iops1", **{"workloads.0.devices": names})
    # Each LUN alone saturates its four FIFOs (one a port); LUNs add FIFOs until the ports' own
    # service binds: X = min(LUNs x 4 / S_lun, 4 / S_port). More LUNs then only queue longer:
    # R = 128 x LUNs / X (Little's law).
    capacity = parts.ports * min(luns / parts.lun_ns, 1 / parts.port_ns) * 1e9
    assert s["iops"] == pytest.approx(capacity, rel=0.02)
    assert s["resp_ms"] / 1000 == pytest.approx(128 * luns / s["iops"], rel=0.01)


def test_iops1000_with_more_luns_uses_at_most_one_port_per_lun_and_never_less_than_one(c1_text, parts) -> None:
    # Each LUN keeps its whole queue on one port at a time, so N LUNs can keep at most min(N, 4)
    # ports busy, and never fewer than one; two LUNs on one port share its own service (60,000
    # I/O/s), more than one LUN's FIFO takes. Where in between they land depends on which path
    # each LUN starts on and how their rotations drift
    # (docs/design/2026-11-24-esxi-round-robin-switch.md).
    one_lun = parts.port_capacity()
    overlap = switch_overlap(parts, "iops1000")
    for luns in (1, 2, 4, 8):
        text, names = with_luns(c1_text, luns)
        rate = run(text, "iops1000", **{"workloads.0.devices": names})["iops"]
        assert one_lun * 0.995 <= rate <= min(luns * one_lun, parts.ports * 1e9 / parts.port_ns) * overlap
