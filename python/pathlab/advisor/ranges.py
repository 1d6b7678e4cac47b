"""The gain as a range over the assumptions that matter. An imported host's tables mark every
value the captures did not give as assumed (`importer.provenance.Assumed`), and leave out the
array's latency beyond its ports' service (`read_latency`, `write_latency`) where no capture showed it. Three move a predicted
gain: a port's capacity (assumed whenever no capture shows a port working alone at capacity), a
device's load (assumed for a device a capture with counters does not measure) and the array's
zero-load time. Each is simulated at the ends of its span, the others at their assumed value,
every candidate a recommendation may choose on the same I/Os as the central run, its first two
seeds; a candidate's range is the lowest and highest of its gains over those runs.

The spans, and why:
- port capacity ±50% (service time ×2 and ×2/3): the default (20 µs per I/O for a SCSI array's
  port, 10 µs for an NVMe-oF port) stands for ports whose calibrated service times in the shipped
  scenarios run from 15 to 25 µs (VMAX, CX4, the C3/C4 arrays) and 8 µs (the NVMe array): ±50%
  of capacity (13.3 to 40 µs; 6.7 to 20 µs) holds every one of them.
- load 8 to 64 outstanding I/Os per device: the default 32 is the device queue most FC drivers
  give (DQLEN, a SCSI disk's queue_depth); 64 fills twice that (QLogic's per-LUN default, the
  shipped VMAX capture's DQLEN), beyond which I/Os only wait in the host's queue; 8 is a quarter,
  a device lightly used.
- the array's zero-load time, 0 to 0.3 ms beyond its port's service: an imported array without a
  `read_latency` (no capture showed its latency at low load) answers in its port's service time
  alone, the low end; 0.3 ms more is the zero-load time measured on the VMAX of C1 (0.31 ms), the
  highest of the shipped calibrations. Measured (`scripts/advise_assumption_spans.py`, session
  9): it moved round robin iops=1's gain on the shipped capture from 3.75x to 3.54x and on its MRU
  variant from 3.97x to 3.31x, where the port capacity's span moved it by 0.02. The fabric's
  distance (1 to 50 µs one way, 5 assumed) moved no shipping stack's candidate by more than 0.03
  on those hosts: a response of 0.8-3 ms there is queueing and service, and 2 × 45 µs more of
  fixed delay is within the seeds' noise, so it is not spanned. Pathlab's own policy is the
  exception: 2.98x-3.96x over the distance on the MRU variant, about twice its move over the port
  capacity (3.47x-3.97x). Never recommended (it is not a shipping stack's setting), it is not
  simulated at the ends at all (`rank._spanned`): a range that left out what moves it most would
  say less than its one figure at the assumed values does."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pathlab.advisor.ranked import Ranked
from pathlab.api import Scenario, set_strings
from pathlab.importer.host_tables import HostTables
from pathlab.toml_values import set_keys

#: Port capacity at the span's ends, as factors of the assumed capacity.
CAPACITY_FACTORS = (0.5, 1.5)
#: Outstanding I/Os per device at the span's ends.
LOAD_ENDS = (8, 64)
#: The array's zero-load time beyond its port's service at the span's far end (the near end is
#: the imported 0).
ZERO_LOAD_END = "300us"


@dataclass(frozen=True)
class Span:
    #: What the span is over, as the output says it ("port capacity ±50%").
    over: str
    #: Each end's overrides (dotted key = TOML value).
    ends: tuple[list[str], list[str]]
    #: What the span is over, in short ("port capacity ±50%"), for naming its ends.
    name: str


@dataclass(frozen=True)
class GainRanges:
    #: The spans simulated, as the output says them.
    over: list[str]
    #: Per candidate label: its lowest and highest gain over the spans' ends and the assumed values.
    gains: dict[str, tuple[float, float]]
    #: On a cluster, per candidate label and host: the same for the host's own I/O rate.
    hosts: dict[str, dict[str, tuple[float, float]]] = field(default_factory=dict)


def assumed_settings(host: HostTables) -> list[tuple[str, int, str]]:
    """(table, index, key) of every `[[arrays]]` service and `[[workloads]]` outstanding that
    the captures did not give (assumed)."""
    return [("arrays", i, "service") for i in host.assumed("arrays", "service")] + \
        [("workloads", i, "outstanding") for i in host.assumed("workloads", "outstanding")]


def spans(host: HostTables, user_sets: list[str]) -> list[Span]:
    """The spans of the assumptions the imported host rests on, except what the user set with
    `--set` (that is no longer assumed)."""
    scenario = host.values(listed=False)  # its arrays and workloads
    keys = set_keys(s.partition("=")[::2] for s in user_sets)

    def given(table: str, index: int, key: str) -> bool:
        """Whether the user's overrides set the key of the table's entry (or of every entry), whatever their shape."""
        return any(k.startswith(f"{t}.{key}") for k in keys for t in (f"{table}.{index}", f"{table}.*"))

    assumed = [(t, i, k) for t, i, k in assumed_settings(host) if not given(t, i, k)]
    out = []
    ports = [i for t, i, _ in assumed if t == "arrays"]
    if ports:
        def capacity(factor: float) -> list[str]:
            return [f'arrays.{i}.service.fixed="{_us(scenario["arrays"][i]["service"]["fixed"]) / factor:.4g}us"'
                    for i in ports]
        out.append(Span(f"port capacity ±50% ({_ends(scenario, ports)})", (capacity(CAPACITY_FACTORS[0]),
                                                                          capacity(CAPACITY_FACTORS[1])),
                        "port capacity ±50%"))
    loads = [i for t, i, _ in assumed if t == "workloads"]
    if loads:
        low, high = ([f"workloads.{i}.outstanding={n}" for i in loads] for n in LOAD_ENDS)
        out.append(Span(f"load {LOAD_ENDS[0]}-{LOAD_ENDS[1]} outstanding per device where none was measured "
                        f"({', '.join(scenario['workloads'][i]['name'] for i in loads)})", (low, high),
                        f"load {LOAD_ENDS[0]}-{LOAD_ENDS[1]} outstanding"))
    quiet = [i for i, a in enumerate(scenario.get("arrays", []))
             if not {"read_latency", "write_latency"} & set(a)
             and not any(given("arrays", i, k) for k in ("read_latency", "write_latency"))]
    if quiet:
        far = [f'arrays.{i}.{k}="{ZERO_LOAD_END}"' for i in quiet for k in ("read_latency", "write_latency")]
        out.append(Span(f"the array's zero-load time 0-{_us(ZERO_LOAD_END) / 1000:g} ms beyond its port's service, "
                        f"where no capture showed it ({', '.join(scenario['arrays'][i]['name'] for i in quiet)})",
                        ([], far), f"the array's zero-load time 0-{_us(ZERO_LOAD_END) / 1000:g} ms"))
    return out


def _us(value: str) -> float:
    """`20us` or `20.0us` (as the importers write a port's service time) in µs."""
    match = re.fullmatch(r"([0-9.]+)us", value)
    if match is None:
        raise ValueError(f"a port service time the importers do not write: {value!r}")
    return float(match.group(1))


def _ends(scenario: dict, ports: list[int]) -> str:
    services = sorted({_us(scenario["arrays"][i]["service"]["fixed"]) for i in ports})
    return "; ".join(f"{s / CAPACITY_FACTORS[1]:.4g} to {s / CAPACITY_FACTORS[0]:.4g} µs per I/O instead of {s:.4g}"
                     for s in services)


@dataclass(frozen=True)
class AtEnd:
    """The host at one end of a span: its scenario with the end's overrides, loaded when a run is
    made of it (`with_set`: the same scenario as the end's own `with_set` gives), never held
    loaded. The ends serve only as the bases of their runs, and a loaded scenario of 32 hosts ×
    500 devices × 8 paths is about 200 MiB of engine handle held through the whole ranking."""

    base: Scenario
    sets: tuple[str, ...]

    def with_set(self, values: Mapping[str, Any] | Iterable[str], to_run: bool = False) -> Scenario:
        return self.base.with_set([*self.sets, *set_strings(values)], to_run)

    def on(self, host: Scenario) -> AtEnd:
        """The same end on `host`, the host's scenario with its run length set after the pilots
        (the base's overrides and `run.duration` and `run.warmup`, which every ranking run sets
        again): the same runs, and the ranking holds one loaded host, not two (on 32 hosts × 500
        devices × 8 paths, 200 MiB less through the ranking)."""
        return AtEnd(host, self.sets)


def span_ends(scenario: Scenario, host: HostTables) -> tuple[list[Span], list[AtEnd]]:
    """The spans of the host's assumptions and the host at each end of each that is not the
    assumed value (in the spans' order), for `rank_together` to simulate beside the host itself;
    `scenario` is the host's (`host`, its typed tables) with the user's overrides."""
    found = spans(host, [f"{k}={v}" for k, v in scenario.overrides])
    # An end without overrides is the assumed value itself: the host's own runs.
    return found, [AtEnd(scenario, tuple(end)) for span in found for end in span.ends if end]


def end_labels(found: list[Span]) -> list[str]:
    """Each end `span_ends` simulates, as the outputs name it ("the low end of port capacity ±50%"),
    in its order."""
    return [f"the {side} end of {span.name}" for span in found for side, end in zip(("low", "high"), span.ends) if end]


def gain_ranges(found: list[Span], central: list[Ranked], at_ends: list[list[Ranked]]) -> GainRanges | None:
    """Each candidate's lowest and highest gain over the central ranking and its rankings at the
    spans' ends (the same I/Os, the first two seeds), each ranking's setting in force first, and on a cluster each
    host's; None when the host rests on no assumption that matters. A candidate the ends leave out
    (pathlab's own policy: `rank._spanned`) has no range: its gain at the assumed values alone."""
    if not found:
        return None
    at_every_end = {r.candidate.label for r in central}.intersection(*({r.candidate.label for r in e} for e in at_ends))
    gains: dict[str, list[float]] = {r.candidate.label: [] for r in central if r.candidate.label in at_every_end}
    hosts: dict[str, dict[str, list[float]]] = {label: {} for label in gains}
    for ranking in [central, *at_ends]:
        for r in (r for r in ranking if r.candidate.label in at_every_end):
            gains[r.candidate.label].append(r.gain)
            for host, figures in r.hosts.items():  # a cluster: each host's rate against its own in force
                base = ranking[0].hosts[host]["iops"][0]
                hosts[r.candidate.label].setdefault(host, []).append(figures["iops"][0] / base if base > 0 else math.nan)
    return GainRanges([s.over for s in found], {label: _lowest_highest(g) for label, g in gains.items()},
                      {label: {h: _lowest_highest(g) for h, g in by_host.items()} for label, by_host in hosts.items()
                       if by_host})


def _lowest_highest(gains: list[float]) -> tuple[float, float]:
    return (min(gains), max(gains)) if not any(math.isnan(x) for x in gains) else (math.nan, math.nan)
