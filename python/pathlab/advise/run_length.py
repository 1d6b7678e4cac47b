"""How long advise simulates each run: long enough for the host's own time scales, and no longer.

The figures a decision rests on settle once every device has moved enough I/Os down every path
and the policy in force has gone round its paths many times; a host doing 400,000 I/O per s over
500 devices gets there in a second or two of simulated time, where the fixed default (20 s after
5 s of warm-up) simulates ten times as much. A short pilot run of the setting in force measures
each device's rate; the length is what the slowest device needs:

    I/Os per device = paths × max(PER_PATH_IOS, ROTATIONS × I/Os the policy sends down a path in a row)

capped at the full length, and never shorter than HOST_IOS over the host (a p99 from enough I/Os
beyond it). Scenarios with their own timeline (scheduled faults, host pauses) keep the full
length: their events are placed on it."""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass
from typing import Any

from pathlab.api import Result, Scenario

#: I/Os per device and path: the count's relative spread is then about 1/sqrt(100) = 10% per
#: path, and every candidate's per-path sampling fits (ESXi's latency sub-type samples each path
#: num_sampling_cycles = 16 times before it chooses).
PER_PATH_IOS = 100
#: Full rotations of the policy in force per device: a rotation cut short at the end of the run
#: then weighs at most 1/20 on the device's figures.
ROTATIONS = 20
#: I/Os over the whole host: 200 of them beyond its p99.
HOST_IOS = 20_000
#: The pilot run that measures the rates, in simulated seconds (warm-up a quarter of it).
PILOT_S = 0.1
#: Warm-up as a share of the measurement, as in the default 5 s before 20 s.
WARMUP_SHARE = 0.25
#: Simulated seconds are given to the engine in microseconds.
_GRANULE_S = 1e-6


@dataclass(frozen=True)
class RunLength:
    duration_s: float
    warmup_s: float
    #: Why this length, for the progress line.
    reason: str

    def overrides(self) -> dict[str, str]:
        return {"run.duration": _seconds(self.duration_s), "run.warmup": _seconds(self.warmup_s)}


def pilot_length() -> dict[str, str]:
    """A pilot run's length, measured as one interval."""
    return {"run.duration": _seconds(PILOT_S), "run.warmup": _seconds(PILOT_S * WARMUP_SHARE),
            "run.interval": _seconds(PILOT_S)}


#: Keys of a host, workload or array that place events on the timeline: host pauses, a
#: workload's periodic bursts, an array's balancing passes (a run shorter than their period would
#: show a burst or a pass, or none of them, instead of their share).
TIMED_KEYS = ("pauses", "burst", "balance")


def has_timeline(scenario: Scenario) -> bool:
    """Whether the scenario places events on its timeline (faults, host pauses, bursts, an
    array's balancing): those need the full length."""
    table = tomllib.loads(scenario.text)
    tables = [table.get("host", {}), *table.get("hosts", []), *table.get("workloads", []), *table.get("arrays", [])]
    overridden = [k for k, _ in scenario.overrides]
    return bool(table.get("faults")) or any(key in t for t in tables for key in TIMED_KEYS) or \
        any(k.startswith("faults") or set(k.split(".")) & set(TIMED_KEYS) for k in overridden)


def choose(pilot: Result, full_s: float, full_warmup_s: float) -> RunLength:
    """The length from the pilot run's rates, at most the full one."""
    devices = {d["name"]: d for d in pilot.data["devices"]}
    rates = _device_rates(pilot)
    needed_s = 0.0
    for setup in pilot.setups:
        rate = rates.get(setup.name, 0.0)
        paths = max(len(devices[setup.name]["working_paths"]), 1)
        if rate <= 0:
            continue  # an idle device needs no length
        ios = paths * max(PER_PATH_IOS, ROTATIONS * in_a_row(setup.policy.params, pilot.data["summary"]["bytes_per_io"]))
        needed_s = max(needed_s, ios / rate)
    host_rate = pilot.data["summary"]["iops"]
    if host_rate > 0:
        needed_s = max(needed_s, HOST_IOS / host_rate)
    if needed_s <= 0 or needed_s >= full_s:
        return RunLength(full_s, full_warmup_s, "the full length: the host's slowest device needs it")
    duration = _round_up(needed_s)
    return RunLength(duration, min(duration * WARMUP_SHARE, full_warmup_s),
                     f"{PER_PATH_IOS} I/Os per device and path and {ROTATIONS} rotations of the policy on every "
                     f"device at the rates a {PILOT_S:g} s pilot run measured")


def in_a_row(params: Any, bytes_per_io: float) -> float:
    """I/Os a policy sends down one path before it moves on: round robin's `iops` (or its `bytes`
    in I/Os of the host's size), dm-multipath's rr_min_io; 1 for the policies that choose per I/O."""
    kind = params.get("type")
    if kind == "bytes" and "bytes" in params:
        return max(params["bytes"] / (bytes_per_io or 1.0), 1.0)
    runs = [params[k] for k in ("iops", "rr_min_io", "rr_min_io_rq") if k in params and kind in (None, "iops")]
    return float(max([1, *runs]))


def _device_rates(pilot: Result) -> dict[str, float]:
    """Each device's I/O rate, the mean over the pilot's intervals."""
    rows: dict[str, list[float]] = {}
    for r in pilot.data["device_intervals"]:
        rows.setdefault(r["name"], []).append(r["cmds_s"])
    return {name: sum(v) / len(v) for name, v in rows.items()}


def _round_up(seconds: float) -> float:
    """Up to two significant digits, for a length people read (2.2 s, not 2.10526 s)."""
    step = 10.0 ** (math.floor(math.log10(seconds)) - 1)
    return math.ceil(seconds / step - 1e-9) * step


def _seconds(value: float) -> str:
    return f"{round(value / _GRANULE_S)}us"


def same_ranking(full: list[dict[str, Any]], short: list[dict[str, Any]]) -> bool:
    """Whether two rankings (advise's JSON candidates, in order) agree wherever the longer one's
    intervals tell two candidates apart (on the I/O rate or the p99): the order of candidates
    within each other's intervals is the seeds' noise, not the length's."""
    position = {c["label"]: n for n, c in enumerate(short)}
    for n, a in enumerate(full):
        for b in full[n + 1:]:
            apart = any(abs(a["figures"][f][0] - b["figures"][f][0]) > a["figures"][f][1] + b["figures"][f][1]
                        for f in ("iops", "p99_ms"))
            if apart and position[a["label"]] > position[b["label"]]:
                return False
    return True
