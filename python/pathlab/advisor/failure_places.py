"""What each host and each site of a cluster saw through one failure under one timer candidate
(`advise --failures` on several hosts): a host's longest stall, its I/Os failed to the
application, its write hazards, its rate (the measured run's, and while the failure lasted) and
when it was back at full rate; a site's hosts
together (`sites`: the arrays they reach at a site's distance), so a site loss in a uniform
metro cluster shows the hosts at the surviving site against those across the distance."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pathlab.api import Result
from pathlab.host_site_figures import per_host
from pathlab.results import FaultWindow
from pathlab.sites import sites


@dataclass(frozen=True)
class Seen:
    """One run's (or, over seeds, the worst seed's; the rate the mean) figures of a host or a
    site: None back to full rate where it was not back by the run's end; `touched` False where
    the engine followed none of its devices through the failure (it follows
    those the fault reaches: on a LUN other hosts share, every host's)."""

    longest_stall_s: float
    failed_ios: int
    hazards: int
    iops: float
    back_to_full_rate_s: float | None
    touched: bool = True
    #: The rate while the failure lasted: the mean of the intervals wholly inside it (None where
    #: none is).
    during: float | None = None


@dataclass(frozen=True)
class PlaceMeasured:
    """A host (`kind` "host") or a site ("site", `place` its name and hosts) through one failure."""

    kind: str
    place: str
    seen: Seen
    back_known: bool

    def to_dict(self) -> dict[str, Any]:
        s = self.seen
        return {"kind": self.kind, "place": self.place, "longest_stall_s": round(s.longest_stall_s, 6),
                "failed_ios": s.failed_ios, "hazards": s.hazards, "iops": round(s.iops, 3),
                "back_to_full_rate_s": None if s.back_to_full_rate_s is None else round(s.back_to_full_rate_s, 6),
                "touched": s.touched, "iops_during": None if s.during is None else round(s.during, 3)}


def places_seen(result: Result) -> dict[tuple[str, str], Seen]:
    """One run's figures for each host, then each site where the hosts are at several; none for
    a run of one host (its figures are the run's)."""
    data = result.data
    if len(data["hosts"]) < 2:
        return {}
    app = result.application
    hazards: dict[str, int] = {}
    for d in data["devices"]:
        hazards[d["host"]] = hazards.get(d["host"], 0) + d.get("hazards", 0)
    rates = per_host(data)
    backs: dict[str, list[float | None]] = {}
    for r in app.recovery:
        if not r.device:  # a host's row: its devices together
            backs.setdefault(r.host, []).append(r.back_to_full_rate_s)
    during = _during(data, app.faults)
    hosts = {h.host: Seen(h.longest_stall_s, h.failed_ios, hazards.get(h.host, 0), rates[h.host]["cmds_s"],
                          latest_back(backs.get(h.host, [])), h.host in backs,
                          None if during is None else during.get(h.host, 0.0))
             for h in app.hosts}
    out = {("host", h): seen for h, seen in hosts.items()}
    for site, members in sites(data).items():
        own = [hosts[h] for h in members]
        touched = [s.back_to_full_rate_s for s in own if s.touched]
        out[("site", f"{site} ({', '.join(members)})")] = Seen(
            max(s.longest_stall_s for s in own), sum(s.failed_ios for s in own), sum(s.hazards for s in own),
            sum(s.iops for s in own), latest_back(touched), bool(touched),
            None if during is None else sum(during.get(h, 0.0) for h in members))
    return out


def _during(data: dict[str, Any], faults: Sequence[FaultWindow]) -> dict[str, float] | None:
    """Each host's rate while the run's failure lasted (the fault that starts last: the failure
    simulated, after any the host's listing showed at 0 s): its devices' commands a second summed,
    averaged over the measured intervals wholly inside the fault; None where no interval is."""
    windows = [f for f in faults if f.end_s is not None]
    if not windows:
        return None
    fault = max(windows, key=lambda f: f.start_s)
    assert fault.end_s is not None
    step = data["interval_s"]
    inside = {r["t_s"] for r in data["device_intervals"]
              if r["t_s"] >= fault.start_s - 1e-9 and r["t_s"] + step <= fault.end_s + 1e-9}
    if not inside:
        return None
    host_of = {f"{d['host']}/{d['name']}": d["host"] for d in data["devices"]}
    host_of |= {d["name"]: d["host"] for d in data["devices"]}  # interval rows name a device HOST/NAME where shared
    out: dict[str, float] = {}
    for r in data["device_intervals"]:
        if r["t_s"] in inside:
            host = host_of[r["name"]]
            out[host] = out.get(host, 0.0) + r["cmds_s"] / len(inside)
    return out


def over_seeds(each: Sequence[Seen]) -> tuple[Seen, bool]:
    """Several seeds' figures of one place: the worst seed's stall, failed I/Os, hazards and time
    back (over the seeds the failure touched it), the mean rates (the run's, and while the failure
    lasted); and whether every such seed's time back is known."""
    touched = [s.back_to_full_rate_s for s in each if s.touched]
    known = all(b is not None for b in touched)
    during = [s.during for s in each if s.during is not None]
    return Seen(max(s.longest_stall_s for s in each), max(s.failed_ios for s in each), max(s.hazards for s in each),
                sum(s.iops for s in each) / len(each), max((b for b in touched if b is not None), default=None)
                if known else None, bool(touched), sum(during) / len(during) if during else None), known


def per_place(results: Sequence[Result]) -> tuple[PlaceMeasured, ...]:
    """One candidate under one failure over its seeds, per host and per site (none for one host)."""
    seen = [places_seen(r) for r in results]
    return tuple(PlaceMeasured(kind, place, *over_seeds([one[(kind, place)] for one in seen]))
                 for kind, place in seen[0])


def latest_back(backs: Sequence[float | None]) -> float | None:
    """The latest time back to full rate of several hosts' (None: one was not back, or none said)."""
    return None if not backs or any(b is None for b in backs) else max(b for b in backs if b is not None)
