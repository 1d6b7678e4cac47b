"""What a file `pathlab import` refuses looks like: listings admins often give instead of the
inputs it reads (importer/kinds.py), each recognised in the file's first 4 KiB, so that the
refusal says what was found, not only what is wanted."""

from __future__ import annotations

import re

#: (the command that prints such a listing, as said, a pattern its first 4 KiB match); the first match names it.
LOOKALIKES: tuple[tuple[str, re.Pattern[str]], ...] = tuple((command, re.compile(pattern, re.M)) for command, pattern in (
    ("`esxcli storage core device list`", r"^\s*(Has Settable Display Name|Devfs Path|Is Boot Device):"),
    ("`esxcli storage core adapter list`", r"^\s*HBA Name\s+Driver\s+Link State"),
    ("`esxcli storage nmp satp rule list`", r"^\s*Name\s+Device\s+Vendor\s+Model\s+Driver"),
    ("`esxcli storage nmp satp list`", r"^\s*Name\s+Default PSP\s+Description"),
    ("`esxcli storage nmp psp roundrobin deviceconfig get`", r"^\s*IOOperation Limit:"),
    ("`esxcli storage san fc list`", r"^\s*(Port Type|Node Name|Port Name):"),
    ("`esxcfg-mpath -b`", r"^\s*vmhba\S+ LUN:\d+ state:"),
    ("`lsblk`", r"^\s*NAME\s+MAJ:MIN\s+RM"),
    ("`lsscsi`", r"^\s*\[\d+:\d+:\d+:\d+\]\s+\S+"),
    ("`multipathd show paths`", r"^\s*hcil\s+dev\s+dev_t"),
    ("`multipathd show maps`", r"^\s*name\s+sysfs\s+uuid"),
    ("`dmsetup table`", r"^\S+: \d+ \d+ multipath "),
    ("`iostat` without -x", r"^\s*Device\b.*\btps\b"),
    ("`nvme list` (pathlab reads `nvme list-subsys`)", r"^\s*Node\s+(Generic\s+)?SN\s+Model"),
))


def looks_like(head: str) -> str:
    """What the file seems to be: `it looks like `esxcli storage core device list`` where a known
    listing matches, else the first line it holds (cut at 80 characters), or that it is empty."""
    for command, pattern in LOOKALIKES:
        if pattern.search(head):
            return f"it looks like {command}"
    first = next((line.strip() for line in head.splitlines() if line.strip()), "")
    if not first:
        return "the file is empty"
    first = "".join(c if c.isprintable() else "?" for c in first)
    return f"its first line: {first[:80]!r}{' (cut)' if len(first) > 80 else ''}"
