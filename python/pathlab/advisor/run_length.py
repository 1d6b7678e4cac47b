"""How long advise simulates each run: long enough for the host's own time scales, and no longer.

The figures a decision rests on settle once enough I/Os have gone down every path and the
policy in force has gone round its paths many times; a host doing 400,000 I/O per s over 500
devices gets there in a second or two of simulated time, where the fixed default (20 s after 5 s
of warm-up) simulates ten times as much. A short pilot run of the setting in force measures each
device's rate; the length is what the slowest class of alike devices (`alike.classes`) needs:

    I/Os of the class = paths × PER_PATH_IOS

counted over the class's devices together (alike devices are exchangeable: the host-wide figures
gain as much from an I/O on one as on another; a device unlike every other is a class of its own
and gets the whole count) unless they wait for each other at a saturated port (`saturated`: then
per device), and, where the policy sends several I/Os down a path in a row, ROTATIONS rotations
(`rotations`): each device's own (a device that stays on one path for the whole run shows its
ports' load as one draw, however many devices are alike), or, where that is past the full length,
those of the devices going round together, as the capture fit counts them (`fit_level`: a host's
devices on one array through the same ports, else an array's, each keeping its ports at work).
On a cluster of 4 hosts × 50 devices that ranks as the full length does
(`tests/test_advise_cluster_length.py`); on 2 hosts × 50 devices at iops=100 on ports of 200 µs
the setting in force's rate was 8% above the full length's (turns trapped on crowded ports over
tens of turns: the design page of the cluster's capture fit). A candidate whose policy samples its paths first gets
a warm-up through each device's first sampling (`samples_per_path`), one that learns them the
full warm-up (`learns`). Capped at the full length, and never shorter than HOST_IOS over the host
(a p99 from enough I/Os beyond it). Scenarios with their own timeline (scheduled faults, host
pauses, bursts, an array's balancing: `Scenario.timeline`) keep the full length: their events are
placed on it.

A cluster's advice (`per_host`) ranks by the cluster's I/O rate and the worst host's p99, a
quantile of each host's own I/Os (`host_figures`): HOST_IOS are counted on each host (the slowest
busy one), and devices at a saturated port are counted over their host's class like the others,
not one by one, as no figure the cluster's decision reads is a device's. Per device they asked
the full length on 32 hosts × 500 devices × 8 paths (16,000 devices at 12.5 I/O/s on four
saturated ports: 800 I/Os each, 64 s), where the hosts' own count asks 3.2 s (4.4 s at the rates
the 0.1 s pilot measures, shorter than the 80 ms responses, so erring long); and there the full
length settles nothing either: at iops=1 the p99 climbs with the run (88-90, 95-96, 104-115 ms at
1, 3 and 8 s; 84 ms at iops=1000 throughout), a closed queue of 16,000 I/Os over four ports whose
split wanders for far longer than any run advise makes, and the ranking is the same at 3.2 s as at
20 s (docs/benchmarks.md, session 18). One host's length keeps the saturated devices' own count
(`saturated`: its evidence is one host's)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from pathlab.advisor import fit_level, pilot_rows
from pathlab.advisor.host_figures import host_figures
from pathlab.advisor.rotations import ROTATIONS, in_a_row
from pathlab.api import Result, Scenario
from pathlab.devices import Device
from pathlab.progress import Progress, run_batch

if TYPE_CHECKING:
    from pathlab.advisor.ranges import AtEnd

#: I/Os per path (of a device, or of a class of alike devices together): the count's relative
#: spread is then about 1/sqrt(100) = 10% per path.
PER_PATH_IOS = 100
#: I/Os over the whole host: 200 of them beyond its p99.
HOST_IOS = 20_000
#: The pilot run that measures the rates, in simulated seconds (warm-up a quarter of it).
PILOT_S = 0.1
#: Warm-up as a share of the measurement, as in the default 5 s before 20 s.
WARMUP_SHARE = 0.25
#: The warm-up holds this many times a device's first path sampling (the I/Os of the sampling
#: come back late on a loaded path: margin for them).
SAMPLING_MARGIN = 2
#: A port at least this busy in the pilot is saturated: the devices using it wait for each other
#: (`saturated`). Measured on 14 generated hosts of 8 paths over 4 ports (session 10,
#: `scripts/saturation_line_check.py`: the p99 of runs counted over the class against 20 s runs):
#: closed loops of one I/O per device kept it within 2.4% up to 96% busy (100% busy, 500 devices:
#: 5.1 against 7.7 ms); open loops of 500 devices at a Poisson rate lost 1% at 76% busy, 2% at 80%,
#: 3% at 83%, 4.2% at 85.3%, 5.9% at 88%, 10% at 91%, 22% at 96%: a queue near its capacity
#: settles over a time that grows as 1/(1-sqrt(busy))^2, longer than the short run. So the line is
#: where the open loops pass decide.py's 5% margin (session 9's 95%, from two hosts, was too high).
SATURATED_PCT = 85.0
#: Simulated seconds are given to the engine in microseconds.
_GRANULE_S = 1e-6


@dataclass(frozen=True)
class RunLength:
    duration_s: float
    warmup_s: float
    #: Why this length, for the progress line.
    reason: str
    #: The warm-up of a run whose policy samples its paths first (`samples_per_path`): long
    #: enough for every device's first sampling; the other runs need no more than `warmup_s`.
    sampling_warmup_s: float = 0.0
    #: The warm-up of a run whose policy learns its paths from every completion (`learns`).
    learning_warmup_s: float = 0.0

    def overrides(self, devices: list[Device] | None = None) -> dict[str, str]:
        """The run length of a candidate whose policies are those of `devices` (as resolved)."""
        params = [d.policy.params for d in devices or []]
        warmup = max([self.warmup_s, *(self.sampling_warmup_s for p in params if samples_per_path(p)),
                      *(self.learning_warmup_s for p in params if learns(p))])
        return {"run.duration": _seconds(self.duration_s), "run.warmup": _seconds(warmup)}

    def same_runs(self, other: RunLength) -> bool:
        """Whether the runs both simulate take the same length: a span's end's leaves out what only
        pathlab's own policy needs (its learning warm-up), as the end does not simulate it."""
        return (self.duration_s, self.warmup_s, self.sampling_warmup_s) == \
            (other.duration_s, other.warmup_s, other.sampling_warmup_s)


def pilot_length() -> dict[str, str]:
    """A pilot run's length, measured as one interval."""
    return {"run.duration": _seconds(PILOT_S), "run.warmup": _seconds(PILOT_S * WARMUP_SHARE),
            "run.interval": _seconds(PILOT_S)}


def pilot_run(base: Scenario | AtEnd, progress: Progress | None = None) -> tuple[Scenario, Result]:
    """`base`'s pilot (loaded to be run at once: its model is built by its run, which makes the
    load's checks) and its run, its largest tables holding the fields the pilot's passes read
    (`pilot_rows.ROWS`): a cluster's pilot, the ends' and the capture fit's runs."""
    pilot = base.with_set(pilot_length(), to_run=True)
    (run,) = run_batch([pilot], progress, path_intervals=False, rows=pilot_rows.ROWS)
    return pilot, run


def choose(pilot: Result, full_s: float, full_warmup_s: float, alike: list[list[str]],
           simulated: list[list[Device]], per_host: bool = False) -> RunLength:
    """The length from the pilot run's rates and the classes of alike devices, at most the full
    one; for the runs of a policy that samples its paths first, a warm-up long enough for every
    device to finish the first sampling of each such policy `simulated` gives it (every
    candidate's resolved devices). `per_host`: a cluster's, whose ranking reads each host's
    figures (the module's last paragraph)."""
    grouped = pilot_rows.grouped(pilot)
    keys = grouped.keys  # names, `HOST/NAME` for a LUN several hosts have
    devices = dict(zip(keys, pilot.data["devices"], strict=True))
    bytes_per_io = pilot.data["summary"]["bytes_per_io"]
    # Per device, over the setting in force and every candidate: the most I/Os a policy sends
    # down a path in a row, and the most paths it may spread over (a candidate's round robin
    # goes over every active-optimized path where the setting in force, MRU or Fixed, has one).
    optimized = {grouped.key_of[owner]: list(map(_state, paths)).count("active") for owner, paths in grouped.paths.items()}
    samples: dict[str, int] = {}
    rows: dict[str, float] = {}
    limits = _Limits(bytes_per_io)
    for resolved in [pilot.setups, *simulated]:
        for key, d in zip(keys, resolved, strict=True):  # every candidate's devices in the scenario's order
            sampling_ios, in_row = limits.of(d.policy.params)
            samples[key] = max(samples.get(key, 0), sampling_ios)
            rows[key] = max(rows.get(key, 1.0), in_row)
    rates = _device_rates(pilot)
    needed_s = sampling_s = 0.0
    crowded = set() if per_host else saturated(pilot)
    pooled = 0
    for names in alike:
        class_rate = sum(rates.get(name, 0.0) for name in names)
        if class_rate <= 0:
            continue  # idle devices need no length
        # A device's own time scales at the class's mean rate (alike devices' rates differ in a short pilot only
        # by its noise).
        device_rate = class_rate / len(names)
        paths = max(len(devices[names[0]]["working_paths"]), optimized.get(names[0], 0), 1)
        # Counted over the class where its devices do not wait for each other; per device where they do.
        counted_rate = device_rate if names[0] in crowded else class_rate
        pooled += counted_rate == class_rate and len(names) > 1
        needed_s = max(needed_s, paths * PER_PATH_IOS / counted_rate)
        sampling_s = max(sampling_s, SAMPLING_MARGIN * paths * max(samples.get(n, 0) for n in names) / device_rate)
    # The policies' rotations, counted where the devices going round together complete them (`fit_level`).
    level, rotations_s = rotations(pilot, rates, rows, {k: max(len(d["working_paths"]), optimized.get(k, 0), 1)
                                                        for k, d in devices.items()}, full_s)
    needed_s = max(needed_s, rotations_s)
    host_rates = [f["iops"] for f in host_figures(pilot.data).values()] if per_host else [pilot.data["summary"]["iops"]]
    host_rate = min((r for r in host_rates if r > 0), default=0.0)
    if host_rate > 0:
        needed_s = max(needed_s, HOST_IOS / host_rate)
    if needed_s <= 0 or needed_s >= full_s:
        return RunLength(full_s, full_warmup_s, "the full length: the host's slowest device needs it",
                         full_warmup_s, full_warmup_s)
    duration = _round_up(needed_s)
    warmup = min(round(duration * WARMUP_SHARE, 6), full_warmup_s)
    sampling_warmup = min(_round_up(sampling_s), full_warmup_s) if sampling_s > warmup else 0.0
    counted = f", counted over {pooled:,} class{'es' if pooled > 1 else ''} of alike devices" if pooled else ""
    # Capped at the full warm-up: past it the runs measure the first sampling too, and say so.
    reach = ", to the end of every device's first sampling" if sampling_s <= full_warmup_s else \
        (f", short of the slowest device's first sampling ({_round_up(sampling_s):g} s at these rates, past the full "
         "warm-up): their runs measure the sampling too")
    sampled = f"; {sampling_warmup:g} s of warm-up for the policies that sample their paths first{reach}" \
        if sampling_warmup else ""
    learning = any(learns(d.policy.params) for resolved in simulated for d in resolved)
    learned = f"; {full_warmup_s:g} s for pathlab's own policy, which learns its paths" if learning else ""
    per = {"device": "", "port group": " per port group (a host's devices on one array through the same ports, going "
                                        "round together)", "array": " per array (its devices going round together)"}[level]
    hosts = f", {HOST_IOS:,} I/Os of each host for its p99" if per_host else ""
    return RunLength(duration, warmup,
                     f"{PER_PATH_IOS} I/Os per path{counted}{hosts} and {ROTATIONS} rotations of the policy{per} at the "
                     f"rates a {PILOT_S:g} s pilot run measured{sampled}{learned}", sampling_warmup,
                     full_warmup_s if learning else 0.0)


def rotations(pilot: Result, rates: dict[str, float], rows: dict[str, float], paths: dict[str, int],
              full_s: float) -> tuple[str, float]:
    """The level at which the devices' `ROTATIONS` rotations are counted, and the run they need:
    each device's own (a device going round its paths alone), or, where that is longer, the
    finest level whose every unit completes them within `full_s` with its ports kept at work
    (`fit_level.resolved`: a host's devices on one array through the same ports, or an array's
    devices, go round together and their summed figures settle with their summed rotations).
    `rows` and `paths`: per device (by its key), the most I/Os in a row and paths of any candidate."""
    if all(r <= 1 for r in rows.values()):
        return "device", 0.0  # a policy choosing per I/O goes round within PER_PATH_IOS
    grouped = pilot_rows.grouped(pilot)
    key_of = grouped.key_of
    array_of = {key: d.array.name for key, d in zip(grouped.keys, pilot.setups, strict=True)}
    busy = {k: r for k, r in rates.items() if r > 0}
    every = fit_level.units(pilot, busy, lambda host, name: key_of[host, name], array_of, rows, paths)
    alone = max((ROTATIONS / u.rotations_per_s for u in every if u.level == "device"), default=0.0)
    found = fit_level.resolved(every, full_s)
    return found if found is not None and found[1] < alone else ("device", alone)


def saturated(pilot: Result) -> set[str]:
    """Devices with a path through a port the pilot found saturated (at least SATURATED_PCT busy)
    or an adapter with I/Os queued. Their waits depend on every other device's queue at once,
    and that joint state moves only as fast as each device issues I/Os: alike devices there are
    not independent draws, and the p99 needs each device's own count (measured on the 500-device
    host, ports 100% busy: p99 5.1 ms over 0.11 s counted over the class, 7.0 ms from 0.5 s on,
    7.7-7.8 ms in 20 s runs; 500 devices at a Poisson rate, ports 91% busy: 0.85 against 0.95 ms;
    `SATURATED_PCT` has the rest)."""
    ports = {p["name"] for p in pilot.data["ports"] if p["util_pct"] >= SATURATED_PCT}
    adapters = {(a["host"], a["name"]) for a in pilot.data["adapters"] if a["qued"] > 0}
    key_of = pilot_rows.grouped(pilot).key_of
    return {key_of[p["host"], p["device"]] for p in pilot.data["paths"]
            if p["target"] in ports or (p["host"], p["adapter"]) in adapters}


def learns(params: Any) -> bool:
    """Whether a policy learns each path's latency from its completions, starting from nothing:
    pathlab's gated-least-load (`tau_ms`, `probe_ms`). How many I/Os per path its estimates need
    is not measured, so its runs keep the full warm-up (in 0.25 s runs after 0.05 s of warm-up on
    5,000 devices at 20 I/O/s each, 4 I/Os per device, its p99 was 16 ms against 0.28 ms for round
    robin: all devices started on the same paths)."""
    return "tau_ms" in params and "probe_ms" in params


def samples_per_path(params: Any) -> int:
    """I/Os a latency-sampling policy sends down each path before it judges them: NMP round
    robin's `type = "latency"` (num_sampling_cycles) and HPP's LB-Latency (sampling_ios_per_path);
    0 for the others. They sample again only every `latency_eval_time` (30 s to 3 min), so a
    run whose warm-up holds the first sampling measures the policy as it runs between samplings
    (a run without it measured round robin: 199,800 I/O/s for the latency sub-type on the
    500-device host in 0.11 s runs, against 130,000-150,000 from 0.6 s of warm-up on, as in 20 s)."""
    if params.get("type") == "latency":
        return int(params["num_sampling_cycles"])
    if params.get("scheme") == "LB-Latency":
        return int(params["sampling_ios_per_path"])
    return 0


_state = itemgetter("state")


class _Limits:
    """Each policy's `samples_per_path` and `in_a_row` at the run's I/O size, worked out once for
    each policy's parameters (the devices of one candidate mostly share them: 16,000 devices and
    four candidates on 32 hosts × 500 devices × 8 paths)."""

    def __init__(self, bytes_per_io: float) -> None:
        self._bytes_per_io = bytes_per_io
        self._known: dict[tuple[tuple[str, Any], ...], tuple[int, float]] = {}

    def of(self, params: Any) -> tuple[int, float]:
        try:
            # Equal parameters, equal limits: both are worked out from the values alone.
            held = tuple(params.items())
            found = self._known.get(held)
        except TypeError:  # a value that is no key (a list): worked out each time
            return samples_per_path(params), in_a_row(params, self._bytes_per_io)
        if found is None:
            found = self._known[held] = (samples_per_path(params), in_a_row(params, self._bytes_per_io))
        return found


def _device_rates(pilot: Result) -> dict[str, float]:
    """Each device's I/O rate, the mean over the pilot's intervals."""
    rows: dict[str, list[float]] = {}
    for r in pilot.data["device_intervals"]:
        rows.setdefault(r["name"], []).append(r["cmds_s"])
    return {name: sum(v) / len(v) for name, v in rows.items()}


def _round_up(seconds: float) -> float:
    """Up to two significant digits, for a length people read (2.2 s, not 2.10526 s)."""
    step = 10.0 ** (math.floor(math.log10(seconds)) - 1)
    return round(math.ceil(seconds / step - 1e-9) * step, 6)  # 0.83, not 0.8300000000000001


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
