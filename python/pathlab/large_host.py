"""A large host as a scenario: N devices, each with 8 paths (2 adapters × 4 array ports), for
measuring what validation and the start of a run cost at scale."""

from __future__ import annotations


def scenario_text(devices: int) -> str:
    lines = [
        'name = "large-host"',
        "[run]",
        'duration = "1s"',
        'interval = "1s"',
        "[host]",
        'adapters = [{ name = "vmhba1" }, { name = "vmhba2" }]',
        "[[arrays]]",
        'name = "a"',
        'service = { fixed = "20us" }',
        'ports = [{ name = "P0" }, { name = "P1" }, { name = "P2" }, { name = "P3" }]',
        "[[fabric]]",
        'adapters = ["vmhba1", "vmhba2"]',
        'ports = ["a/P0", "a/P1", "a/P2", "a/P3"]',
        'latency = "2us"',
        "[policy]",
        'name = "VMW_PSP_RR"',
        "iops = 1",
    ]
    names = [f"naa.6{n:031x}" for n in range(devices)]
    for lun, name in enumerate(names):
        lines += ["[[devices]]", f'name = "{name}"', 'array = "a"', f"lun = {lun}"]
    lines += ["[[workloads]]", "devices = [" + ", ".join(f'"{n}"' for n in names) + "]", "outstanding = 1"]
    return "\n".join(lines) + "\n"
