"""The SCSI command timeout of each path of `multipath -ll` (`/sys/block/sdX/device/timeout`,
`readers/scsi_timeout.py`), tied to its map by the path's disk name (sdX) or address (H:C:T:L): a
device the listing does not show is refused in one line naming both files. Each value is a timer
read with its file and line (`timeout`, scoped to its map's WWID), and the host's
`[host.stack] io_timeout`, the SCSI command timeout the engine runs for every path: the value
every path read gives, or where they differ the one most give (said, with how many give another;
the engine runs one per host). multipathd's checker waits the same timeout unless `checker_timeout`
is set (multipath-tools `libmultipath/propsel.c` select_checker_timeout), which the engine follows.
`eh_timeout` is read and said, not simulated: the engine takes a timed-out command's abort as done
at once, and the error handler's escalation, whose commands wait eh_timeout, is not modelled."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError
from pathlab.importer.most_given import most_given
from pathlab.importer.provenance import Derived, Provenance, Read
from pathlab.importer.timer_values import TimerValue
from pathlab.readers.scsi_timeout import DeviceTimeout

if TYPE_CHECKING:
    import pandas as pd

#: The shortest command timeout simulated (a timer of 0 s would time out every command at once).
SHORTEST = 1


@dataclass
class ScsiTimeouts:
    """The timers read (one per path), the host's io_timeout with its provenance (None where no
    `timeout` was read), and the warnings."""

    timers: list[TimerValue] = field(default_factory=list)
    io_timeout: tuple[str, Provenance] | None = None
    warnings: list[tuple[str, str]] = field(default_factory=list)


def tied(values: Sequence[DeviceTimeout], file: str, paths: pd.DataFrame, maps: pd.DataFrame,
         listing_file: str) -> ScsiTimeouts:
    """Each value tied to its path and map in `multipath -ll`."""
    wwid = {str(m.name): str(m.wwid) for m in maps.itertuples()}
    by_device = {str(p.device): p for p in paths.itertuples() if isinstance(p.device, str)}
    by_address = {str(p.hctl): p for p in paths.itertuples() if isinstance(p.hctl, str)}
    out = ScsiTimeouts()
    timeouts: list[tuple[DeviceTimeout, str]] = []
    said_eh: list[DeviceTimeout] = []
    for v in values:
        path = by_device.get(v.device) or by_address.get(v.device)
        if path is None:
            shown = sorted(by_device)
            raise ScenarioError(file, f"line {v.line}", f"{v.device} is no path of {listing_file} (its paths: "
                                                        f"{', '.join(shown[:8])}{' …' if len(shown) > 8 else ''}): "
                                                        "give the timeouts of the same host's paths")
        where = f"{file}, line {v.line} ({path.device} of map {path.map})"
        if v.attribute == "eh_timeout":
            out.timers.append(TimerValue("eh_timeout", str(v.seconds), wwid[str(path.map)], where))
            said_eh.append(v)
            continue
        if v.seconds < SHORTEST:
            raise ScenarioError(file, f"line {v.line}", f"timeout {v.seconds}: every command would time out at once; "
                                                        f"pathlab simulates {SHORTEST} s or more")
        out.timers.append(TimerValue("timeout", str(v.seconds), wwid[str(path.map)], where))
        timeouts.append((v, str(path.device)))
    if said_eh:
        eh = ", ".join(f"{v.device} {v.seconds} s (line {v.line})" for v in said_eh[:3])
        out.warnings.append(("host.stack", f"{file}: eh_timeout read ({eh}{' …' if len(said_eh) > 3 else ''}), not "
                                           "simulated: a timed-out command's abort is taken as done at once, and the "
                                           "error handler's escalation, whose commands wait eh_timeout, is not modelled"))
    if timeouts:
        out.io_timeout = _host_value(timeouts, file, out.warnings)
        missing = sorted(set(by_device) - {d for _, d in timeouts})
        if missing:
            out.warnings.append(("host.stack.io_timeout", f"{file}: no timeout of {', '.join(missing[:5])}"
                                 f"{' …' if len(missing) > 5 else ''} ({len(missing)} of {len(by_device)} paths of "
                                 f"{listing_file}): taken as the others'"))
    return out


def _host_value(timeouts: list[tuple[DeviceTimeout, str]], file: str,
                warnings: list[tuple[str, str]]) -> tuple[str, Provenance]:
    """The one command timeout the engine runs: every path's, or the one most paths give."""
    (first, device), most = most_given(timeouts, lambda t: t[0].seconds)
    seconds = first.seconds
    if most == len(timeouts):
        return f"{seconds}s", Read(file, first.line, f"{device}'s device/timeout, every path's")
    others = ", ".join(f"{d} {v.seconds} s (line {v.line})" for v, d in timeouts if v.seconds != seconds)
    rule = (f"{file}: the command timeout {most} of {len(timeouts)} paths give (first {device}, line {first.line}); "
            f"the engine runs one per host")
    warnings.append(("host.stack.io_timeout", f"{rule}; the others differ ({others}): a hang on one of those paths "
                                              "stalls for its own timeout"))
    return f"{seconds}s", Derived(rule, (file,))
