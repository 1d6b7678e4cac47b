"""Windows MPIO's own listings for the host's devices under the `mpio` policy, as Microsoft's
mpclaim and the MPIO PowerShell module print them (`readers/mpclaim.py` reads them back), each
after the prompt that ran it (`PS C:\\> mpclaim -s -d 2`), as an admin pastes them: each disk's
line, its DSM, serial and supported policies and its path table, in the layout of the published
samples in `tests/data/mpio/` (shown in `readers/mpclaim.py`): the path row `%s %-18s %-17s %s`,
the `TPG_State` line `TPG_State : %-18s, TPG_Id: %d, : %d`. Before the disks, `mpclaim -s -d`'s
list where the import read one (`%-12s %-12s %-12s %s`); after them, `Get-MPIOSetting`'s values
(`Name : Value`, names padded to the longest, as PowerShell's list format does) and
`Get-MSDSMGlobalDefaultLoadBalancePolicy`'s word, where read.

An imported disk prints its listing's values (`listed`), the list and settings read beside it
too (kept in the first disk's table); a path's state or the disk's policy the scenario now holds
otherwise (a fault, `--set`) is the simulation's, marked `?` (`as_read.now_held`). A disk that was
not imported prints the model's own: `MPIODisk`'s number where it has one (else its place), its
policy and paths as the policy's status gives them, each path's adapter's and target's numbers as
its SCSI address, and no DSM, serial or TPG line (the model has none)."""

from __future__ import annotations

import re
from typing import Any

from pathlab.output.as_read import now_held

PROMPT = "PS C:\\> "
RULE = "-" * 75
LIST_RULE = "-" * 53
#: Get-MPIOSetting's names, the longest of which sets the padding (Format-List).
SETTING_WIDTH = len("UseCustomPathRecoveryTime")


def status(device: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """The policy's status (`psp_config`): its policy as mpclaim spells it, and each path's state
    (`port4:C0:T4:L1: Standby weight=0`)."""
    first, *lines = device["psp_config"].splitlines()
    states = {}
    for line in lines:
        name, _, rest = line.partition(": ")
        states[name] = rest.rsplit(" weight=", 1)[0]
    return first.removeprefix("Load Balance Policy: "), states


def path_row(path_id: str, state: str, address: str, weight: str) -> str:
    return f"    {path_id} {state:<18} {address:<17} {weight}"


def _disk(own: dict[str, str], policy: str, rows: list[str]) -> list[str]:
    lines = [f"{PROMPT}mpclaim -s -d {own['MPIO Disk']}", "",
             f"MPIO Disk{own['MPIO Disk']}: {int(own['Paths']):02d} Paths, {policy}, {own['ALUA']}"]
    lines += [f"    {key}: {own[key]}" for key in ("Controlling DSM", "SN", "Supported Load Balance Policies") if key in own]
    return [*lines, "", "    Path ID          State              SCSI Address      Weight", f"    {RULE}", *rows, ""]


def _imported(device: dict[str, Any]) -> list[str]:
    own = device["listed"]["device"]
    policy, now = status(device)
    then_policy, then = status(device["imported"]["device"])
    rows = []
    for name, read in sorted(device["listed"]["paths"].items(), key=lambda item: int(item[1].get("order", 0))):
        state = read["State"] if now.get(name) == then.get(name) else now_held(now[name])
        rows.append(path_row(read["Path ID"], state, read["SCSI Address"], read["Weight"]))
        if "TPG_State" in read:
            rows.append(f"        TPG_State : {read['TPG_State']:<18}, TPG_Id: {read['TPG_Id']}, : {read['relative port']}")
    return _disk(own, own["policy"] if policy == then_policy else now_held(policy), rows)


def _own(device: dict[str, Any], place: int, paths: list[dict[str, Any]]) -> list[str]:
    policy, now = status(device)
    number = re.fullmatch(r"MPIODisk(\d+)", device["name"])
    rows: list[str] = []
    for p in paths:
        at = re.match(r".*?(\d+):C(\d+):T(\d+):L(\d+)$", p["name"])
        address = "|".join(f"{int(n):03d}" for n in at.groups()) if at else p["name"]
        rows.append(path_row(f"{len(rows):016x}", now.get(p["name"], "?"), address, "0"))
    own = {"MPIO Disk": number.group(1) if number else str(place), "Paths": str(len(paths)), "ALUA": "?"}
    return _disk(own, policy, rows)


def _host_lines(own: dict[str, str]) -> tuple[list[str], list[str]]:
    """The disk list (before the disks) and the settings (after them) the first disk's table keeps."""
    before = []
    if "list order" in own:
        before = [f"{PROMPT}mpclaim -s -d", "", "MPIO Disk    System Disk  LB Policy    DSM Name", LIST_RULE]
        for number in own["list order"].split(","):
            system, policy, dsm = own[f"list {number}"].split("|", 2)
            before.append(f"{'MPIO Disk' + number:<12} {system:<12} {policy:<12} {dsm}")
        before.append("")
    after = []
    if "Get-MPIOSetting order" in own:
        after = [f"{PROMPT}Get-MPIOSetting", ""]
        after += [f"{key:<{SETTING_WIDTH}} : {own['Get-MPIOSetting ' + key]}" for key in own["Get-MPIOSetting order"].split(",")]
        after.append("")
    if "Get-MSDSMGlobalDefaultLoadBalancePolicy" in own:
        after += [f"{PROMPT}Get-MSDSMGlobalDefaultLoadBalancePolicy", own["Get-MSDSMGlobalDefaultLoadBalancePolicy"], ""]
    return before, after


def disks(desc: dict[str, Any]) -> str:
    """Every device of one host's view under the `mpio` policy, each as `mpclaim -s -d N` prints it."""
    devices = [d for d in desc["devices"] if d["psp"] == "mpio"]
    first: dict[str, str] = next((d["listed"]["device"] for d in devices if d.get("listed")), {})
    before, after = _host_lines(first)
    lines = list(before)
    for place, device in enumerate(devices):
        if device.get("listed") and device.get("imported"):
            lines += _imported(device)
        else:
            lines += _own(device, place, [p for p in desc["paths"] if p["device"] == device["name"]])
    return "\n".join(lines + after)
