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


def cluster_text(hosts: int, devices: int, paths: int = 8, duration: str = "3s", interval: str = "1s") -> str:
    """A generated cluster: `hosts` ESXi hosts (esx01, esx02, ...) with two adapters each, every
    host on the same `devices` LUNs of one VMAX (NAAs as a VMAX numbers them, so the import knows
    the array) through its `paths` // 2 ports on each adapter, round robin iops=1000 as ESXi's
    default claim rule sets it, one 8 KiB I/O outstanding on each device of each host (70% reads).
    Its views (`show --host`) and `run --esxtop-csv` are the captures `bench --advise` imports."""
    adapters = ["vmhba1", "vmhba2"]
    ports = [f"FA-{p + 1}D:4" for p in range(paths // 2)]
    names = [f"esx{h:02d}" for h in range(1, hosts + 1)]
    adapter_list = "adapters = [" + ", ".join(f'{{ name = "{a}", queue_depth = 4096 }}' for a in adapters) + "]"
    lines = ['name = "generated-cluster"', "[run]", f'duration = "{duration}"', 'warmup = "0s"',
             f'interval = "{interval}"', "[host]", f'name = "{names[0]}"', adapter_list]
    for host in names[1:]:
        lines += ["[[hosts]]", f'name = "{host}"', adapter_list]
    lines += ["[[arrays]]", 'name = "vmax"', 'vendor = "EMC"', 'model = "SYMMETRIX"', "symmetric = true",
              'service = { fixed = "20us", distribution = "exponential" }',
              "ports = [" + ", ".join(f'{{ name = "{p}" }}' for p in ports) + "]",
              "[[fabric]]", "adapters = [" + ", ".join(f'"{h}/{a}"' for h in names for a in adapters) + "]",
              "ports = [" + ", ".join(f'"vmax/{p}"' for p in ports) + "]", 'latency = "50us"',
              "[policy]", 'name = "VMW_PSP_RR"', 'type = "iops"', "iops = 1000"]
    luns = [f"naa.60000970000197900123{n:010x}" for n in range(devices)]
    for host in names:
        for lun, naa in enumerate(luns):
            lines += ["[[devices]]", f'name = "{naa}"', 'array = "vmax"', f"lun = {lun}", f'host = "{host}"',
                      "queue_depth = 32"]
    lines += ["[[workloads]]", "devices = [" + ", ".join(f'"{h}/{n}"' for h in names for n in luns) + "]",
              "outstanding = 1", 'block_size = "8KiB"', "read_pct = 70"]
    return "\n".join(lines) + "\n"
