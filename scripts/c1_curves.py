"""C1's array away from its calibration point: prints I/O rate and mean response against
outstanding I/Os, against offered load in an open loop, and against LUN count, for iops=1 and
iops=1000, with the ports' BUSY refusals as the shipped scenario has them (`--no-busy` takes them
out, as `tests/test_c1_curves.py` does). Progress on stderr, tables on stdout.

    python scripts/c1_curves.py [--seconds 10] [--no-busy]
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib

from pathlab import Scenario
from pathlab.shipped import path as shipped_path

VARIANTS = ("iops1", "iops1000")
OUTSTANDING = (1, 4, 16, 32, 64, 128, 256, 512)
#: Offered load of the open loop, as a share of the working ports' capacity.
LOADS = (0.1, 0.5, 0.8, 0.9, 0.95)
LUN_COUNTS = (1, 2, 4, 8)
#: The ports each setting keeps working: iops=1 all four, iops=1000 one at a time.
WORKING_PORTS = {"iops1": 4, "iops1000": 1}


def run(text: str, variant: str, seconds: float, **overrides) -> dict:
    settings = {"run.duration": f"{seconds}s", "run.warmup": "2s", **overrides}
    print(f"  {variant} {overrides}", file=sys.stderr)
    return Scenario.from_text(text, "c1-vmax-1lun.toml", variant=variant, set=settings).run().data["summary"]


def without_busy(text: str) -> str:
    """The ports' BUSY refusals (fitted to the tails) taken out: the curves are then the queues'."""
    busy = re.search(r"^busy = .*\n", text, re.MULTILINE)
    assert busy, "the C1 scenario states its BUSY law on one line"
    return text.replace(busy.group(0), "")


def open_loop(text: str, rate: float) -> str:
    """The same host with vdbench's closed loop of 128 replaced by Poisson arrivals at `rate`."""
    closed = "outstanding = 128\n"
    assert text.count(closed) == 1
    return text.replace(closed, f'rate = {rate}\narrival = "poisson"\n')


def open_loop_at(text: str, load: float, variant: str) -> str:
    """The open loop offered `load` times the capacity of the ports `variant` keeps working
    (each a LUN's FIFO at its port: the file's `device_service`)."""
    port = tomllib.loads(text)["arrays"][0]["device_service"]["fixed"]
    one_lun_port = 1e6 / float(port.removesuffix("us"))
    return open_loop(text, load * WORKING_PORTS[variant] * one_lun_port)


def with_luns(text: str, count: int) -> tuple[str, list[str]]:
    """The C1 host with `count` LUNs on the same eight paths, and their names."""
    device = tomllib.loads(text)["devices"][0]
    names = [device["name"]] + [f'{device["name"][:-1]}{lun}' for lun in range(2, count + 1)]
    extra = "".join(f'\n[[devices]]\nname = "{n}"\narray = "{device["array"]}"\nlun = {lun}\nqueue_depth = {device["queue_depth"]}\n'
                    for lun, n in enumerate(names[1:], start=2))
    return text + extra, names


def row(label: str, figures: list[dict]) -> str:
    return f"| {label} | " + " | ".join(f"{s['iops']:,.0f}, {s['resp_ms']:.3f}" for s in figures) + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--no-busy", action="store_true")
    args = parser.parse_args()
    text = shipped_path("c1-vmax-1lun").read_text()
    if args.no_busy:
        text = without_busy(text)
    head = "| {} | iops=1: I/O/s, ms | iops=1000: I/O/s, ms |\n|---|---|---|"
    print(head.format("outstanding"))
    for n in OUTSTANDING:
        print(row(str(n), [run(text, v, args.seconds, **{"workloads.0.outstanding": n}) for v in VARIANTS]))
    print("\n" + head.format("offered load (share of the working ports' capacity)"))
    for load in LOADS:
        print(row(f"{load:.0%}", [run(open_loop_at(text, load, v), v, args.seconds) for v in VARIANTS]))
    print("\n" + head.format("LUNs (128 outstanding each)"))
    for luns in LUN_COUNTS:
        lun_text, names = with_luns(text, luns)
        print(row(str(luns), [run(lun_text, v, args.seconds, **{"workloads.0.devices": names}) for v in VARIANTS]))


if __name__ == "__main__":
    main()
