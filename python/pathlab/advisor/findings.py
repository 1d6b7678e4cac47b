"""Findings read off the run of the setting in force, each with the counters that show it, as an
admin would read them in esxtop; and the devices set apart from their array vendor's practice."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from pathlab.advisor.practice import departures
from pathlab.api import Result
from pathlab.devices import Device
from pathlab.finding import Finding
from pathlab.importer.imported import Undetermined

#: ALUA state changes of one device within a run above which its paths are thrashing.
THRASHING_CHANGES = 3


def round_robin_limit(device: Device) -> int | None:
    """The round robin I/O limit in force: VMW_PSP_RR switching by I/O count (`policy=rr` or
    `iops`), not by bytes or latency."""
    status = device.status
    if status.kind == "round_robin" and status["policy"] in ("rr", "iops"):
        return int(status["iops"])
    return None


def findings(run: Result) -> list[Finding]:
    """What the run of the setting in force shows, each with its counters, labelled simulated
    (the importer's findings from the captures are labelled captured)."""
    return [replace(f, title=f"{f.title} (simulated)") for f in _simulated(run)]


def _simulated(run: Result) -> list[Finding]:
    data = run.data
    setups = {d.name: d for d in run.setups}
    found: list[Finding] = []
    ports = data["ports"]
    mean_busy = sum(p["util_pct"] for p in ports) / len(ports) if ports else 0.0
    busy_paths: dict[str, list[dict[str, Any]]] = {}  # by device, in one pass: hosts have thousands of devices
    for p in data["paths"]:
        if p["cmds_s"] > 0:
            busy_paths.setdefault(p["device"], []).append(p)
    for d in data["devices"]:
        limit = round_robin_limit(setups[d["name"]])
        full = d["dqlen"] is not None and d["actv"] >= 0.9 * d["dqlen"]
        if limit is not None and limit >= 100 and full and mean_busy < 60:
            found.append(Finding(
                f"{d['name']}: round robin at iops={limit} keeps the device's whole queue on one path at a time",
                f"ACTV {d['actv']:.0f} of DQLEN {d['dqlen']}, QUED {d['qued']:.0f}, KAVG {d['kavg_ms']:.2f} ms, "
                f"while the array ports are {mean_busy:.0f}% busy on average: the queue waits although the ports "
                f"have room, because {limit} I/Os in a row go down the same path",
            ))
        elif d["qued"] > 1 and d["kavg_ms"] > 0.5 * max(d["davg_ms"], 1e-9):
            # A Linux NVMe head has no device queue: its requests wait for the controllers' tags.
            full_queue, bound = ("the device queue is full", f"DQLEN {d['dqlen']}") if d["dqlen"] is not None \
                else ("every blk-mq tag of its controllers is in use", "no device queue: nvme connect --queue-size")
            found.append(Finding(
                f"{d['name']}: {full_queue}",
                f"QUED {d['qued']:.1f}, KAVG {d['kavg_ms']:.2f} ms against DAVG {d['davg_ms']:.2f} ms ({bound})",
            ))
        paths = busy_paths.get(d["name"], [])
        if not paths:
            continue
        best = min(p["davg_ms"] for p in paths)
        slow = [p for p in paths if p["davg_ms"] > 2 * best and p["davg_ms"] - best > 0.2]
        if slow:
            share = sum(p["cmds_s"] for p in slow) / sum(p["cmds_s"] for p in paths)
            kinds = "non-optimized or remote" if any(p["alua"] != "AO" for p in slow) else "slow"
            worst = max(slow, key=lambda p: p["davg_ms"])
            found.append(Finding(
                f"{d['name']}: {len(slow)} {kinds} paths carry {share:.0%} of its I/O at higher latency",
                f"DAVG {best:.2f} ms on the best path against {worst['davg_ms']:.2f} ms on {worst['name']} "
                f"({worst['alua']}, {worst['target']})",
            ))
        erring = [p for p in paths if p["errors"] > 0]
        for p in erring:
            found.append(Finding(f"{p['name']}: the path returns errors",
                                 f"{p['errors']} errors, {p['retries']} retries during the measurement"))
    found += _alua_thrashing(data)
    return found


def _alua_thrashing(data: dict[str, Any]) -> list[Finding]:
    """Devices whose paths changed ALUA state again and again during the run (the run's event
    log): each change moves I/O between controllers and costs the array a transition."""
    changes: dict[str, list[float]] = {}
    for e in data.get("events", []):
        if e["event"] == "alua":
            changes.setdefault(e["device"], []).append(e["t_s"])
    return [Finding(f"{device}: its paths' ALUA states thrash",
                    f"{len(times)} ALUA state changes between {min(times):.1f} s and {max(times):.1f} s")
            for device, times in sorted(changes.items()) if len(times) >= THRASHING_CHANGES]


def practice_findings(devices: list[Device], shown: Mapping[str, str] | None = None,
                      undetermined: Iterable[Undetermined] = ()) -> list[Finding]:
    """Devices whose settings differ from their array vendor's published practice, each with the
    vendor's source and the command that sets the practice; `shown` gives each device's
    configuration as the host prints it, for the evidence. A setting the captures do not determine
    (`undetermined`) is never compared: where the practice speaks of it, the finding says so and
    what would settle it."""
    open_by_device: dict[str, dict[str, Undetermined]] = {}
    for u in undetermined:
        open_by_device.setdefault(u.device, {})[u.setting] = u
    found = []
    for device in devices:
        unknown = open_by_device.get(device.name, {})
        away, unsettled = departures(device, unknown)
        if not away and not unsettled:
            continue
        row = (away or unsettled)[0].row
        settle = "; ".join(f"{d.setting}: {unknown[d.setting].why}; {row.vendor} says {d.practice}: "
                           f"{unknown[d.setting].settle}" for d in unsettled)
        if not away:
            found.append(Finding(f"{device.name}: {settle}", f"{row.source} ({row.date}): {row.command.splitlines()[0]}"))
            continue
        what = "; ".join(f"{d.setting} {d.in_force} where it says {d.practice}" for d in away)
        in_force = shown[device.name] if shown else device.policy.name
        found.append(Finding(
            f"{device.name}: {what}: not {row.vendor} {row.model}'s practice",
            f"{in_force}; {row.source} ({row.date}): {row.command.splitlines()[0]}" + (f"; {settle}" if settle else ""),
        ))
    return found


def printed_configs(run: Result) -> dict[str, str]:
    """Each device's policy and configuration as esxcli prints them, from a run."""
    return {d["name"]: f"{d['policy']} {d['device_config']}" for d in run.data["devices"]}
