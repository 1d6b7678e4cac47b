"""Each device's load as a capture measured it: its I/O rate and mean response, the figures the
setting in force must reproduce before advise ranks anything (`advisor/capture_check.py`). Read from
the same counters the importers make the workload from: diskstats or `iostat -x` for a Linux
device (reads and writes per second; read and write ticks per I/O, or r_await and w_await),
esxtop for an ESXi one (Commands/sec; Average Guest MilliSec/Command, the time the guest sees)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from pathlab.readers.esxtop_summary import TableSummary


@dataclass(frozen=True)
class CapturedLoad:
    """One device's captured load."""

    #: The device as the scenario names it (a WWID, a NAA, a namespace).
    device: str
    #: I/Os per second, reads and writes, the mean over the capture.
    rate: float
    #: The mean response per I/O in ms, as the host measures it above its queue; None where the
    #: capture has no time per I/O (iostat without r_await and w_await).
    response_ms: float | None
    #: Where the figures come from: the file, the device as it names it, and the counters.
    where: str
    #: How closely the capture gives each mean: the 95% half-width over its intervals as a share
    #: of the mean (0 where the capture does not tell: one interval, or iostat's means).
    rate_spread: float = 0.0
    response_spread: float = 0.0

    @property
    def outstanding(self) -> float | None:
        """The I/Os in flight on average, by Little's law (rate × response)."""
        return self.rate * self.response_ms / 1000 if self.response_ms is not None else None


def from_rates(rates: pd.DataFrame | None, name: str, device: str, file: str) -> CapturedLoad | None:
    """A Linux block device's load from `diskstats.device_means` or `iostat.device_means`
    (`name` as the capture names it: dm-N, nvmeXnY); None where it has no reads or writes. The
    response is the read and write latencies weighted by their rates."""
    if rates is None:
        return None
    row = rates[rates["device"] == name]
    if row.empty:
        return None
    reads, writes = (_figure(row, c) or 0.0 for c in ("reads_per_s", "writes_per_s"))
    if reads + writes <= 0:
        return None
    latencies = [(_figure(row, "read_latency_ms"), reads), (_figure(row, "write_latency_ms"), writes)]
    timed = [(ms, n) for ms, n in latencies if n > 0]
    known = all(ms is not None for ms, _ in timed)
    response = _timed(sum(ms * n for ms, n in timed if ms is not None) / (reads + writes) if known else None)
    counters = "reads and writes per second" + (", their mean latencies" if response is not None else "")
    return CapturedLoad(device, reads + writes, response, f"{file}: {name}'s {counters}", _figure(row, "rate_spread") or 0.0,
                        _figure(row, "response_spread") or 0.0)


def from_esxtop(devices: TableSummary | None, name: str, file: str) -> CapturedLoad | None:
    """An ESXi device's load from esxtop's device rows: Commands/sec and GAVG (DAVG + KAVG where
    the capture has no GAVG column)."""
    if devices is None or devices.empty:
        return None
    rate = devices.mean(name, "Commands/sec")
    if not rate:
        return None
    gavg = _timed(devices.mean(name, "Average Guest MilliSec/Command"))
    counters = "Commands/sec, Average Guest MilliSec/Command"
    spreads = devices.spread(name, "Commands/sec") or 0.0, devices.spread(name, "Average Guest MilliSec/Command") or 0.0
    if gavg is None:
        davg, kavg = devices.mean(name, "Average Driver MilliSec/Command"), devices.mean(name, "Average Kernel MilliSec/Command")
        gavg = _timed(davg + (kavg or 0.0) if davg is not None else None)
        counters = "Commands/sec, Average Driver + Kernel MilliSec/Command" if gavg is not None else "Commands/sec"
    return CapturedLoad(name, rate, gavg, f"{file}: {name}'s {counters}", *spreads)


def _timed(ms: float | None) -> float | None:
    """A captured time per I/O, or None where the capture has none: I/Os counted with no time
    (0 ms, ticks that did not move) give no response to reproduce."""
    return ms if ms is not None and ms > 0 else None


def _figure(row: pd.DataFrame, column: str) -> float | None:
    if column not in row.columns:
        return None
    value = float(row[column].iloc[0])
    return None if math.isnan(value) else value
