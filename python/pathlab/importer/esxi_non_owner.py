"""What an ESXi host's path list shows an ALUA array reporting through the target port groups that
do not own a LUN: each path's `TPG_state` beside the active-optimized group's (`ANO`, `STBY`,
`UNAV`), as the scenario's `non_owner_state`. One state for the whole array is written on the
array (the default, non-optimized, too: a cluster then tells a host that read it from one that
showed none); where the array's devices show different states, the array takes the state most of
them show and each other device its own (`non_owner_majority`). Where no path beside the owner's
group shows one (a host zoned to the owners' ports alone), the device list's SATP configs show
every group's (`esxi_tpg_config`), read by the same rule."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from pathlab.importer.frame_rows import cell_int
from pathlab.importer.non_owner_majority import majority
from pathlab.importer.provenance import Derived, Provenance

#: ESXi's short TPG states (VMW_SATP_ALUA's `TPG_state`) beside the owner's, as the scenario's.
STATES = {"ANO": "active_non_optimized", "STBY": "standby", "UNAV": "unavailable"}


class PathState(NamedTuple):
    """A path of the list (or a group of a device's SATP config): its runtime name (`TPG_id=2`),
    its `TPG_state` (None where it shows none) and its line."""

    runtime_name: str
    state: str | None
    line: int | None


class Shown(NamedTuple):
    """What a listing's rows showing the states are, in words: many, and one."""

    rows: str
    row: str


#: The path list's rows, and the device list's SATP configs' target port groups.
PATHS = Shown("paths", "path")
CONFIGS = Shown("target port groups (Storage Array Type Device Config)", "target port group")


@dataclass
class NonOwner:
    """The array's state with where it was read, the devices' own where theirs differ, and what
    was said of states that could not be taken."""

    array: tuple[str, Provenance] | None = None
    devices: dict[str, tuple[str, Provenance]] = field(default_factory=dict)
    warnings: list[tuple[str, str]] = field(default_factory=list)


def lines_of(paths: Iterable[Any]) -> str:
    """The paths' lines (each a `line` attribute: a path list's row, a `PathState`), five at most
    said (as the Linux import says its maps')."""
    lines = [str(line) for p in paths if (line := cell_int(getattr(p, "line", None))) is not None]
    if not lines:
        return "its path blocks"
    return f"line{'s' if len(lines) > 1 else ''} {', '.join(lines[:5])}" + (
        f" and {len(lines) - 5} more" if len(lines) > 5 else "")


def non_owner_states(array: str, paths_of: dict[str, list[PathState]], path_file: str,
                     shown_by: Shown = PATHS) -> NonOwner:
    """The array's (and where they differ, each device's) non-owner state from the `TPG_state` of
    each device's paths outside its active-optimized group; a state outside ESXi's ANO, STBY and
    UNAV (or two on one device) is said, and the first one ESXi names is taken."""
    out = NonOwner()
    shown: dict[str, tuple[str, list[PathState]]] = {}  # device -> (its state, the paths that show it)
    for device, paths in paths_of.items():
        beside = [p for p in paths if p.state not in (None, "AO")]
        taken = [p for p in beside if p.state in STATES]
        for p in beside:
            if p.state not in STATES:
                out.warnings.append((f"arrays.{array}.non_owner_state", f"{path_file}, line {p.line}: {device}'s {shown_by.row} "
                                     f"{p.runtime_name} has TPG_state={p.state}, not a state pathlab simulates "
                                     f"(AO, {', '.join(STATES)}): not read" + ("" if taken else
                                                                              f"; the array's other {shown_by.rows} decide")))
        if not taken:
            continue
        first = str(taken[0].state)
        if any(p.state != first for p in taken):
            other = next(p for p in taken if p.state != first)
            out.warnings.append((f"devices.{device}.non_owner_state",
                                 f"{path_file}: {device}'s {shown_by.rows} beside its active-optimized group show TPG_state="
                                 f"{first} (line {taken[0].line}) and {other.state} (line {other.line}): one "
                                 f"state per device is simulated, {first} (the first listed) taken"))
        shown[device] = (first, [p for p in taken if p.state == first])
    found = majority({device: state for device, (state, _) in shown.items()})
    if found is None:
        return out
    of_common = [p for state, ps in shown.values() if state == found.state for p in ps]
    out.array = (STATES[found.state], Derived(f"{path_file}: the {shown_by.rows} beside the active-optimized group report "
                                              f"TPG_state={found.state} ({lines_of(of_common)}){found.rule()}", (path_file,)))
    for device, state in found.apart.items():
        out.devices[device] = (STATES[state], Derived(f"{path_file}: its {shown_by.rows} beside the active-optimized group "
                                                      f"report TPG_state={state} ({lines_of(shown[device][1])})", (path_file,)))
    return out
