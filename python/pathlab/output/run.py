"""A run's result as `pathlab run` prints it: vdbench's summary and each host's esxtop tables for
people, the whole result (or one host's view) as JSON, its summary line as CSV, and the HTML
report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pathlab import host_views
from pathlab.api import Fault
from pathlab.output import application, esxtop, hosts, vdbench
from pathlab.output.sink import Output


def summary_row(data: dict[str, Any]) -> dict[str, Any]:
    """One run as one CSV line: its labels and every summary figure."""
    return {"scenario": data["scenario"], "variant": data["variant"] or "", "seed": data["seed"], **data["summary"]}


@dataclass
class RunOutput(Output):
    #: The run's JSON result.
    data: dict[str, Any]
    #: Each host's view (`host_views.each`); one when --host chose it.
    views: list[tuple[str, dict[str, Any]]]
    intervals: bool
    #: The host --host chose, if any.
    host: str | None
    scenario_text: str
    #: The policy and setting in force (`devices.in_force`), for the report's title.
    setting: str
    #: The scenario's faults, which the report shades, and what else is on its timeline.
    faults: list[Fault]
    timeline: list[str]

    def table(self) -> str:
        return text_report(self.data, self.intervals, self.views)

    def document(self) -> Any:
        # With --host, that host's devices, paths and adapters (the summary stays the run's).
        return self.views[0][1] if self.host else self.data

    def rows(self) -> list[dict[str, Any]]:
        return [summary_row(self.data)]

    def html(self, provenance: dict[str, Any]) -> str:
        from pathlab.output.report.runs import run_report

        return run_report(self.views[0][1] if self.host else self.data, self.scenario_text, provenance, self.setting,
                          self.faults, self.timeline)


def text_report(data: dict, intervals: bool, views: list[tuple[str, dict]]) -> str:
    """The report, with the device, adapter and path tables of each host's view (`host_views.each`)."""
    s = data["summary"]
    acc = data["accounting"]
    variant = f", variant {data['variant']}" if data["variant"] else ""
    head = (
        f"pathlab run: {data['scenario']}{variant}, seed {data['seed']}: "
        f"{data['duration_s']:g} s measured after {data['warmup_s']:g} s of warm-up"
    )
    parts = [
        head,
        "",
        vdbench.report(data, intervals),
        f"response percentiles (ms): p50 {s['p50_ms']:.3f}  p90 {s['p90_ms']:.3f}  "
        f"p99 {s['p99_ms']:.3f}  p99.9 {s['p999_ms']:.3f}",
        *([f"(every host's I/Os together: {', '.join(host_views.names(data))})"] if len(data["hosts"]) > 1 else []),
        "",
    ]
    for name, view in views:
        if len(views) > 1:
            parts.append(hosts.heading(name))
        parts += [esxtop.devices(view), *_hazards(view), "", esxtop.adapters(view), "", esxtop.paths(view), ""]
    # The array side is every host's; the event log is the hosts' shown.
    events = [e for _, view in views for e in view["events"]]
    events.sort(key=lambda e: e["t_s"])
    parts += [
        esxtop.ports(data),
        "",
        *_optional_sections(dict(data, events=events)),
        *application.text(data),
        f"I/Os issued {acc['issued']}, completed {acc['completed']}, failed {acc['failed']}, "
        f"retried {acc['retried']}; errors {s['errors']}",
        _at_end(acc),
    ]
    return "\n".join(parts)


def _hazards(view: dict) -> list[str]:
    """The devices whose writes were retried while their first copy could still land, if any."""
    counts = [f"{d['name']} {d['hazards']}" for d in view["devices"] if d["hazards"]]
    if not counts:
        return []
    return ["write hazards (writes retried on another path while their first copy could still land): "
            + ", ".join(counts)]


def _at_end(acc: dict) -> str:
    """Where the I/Os stood when the measurement ended: those in flight are in no other figure."""
    end = acc["at_end"]
    oldest = f", the oldest for {end['oldest_in_flight_s']:.3f} s" if end["in_flight"] else ""
    return (f"at the end of the measurement: completed {end['completed']}, failed {end['failed']}, "
            f"in flight {end['in_flight']}{oldest} (ended after it, in no figure above)")


def _optional_sections(data: dict) -> list[str]:
    """Controllers, RAID groups, write caches, replication and the host's event log, when the run has them."""
    parts = []
    if data["controllers"]:
        parts += [esxtop.controllers(data), ""]
    if data["raid_groups"]:
        parts += [esxtop.raid_groups(data), ""]
    for c in data["write_caches"]:
        parts.append(f"write cache {c['array']}: {c['dirty_pct']:.1f}% dirty on average (watermarks "
                     f"{c['high_watermark_pct']:.0f}/{c['low_watermark_pct']:.0f}), {c['forced_waits']} writes "
                     "waited for a destage")
    if data["write_caches"]:
        parts.append("")
    for r in data["replication"]:
        a, b = r["arrays"]
        parts.append(
            f"replication {r['name']}: writes sent {a} {r['writes'][0]}, {b} {r['writes'][1]}; "
            f"extent ownership moves to {a} {r['ownership_moves'][0]}, to {b} {r['ownership_moves'][1]}"
        )
    if data["replication"]:
        parts.append("")
    events = data.get("events", [])
    if events:
        shown = events[:20]
        parts.append(f"host events ({len(events)}{', first 20' if len(events) > 20 else ''}):")
        parts += [f"  {e['t_s']:10.3f} s  {e['event']:<16} {e['path'] or e['device']} {e['detail']}".rstrip() for e in shown]
        parts.append("")
    return parts
