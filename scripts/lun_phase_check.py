"""The LUN phase argument (docs/design/2026-11-29-lun-phases.md) against the engine: four LUNs at
VMW_PSP_RR iops=1000 on C3's eight paths and four FA ports. Each 5 ms interval, each LUN is put on
the port where most of its commands completed (its paths' `cmds_s`, per-device rows), and each
port's K (the LUNs on it) counted: the share of port-intervals at each K against Binomial(4, 1/4),
what independent phases would give, and the I/O rate against the phase argument's formula
Σ_ports min(K × a LUN's FIFO rate, the port's) over the measured K. Then the formula's per-state
rates on a one-port array (K = 1-4 LUNs). Progress on stderr, results on stdout.

    python scripts/lun_phase_check.py [--seconds 6] [--warmup 1] [--seeds 1] [--interval 0.005] [--setting NAME]
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections import Counter
from math import comb

from pathlab.api import Scenario
from pathlab.shipped import path as shipped_path

C3 = shipped_path("c3-vmax-4lun")
INTERVAL = 0.005
#: The settings run: C3 as shipped; every station's cv at 3.0 (noise far larger than the
#: model's); the port 10 times faster (no port binds, so nothing repels) with cv 3.0, where the
#: phases can only wander.
STATIONS = ("arrays.0.service", "arrays.0.device_service", "arrays.0.controllers.0.service",
            "arrays.0.controllers.1.service")
CV3 = {f"{station}.cv": 3.0 for station in STATIONS}
SETTINGS = {
    "C3 as shipped": {},
    "C3, every station's cv 3.0": CV3,
    "port 1.66 us (never binds), cv 3.0": {**CV3, "arrays.0.service.fixed": "1.66us"},
}


def rates(text: str) -> tuple[float, float]:
    """A LUN's FIFO at a port and the port, in I/O/s, from the file's service times."""
    array = tomllib.loads(text)["arrays"][0]
    return (1e6 / float(array["device_service"]["fixed"].removesuffix("us")),
            1e6 / float(array["service"]["fixed"].removesuffix("us")))


def binomial(luns: int, ports: int) -> dict[int, float]:
    """Each port's share of time with K LUNs if each LUN's port were uniform and independent."""
    p = 1 / ports
    return {k: comb(luns, k) * p**k * (1 - p) ** (luns - k) for k in range(luns + 1)}


def rate_over(shares: dict[int, float], ports: int, lun: float, port: float) -> float:
    """The phase argument's rate: each port carries min(K x a LUN's rate, the port's) for the
    share of time it has K LUNs."""
    return ports * sum(share * min(k * lun, port) for k, share in shares.items())


def occupancy(sets: dict, seconds: float, warmup: float, seed: int = 1,
              interval: float = INTERVAL) -> tuple[Counter, float, int]:
    """The count of port-intervals at each K, the run's I/O rate, and the intervals counted."""
    scenario = Scenario.load(C3, variant="iops1000", seed=seed, set={
        **sets, "run.duration": f"{seconds}s", "run.warmup": f"{warmup}s", "run.interval": f"{interval}s"})
    result = scenario.run()
    rows = result.path_intervals
    rows = rows[rows["t_s"] > warmup + 1e-9]  # the intervals cover the warm-up too: only the measured ones
    # vmhbaA:C0:Tp:Ln: port p (each target is one FA port on both HBAs), LUN n.
    rows = rows.assign(port=rows["name"].str.extract(r":T(\d+):")[0], lun=rows["name"].str.extract(r":L(\d+)$")[0])
    per_port = rows.groupby(["t_s", "lun", "port"])["cmds_s"].sum().reset_index()
    where = per_port.loc[per_port.groupby(["t_s", "lun"])["cmds_s"].idxmax()]
    where = where[where["cmds_s"] > 0]
    counts: Counter = Counter()
    ports = sorted(rows["port"].unique())
    for _, at in where.groupby("t_s"):
        on = Counter(at["port"])
        counts.update(on.get(port, 0) for port in ports)
    return counts, result.summary.iops, where["t_s"].nunique()


def one_port_rate(luns: int, seconds: float) -> float:
    """K LUNs on a one-port array (C3's file cut to FA-1D:4 and the first K devices)."""
    text = C3.read_text()
    names = [d["name"] for d in tomllib.loads(text)["devices"]]
    text = text.replace('''ports = [
  { name = "FA-1D:4", controller = "1D" },
  { name = "FA-2D:4", controller = "2D" },
  { name = "FA-1D:5", controller = "1D" },
  { name = "FA-2D:5", controller = "2D" },
]''', 'ports = [{ name = "FA-1D:4", controller = "1D" }]')
    text = text.replace('"vmax250f/FA-1D:4", "vmax250f/FA-2D:4", "vmax250f/FA-1D:5", "vmax250f/FA-2D:5"', '"vmax250f/FA-1D:4"')
    kept = names[:luns]
    text = text.replace(", ".join(f'"{n}"' for n in names), ", ".join(f'"{n}"' for n in kept))
    if luns < len(names):
        start = text.index(f'[[devices]]\nname = "{names[luns]}"')
        text = text[:start] + text[text.index("[policy]"):]
    scenario = Scenario.from_text(text, "one-port.toml", "iops1000", [f"run.duration={seconds}s", "run.warmup=0.2s"], 1)
    return scenario.run().summary.iops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--warmup", type=float, default=1.0, help="(ten times this where no port binds)")
    parser.add_argument("--seeds", type=int, default=1, help="pool the port-intervals of seeds 1..N")
    parser.add_argument("--interval", type=float, default=INTERVAL, help="the intervals' length, s")
    parser.add_argument("--setting", choices=list(SETTINGS), help="only this setting, and no one-port runs")
    args = parser.parse_args()
    lun, port = rates(C3.read_text())
    expected = binomial(4, 4)
    print("| setting | I/O/s | K=0 | K=1 | K=2 | K=3 | K=4 | formula over the measured K |\n|---|---:|---:|---:|---:|---:|---:|---:|")
    print("| independent phases (Binomial(4, 1/4)) | | " + " | ".join(f"{expected[k]:.3f}" for k in range(5))
          + f" | {rate_over(expected, 4, lun, port):,.0f} |")
    for label, sets in SETTINGS.items():
        if args.setting not in (None, label):
            continue
        warmup = args.warmup if not sets.get("arrays.0.service.fixed") else 10 * args.warmup
        counts, rates_, intervals = Counter(), [], 0
        for seed in range(1, args.seeds + 1):
            print(f"  {label}, seed {seed}", file=sys.stderr)
            seed_counts, seed_iops, seed_intervals = occupancy(sets, args.seconds, warmup, seed, args.interval)
            counts += seed_counts
            rates_.append(seed_iops)
            intervals += seed_intervals
        iops = sum(rates_) / len(rates_)
        total = sum(counts.values())
        share = {k: counts.get(k, 0) / total for k in range(5)}
        port_here = port if not sets.get("arrays.0.service.fixed") else 1e6 / 1.66
        formula = rate_over(share, 4, lun, port_here)
        print(f"| {label} ({intervals} intervals) | {iops:,.0f} | " + " | ".join(f"{share[k]:.3f}" for k in range(5))
              + f" | {formula:,.0f} |")
    if args.setting:
        return
    print("\n| LUNs on one port | I/O/s | min(K × LUN, port) |\n|---|---:|---:|")
    for k in range(1, 5):
        print(f"  one port, {k} LUNs", file=sys.stderr)
        print(f"| {k} | {one_port_rate(k, 2.0):,.0f} | {min(k * lun, port):,.0f} |")


if __name__ == "__main__":
    main()
