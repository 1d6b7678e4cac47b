"""What ESXi's device and path lists show by themselves, with no performance counter: a device
whose Working Paths (the paths carrying its I/O) include a path the array reports active
unoptimized (round robin with `useANO=1`, Fixed preferring such a path), and a device claimed by a
SATP that ignores ALUA (VMW_SATP_DEFAULT_AA/AP) on an array whose other devices report ALUA target
port groups to this host. Each finding names the lines that show it."""

from __future__ import annotations

import re
from typing import Any

from pathlab.finding import Finding

#: SATPs that treat every path alike, whatever target port groups the array reports.
NON_ALUA_SATPS = ("VMW_SATP_DEFAULT_AA", "VMW_SATP_DEFAULT_AP")


def _unoptimized(path: Any) -> bool:
    return str(getattr(path, "tpg_state", "")) == "ANO" or str(getattr(path, "group_state", "")) == "active unoptimized"


def _line(device: Any, column: str) -> str:
    value = getattr(device, f"{column}_line", None)
    return f"line {int(value)}" if isinstance(value, (int, float)) and value == value else "the device's block"


def esxi_listing_findings(devices: list[Any], paths: list[Any], vendor_of: dict[str, str],
                          dev_file: str, path_file: str) -> list[Finding]:
    """The findings of the devices' and every listed path's rows (`frame_rows.rows_of`: the rows
    `esxi.build` reads, not made again here: 4,000 paths' rows are a tenth of a host's build)."""
    found: list[Finding] = []
    by_runtime = {str(p.runtime_name): p for p in paths}
    for d in devices:
        found += _unoptimized_carrying_io(d, by_runtime, dev_file, path_file)
    found += _satp_ignoring_alua(devices, paths, vendor_of, dev_file, path_file)
    return found


def _unoptimized_carrying_io(d: Any, by_runtime: dict[str, Any], dev_file: str, path_file: str) -> list[Finding]:
    working = d.working_paths if isinstance(getattr(d, "working_paths", None), list) else []
    slow = [by_runtime[w] for w in working if w in by_runtime and _unoptimized(by_runtime[w])]
    if not slow:
        return []
    psp = str(getattr(d, "psp", ""))
    if psp == "VMW_PSP_RR":
        why = "round robin with useANO=1 sends I/O down them" if getattr(d, "use_ano", False) is True else \
            "round robin uses them (no optimized path left, or useANO set)"
    elif psp == "VMW_PSP_FIXED":
        why = "Fixed's preferred path is one of them (the array's other controller serves it, through its interconnect)"
    else:
        why = f"{psp} is on one of them"
    names = ", ".join(str(p.runtime_name) for p in slow)
    return [Finding(f"{d.device}: non-optimized path(s) {names} carry I/O: {why} (captured)",
                    f"{dev_file}, {_line(d, 'working_paths')}: Working Paths {', '.join(working)}; "
                    + "; ".join(f"{path_file}, the path at line {p.line}: Group State {p.group_state}"
                                f" (TPG_state={p.tpg_state})" for p in slow))]


def _satp_ignoring_alua(rows: list[Any], paths: list[Any], vendor_of: dict[str, str], dev_file: str,
                        path_file: str) -> list[Finding]:
    """A device under a SATP that ignores ALUA, where the same array's devices (or its own paths)
    report target port groups."""
    import pandas as pd

    reported = [p for p in paths if pd.notna(getattr(p, "tpg_id", None))]
    alua: dict[str, tuple[str, str]] = {}  # array vendor -> (device, where its ALUA shows)
    for d in rows:
        if "TPG_id=" in str(getattr(d, "satp_config", "")):
            groups = "".join(re.findall(r"\{TPG_id=[^}]*\}", str(d.satp_config)))
            alua.setdefault(vendor_of[d.device], (d.device, f"{dev_file}, {_line(d, 'satp_config')}: {d.satp} "
                                                            f"shows target port groups {groups}"))
    for p in reported:
        alua.setdefault(vendor_of.get(str(p.device), ""), (str(p.device), f"{path_file}, the path at line {p.line}: "
                                                                          f"TPG_id={p.tpg_id}"))
    out = []
    for d in rows:
        satp = str(getattr(d, "satp", ""))
        shown = alua.get(vendor_of[d.device])
        if satp in NON_ALUA_SATPS and shown is not None:
            other, where = shown
            out.append(Finding(f"{d.device}: {satp} treats every path alike, but its array reports ALUA target port "
                               "groups: non-optimized paths carry I/O and the array's path states are ignored (captured)",
                               f"{dev_file}, {_line(d, 'satp')}: Storage Array Type {satp}; "
                               f"{'its own' if other == d.device else other + ' of the same array'}: {where}; "
                               "a SATP claim rule for VMW_SATP_ALUA (the array vendor's) would read them"))
    return out
