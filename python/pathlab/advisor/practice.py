"""How a device's multipathing stands against its array vendor's published practice
(`vendor_practice.toml`, read by `vendor_table.py`): the settings in force that differ from every
row the vendor publishes for the device's array and host stack, each with the row's source."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from pathlab.advisor.vendor_table import Practice, practice_for
from pathlab.devices import Device

#: pathlab's host stacks as the vendor table names them.
TABLE_STACK = {"esxi": "esxi-nmp", "linux-dm": "dm-multipath", "linux-nvme": "nvme-native", "windows": "windows-mpio"}


@dataclass(frozen=True)
class Departure:
    """A setting in force that differs from the vendor's practice: what is set, what the vendor
    says, and the row that says it."""

    setting: str
    in_force: str
    practice: str
    row: Practice


def rows_for(device: Device) -> list[Practice]:
    if device.policy.name == "powerpath":  # the vendor rows are NMP's PSPs: PowerPath/VE replaces NMP
        return []
    stack = "esxi-hpp" if device.policy.name == "HPP" else TABLE_STACK.get(device.stack)
    return practice_for(device.array.vendor, device.array.model, stack) if stack else []


def departures(device: Device, unknown: Collection[str] = ()) -> tuple[list[Departure], list[Departure]]:
    """The settings in force that differ from the vendor's practice, judged against the row the
    device comes closest to (the fewest departures); none when no row is published. `unknown`
    names the settings the captures do not determine: they are never a departure, and come back
    apart (the second list) where the row speaks of them, for the finding to say what would settle them."""
    found = [([d for d in away if d.setting not in unknown], [d for d in away if d.setting in unknown])
             for away in (_against(device, row) for row in rows_for(device))]
    return min(found, key=lambda split: len(split[0])) if found else ([], [])


def _against(device: Device, row: Practice) -> list[Departure]:
    given, policy, out = row.setting.given(), device.policy, []

    def differ(setting: str, in_force: object, practice: object) -> None:
        if practice is not None and str(in_force) != str(practice):
            out.append(Departure(setting, str(in_force), str(practice), row))

    if device.stack == "esxi" and policy.name != "HPP":
        differ("PSP", policy.name, given.get("psp"))
        if policy.name == given.get("psp") == "VMW_PSP_RR":
            rr_type = {"default": "iops"}.get(str(policy.get("type")), policy.get("type"))
            differ("round robin type", rr_type, given.get("rr_type"))
            if given.get("rr_type", "iops") == "iops" and rr_type == "iops":
                differ("round robin iops", policy.get("iops"), given.get("iops"))
    elif device.stack == "linux-dm":
        selector = given.get("path_selector")
        differ("path_selector", policy.get("selector"), selector.split()[0] if isinstance(selector, str) else None)
        differ("path_grouping_policy", policy.get("path_grouping_policy"), given.get("path_grouping_policy"))
        differ("no_path_retry", policy.get("no_path_retry"), given.get("no_path_retry"))
    elif device.stack == "linux-nvme":
        differ("iopolicy", policy.get("iopolicy"), given.get("iopolicy"))
    return out
