"""The small scenario the failure tests run: one ALUA array of two controllers, each a port, two
adapters zoned to both, one LUN owned by CT0 (P0), fixed service times; each test gives its host
stack, policy, load and fault. Short runs of it stay cheap in seconds of simulated time."""

from __future__ import annotations


def two_controllers(*, duration: str, seed: int, stack: str, policy: str, workload: str, fault: str,
                    write_latency: str = "100us", link_speed: str | None = None,
                    queue_depth: int | None = None) -> str:
    """The scenario's TOML: `stack` is the `[host.stack]` inline table's body, `policy`,
    `workload` and `fault` the lines of their tables."""
    speed = f', link_speed = "{link_speed}"' if link_speed else ""
    depth = f"queue_depth = {queue_depth}\n" if queue_depth is not None else ""
    return f"""
[run]
duration = "{duration}"
interval = "500ms"
seed = {seed}

[host]
adapters = [{{ name = "vmhba1"{speed} }}, {{ name = "vmhba2"{speed} }}]
stack = {{ {stack} }}

[[arrays]]
name = "a"
read_latency = "100us"
write_latency = "{write_latency}"
service = {{ fixed = "20us", distribution = "fixed", servers = 4 }}
tpgs = true
forward_latency = "200us"
controllers = [{{ name = "CT0" }}, {{ name = "CT1" }}]
ports = [{{ name = "P0", controller = "CT0" }}, {{ name = "P1", controller = "CT1" }}]

[[fabric]]
adapters = ["vmhba1", "vmhba2"]
ports = ["a/P0", "a/P1"]
latency = "10us"

[[devices]]
name = "naa.1"
array = "a"
lun = 3
{depth}
[policy]
{policy}

[[workloads]]
devices = ["naa.1"]
{workload}

[[faults]]
{fault}
"""
