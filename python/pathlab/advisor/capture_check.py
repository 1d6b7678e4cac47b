"""The setting in force, simulated, must reproduce what the captures measured before any gain is
predicted against it: each device's I/O rate within 5% and its mean response within 20% (wider
where a device's I/Os in the short runs are too few to tell that closely, or where the capture's
own intervals spread so that it gives the mean less closely). Only what the captures
leave open is fitted:

- the load's shape: a closed loop of N = ⌈rate × response⌉ outstanding I/Os (Little's law on the
  captured figures) with a think time of N / rate − response after each completion, so that the
  loop issues at the captured rate when the model answers in the captured time;
- the array's own time, per array: no capture shows an array's port or back end at work alone (the
  importers derive them from the same rates and responses by simpler rules, or assume them). The
  response is fitted by the back end's time beyond the port's service (`read_latency`,
  `write_latency`), unless the rate is a port's capacity: the captured rate would keep a port at
  least `SATURATED_PCT` busy, or a back end step moves the response by less than half of itself
  (round robin working one path at a time under a deep queue keeps each port busy only while its
  turn lasts); then the port's service is fitted to the rate. A response no back end up to
  `SLOWEST_BACK_END_MS` gives, devices of one array that one back end time cannot all answer,
  or a port that would have to be faster than `FASTEST_PORT_US`, is a disagreement, said.

Each run is the setting in force at the scenario's seed (deterministic), as long as the level
the rotations rule judges needs (`fit_level`: per device where each device's policy goes round its
paths enough times in the run, else per port group or per array, the finer units then checked to
what their rotations allow), with `DEVICE_IOS` I/Os per unit of that level at its captured rate (at
most `LONGEST_S`, and at most `fit_level.FIT_IOS` I/Os in all), after a warm-up of a quarter of
it or, where devices' turns started together must spread over their ports, longer (`turn_spread`);
a pilot of `PILOT_IOS` I/Os gives the level first, and the fit takes at most `MOST_RUNS` fitting
runs. A value set with `--set` is the user's and is not fitted. Where the figures
cannot be made to agree, `CaptureCheck.why` says why and advise predicts nothing."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from pathlab.advisor import fit_level, pilot_rows
from pathlab.advisor.fit_level import LEVELS, Judged, Unit
from pathlab.advisor.run_length import SAMPLING_MARGIN, SATURATED_PCT, WARMUP_SHARE, in_a_row, samples_per_path
from pathlab.advisor.turn_spread import spread_s
from pathlab.api import Result, Scenario
from pathlab.devices import Device
from pathlab.importer.captured_load import CapturedLoad
from pathlab.importer.host_tables import HostTables
from pathlab.progress import Progress, run_batch

#: How close the simulated figures must come to the captured ones: the rate within 5% (advise's
#: margin: a gain smaller than that is not decided on) and the mean response within 20% (a
#: response moves with the load and the back end, which the captures show only as a mean).
RATE_TOLERANCE = 0.05
RESPONSE_TOLERANCE = 0.20
#: A run's I/Os per device (or per unit of the level judged) at its captured rate: a count of
#: 1,600 is known to ±1.96/40 ≈ 5%.
DEVICE_IOS = 1_600
#: The longest and shortest fitting run, in simulated seconds.
LONGEST_S = 2.0
SHORTEST_S = 0.05
#: The most runs the fit takes (the first one included; the pilot, `PILOT_IOS`, apart).
MOST_RUNS = 6
#: The pilot's I/Os over the whole scenario: enough for each device's working paths and the
#: mean I/O size, which give the level judged (`fit_level`) before any fitting run.
PILOT_IOS = 10_000
#: The slowest back end the fit gives an array beyond its ports' service: twice a 7,200 rpm
#: disk's read miss under load (about 15 ms). A response that needs more is not the array's
#: service but something the model lacks (a host's own queue, a congested fabric).
SLOWEST_BACK_END_MS = 30.0
#: The fastest port the fit gives: one command per µs (a million a second, beyond any array port).
FASTEST_PORT_US = 1.0
#: The most captured responses a disagreement lists one by one (a cluster's array may have hundreds).
SAID_RESPONSES = 8


@dataclass(frozen=True)
class DeviceFigures:
    """One device's captured and simulated rate and mean response, for the setting in force."""

    device: str
    captured_rate: float
    #: None where the capture has no time per I/O (the rate alone is compared).
    captured_response_ms: float | None
    simulated_rate: float
    simulated_response_ms: float
    #: How far apart they may be, as shares of the captured figures.
    rate_tolerance: float
    response_tolerance: float
    #: Where the captured figures come from.
    where: str
    #: The devices judged together (`fit_level.LEVELS`): a device, a host's port group, an array's devices.
    level: str = "device"

    @property
    def rate_off(self) -> float:
        """The simulated rate against the captured, as a share (+0.10: 10% above)."""
        return self.simulated_rate / self.captured_rate - 1

    @property
    def response_off(self) -> float | None:
        if not self.captured_response_ms:
            return None
        return self.simulated_response_ms / self.captured_response_ms - 1

    @property
    def agrees(self) -> bool:
        off = self.response_off
        if self.simulated_rate <= 0 < self.captured_rate:  # nothing simulated is never the captured load
            return False
        return abs(self.rate_off) <= self.rate_tolerance and (off is None or abs(off) <= self.response_tolerance)


@dataclass(frozen=True)
class Fitted:
    """A value fitted to the capture: the scenario field (by name), its value, and from what."""

    field: str
    value: str
    how: str


@dataclass(frozen=True)
class CaptureCheck:
    """The setting in force against the captures, after the fit."""

    devices: tuple[DeviceFigures, ...]
    fitted: tuple[Fitted, ...]
    #: Why the figures do not agree; None when they do.
    why: str | None
    #: The fitting runs taken, each this long (simulated seconds), at this seed.
    runs: int
    duration_s: float
    seed: int
    #: The fitted values as overrides of the scenario (dotted key to value, `Scenario.with_set`).
    overrides: dict[str, int | str] = field(default_factory=dict)
    #: The devices' figures together, per port group and per array (`level` says which).
    together: tuple[DeviceFigures, ...] = ()
    #: The level judged at the fit's tolerances, and why (`fit_level`): "device", "port group" or "array".
    judged: str = "device"
    judged_why: str = ""

    @property
    def agrees(self) -> bool:
        return self.why is None


@dataclass
class _Array:
    """An array whose time the fit may set, with what it has reached."""

    index: int
    name: str
    service_us: float
    back_end_us: float
    fit_service: bool
    fit_back_end: bool
    #: Its captured devices (a set: each unit of thousands is looked up in it).
    devices: frozenset[str]
    #: The port's service as the scenario had it, before the fit.
    was_service_us: float = 0.0
    #: Why the fit stopped short, if it did.
    stuck: str | None = None
    #: The back end time and mean response of the last run before a back end step.
    tried: tuple[float, float] | None = None
    #: Whether the devices' rate is their ports' capacity (a back end step moved their response little).
    port_bound: bool = False
    #: The port services tried whose rate came out above (the service is at least this) and below the captured one.
    service_above: float = 0.0
    service_below: float = math.inf


def fit_to_capture(scenario: Scenario, host: HostTables, captured: Sequence[CapturedLoad],
                   progress: Progress | None = None,
                   expected: Callable[[dict[str, int | str]], None] | None = None) -> CaptureCheck | None:
    """Fits what the captures leave open until the setting in force reproduces their figures, or
    says why it cannot; None when no captured device is a workload's own (nothing to compare).
    `scenario` is the host's (`host`, its typed tables) with the user's overrides, or a cluster's
    (its merged tables; each captured device named `HOST/NAME`, as its workloads name it): the
    hosts are fitted together, one back end and port time per array for every host on it.
    `expected`: given the values the fit starts from (its overrides where its first run agrees)
    before its first run (a cluster's own pilot goes ahead with them, `own_pilot`)."""
    tables = host.values(listed=False)  # its arrays and workloads
    given = {k for k, _ in scenario.overrides}
    resolved = scenario.devices  # once: a cluster's is a simulation built
    key = _keys(resolved)
    workloads = {w["devices"][0]: (i, w) for i, w in enumerate(tables.get("workloads", [])) if len(w["devices"]) == 1}
    compared = [c for c in captured if c.device in workloads and "rate" not in workloads[c.device][1]]
    if not compared:
        return None
    overrides: dict[str, int | str] = {}
    fitted: list[Fitted] = []
    for c in compared:
        i, w = workloads[c.device]
        if c.response_ms is None or any(k.startswith((f"workloads.{i}.", "workloads.*.")) for k in given):
            continue
        n = max(1, math.ceil(c.rate * c.response_ms / 1000 - 1e-9))
        think_us = max(0.0, (n / c.rate - c.response_ms / 1000) * 1e6)
        overrides[f"workloads.{i}.outstanding"] = n
        overrides[f"workloads.{i}.think_time"] = f"{think_us:.3f}us"
        fitted.append(Fitted(f"workloads.{w['name']}.outstanding", f"{n} outstanding, {think_us:.1f} µs of think time",
                             f"Little's law on {c.where}: {c.rate:,.0f} I/O/s times {c.response_ms:.3f} ms = "
                             f"{c.rate * c.response_ms / 1000:.2f} in flight"))
    device_array = {key(d.host, d.name): d.array.name for d in resolved}
    arrays = []
    for i, a in enumerate(tables.get("arrays", [])):
        mine = [c.device for c in compared if device_array.get(c.device) == a["name"]]
        service = a.get("service", {}).get("fixed")
        if not mine or service is None:
            continue
        user = lambda key, i=i: any(k.startswith((f"arrays.{i}.{key}", f"arrays.*.{key}")) for k in given)  # noqa: E731
        arrays.append(_Array(i, a["name"], _us(service), _us(a.get("read_latency", "0us")),
                             not user("service"), not user("read_latency") and not user("write_latency")
                             and a.get("read_latency") == a.get("write_latency"), frozenset(mine), _us(service)))
    if expected is not None:
        expected({**overrides, **_array_sets(arrays)})
    rates = {c.device: c.rate for c in compared}
    # The longest run: `LONGEST_S`, or shorter where the captured rate would put more than FIT_IOS I/Os in it.
    longest = max(SHORTEST_S, min(LONGEST_S, fit_level.FIT_IOS / sum(rates.values())))
    # A pilot of a few thousand I/Os gives the paths each device works and the I/O size, so the level
    # judged and its run's length are known before the first fitting run (which is never run twice).
    pilot = _run(scenario, {**_seconds(max(PILOT_IOS / sum(rates.values()), 1e-3), 0.0), **overrides,
                            **_array_sets(arrays)}, progress)
    units = fit_level.units(pilot, rates, key, device_array)
    level = fit_level.judged(units, longest, min(longest, max(SHORTEST_S, _sampling_s(pilot, rates, key))), DEVICE_IOS)
    duration = level.duration_s
    # The warm-up: a quarter of the run, or longer where started-together turns must spread first (at
    # most the longest run, so a run's I/Os stay bounded).
    warmup = max(duration * WARMUP_SHARE, min(longest, _spread_s(pilot, rates, key, arrays)))
    runs = 0
    while True:
        run = _run(scenario, {**_seconds(duration, warmup), **overrides, **_array_sets(arrays)}, progress)
        runs += 1
        checked = _checked(run, compared, duration, key, units, level)
        if runs >= MOST_RUNS or all(aimed for _, _, aimed in checked):
            break
        if not any([_step(a, run, checked) for a in arrays]):
            break
    overrides |= _array_sets(arrays)
    devices = [f for u, f, _ in checked if u.level == "device"]
    fitted += [f for a in arrays for f in _fitted(a, devices)]
    judged = [(u, f) for u, f, _ in checked]
    return CaptureCheck(tuple(devices), tuple(fitted), _why(judged, arrays, runs), runs, duration,
                        int(run.data["seed"]), overrides, tuple(f for u, f in judged if u.level != "device"),
                        level.level, level.why)


def _seconds(duration_s: float, warmup_s: float) -> dict[str, int | str]:
    return {"run.duration": f"{duration_s * 1e6:.0f}us", "run.warmup": f"{warmup_s * 1e6:.0f}us"}


def _spread_s(pilot: Result, rates: dict[str, float], key: Callable[[str, str], str], arrays: list[_Array]) -> float:
    """The warm-up the captured devices' turns need to spread over their ports (`turn_spread`),
    at their captured rates on their arrays' ports as the scenario has them."""
    service = {a.name: a.service_us / 1e6 for a in arrays}
    bytes_per_io = pilot.data["summary"]["bytes_per_io"]
    return spread_s((d.array.name, rates[name], in_a_row(d.policy.params, bytes_per_io), service.get(d.array.name, 0.0))
                    for d in pilot.setups if (name := key(d.host, d.name)) in rates)


def _run(scenario: Scenario, sets: dict[str, int | str], progress: Progress | None) -> Result:
    # Loaded to be run at once: the run builds its model, with the load's checks. Its largest tables with the
    # fields a pilot's passes read (`pilot_rows.ROWS`), of which the fit reads the devices' and paths' that
    # `fit_level.units` reads, and each device's rate and response.
    (run,) = run_batch([scenario.with_set(sets, to_run=True)], progress, path_intervals=False, rows=pilot_rows.ROWS)
    return run


def _keys(devices: Sequence[Device]) -> Callable[[str, str], str]:
    """A device's name as the workloads name it, from its host and name: `HOST/NAME` where the
    scenario's `devices` are on several hosts (a cluster: `cluster_merge` names every workload's
    device so), else its name."""
    several = len({d.host for d in devices}) > 1
    return lambda host, name: f"{host}/{name}" if several else name


def _checked(run: Result, compared: Sequence[CapturedLoad], duration_s: float, key: Callable[[str, str], str],
             units: Sequence[Unit], level: Judged) -> list[tuple[Unit, DeviceFigures, bool]]:
    """Every unit of every level (`fit_level.units`) with its captured and simulated figures (a
    group's rates summed, its responses weighted by the captured rates), their tolerances what the
    run allows, and whether the unit is where the fit aims (within the fit's own tolerances at
    the level judged and above)."""
    rows = {key(d["host"], d["name"]): d for d in run.data["devices"]}
    of = {c.device: c for c in compared}
    out = []
    for u in units:
        mine = [of[n] for n in u.devices]
        captured = sum(c.rate for c in mine)
        simulated = sum(rows[n]["cmds_s"] for n in u.devices)
        timed = [c for c in mine if c.response_ms is not None]
        weight = sum(c.rate for c in timed)
        response = sum(c.rate * (c.response_ms or 0.0) for c in timed) / weight if timed and weight > 0 else None
        sim_weight = sum(rows[c.device]["cmds_s"] for c in timed)
        sim_response = sum(rows[c.device]["cmds_s"] * rows[c.device]["gavg_ms"] for c in timed) / sim_weight \
            if sim_weight > 0 else (sum(rows[n]["gavg_ms"] for n in u.devices) / len(u.devices))
        # A run's count of I/Os is known to about 1/sqrt(count): fewer I/Os widen the tolerance. The
        # count the capture expects, not the one simulated (a run that simulated nothing would
        # otherwise allow anything). A unit finer than the level judged: what its rotations allow.
        noise = 1.96 / math.sqrt(max(captured * duration_s, 1.0))
        rate_spread = sum(c.rate * c.rate_spread for c in mine) / captured if captured > 0 else 0.0
        response_spread = sum(c.rate * c.response_spread for c in timed) / weight if timed and weight > 0 else 0.0
        where = "; ".join(dict.fromkeys(c.where for c in mine))
        aimed = DeviceFigures(u.name, captured, response, simulated, sim_response, max(RATE_TOLERANCE, noise, rate_spread),
                              max(RESPONSE_TOLERANCE, noise, response_spread), where, u.level)
        run_allows = fit_level.tolerance(u, level, duration_s)
        allowed = replace(aimed, rate_tolerance=max(aimed.rate_tolerance, run_allows),
                          response_tolerance=max(aimed.response_tolerance, run_allows))
        # The fit steps towards the tolerances at the level judged; the verdict allows what the run allows.
        out.append((u, allowed, aimed.agrees or LEVELS.index(u.level) < LEVELS.index(level.level) and allowed.agrees))
    return out


def _step(a: _Array, run: Result, checked: list[tuple[Unit, DeviceFigures, bool]]) -> bool:
    """One step of the array's fit from the run; whether anything changed."""
    if all(aimed for u, _, aimed in checked if u.devices[0] in a.devices):
        return False
    mine = [f for u, f, _ in checked if u.level == "device" and u.devices[0] in a.devices]
    simulated, wanted = sum(f.simulated_rate for f in mine), sum(f.captured_rate for f in mine)
    ports = [p for p in run.data["ports"] if p["name"].split("/")[0] == a.name]
    # The busiest port as it would be at the captured rate.
    busy_at_capture = max((p["util_pct"] for p in ports), default=0.0) * wanted / max(simulated, 1e-9)
    timed = [f for f in mine if f.captured_response_ms is not None]
    mean_sim = sum(f.simulated_response_ms for f in timed) / len(timed) if timed else 0.0
    if a.tried is not None and not a.port_bound:
        before_us, before_ms = a.tried
        moved_us = a.back_end_us - before_us
        # A back end step that moves the response by less than half of itself: the rate is held by a port
        # (a policy that works one path at a time under a deep queue), and the back end time is put back.
        if moved_us > 0 and 1000 * (mean_sim - before_ms) < 0.5 * moved_us:
            a.port_bound, a.back_end_us = True, before_us
    if busy_at_capture >= SATURATED_PCT or not timed or a.port_bound:
        if not a.fit_service:
            a.stuck = "its ports' service is set with --set"
            return False
        # The rate is the port's capacity: a port that carries too much is slower than the model's.
        service = max(FASTEST_PORT_US, a.service_us * simulated / wanted)
        # A port's rate moves with the phases of the devices' turns as well as with its service: a step that would
        # leave the services tried on either side of the captured rate takes their middle instead (bisection).
        if simulated > wanted:
            a.service_above = max(a.service_above, a.service_us)
        else:
            a.service_below = min(a.service_below, a.service_us)
        if a.service_below < math.inf and not a.service_above < service < a.service_below:
            service = (a.service_above + a.service_below) / 2
        if service == a.service_us:
            a.stuck = f"a port faster than {FASTEST_PORT_US:g} µs per command would be needed"
            return False
        a.service_us = service
        return True
    if not a.fit_back_end:
        a.stuck = "its back end's time is set with --set (or differs for reads and writes)"
        return False
    # Off by this much on average over its devices: the back end's time moves the response by about as much.
    short_ms = sum((f.captured_response_ms or 0.0) - f.simulated_response_ms for f in timed) / len(timed) if timed else 0.0
    a.tried = (a.back_end_us, mean_sim)
    back_end = a.back_end_us + 1000 * short_ms
    if back_end > 1000 * SLOWEST_BACK_END_MS:
        a.stuck = (f"it would need a back end slower than {SLOWEST_BACK_END_MS:g} ms beyond its ports' service, slower "
                   "than any array's: the time is spent where the model has nothing (a host's own queue, a congested fabric)")
        a.back_end_us = 1000 * SLOWEST_BACK_END_MS
        return True
    if back_end < 0:
        if a.back_end_us == 0 and not a.fit_service:
            a.stuck = "it answers more slowly than captured with no back end time at all, and its ports' service is set"
            return False
        # No back end time left to take away: the port is slower than the array's.
        a.back_end_us = 0.0
        mean_cap = sum(f.captured_response_ms or 0.0 for f in timed) / len(timed)
        service = max(FASTEST_PORT_US, a.service_us * max(0.5, mean_cap / mean_sim))
        if service == a.service_us:
            a.stuck = f"a port faster than {FASTEST_PORT_US:g} µs per command would be needed"
            return False
        a.service_us = service
        return True
    a.back_end_us = back_end
    return True


def _array_sets(arrays: list[_Array]) -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    for a in arrays:
        if a.service_us != a.was_service_us:
            out[f"arrays.{a.index}.service.fixed"] = f"{a.service_us:.3f}us"
        if a.back_end_us > 0:
            out[f"arrays.{a.index}.read_latency"] = out[f"arrays.{a.index}.write_latency"] = f"{a.back_end_us:.1f}us"
    return out


def _fitted(a: _Array, figures: list[DeviceFigures]) -> list[Fitted]:
    names = [f.device for f in figures if f.device in a.devices]
    mine = ", ".join(names) if len(names) <= SAID_RESPONSES else f"its {len(names):,} devices"
    out = [Fitted(f"arrays.{a.name}.service", f"{a.service_us:.1f} µs per command (was {a.was_service_us:.1f})",
                  f"the rate of {mine} as captured, at which its busiest port is saturated")] \
        if a.service_us != a.was_service_us else []
    if a.back_end_us > 0:
        out.append(Fitted(f"arrays.{a.name}.read_latency", f"{a.back_end_us / 1000:.3f} ms beyond its ports' service, "
                                                           "reads and writes", f"the response of {mine} as captured"))
    return out


def _why(checked: list[tuple[Unit, DeviceFigures]], arrays: list[_Array], runs: int) -> str | None:
    off = [(u, f) for u, f in checked if not f.agrees]
    if not off:
        return None
    # The furthest beyond its tolerance: a whole host's load off is named even where its devices' own are within theirs.
    unit, worst = max(off, key=lambda uf: max(abs(uf[1].rate_off) / uf[1].rate_tolerance,
                                              abs(uf[1].response_off or 0.0) / uf[1].response_tolerance))
    figures = [f for u, f in checked if u.level == "device"]
    said = (f"{worst.device} was captured at {worst.captured_rate:,.0f} I/O/s"
            + (f" in {worst.captured_response_ms:.3f} ms" if worst.captured_response_ms is not None else "")
            + f" and simulated at {worst.simulated_rate:,.0f} I/O/s in {worst.simulated_response_ms:.3f} ms"
            + f" (allowed: rate ±{worst.rate_tolerance:.0%}, response ±{worst.response_tolerance:.0%})")
    array = next((a for a in arrays if unit.devices[0] in a.devices), None)
    if array is None:
        return f"{said}: the model has nothing the captures leave open to fit on its array"
    if array.stuck:
        return f"{said}: on array {array.name}, {array.stuck}"
    others = [f for f in figures if f.device in array.devices and f.device not in unit.devices]
    if others and worst.captured_response_ms is not None:
        responses = [f.captured_response_ms for f in [worst, *others] if f.captured_response_ms]
        shown = ", ".join(f"{ms:.3f} ms" for ms in responses) if len(responses) <= SAID_RESPONSES else \
            f"{min(responses):.3f} to {max(responses):.3f} ms over {len(responses)} devices"
        return (f"{said}: array {array.name} has one back end time for its devices, and their captured responses "
                f"({shown}) are further apart than one time gives{_furthest(checked, array)}")
    return f"{said}, after {runs} fitting runs"


def _furthest(checked: list[tuple[Unit, DeviceFigures]], array: _Array) -> str:
    """The port group (or device, where the array has no group of several) whose captured response is
    furthest from the median of the array's others, where it is beyond the response tolerance: a host
    whose load is not the one its captures imply (its own queue, another workload) is named."""
    level = "port group" if any(u.level == "port group" and u.devices[0] in array.devices for u, _ in checked) \
        else "device"
    timed = [f for u, f in checked if u.level == level and u.devices[0] in array.devices and f.captured_response_ms]
    if len(timed) < 3:  # of two, neither is further than the other
        return ""
    median = statistics.median(f.captured_response_ms or 0.0 for f in timed)
    far = max(timed, key=lambda f: abs(math.log((f.captured_response_ms or median) / median)))
    ratio = (far.captured_response_ms or median) / median
    if abs(ratio - 1) <= RESPONSE_TOLERANCE:
        return ""
    return (f"; furthest from the others: {far.device}, captured at {far.captured_response_ms:.3f} ms against the "
            f"median of the array's {level}s, {median:.3f} ms")


def _sampling_s(run: Result, rates: dict[str, float], key: Callable[[str, str], str]) -> float:
    """How long a run must be for each device's first sampling of its paths (policies that sample
    them) within the warm-up, the warm-up being a quarter of it."""
    need = 0.0
    rows = {key(r["host"], r["name"]): r for r in run.data["devices"]}
    for d in run.setups:
        name = key(d.host, d.name)
        if name in rates:
            paths = max(len(rows[name]["working_paths"]), 1)
            need = max(need, SAMPLING_MARGIN * paths * samples_per_path(d.policy.params) / rates[name] / WARMUP_SHARE)
    return need


def _us(value: str) -> float:
    """A TOML duration as the importers write them (`20.0us`, `310us`, `0.3ms`) in µs."""
    from pathlab._core import parse_duration_ns

    return parse_duration_ns(value) / 1000


def with_fitted(assumptions: Sequence[tuple[str, str]], capture_check: CaptureCheck | None) -> list[tuple[str, str]]:
    """The host's assumptions with each fitted value said as fitted to the capture, in place of
    what was assumed for it (the array's back end time, its ports' service) where it was."""
    if capture_check is None or not capture_check.fitted:
        return list(assumptions)
    fitted = {f.field: f for f in capture_check.fitted}
    kept = [(field, said) for field, said in assumptions if field not in fitted]
    return kept + [(f.field, f"fitted to the capture: {f.value} ({f.how})") for f in capture_check.fitted]
