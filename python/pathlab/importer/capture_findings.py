"""What a host's own captures show, before anything is simulated: each finding names the file and
the counters that show it (a full device queue, a path much slower than its peers, a path in
error or failed)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pathlab.finding import Finding

if TYPE_CHECKING:
    import pandas as pd

    from pathlab.readers.esxtop_summary import Summary, TableSummary

#: A path is slow when its latency is more than this many times its device's best path's, and
#: at least `SLOW_MS` above it (a tenth of a millisecond apart is noise at these figures).
SLOW_RATIO = 2.0
SLOW_MS = 0.2
KAVG = "Average Kernel MilliSec/Command"


def esxtop_findings(esxtop: Summary, path_device: dict[str, str], file: str) -> list[Finding]:
    """Full device queues, slow paths and paths with failed commands in an `esxtop -b` capture;
    `path_device` maps a path's runtime name to its device (from the nmp path list)."""
    found = []
    # Each object's mean counters over the capture (the first sample, before esxtop's first
    # interval, left out), a counter at a time: a table of each object's every counter made for
    # the few read was most of the findings' time.
    devices = esxtop["devices"]
    if not devices.empty and {"Queued Commands", "Active Commands", "Device Q Depth"} <= set(devices.counters):
        queued, active, depth = (devices.mean_of_each(c) for c in ("Queued Commands", "Active Commands", "Device Q Depth"))
        kernel = devices.mean_of_each(KAVG) if KAVG in devices.counters else {}
        for name, q in queued.items():
            if q >= 1 and active[name] >= 0.9 * depth[name]:
                found.append(Finding(
                    f"{name}: the device queue is full (captured)",
                    f"{file}: Active Commands {active[name]:.0f} of Device Q Depth {depth[name]:.0f}, "
                    f"Queued Commands {q:.0f}, Average Kernel MilliSec/Command {kernel.get(name, float('nan')):.2f}",
                ))
    paths = esxtop["paths"]
    if paths.empty or "Average Driver MilliSec/Command" not in paths.counters:
        return found
    davg = paths.mean_of_each("Average Driver MilliSec/Command")
    busy = ([p for p, rate in paths.mean_of_each("Commands/sec").items() if rate > 0] if "Commands/sec" in paths.counters
            else list(davg))
    busy_of: dict[str, list[str]] = {}  # each device's busy paths, in the capture's order
    for p in busy:
        if p in path_device:
            busy_of.setdefault(path_device[p], []).append(p)
    for device in sorted(set(path_device.values())):
        own = busy_of.get(device, [])
        if len(own) < 2:
            continue
        best = min(davg[p] for p in own)
        for p in own:
            if davg[p] > SLOW_RATIO * best and davg[p] - best > SLOW_MS:
                found.append(Finding(
                    f"{p}: a path of {device} answers far slower than its peers (captured)",
                    f"{file}: Average Driver MilliSec/Command {davg[p]:.2f} against {best:.2f} on the best path",
                ))
    found += _error_findings(esxtop["paths"], file)
    found += _adapter_findings(esxtop["adapters"], file, queue_full=any("queue is full" in f.title for f in found))
    return found


def _error_findings(table: TableSummary, file: str) -> list[Finding]:
    """Paths with failed commands: erring throughout, or flapping (errors that come and go: at
    least two changes between intervals with and without them)."""
    failed = "Failed Commands/sec"
    if failed not in table.counters or table.empty or not table.any_above_zero(failed):
        return []
    found = []
    failures = table.failures(failed)
    for name, row in failures[failures["erring"] != 0].iterrows():  # the erring paths alone made into rows
        changes, mean = int(row["changes"]), row["mean"]
        if changes >= 2:
            found.append(Finding(f"{name}: the path flaps, erring on and off (captured)",
                                 f"{file}: {failed} above 0 in {int(row['erring'])} of {table.intervals} intervals, "
                                 f"{changes} changes; {mean:.2f} on average"))
        else:
            found.append(Finding(f"{name}: the path returns errors (captured)", f"{file}: {failed} {mean:.2f} on average"))
    return found


def _adapter_findings(table: TableSummary, file: str, queue_full: bool) -> list[Finding]:
    """Adapters whose commands wait in the kernel for a slot (QAVG a large share of their DAVG),
    unless a full device queue already explains the wait."""
    if table.empty or queue_full:
        return []
    means = table.means()
    q, d = "Average Queue MilliSec/Command", "Average Driver MilliSec/Command"
    if not {q, d} <= set(means.columns):
        return []
    found = []
    for name, row in means.iterrows():
        if row[q] >= 0.1 and row[q] >= 0.5 * row[d]:
            aqlen = row.get("Adapter Q Depth", float("nan"))
            found.append(Finding(f"{name}: commands wait for the adapter's queue (captured)",
                                 f"{file}: {q} {row[q]:.2f} against {d} {row[d]:.2f} (Adapter Q Depth {aqlen:.0f})"))
    return found


def multipath_findings(paths: pd.DataFrame, file: str) -> list[Finding]:
    """Paths `multipath -ll` shows failed, faulty or shaky; and each map's standby (`ghost`)
    paths: the checker's state of a port that answers but does not serve the LUN (rdac and hp_sw
    on the controller that does not own it, tur on an ALUA standby port: multipath-tools
    `libmultipath/checkers/tur.c`, sense NOT READY / 04h 0Bh). Standby paths beside a working
    one are how such an array works: said, not a finding; a map left with standby paths alone is."""
    found = []
    by_map: dict[str, list[Any]] = {}
    for row in paths.itertuples():
        by_map.setdefault(str(row.map), []).append(row)
        states = {str(row.dm_state), str(row.checker_state)}
        bad = states & {"failed", "faulty", "shaky"}
        if bad:
            found.append(Finding(
                f"{row.device} ({row.hctl}) of map {row.map} is {'/'.join(sorted(bad))} (captured)",
                f"{file}, line {row.line}: dm state {row.dm_state}, checker {row.checker_state}",
            ))
    for name, rows in by_map.items():
        standby = [r for r in rows if str(r.checker_state) == "ghost" and str(r.dm_state) not in ("failed", "faulty")]
        if not standby:
            continue
        # A dry run (`multipath -d`, `create:`) prints the dm state `undef`: no map is loaded yet.
        serving = [r for r in rows if str(r.dm_state) in ("active", "undef") and str(r.checker_state) == "ready"]
        devices = ", ".join(str(r.device) for r in standby)
        where = f"{file}, line {standby[0].line}: {devices} {'is' if len(standby) == 1 else 'are'} ghost"
        if serving:
            found.append(Finding(f"map {name}: {len(standby)} standby path(s) to the controller or ports that do not "
                                 f"serve the LUN now, as the array works; {len(serving)} serve it (captured)",
                                 where, normal=True))
        else:
            found.append(Finding(f"map {name}: no path serves the LUN, every path left is standby (ghost): I/O waits "
                                 "for a failover to make one active (captured)", where))
    return found
