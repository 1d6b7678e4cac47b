"""An ESXi path whose target the listing prints as unknown is no array port of its own.

A path that has lost its target (a dead iSCSI session, an FC port gone from the fabric) can print
no target: `esxcli storage core path list`'s `Target Identifier: unknown` (or `unknown.<channel>:
<target>`, the placeholder ESXi writes where a transport names no end: Checkmk's vSphere
multipath check, Checkmk/checkmk `cmk/base/legacy_checks/esx_vsphere_hostsystem.py`, quotes an
ESXi 5.1 path `unknown.vmhba0-unknown.2:0-naa.…`, a live local one: no public listing of a dead
path was found), a path UID with such a target part in `nmp path list`, or an iSCSI identifier
without its target name (`<ISID>,,t,<tag>`). Taken as printed, that text became a port apart: a port the array does not
have (one shared by every adapter's unknown paths, at that).

The rule (*same adapter, channel and target number*): ESXi numbers the targets of each adapter and
channel, so `vmhba37:C1:T0` names one target whatever LUN: the path reaches the target a path of
the same adapter, channel and target number names, and the import says so. Where no path there
names it, the listing does not say which array port the path reaches: a path out of use (dead,
disabled: `esxi_dead_paths`) is left out of the imported host (a finding names its line) rather
than given a port the array may not have, as it carried no I/O on the host either; a path in use
(a transport that names no target, as the local one above) carries I/O, so it keeps a port of its
own, the target its adapter, channel and target number name (`vmhba0:C2:T0`), said as a warning;
the paths in use are placed first, so that a dead one at the same adapter, channel and target
number reaches that port (one target there) and stays down from 0 s, as beside a named one.
A device left with no path (every path dead and of an unknown target: all paths down, an ordinary
capture during an outage) is left out of the imported host, a finding naming its paths' lines, as
`esxi.build` leaves out local disks and devices of other plug-ins; where no device is left, the
import is refused."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.api import ScenarioError
from pathlab.finding import Finding
from pathlab.importer.esxi_dead_paths import out_of_use
from pathlab.importer.frame_rows import cell as _value
from pathlab.importer.frame_rows import cell_int
from pathlab.readers._esxcli_text import target_named
from pathlab.readers._listed_once import NOT_PRINTED


def unknown_target(row: Any) -> str | None:
    """What the listing printed for `row`'s target where it names none (`Target Identifier:
    unknown`, or the path UID), else None."""
    identifier = _value(getattr(row, "target_identifier", None))
    if hasattr(row, "target_identifier"):  # a core (or hpp) path list: its identifier is the target's
        return f"Target Identifier: {str(identifier).strip()}" if target_named(identifier) is NOT_PRINTED else None
    name = _value(getattr(row, "path", None))
    return f"path {name}" if target_named(name) is NOT_PRINTED else None


def _place(row: Any) -> tuple[str, int, int]:
    channel = _value(getattr(row, "channel", None))
    return str(row.adapter), int(channel) if channel is not None else 0, int(row.target)


@dataclass
class Placed:
    """The paths kept, a finding for each path (or device) left out, and the devices left out."""

    paths: list[Any]
    found: list[Finding] = field(default_factory=list)
    devices_left_out: set[str] = field(default_factory=set)


def placed(paths: list[Any], target_of: dict[Any, str], path_file: str, warnings: list[tuple[str, str]]) -> Placed:
    """The paths kept, with `target_of` set for those whose target was printed unknown (the
    target a path of the same adapter, channel and target number names, said in `warnings`), and
    a finding for each path out of use left out (no path there names its target; a path in use
    keeps its adapter's target number as its port); a device none of whose paths is kept is left
    out, one finding naming its paths' lines (refused where no device is left)."""
    unknown = {p.runtime_name: printed for p in paths if (printed := unknown_target(p)) is not None}
    if not unknown:
        return Placed(paths)
    named: dict[tuple[str, int, int], Any] = {}
    for p in paths:
        if p.runtime_name not in unknown:
            named.setdefault(_place(p), p)
    said: dict[Any, str] = {}  # each path placed, and how (said in the listing's order)
    left: dict[Any, str] = {}  # each path left out, and the field and state the listing shows
    # The paths in use first: one whose place no path names takes its adapter, channel and target
    # number as its port, and a dead one at the same place reaches that port (one target there).
    for p in sorted((p for p in paths if p.runtime_name in unknown), key=lambda p: out_of_use(p) is not None):
        at = _at(p, path_file)
        where = _where(p)
        sibling = named.get(_place(p))
        shown = out_of_use(p)
        if sibling is not None and sibling.runtime_name not in unknown:
            target_of[p.runtime_name] = target_of[sibling.runtime_name]
            said[p.runtime_name] = (f"{at}: {unknown[p.runtime_name]}: taken as the target {sibling.runtime_name} "
                                    f"names (line {cell_int(getattr(sibling, 'line', None))}): ESXi numbers targets "
                                    "per adapter and channel")
        elif shown is None:  # in use: it carries I/O, to the one target its numbers name
            target_of[p.runtime_name] = where
            named.setdefault(_place(p), p)
            said[p.runtime_name] = (f"{at}: {unknown[p.runtime_name]}: no path of {where} names its target, which is "
                                    f"taken as a port of its own, {where} (ESXi numbers targets per adapter and "
                                    "channel)")
        elif sibling is not None:  # dead, where a path in use of an unknown target too has its port
            target_of[p.runtime_name] = target_of[sibling.runtime_name]
            said[p.runtime_name] = (f"{at}: {unknown[p.runtime_name]}: taken as the port {where} of "
                                    f"{sibling.runtime_name} (line {cell_int(getattr(sibling, 'line', None))}), a path "
                                    "in use at the same adapter, channel and target number whose target is unknown "
                                    "too: ESXi numbers targets per adapter and channel")
        else:
            left[p.runtime_name] = f"{shown[0]}: {shown[1]}"
    kept = [p for p in paths if p.runtime_name not in left]
    warnings += [(f"paths.{p.runtime_name}", said[p.runtime_name]) for p in paths if p.runtime_name in said]
    if not kept:
        first = paths[0]
        raise ScenarioError(path_file, f"line {cell_int(getattr(first, 'line', None))}",
                            f"{first.device}: every path's target is unknown ({unknown[first.runtime_name]}), and no "
                            "path of the same adapter, channel and target number names it, as of every device's: "
                            "which array ports the devices reach is not in the listing, and no device is left to import")
    out = Placed(kept, devices_left_out={str(p.device) for p in paths} - {str(p.device) for p in kept})
    for p in paths:
        if p.runtime_name not in left or str(p.device) in out.devices_left_out:
            continue
        out.found.append(Finding(f"{p.device}: path {p.runtime_name} left out: its target is unknown (captured)",
                                 f"{_at(p, path_file)}: {unknown[p.runtime_name]}; no path of {_where(p)} names its "
                                 "target, so which array port it reaches is not in the listing: the imported host "
                                 "has no such path"))
    for device in sorted(out.devices_left_out):
        own = [p for p in paths if str(p.device) == device]
        lines = [str(line) for p in own if (line := cell_int(getattr(p, "line", None))) is not None]
        out.found.append(Finding(f"{device}: left out: every path is out of use and of an unknown target (captured)",
                                 f"{path_file}" + (f", line{'s' if len(lines) > 1 else ''} {', '.join(lines)}" if lines
                                                   else "") + ": "
                                 + "; ".join(f"{p.runtime_name} {left[p.runtime_name]}, {unknown[p.runtime_name]}"
                                             for p in own)
                                 + f"; no path of {', '.join(dict.fromkeys(_where(p) for p in own))} names its target, "
                                 "so which array ports the device reaches is not in the listing (all paths down: a "
                                 "capture during an outage): the imported host has no such device, nor a workload "
                                 "from its esxtop rows"))
    return out


def _at(p: Any, path_file: str) -> str:
    line = cell_int(getattr(p, "line", None))
    return f"{path_file}" + (f", line {line}" if line is not None else "")


def _where(p: Any) -> str:
    adapter, channel, target = _place(p)
    return f"{adapter}:C{channel}:T{target}"
