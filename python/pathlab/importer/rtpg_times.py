"""The IMPLICIT TRANSITION TIME `sg_rtpg -e /dev/sdX` prints, tied to the map and array the
host's `multipath -ll` shows: the output's command line must name a SCSI device (sdX) that is
a path of the listing; an output with no command line naming one, or naming a device the
listing lacks, is refused in one line naming both files. Each value is a timer read with its
file and line (`implicit_transition_time`, per map), and the array's for the scenario: the
longest its maps' devices report (a transition may take that long). An output without
`--extended` gives no time, and one that reports 0 (unspecified) gives none either: both said."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError
from pathlab.importer.timer_values import TimerValue
from pathlab.readers.sg_rtpg import Rtpg

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class MapTransition:
    """A map's implicit transition time in seconds, the line it was read at and the device it is of."""

    seconds: int
    line: int
    device: str


def tied(outputs: Sequence[Rtpg], file: str, paths: pd.DataFrame, listing_file: str
         ) -> tuple[list[TimerValue], dict[str, MapTransition], list[tuple[str, str]]]:
    """The timers read, each map's time (by map name) and the warnings."""
    map_of = {str(p.device): str(p.map) for p in paths.itertuples() if isinstance(p.device, str)}
    timers: list[TimerValue] = []
    found: dict[str, MapTransition] = {}
    warnings: list[tuple[str, str]] = []
    for out in outputs:
        at = f"line {out.command_line if out.command_line is not None else out.groups[0].line}"
        if out.device is None:
            raise ScenarioError(file, at, "no command line naming the device (`sg_rtpg -e /dev/sdX`) before this "
                                          f"output: its map in {listing_file} is not known")
        if out.device not in map_of:
            raise ScenarioError(file, at, f"{out.device} is no path of {listing_file} (its paths: "
                                          f"{', '.join(sorted(map_of)[:8])}{' …' if len(map_of) > 8 else ''}): give "
                                          "sg_rtpg outputs of the same host's paths")
        name = map_of[out.device]
        if out.implicit is None or out.implicit_line is None:
            warnings.append((f"maps.{name}", f"{file}, {at}: {out.device}: no implicit transition time (sg_rtpg without "
                                             "-e/--extended prints none)"))
            continue
        if out.implicit == 0:
            warnings.append((f"maps.{name}", f"{file}, line {out.implicit_line}: {out.device}: implicit transition time "
                                             "0, unspecified by the array"))
            continue
        timers.append(TimerValue("implicit_transition_time", str(out.implicit), name,
                                 f"{file}, line {out.implicit_line} ({out.device} of map {name})"))
        known = found.get(name)
        if known is None or out.implicit > known.seconds:
            found[name] = MapTransition(out.implicit, out.implicit_line, out.device)
    return timers, found, warnings
