"""At which level the capture fit (`capture_check.fit_to_capture`) judges the setting in force
against the captures: the rotations rule.

A policy that sends many I/Os down a path in a row (round robin at iops=1000) gives a device's
rate in a run by the ports its turns landed on: a device of a cluster at 1,000 I/O/s over 8 paths
goes round them once in 8 s, so in a 2 s run its rate is that of the two ports it was on. The
run-length rule (`run_length.ROTATIONS`) asks for 20 rotations, where a rotation cut short weighs
at most 1/20 on the figures, which is advise's 5% margin. Devices go round together: the devices
of one host on one array through the same ports (a port group) complete their rotations between
them, and an array's devices theirs, so their summed rate (and I/O-weighted response) is known
where each device's alone is not, provided they keep every port at work: n devices each on one of
P ports leave a port without a turn with chance (1 - 1/P)^n, and a saturated port idle is rate
lost whatever the rotations (the three-host fixture: 6 devices on 4 ports, 18%; its rate at 2 s
moved by ±10% with the port's service by the phases of the turns). So:

- a unit is resolved where it completes `ROTATIONS` rotations in the run and, for several
  devices, leaves a port without a turn with chance at most `RATE_TOLERANCE` (`IDLE_SHARE`);
- the finest level whose every unit is resolved within the longest fitting run is judged at the
  fit's tolerances; the run is as long as the devices need where they are judged alone, else the
  longest (a group's rate comes closer to a long capture's the longer the run: the rates of the
  three-host fixture climb from 0.5 s to 3 s as the turns leave their starting phases);
- a unit finer than that (a device, a host's port group) is checked to what its run allows: its
  rate and response within 1/rotations and the chance of an idle port; a unit off by more carries
  a load other than the captured one, said as a disagreement naming it;
- where no level is resolved within the longest run, the coarsest (the array, or a lone device) is
  judged: the fit aims at its tolerances, and the verdict allows what its run allows, said.

The longest fitting run is `LONGEST_S`, or shorter where the scenario's captured rate would put
more than `FIT_IOS` I/Os in it: the fit's cost is then bounded by `MOST_RUNS` x `FIT_IOS` I/Os,
however large the cluster (its arrays go round fast: 2,000 devices at 100 I/O/s each complete
an array's rotations in 0.8 s)."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from pathlab.advisor import pilot_rows
from pathlab.advisor.rotations import ROTATIONS, in_a_row
from pathlab.api import Result

#: The levels, finest first.
LEVELS = ("device", "port group", "array")
#: The most a group of devices may leave a port without a turn (chance) and be resolved: advise's
#: 5% margin, as a rate lost at a saturated port.
IDLE_SHARE = 0.05
#: The most I/Os a fitting run simulates over the whole scenario: about a second of the engine
#: on one core (1.85-3.1 million simulated I/O/s, docs/benchmarks.md, sessions 5-6), so the fit's
#: six runs stay within seconds of simulation however many hosts.
FIT_IOS = 2_000_000


@dataclass(frozen=True)
class Unit:
    """Devices judged together: one device, a host's port group, or an array's devices."""

    level: str
    name: str
    devices: tuple[str, ...]
    #: Rotations its devices complete together per second at their captured rates.
    rotations_per_s: float
    #: Its devices' captured rates summed (I/O per s).
    rate: float
    #: The array ports its devices' working paths reach.
    ports: frozenset[str] = frozenset()

    #: For a device: the chance its port group leaves a port without a turn (a device's rate moves
    #: with whether another's turn shares its port, as often).
    shared: float = 0.0

    @property
    def idle(self) -> float:
        """The chance that its devices leave one of its ports without a turn (for one device, its
        port group's)."""
        n = len(self.devices)
        return (1 - 1 / len(self.ports)) ** n if n > 1 and self.ports else self.shared

    def allows(self, duration_s: float) -> float:
        """What a run of `duration_s` allows its rate to be off by, from where its turns landed."""
        rotations = self.rotations_per_s * duration_s
        return max(1 / rotations if rotations > 0 else math.inf, self.idle)


@dataclass(frozen=True)
class Judged:
    """The level judged at its tolerance, the run length it needs, and why."""

    level: str
    duration_s: float
    why: str
    #: Whether the level judged is short of the rule (then its units too are allowed what their run allows).
    short: bool = False


def units(run: Result, rates: Mapping[str, float], key: Callable[[str, str], str], array_of: Mapping[str, str],
          rows: Mapping[str, float] | None = None, paths_of: Mapping[str, int] | None = None) -> list[Unit]:
    """Every unit of every level, finest first: each compared device (`rates`, by `key`), each
    host's devices on one array through the same ports (where several devices are), each array's.
    A device goes round its working paths in the run by its policy's I/Os in a row, or by `rows`
    and `paths_of` (by `key`) where given (the run-length rule: the most of any candidate)."""
    bytes_per_io = run.data["summary"]["bytes_per_io"]
    row_of = {key(r["host"], r["name"]): r for r in run.data["devices"]}
    path_rows = pilot_rows.grouped(run).paths
    # Per device: its name, rotations per second, rate and ports; alike ports held once (16,000 devices on 32 × 500 × 8),
    # and the ports of alike targets worked out once.
    each: list[_Device] = []
    ports_of: dict[tuple[str, ...], tuple[str, ...]] = {}
    port_sets: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}
    groups: dict[tuple[str, str, tuple[str, ...]], list[_Device]] = {}
    arrays: dict[str, list[_Device]] = {}
    for d in run.setups:
        name = key(d.host, d.name)
        if name not in rates:
            continue
        working = row_of[name]["working_paths"]
        paths = (paths_of or {}).get(name, max(len(working), 1))
        row = rows[name] if rows is not None else in_a_row(d.policy.params, bytes_per_io)
        target = {p["name"]: p["target"] for p in path_rows.get((d.host, d.name), ())}
        reached = tuple([target.get(p, p) for p in working])
        ports = ports_of.get(reached)
        if ports is None:
            ports = ports_of[reached] = tuple(sorted({t.split("/", 1)[-1] for t in reached}))
        array = array_of[name]
        if (array, ports) not in port_sets:
            port_sets[array, ports] = frozenset(f"{array}/{p}" for p in ports)
        device = (name, rates[name] / (paths * row), rates[name], port_sets[array, ports])
        each.append(device)
        groups.setdefault((d.host, array, ports), []).append(device)
        arrays.setdefault(array, []).append(device)
    # A device's `shared` is its port group's idle chance: the groups first, each device's unit then made once.
    together = [_together("port group", f"{host}'s devices on {array} through {', '.join(ports)}", mine)
                for (host, array, ports), mine in groups.items()]
    shared = {n: g.idle for g in together for n in g.devices}
    devices = [Unit("device", name, (name,), rotations, rate, ports, shared[name]) for name, rotations, rate, ports in each]
    together += [_together("array", f"array {array}", mine) for array, mine in arrays.items()]
    # A unit of the devices a finer one holds already (one device; a host's only port group on its array) is that unit.
    seen = {u.devices for u in devices}
    out = list(devices)
    for u in together:
        if u.devices not in seen:
            seen.add(u.devices)
            out.append(u)
    return out


def judged(all_units: list[Unit], longest_s: float, shortest_s: float, unit_ios: float) -> Judged:
    """The finest level whose units are all resolved (`ROTATIONS` rotations and `unit_ios` I/Os
    within `longest_s`, a port rarely without a turn), and its run: as long as the devices need
    where they are judged alone (at least `shortest_s`), else the longest."""
    present, need, idle = _needs(all_units, unit_ios)
    level = next((level for level in present if need[level] <= longest_s and idle[level] <= IDLE_SHARE), present[-1])
    finer = [f"{lv}s {need[lv]:.3g} s" for lv in present[:present.index(level)] if need[lv] > longest_s]
    longer = f" ({' and '.join(finer)}, longer than the {longest_s:.3g} s the fit runs)" if finer else ""
    crowded = [f"{lv}s leave a port without a turn with chance {idle[lv]:.0%}" for lv in present[:present.index(level) + 1]
               if idle[lv] > IDLE_SHARE]
    idled = f"; {' and '.join(crowded)}" if crowded else ""
    rule = f"{ROTATIONS} rotations of the policy in force and {unit_ios:,.0f} I/Os take {need[level]:.3g} s per {level}"
    duration = max(shortest_s, need[level]) if level == present[0] and need[level] <= longest_s else longest_s
    if need[level] > longest_s or idle[level] > IDLE_SHARE:
        return Judged(level, duration, f"judged per {level}, short of the rotations rule: {rule}{longer}{idled}; each "
                                       f"{level} is allowed what its {duration:.3g} s run allows (1/its rotations, or the "
                                       "chance of an idle port)", short=True)
    return Judged(level, duration, f"judged per {level} (the rotations rule): {rule}{longer}{idled}; finer units are "
                                   "allowed what their run allows (1/their rotations, or the chance of an idle port)")


def resolved(all_units: list[Unit], longest_s: float) -> tuple[str, float] | None:
    """The finest level whose every unit makes `ROTATIONS` rotations within `longest_s` and, for
    several devices, leaves a port without a turn with chance at most `IDLE_SHARE`, and the run
    its rotations need; None where no level is (`run_length.choose`: rotations counted there)."""
    present, need, idle = _needs(all_units, 0.0)
    return next(((level, need[level]) for level in present if need[level] <= longest_s and idle[level] <= IDLE_SHARE),
                None)


def _needs(all_units: list[Unit], unit_ios: float) -> tuple[list[str], dict[str, float], dict[str, float]]:
    """The levels present (finest first), the run each needs for `ROTATIONS` rotations and
    `unit_ios` I/Os of its slowest unit, and the most any of its units leaves a port idle."""
    present = [level for level in LEVELS if any(u.level == level for u in all_units)]
    need = {level: max(max(ROTATIONS / u.rotations_per_s, unit_ios / u.rate) if u.rotations_per_s > 0 else math.inf
                       for u in all_units if u.level == level) for level in present}
    idle = {level: max(u.idle for u in all_units if u.level == level) for level in present}
    return present, need, idle


def tolerance(unit: Unit, level: Judged, duration_s: float) -> float:
    """What a unit's run allows beyond the fit's tolerances: nothing at a resolved level judged
    and above; what its rotations and ports allow below it, or at a level judged short of the rule."""
    below = LEVELS.index(unit.level) < LEVELS.index(level.level)
    return unit.allows(duration_s) if below or (level.short and unit.level == level.level) else 0.0


#: A device as `units` gathers it: its name, rotations per second, rate and ports.
_Device = tuple[str, float, float, frozenset[str]]


def _together(level: str, name: str, mine: list[_Device]) -> Unit:
    return Unit(level, name, tuple(n for n, _, _, _ in mine), sum(r for _, r, _, _ in mine), sum(r for _, _, r, _ in mine),
                frozenset(p for _, _, _, ports in mine for p in ports))
