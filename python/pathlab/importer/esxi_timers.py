"""An ESXi host's failure timers as its own listings give them, into the imported scenario with
the file and line of each: an iSCSI adapter's session timers (`esxcli iscsi adapter param get -A
vmhbaNN`, or a target portal's, inheriting them) into that adapter's `iscsi` table, and the
advanced settings `Misc.APDTimeout`, `Misc.APDHandlingEnable` and `Disk.PathEvalTime` (`esxcli
system settings advanced list -o …`) into `[host.stack]`; each also as a `TimerValue` for
advise's timer findings and `advise --failures`. With APD handling off (0) the host retries I/O
in all-paths-down until a path returns and `Misc.APDTimeout` does nothing: it is kept as a
`TimerValue` but not written (the engine refuses it beside `apd_handling = false`). A listing of
an adapter the path listing does not show, or two of one adapter, is refused in one line."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pathlab import esxi_timer_ranges
from pathlab.api import ScenarioError
from pathlab.importer.provenance import Provenance, Read
from pathlab.importer.timer_values import TimerValue
from pathlab.readers.esxcli_advanced import SWITCHES, Setting
from pathlab.readers.esxcli_iscsi_params import COMPARED, TIMERS, AdapterParams


@dataclass
class EsxiTimers:
    """What the import writes: each iSCSI adapter's `iscsi` table and its keys' provenance, the
    `[host.stack]` keys read, and the timers for advise."""

    iscsi: dict[str, dict[str, str]] = field(default_factory=dict)
    iscsi_sources: dict[str, dict[str, Provenance]] = field(default_factory=dict)
    stack: list[tuple[str, str | bool, Provenance]] = field(default_factory=list)
    timers: list[TimerValue] = field(default_factory=list)


def esxi_timers(listings: Sequence[AdapterParams], settings: Sequence[tuple[str, list[Setting]]],
                adapters: Sequence[str]) -> EsxiTimers:
    """The timers of the adapters' listings (each adapter once, and one the paths use) and of the
    advanced settings listings ({file: settings})."""
    out = EsxiTimers()
    first: dict[str, AdapterParams] = {}
    for listing in listings:
        where = f"line {listing.command_line}"
        if listing.adapter not in adapters:
            raise ScenarioError(listing.file, where, f"{listing.adapter} is no adapter of the listed paths "
                                                     f"({', '.join(adapters)}): give the listing of an adapter the paths use")
        if listing.adapter in first:
            raise ScenarioError(listing.file, where, f"{listing.adapter}'s parameters a second time (first in "
                                                     f"{first[listing.adapter].file}): give one listing per adapter")
        first[listing.adapter] = listing
        values: dict[str, str] = {}
        sources: dict[str, Provenance] = {}
        for key, (seconds, row) in listing.timers().items():
            _simulated(listing.file, row.line, row.name, seconds, esxi_timer_ranges.ISCSI[row.name])
            values[key] = f"{seconds}s"
            said = f"{row.name} Current {row.current}" + (f" (inherited, target portal {listing.portal})"
                                                         if listing.portal else "")
            sources[f"iscsi.{key}"] = Read(listing.file, row.line, said)
            out.timers.append(TimerValue(row.name, str(seconds), listing.adapter, f"{listing.file}, line {row.line}"))
        for name in COMPARED:  # compared with vendor practice, not simulated
            if (p := listing.get(name)) is not None:
                portal = f" (target portal {listing.portal})" if listing.portal else ""
                out.timers.append(TimerValue(name, p.current, listing.adapter, f"{listing.file}, line {p.line}{portal}"))
        if not values:
            raise ScenarioError(listing.file, where, f"none of {', '.join(TIMERS)} in {listing.adapter}'s parameters: "
                                                     "not the table of a software or dependent iSCSI adapter")
        out.iscsi[listing.adapter] = values
        out.iscsi_sources[listing.adapter] = sources
    seen: dict[str, str] = {}
    for file, found in settings:
        for s in found:
            if s.name in seen:
                raise ScenarioError(file, f"line {s.path_line}", f"{s.name} a second time (first in {seen[s.name]})")
            seen[s.name] = file
            _simulated(file, s.line, s.name, s.value, SETTING_RANGES[s.name])
            if s.name in SWITCHES:
                said = f"{s.name} Int Value {s.value}" + (": APD handling off, I/O retried until a path returns"
                                                          if not s.value else "")
                out.stack.append((s.key, bool(s.value), Read(file, s.line, said)))
            else:
                out.stack.append((s.key, f"{s.value}s", Read(file, s.line, f"{s.name} Int Value")))
            out.timers.append(TimerValue(s.name, str(s.value), "host", f"{file}, line {s.line}"))
    if any(key == "apd_handling" and value is False for key, value, _ in out.stack):
        out.stack = [entry for entry in out.stack if entry[0] != "apd_timeout"]  # it does nothing then
    return out


#: The advanced settings' values the engine simulates: Misc.APDTimeout's documented range; a
#: Disk.PathEvalTime of 0 (no periodic evaluation) is not one.
SETTING_RANGES = {"Misc.APDTimeout": esxi_timer_ranges.APD_TIMEOUT, "Misc.APDHandlingEnable": (0, 1),
                  "Disk.PathEvalTime": (1, None)}


def _simulated(file: str, line: int, name: str, seconds: int, allowed: tuple[int, int | None]) -> None:
    """Refuses, at its line, a value the listing allows but the engine does not simulate."""
    low, high = allowed
    if seconds < low or (high is not None and seconds > high):
        span = f"{low} to {high}" if high is not None else f"from {low}"
        unit = "" if name in SWITCHES else " s"
        raise ScenarioError(file, f"line {line}", f"{name} {seconds}: pathlab simulates {span}{unit}")


def adapter_element(name: str, queue_depth: int, timers: EsxiTimers) -> tuple[dict[str, Any], dict[str, Provenance]]:
    """An adapter's value in `[host] adapters`, with its `iscsi` table where a listing gave one,
    and the provenance of each `iscsi` key."""
    value: dict[str, Any] = {"name": name, "queue_depth": queue_depth}
    if name in timers.iscsi:
        value["iscsi"] = timers.iscsi[name]
    return value, dict(timers.iscsi_sources.get(name, {}))
