"""The names and numbers the Linux kernel gives SCSI disks, which `multipath -ll`, /proc/diskstats
and the NVMe import's controller names (`A`, `B`, …, `AA`) follow:
* `sd_format_disk_name` (drivers/scsi/sd.c): index 0 is `sda`, 25 `sdz`, 26 `sdaa`, 701 `sdzz`,
  702 `sdaaa` (bijective base 26);
* `sd_probe`: major `sd_major((index & 0xf0) >> 4)`, first minor `((index & 0xf) << 4) |
  (index & 0xfff00)`: sixteen disks per major, 8 then 65-71 then 128-135
  (Documentation/admin-guide/devices.txt, "SCSI disk devices"), then round again from 8 with
  minors above 255."""

from __future__ import annotations


def letters(index: int) -> str:
    """The kernel's disk-name suffix for a 0-based index: a..z, aa..zz, aaa.. (`sd_format_disk_name`)."""
    out = ""
    while True:
        out = chr(ord("a") + index % 26) + out
        index = index // 26 - 1
        if index < 0:
            return out


def sd_name(index: int) -> str:
    return "sd" + letters(index)


def sd_dev_t(index: int) -> str:
    """`major:minor` of the index-th SCSI disk (drivers/scsi/sd.c `sd_probe`, `sd_major`)."""
    group = (index & 0xF0) >> 4
    major = 8 if group == 0 else 65 + group - 1 if group < 8 else 128 + group - 8
    minor = ((index & 0xF) << 4) | (index & 0xFFF00)
    return f"{major}:{minor}"
