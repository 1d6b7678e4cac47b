"""The array vendors' published practice for the host's multipathing, by (vendor, model) as the
array reports itself, as the candidate's label."""

from __future__ import annotations

from pathlab.devices import Device

# Sources: Dell EMC's VMAX field test of iops=1 against iops=1000 (CALIBRATION.md C1) and Pure
# Storage's FlashArray claim rule (`-O iops=1`, DOMAIN.md §2; ActiveCluster at distance: the
# latency sub-type or a preferred array, CALIBRATION.md C2).
VENDOR_PRACTICE = {
    ("EMC", "SYMMETRIX"): "round robin, iops=1",
    ("PURE", "FlashArray"): "round robin, iops=1",
}


def practice(device: Device) -> str | None:
    """The practice of the device's array vendor, if pathlab knows one."""
    return VENDOR_PRACTICE.get((device.array.vendor, device.array.model))

