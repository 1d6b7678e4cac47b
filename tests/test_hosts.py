"""Several hosts on one array: each host has its own adapters, paths, stack time and pauses, and
they meet at the array's ports."""

from __future__ import annotations

import pytest

from conftest import pathlab
from pathlab import Scenario

TWO_HOSTS = """
[run]
duration = "4s"
warmup = "1s"
seed = 3

[host]
name = "esx-a"
adapters = [{{ name = "vmhba1" }}]
{pauses_a}

[[hosts]]
name = "esx-b"
adapters = [{{ name = "vmhba2" }}]
{pauses_b}

[[arrays]]
name = "shared"
service = {{ fixed = "10us", servers = {servers} }}
ports = [{{ name = "P0" }}]

[[fabric]]
adapters = ["vmhba1", "vmhba2"]
ports = ["shared/P0"]
latency = "10us"

[[devices]]
name = "naa.a1"
array = "shared"
lun = 1

[[devices]]
name = "naa.b1"
array = "shared"
lun = 1
host = "esx-b"

[policy]
name = "VMW_PSP_RR"

[[workloads]]
devices = ["naa.a1", "naa.b1"]
outstanding = {outstanding}
read_pct = 100
"""


def scenario(servers: int = 1, outstanding: int = 16, pauses_a: str = "", pauses_b: str = "") -> Scenario:
    text = TWO_HOSTS.format(servers=servers, outstanding=outstanding, pauses_a=pauses_a, pauses_b=pauses_b)
    return Scenario.from_text(text, "two-hosts.toml")


def device_rates(result) -> dict[str, float]:
    return {d["name"]: d["cmds_s"] for d in result.data["devices"]}


def test_each_host_reaches_the_lun_through_its_own_adapters_only() -> None:
    paths = scenario().describe()["paths"]
    assert {(p["device"], p["name"].split(":")[0]) for p in paths} == {("naa.a1", "vmhba1"), ("naa.b1", "vmhba2")}


def test_two_hosts_saturating_one_port_share_its_capacity_equally() -> None:
    # One FIFO port of 10 us serves 100,000 I/O/s; two symmetric hosts each get half.
    result = scenario(outstanding=16).run()
    rates = device_rates(result)
    assert sum(rates.values()) == pytest.approx(100_000, rel=0.005)
    assert rates["naa.a1"] == pytest.approx(50_000, rel=0.02)
    assert rates["naa.b1"] == pytest.approx(50_000, rel=0.02)


def test_a_pause_stops_only_its_own_host() -> None:
    # A port of two servers never queues one I/O from each host, so a host with one I/O in
    # flight cycles every 10 + 10 + 10 us (fabric, port, fabric) = 30 us. Host B pauses 1 ms at
    # Poisson instants 10 ms apart on average: each pause holds its one completion for about
    # the pause, so B loses 1/10 of its time, and A, which shares nothing but the idle port,
    # loses none.
    pauses = 'pauses = { every = "10ms", duration = "1ms" }'
    rates = device_rates(scenario(servers=2, outstanding=1, pauses_b=pauses).run())
    assert rates["naa.a1"] == pytest.approx(1e6 / 30, rel=0.002)
    assert rates["naa.b1"] == pytest.approx(1e6 / 30 * (1 - 1 / 10), rel=0.03)


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (('host = "esx-b"', 'host = "esx-c"'), "devices.1.host", 'unknown host "esx-c"; defined: esx-a, esx-b'),
        (('host = "esx-b"\n', ""), "devices.1.lun", 'LUN 1 is already used on array "shared" by host "esx-a"'),
        (('name = "esx-b"', 'name = "esx-a"'), "hosts", "esx-a"),
        # Adapter names are per host (every ESXi host has a vmhba1), so twice on one host.
        (('adapters = [{ name = "vmhba2" }]', 'adapters = [{ name = "vmhba2" }, { name = "vmhba2" }]'),
         "hosts.0.adapters.1.name", '"vmhba2" is defined twice'),
        (('adapters = [{ name = "vmhba2" }]', 'adapters = [{ name = "esx-a/vmhba2" }]'), "hosts.0.adapters.0.name",
         "an adapter name is one word without : /"),
        (('adapters = ["vmhba1", "vmhba2"]', 'adapters = ["vmhba1", "esx-c/vmhba2"]'), "fabric.0.adapters.1",
         'unknown host "esx-c" in "esx-c/vmhba2" (write HOST/NAME); hosts: esx-a, esx-b'),
        (('name = "esx-b"\n', 'name = "esx-b"\ncpus = 4\n'), "hosts.0.cpus", "every host shares [host]'s CPU topology"),
    ],
)
def test_bad_hosts_are_refused_by_field(tmp_path, change, field, message) -> None:
    text = TWO_HOSTS.format(servers=1, outstanding=1, pauses_a="", pauses_b="")
    assert change[0] in text
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace(change[0], change[1], 1))
    done = pathlab("validate", str(bad))
    assert done.returncode == 2
    assert field in done.stderr and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
