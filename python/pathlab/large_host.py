"""Generated hosts for the benchmarks: N devices with P paths each (P array ports, one adapter
or two), for measuring what validation, the start of a run and each simulated I/O cost at scale."""

from __future__ import annotations


def scenario_text(devices: int, paths: int = 8, outstanding: int = 1, duration: str = "1s", busy: int | None = None,
                  servers: int = 1, arrays: int = 1, rate: float | None = None) -> str:
    """`devices` devices spread over `arrays` arrays (device i on array i mod `arrays`), each
    device with `paths` paths (one per port of its array; two adapters when `paths` is even),
    round robin after every I/O, `outstanding` I/Os on each of the first `busy` devices (default:
    every device), or with `rate` Poisson arrivals of that many I/Os per second each instead; the
    others are idle. Each port serves `servers` I/Os at once (enough of them, and no I/O waits at
    a port)."""
    adapters = ["vmhba1", "vmhba2"] if paths % 2 == 0 else ["vmhba1"]
    ports = paths // len(adapters)
    port_names = [f"P{p}" for p in range(ports)]
    array_names = ["a"] + [f"a{i}" for i in range(1, arrays)]
    lines = [
        'name = "large-host"',
        "[run]",
        f'duration = "{duration}"',
        'warmup = "0s"',
        f'interval = "{duration}"',
        "[host]",
        "adapters = [" + ", ".join(f'{{ name = "{a}", queue_depth = 1000000 }}' for a in adapters) + "]",
    ]
    for array in array_names:
        lines += [
            "[[arrays]]",
            f'name = "{array}"',
            f'service = {{ fixed = "20us", distribution = "exponential", servers = {servers} }}',
            "ports = [" + ", ".join(f'{{ name = "{p}" }}' for p in port_names) + "]",
        ]
    lines += [
        "[[fabric]]",
        "adapters = [" + ", ".join(f'"{a}"' for a in adapters) + "]",
        "ports = [" + ", ".join(f'"{array}/{p}"' for array in array_names for p in port_names) + "]",
        'latency = "50us"',
        "[policy]",
        'name = "VMW_PSP_RR"',
        'type = "iops"',
        "iops = 1",
    ]
    names = [f"naa.6{n:031x}" for n in range(devices)]
    for lun, name in enumerate(names):
        array = array_names[lun % arrays]
        lines += ["[[devices]]", f'name = "{name}"', f'array = "{array}"', f"lun = {lun}",
                  f"queue_depth = {max(outstanding, 1)}"]
    working = names[: devices if busy is None else busy]
    load = f"rate = {rate}" if rate is not None else f"outstanding = {outstanding}"
    lines += ["[[workloads]]", "devices = [" + ", ".join(f'"{n}"' for n in working) + "]", load]
    return "\n".join(lines) + "\n"
