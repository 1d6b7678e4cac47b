"""C2's AO-only setting (preferred array) away from its calibration point: prints I/O rate and mean
response against outstanding writes on one LUN and against LUN count (32 outstanding each), as
the calibration page's "C2 away from its calibration point" shows; `tests/test_c2_curves.py` checks
the same runs against the file's own figures. Progress on stderr, tables on stdout.

    python scripts/c2_curves.py [--seconds 20]
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from typing import Any

from pathlab import Scenario
from pathlab.shipped import path as shipped_path

C2 = shipped_path("c2-activecluster-distance")
VARIANT = "preferred_array"
OUTSTANDING = (1, 8, 32, 64, 128)
LUNS = (1, 2, 3, 4, 8)


def settings(outstanding: int = 32, luns: int = 1) -> dict[str, Any]:
    """`--set` overrides that give the C2 host `luns` copies of its device (each replicated) and
    `outstanding` writes in its closed loop on each."""
    device = dict(tomllib.loads(C2.read_text())["devices"][0])
    devices = [{**device, "name": device["name"][:-2] + f"{0x2d + k:02x}", "lun": 1 + k} for k in range(luns)]
    names = [d["name"] for d in devices]
    return {"devices": devices, "replication.0.devices": names, "workloads.0.devices": names,
            "workloads.0.outstanding": outstanding}


def run(seconds: float, **curve: int) -> dict[str, Any]:
    print(f"  {curve}", file=sys.stderr)
    over = {"run.duration": f"{seconds:g}s", "run.warmup": "2s", **settings(**curve)}
    return Scenario.load(C2, variant=VARIANT, set=over).run().data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    seconds = parser.parse_args().seconds
    print("| outstanding (1 LUN) | I/O/s | resp ms | DAVG | KAVG |\n|---|---|---|---|---|")
    for n in OUTSTANDING:
        data = run(seconds, outstanding=n)
        s, d = data["summary"], data["devices"][0]
        print(f"| {n} | {s['iops']:,.1f} | {s['resp_ms']:.3f} | {d['davg_ms']:.3f} | {d['kavg_ms']:.3f} |")
    print("\n| LUNs (32 each) | I/O/s | resp ms |\n|---|---|---|")
    for luns in LUNS:
        s = run(seconds, luns=luns)["summary"]
        print(f"| {luns} | {s['iops']:,.1f} | {s['resp_ms']:.3f} |")


if __name__ == "__main__":
    main()
