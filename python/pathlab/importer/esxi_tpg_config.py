"""What an ESXi device list says of an ALUA array's target port groups by itself: each device's
`Storage Array Type Device Config` (VMW_SATP_ALUA's, `{TPG_id=1,TPG_state=AO}{TPG_id=2,TPG_state=ANO}`)
prints the state of every target port group the array reports for the LUN, whether or not this
host has a path to it.

The rule (*a target port group not active-optimized*): an array one of whose devices shows one AO
group and a TPG in another state (ANO, STBY, UNAV, ...) owns its LUNs by controller, not symmetric,
whatever this host's paths show: a host zoned to the owner's ports alone (one ESXi host reaching SP
A only) lists active-optimized paths only, although the array reports the other group
non-optimized. The device's owner is then its one AO group, where the host has a port of it.

A config with more than one AO group (a uniform metro array, Pure ActiveCluster: both sites' groups
AO, a third ANO) names no one owner: the host may reach two groups that both serve the LUN
optimized, so the config does not make the array owned and the paths' own reading stands (said by
`undecided`, where the paths read the array symmetric).

Nor does a group offline (OFFL) or transitioning (TRAN): a moment, a controller down or rebooting;
nor one logical-block dependent (LBD): no ownership either. Only ALUA's asymmetric states beside the
AO group (SPC-4: ANO, STBY, UNAV) establish that the LUN is owned by its AO group; with none, the
config leaves ownership not determined (said, the paths' reading kept)."""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from pathlab.importer.frame_rows import cell as _value
from pathlab.importer.frame_rows import cell_int

#: ALUA's asymmetric access states (SPC-4) that, beside an AO group, say the LUN is owned by it.
OWNED_BESIDE = ("ANO", "STBY", "UNAV")

#: A target port group and its state in an SATP's device config.
TPG_STATE = re.compile(r"TPG_id=(\d+),TPG_state=(\w+)")


def tpg_states(device: Any, taken: dict[int, str] | None = None) -> list[tuple[int, str]]:
    """Each `{TPG_id=…,TPG_state=…}` of the device's SATP config, in the listing's order; a group
    in `taken` (the path list's state of the groups the device's paths reach,
    `esxi_listings_disagree`) with that state."""
    printed = TPG_STATE.findall(str(_value(getattr(device, "satp_config", None)) or ""))
    return [(int(tpg), (taken or {}).get(int(tpg), state)) for tpg, state in printed]


class NotOptimized(NamedTuple):
    """A device whose SATP config shows a TPG in another state than AO: the device, its config's
    line (None where the listing gives none), the group and its state, and its one AO group."""

    device: str
    line: int | None
    tpg: int
    state: str
    optimized: int | None
    #: The state the config printed, where the path list's (`state`) was taken over it.
    printed: str | None = None

    def said(self, dev_file: str) -> str:
        at = f"{dev_file}" + (f", line {self.line}" if self.line is not None else "")
        if self.printed is not None:
            return (f"{at}: {self.device}'s Storage Array Type Device Config shows TPG_id={self.tpg} (TPG_state="
                    f"{self.printed}; its paths' {self.state} taken)")
        return f"{at}: {self.device}'s Storage Array Type Device Config shows TPG_id={self.tpg},TPG_state={self.state}"


def not_optimized(device: Any, taken: dict[int, str] | None = None) -> NotOptimized | None:
    """The device's first TPG in an asymmetric state (ANO, STBY, UNAV) in its SATP config (`taken`
    over it, `tpg_states`), with its one AO group; None where the config shows none, or more than
    one AO group (no one owner)."""
    groups = tpg_states(device, taken)
    other = next(((tpg, state) for tpg, state in groups if state in OWNED_BESIDE), None)
    optimized = [tpg for tpg, state in groups if state == "AO"]
    if other is None or len(optimized) > 1:
        return None
    printed = dict(tpg_states(device))[other[0]]
    return NotOptimized(str(device.device), cell_int(getattr(device, "satp_config_line", None)), other[0], other[1],
                        optimized[0] if optimized else None, None if printed == other[1] else printed)


def undecided(device: Any, dev_file: str, taken: dict[int, str] | None = None) -> str | None:
    """Why the device's SATP config (`taken` over it, `tpg_states`), showing a TPG not
    active-optimized, does not make its array owned (with its file and line), or None where it
    does or shows no such group."""
    groups = tpg_states(device, taken)
    optimized = [tpg for tpg, state in groups if state == "AO"]
    others = [f"TPG_id={tpg},TPG_state={state}" for tpg, state in groups if state != "AO"]
    if not others or not_optimized(device, taken) is not None:
        return None
    line = cell_int(getattr(device, "satp_config_line", None))
    shows = (f"{dev_file}" + (f", line {line}" if line is not None else "") + f": {device.device}'s Storage Array "
             f"Type Device Config shows {' and '.join(f'TPG_id={tpg}' for tpg in optimized) or 'no group'} "
             f"active-optimized ({', '.join(others)} beside)")
    moved = [f"TPG_id={tpg}" for (tpg, state), (_, printed) in zip(groups, tpg_states(device)) if state != printed]
    if moved:
        shows += f" once the path list's states are taken for {', '.join(moved)}"
    if len(optimized) > 1:
        return (f"{shows}: more than one active-optimized group (a uniform metro array serves the LUN alike from "
                "both), so the config names no one owner and does not make the array owned by controller")
    return (f"{shows}: offline (OFFL) or transitioning (TRAN) is a moment, a controller down or rebooting, and "
            "logical-block dependent (LBD) no ownership; only ANO, STBY or UNAV (ALUA's asymmetric states, SPC-4) "
            "say the LUN is owned by its active-optimized group, so whether the array owns LUNs by controller is "
            "not determined by the config")
