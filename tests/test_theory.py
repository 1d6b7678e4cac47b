"""The engine against queueing theory: a model that fails these is not the one intended."""

from __future__ import annotations

import pytest

from pathlab import Scenario

ONE_PORT = """
[run]
duration = "{duration}"
warmup = "2s"
interval = "10s"
seed = 11

[host]
adapters = [{{ name = "vmhba1", queue_depth = 100000 }}]

[[arrays]]
name = "a"
service = {{ fixed = "10us", {shape} }}
ports = [{{ name = "P0" }}]

[[fabric]]
adapters = ["vmhba1"]
ports = ["a/P0"]
latency = "0us"

[[devices]]
name = "naa.1"
array = "a"
queue_depth = 65535

[policy]
name = "VMW_PSP_RR"

[[workloads]]
devices = ["naa.1"]
{load}
read_pct = 100
"""


def mean_response_us(shape: str, load: str, duration: str = "100s") -> tuple[float, dict]:
    text = ONE_PORT.format(shape=shape, load=load, duration=duration)
    summary = Scenario.from_text(text, "one-port.toml").run().data["summary"]
    return summary["resp_ms"] * 1000, summary


@pytest.mark.parametrize(
    ("shape", "expected_us"),
    [
        # M/M/1: R = S / (1 - rho) = 10 / 0.2
        ('distribution = "exponential"', 50.0),
        # M/D/1 (Pollaczek-Khinchine): R = S + rho S / (2 (1 - rho)) = 10 + 20
        ('distribution = "fixed"', 30.0),
        # M/G/1 with lognormal service, cv 0.5: R = S + rho S (1 + cv^2) / (2 (1 - rho)) = 10 + 25
        ('distribution = "lognormal", cv = 0.5', 35.0),
    ],
)
def test_poisson_stream_into_one_port_at_80_percent_load_matches_mg1(shape: str, expected_us: float) -> None:
    resp_us, summary = mean_response_us(shape, 'rate = 80000\narrival = "poisson"')
    assert summary["iops"] == pytest.approx(80000, rel=0.01)
    assert resp_us == pytest.approx(expected_us, rel=0.03)


def test_evenly_spaced_arrivals_below_capacity_never_wait() -> None:
    # D/D/1 at 80%: every I/O finds the port idle, so response is the service time exactly.
    resp_us, summary = mean_response_us('distribution = "fixed"', 'rate = 80000\narrival = "uniform"', "5s")
    assert resp_us == pytest.approx(10.0, abs=1e-3)
    assert summary["resp_max_ms"] == pytest.approx(0.010, abs=1e-6)


@pytest.mark.parametrize("outstanding", [1, 8, 64])
def test_closed_loop_obeys_littles_law(outstanding: int) -> None:
    _, s = mean_response_us('distribution = "exponential"', f"outstanding = {outstanding}", "20s")
    assert s["queue_depth"] == pytest.approx(outstanding, rel=1e-6)
    assert s["iops"] * s["resp_ms"] / 1000 == pytest.approx(outstanding, rel=0.01)


def test_minimal_model_matches_mean_value_analysis(scenarios) -> None:
    # bench-minimal: 8 ports with 4 I/Os each, 100 us of delay and 25 us of exponential
    # service; exact MVA gives 220,600 I/O/s at 145.1 us.
    s = Scenario.load(scenarios / "bench-minimal.toml").run().data["summary"]
    assert s["iops"] == pytest.approx(220_600, rel=0.02)
    assert s["resp_ms"] == pytest.approx(0.1451, rel=0.02)


def tandem(load: str, *, port: str = "10us", controller: str = "10us", one_way: str = "0us",
           duration: str = "60s", seed: int = 11) -> dict:
    """The one-port model with a controller behind the port: two exponential stations in series."""
    one_port = ONE_PORT.format(shape='distribution = "exponential"', load=load, duration=duration)
    changes = {
        'service = { fixed = "10us", distribution = "exponential" }\nports = [{ name = "P0" }]':
            f'symmetric = true\nservice = {{ fixed = "{port}", distribution = "exponential" }}\n'
            f'controllers = [{{ name = "c", service = {{ fixed = "{controller}", distribution = "exponential" }} }}]\n'
            'ports = [{ name = "P0", controller = "c" }]',
        'latency = "0us"': f'latency = "{one_way}"',
        "seed = 11": f"seed = {seed}",
    }
    text = one_port
    for old, new in changes.items():
        assert old in text, old
        text = text.replace(old, new)
    return Scenario.from_text(text, "tandem.toml").run().data["summary"]


def test_two_exponential_stations_in_series_match_jackson() -> None:
    # Port then controller, 10 us exponential each, Poisson 80,000/s: by Jackson's theorem each
    # is an independent M/M/1 at rho = 0.8, so the sojourn is Erlang-2 with rate mu - lambda =
    # 20,000/s: mean 2 / 20,000 = 100 us; P(T > t) = e^(-rt)(1 + rt) gives p50 83.9 us and p99
    # 331.9 us. Correlated service draws at the two stations would move all three.
    s = tandem('rate = 80000\narrival = "poisson"')
    assert s["iops"] == pytest.approx(80_000, rel=0.01)
    assert s["resp_ms"] * 1000 == pytest.approx(100.0, rel=0.015)
    assert s["p50_ms"] * 1000 == pytest.approx(83.9, rel=0.015)
    assert s["p99_ms"] * 1000 == pytest.approx(331.9, rel=0.03)


def mean_value_analysis(population: int, demands_us: list[float], delay_us: float) -> tuple[float, float]:
    """Exact MVA for a closed network of FIFO exponential stations and one pure delay."""
    queue = [0.0] * len(demands_us)
    throughput, response = 0.0, 0.0
    for n in range(1, population + 1):
        residence = [d * (1 + q) for d, q in zip(demands_us, queue)]
        response = delay_us + sum(residence)
        throughput = n / response
        queue = [throughput * r for r in residence]
    return throughput * 1e6, response


@pytest.mark.parametrize("outstanding", [2, 8, 32])
def test_closed_network_of_two_stations_matches_mean_value_analysis(outstanding: int) -> None:
    # 20 us exponential port, 30 us exponential controller, 25 us each way on the wire (a read
    # crosses it twice: a pure delay of 50 us).
    s = tandem(f"outstanding = {outstanding}", port="20us", controller="30us", one_way="25us", duration="30s")
    iops, resp_us = mean_value_analysis(outstanding, [20.0, 30.0], 50.0)
    assert s["iops"] == pytest.approx(iops, rel=0.02)
    assert s["resp_ms"] * 1000 == pytest.approx(resp_us, rel=0.02)


def test_host_pauses_delay_completions_as_poisson_pauses_predict() -> None:
    # Pauses of D = 10 ms at Poisson instants, h = 20/s, into evenly spaced arrivals on an idle
    # 10 us port. A completion waits while the host is paused, and a pause that starts during
    # the wait extends it. With W(r) the expected wait left when r of the current pause
    # remains, W(r) = (1 - e^(-hr)) e^(hD) / h (a new pause within r restarts D); a completion
    # at a random time has r = (D - A)+ with A ~ Exp(h) the time since the last start, so the
    # mean wait is (e^(hD) - 1) / h - D = 1.0701 ms. A completion waits at all with probability
    # 1 - e^(-hD) = 18.1%: the median is the bare service time, the 90th percentile a long wait.
    text = ONE_PORT.format(shape='distribution = "fixed"', load='rate = 10000\narrival = "uniform"',
                           duration="200s")
    text = text.replace("[host]\n", '[host]\npauses = { every = "50ms", duration = "10ms" }\n')
    s = Scenario.from_text(text, "pauses.toml").run().data["summary"]
    assert s["iops"] == pytest.approx(10_000, rel=0.01)
    assert s["resp_ms"] == pytest.approx(1.0701 + 0.010, rel=0.03)
    assert s["p50_ms"] == pytest.approx(0.010, abs=1e-4)
    assert s["p90_ms"] > 1.0
