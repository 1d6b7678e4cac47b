"""PowerPath's own candidates: each load-balancing policy pathlab simulates and the host does not
run (basic failover, which balances nothing, is not offered), with the `powermt` commands that
set it on every device (`rpowermt … host=` on ESXi, where PowerPath/VE is managed from a remote
host) and `powermt save` to keep it across reboots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pathlab.advisor.candidate import Candidate, as_given
from pathlab.api import policy_choices

if TYPE_CHECKING:
    from pathlab.devices import Device

#: pathlab's policy names → `powermt set policy=`'s abbreviations and display names (CLI reference).
ABBREVIATIONS = {"adaptive": ("ad", "ADaptive"), "least_ios": ("li", "LeastIos"), "least_blocks": ("lb", "LeastBlocks"),
                 "round_robin": ("rr", "RoundRobin")}


def powerpath_candidates(devices: Sequence[Device]) -> list[Candidate]:
    """Each PowerPath policy not in force on every device, autostandby kept as the host has it."""

    in_force = {d.policy["policy"] for d in devices}
    esxi = any(str(p).startswith("vmhba") for d in devices for p in _path_names(d))
    out = []
    for policy in policy_choices("powerpath", "policy"):
        if in_force == {policy} or policy not in ABBREVIATIONS:  # basic failover balances nothing: no candidate
            continue
        short, shown = ABBREVIATIONS[policy]
        if esxi:
            commands = [f"rpowermt set policy={short} dev=all host=<esxi-host>", "rpowermt save host=<esxi-host>"]
        else:
            commands = [f"powermt set policy={short} dev=all", "powermt save"]
        overrides: dict[str, Any] = {f"devices.{i}.policy": {**as_given(d), "policy": policy}
                                     for i, d in enumerate(devices)}
        out.append(Candidate(f"powerpath {shown}", overrides, commands,
                             "dev=all sets every PowerPath device of the host; `powermt display dev=all` shows the "
                             "policy in force"))
    return out


def _path_names(device: Device) -> list[str]:
    """The runtime names of the device's paths, as PowerPath's status lists them."""
    return [str(p.get("path", "")) for p in device.status.fields.get("paths", [])]
