"""Windows MPIO's own candidates: each Microsoft DSM policy pathlab simulates and the host does
not run, with `mpclaim -l -d N <policy>` per disk and, for the policies it takes,
`Set-MSDSMGlobalDefaultLoadBalancePolicy` for disks claimed later. Weighted paths is left out:
its weights are the admin's choice, not a setting to try."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pathlab.advisor.candidate import Candidate, as_given
from pathlab.importer.mpio import disk_number

if TYPE_CHECKING:
    from pathlab.devices import Device

#: pathlab's policy → mpclaim's short name and `mpclaim -l -m` number.
MPCLAIM = {"failover_only": ("FOO", 1), "round_robin": ("RR", 2), "round_robin_with_subset": ("RRWS", 3),
           "least_queue_depth": ("LQD", 4), "least_blocks": ("LB", 6)}
#: The policies Set-MSDSMGlobalDefaultLoadBalancePolicy takes.
GLOBAL_DEFAULTS = ("FOO", "RR", "LQD", "LB")
#: Parameters of one policy that mean nothing under another (the paths a subset keeps, weights).
PER_POLICY = ("active_paths", "weights")


def mpio_candidates(devices: Sequence[Device]) -> list[Candidate]:

    in_force = {d.policy["policy"] for d in devices}
    held = [d.name for d in devices if "active_paths" in d.policy.given]
    out = []
    for policy, (short, number) in MPCLAIM.items():
        if in_force == {policy}:
            continue
        commands = [_disk_command(d.name, number) for d in devices]
        if short in GLOBAL_DEFAULTS:
            commands.append(f"Set-MSDSMGlobalDefaultLoadBalancePolicy -Policy {short}   # disks claimed from now on")
        overrides: dict[str, Any] = {f"devices.{i}.policy": {**as_given(d, PER_POLICY), "policy": policy} for i, d in enumerate(devices)}
        caveat = "failover only: one path carries every I/O, the others stand by" if short == "FOO" else \
            "round robin with subset: the optimized paths (ALUA) are the subset" if short == "RRWS" else ""
        if short != "FOO" and held:
            caveat = "; ".join(c for c in (caveat, _held_caveat(held)) if c)
        out.append(Candidate(f"mpio {short}", overrides, commands, caveat))
    return out


def _held_caveat(held: list[str]) -> str:
    """What a candidate that drops the standby set of the policy in force puts to work: the paths
    the admin kept in standby, for a reason no listing shows (a stretched array's remote paths),
    simulated as near as the others."""
    return (f"it sends I/O down the paths the setting in force keeps in standby ({', '.join(held)}): mpclaim does not "
            "say why they stand by (a remote site's paths, say); their distance is not in the listing and is simulated "
            "as the others'")


def _disk_command(name: str, number: int) -> str:
    disk = disk_number(name)
    if disk is None:
        return f"mpclaim -l -d <MPIO disk number of {name}> {number}   # mpclaim -s -d lists the numbers"
    return f"mpclaim -l -d {disk} {number}"
