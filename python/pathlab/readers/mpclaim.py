"""Windows MPIO's `mpclaim -s -d` (the MPIO disks: system disk, load-balance policy, DSM) and
`mpclaim -s -d N` (one disk's paths), as Microsoft's mpclaim prints them; several disks' outputs
may follow one another in a file (a loop over the disk numbers), and `Get-MPIOSetting` and
`Get-MSDSMGlobalDefaultLoadBalancePolicy` lines beside them are read too (`mpio_settings.py`).

    MPIO Disk2: 08 Paths, Round Robin with Subset, ALUA Not Supported
        Controlling DSM: Microsoft DSM
        SN: 6000144000000010301F14F9976C13A6
        Supported Load Balance Policies: FOO RR RRWS LQD WP LB

        Path ID          State              SCSI Address      Weight
        ---------------------------------------------------------------------------
        0000000077040009 Active/Optimized   004|000|009|001   0
            TPG_State : Active/Optimized  , TPG_Id: 4, : 3

The disk line's third part is the disk's ALUA support (`Symmetric Access`, `ALUA Not Supported`,
`Implicit Only`, `Explicit Only`, `Implicit and Explicit`); a path's SCSI address is
port|bus|target|LUN; the `TPG_State` line under a path (ALUA disks) its target port group's
state, id and the port's relative id. Every line is read or the file refused, naming its line;
text after the last line the tools print (a mail's sign-off) is said and left."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from pathlab.api import ScenarioError, warn
from pathlab.readers import pasted
from pathlab.readers.mpio_settings import DEFAULT_COMMAND, Settings, default_policy, setting_line

#: The policies as the disk line spells them → their short names (`mpclaim -s -d`'s LB Policy
#: column, `Supported Load Balance Policies`), mpclaim -l -m 1 to 6 and 7 (the DSM's own).
POLICIES = {"Fail Over Only": "FOO", "Failover Only": "FOO", "Round Robin": "RR",
            "Round Robin with Subset": "RRWS", "Least Queue Depth": "LQD", "Dynamic Least Queue Depth": "LQD",
            "Weighted Paths": "WP", "Least Blocks": "LB", "Vendor Specific": "VS"}
SHORT = ("FOO", "RR", "RRWS", "LQD", "WP", "LB", "VS")
ALUA = ("Symmetric Access", "ALUA Not Supported", "Implicit Only", "Explicit Only", "Implicit and Explicit")
STATES = ("Active/Optimized", "Active/Unoptimized", "Standby", "Unavailable", "Transitioning", "Failed")

_DISK = re.compile(r"^MPIO Disk(\d+): (\d+) Paths, (.+?), (.+)$")
_LISTED = re.compile(r"^MPIO Disk(\d+)\s+(Disk \d+|\S+)\s+(\S+)\s+(\S.*)$")
_LIST_HEADER = re.compile(r"^MPIO Disk\s+System Disk\s+LB Policy\s+DSM Name$")
_FIELD = re.compile(r"^(Controlling DSM|SN|Supported Load Balance Policies):\s*(.*)$")
_PATH_HEADER = re.compile(r"^Path ID\s+State\s+SCSI Address\s+Weight$")
_PATH = re.compile(r"^([0-9a-fA-F]{16})\s+(\S+)\s+(\d+)\|(\d+)\|(\d+)\|(\d+)\s+(\d+)$")
_TPG = re.compile(r"^\*?\s*TPG_State\s*:\s*(\S+)\s*,\s*TPG_Id:\s*(\d+)\s*,\s*:\s*(\d+)$")
_RULE = re.compile(r"^-{10,}$")
_MORE = re.compile(r"^For more information about a particular disk, use 'mpclaim -s -d #'")


#: A `Get-MPIOSetting` line (`Name : value`), or the one word `Get-MSDSMGlobalDefaultLoadBalancePolicy` prints.
_SETTING_OR_WORD = re.compile(r"^(?:\w+\s*:.*|\S+)$")


def _is_listing_line(line: str) -> bool:
    """Whether a line is one the file's tools print (a prompt and command too), so that text
    after the last one is not theirs."""
    text = line.strip()
    return pasted.command_of(line) is not None or any(form.match(text) for form in (
        _DISK, _LISTED, _LIST_HEADER, _FIELD, _PATH_HEADER, _PATH, _TPG, _RULE, _MORE, _SETTING_OR_WORD))


@dataclass(frozen=True)
class MpioPath:
    line: int
    path_id: str
    state: str
    #: The SCSI address port|bus|target|LUN: the port is the adapter.
    port: int
    bus: int
    target: int
    lun: int
    weight: int
    tpg_state: str | None = None
    tpg_id: int | None = None
    relative_port: int | None = None
    tpg_line: int = 0
    #: The SCSI address as printed (`004|000|009|001`).
    address: str = ""


@dataclass
class MpioDisk:
    number: int
    line: int
    path_count: int
    #: The policy as printed, and its short name.
    policy_text: str
    policy: str
    alua: str
    dsm: str = ""
    serial: str = ""
    serial_line: int = 0
    supported: tuple[str, ...] = ()
    paths: list[MpioPath] = field(default_factory=list)


@dataclass(frozen=True)
class ListedDisk:
    """A row of `mpclaim -s -d`: no paths, the policy by its short name."""

    number: int
    line: int
    system_disk: str
    policy: str
    dsm: str


@dataclass
class Mpclaim:
    disks: list[MpioDisk] = field(default_factory=list)
    listed: list[ListedDisk] = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)


def read(path: str | Path) -> Mpclaim:
    """Every disk the file shows, with its paths where `mpclaim -s -d N` printed them; a disk
    shown twice keeps its later listing."""
    name = str(path)
    out = Mpclaim()
    disk: MpioDisk | None = None
    in_table = after_default = False
    # What follows the last line the tools can print (a mail's sign-off, a question) is said and left.
    source = pasted.between_lines(name, pasted.unwrapped(name, pasted.file_lines(path)), _is_listing_line,
                                  _is_listing_line, "mpclaim -s -d")
    for line in source():
        text = line.text.strip()
        command = pasted.command_of(line.text)
        if command is not None:
            after_default = DEFAULT_COMMAND.match(command) is not None
            disk, in_table = None, False
            continue
        if not text or _RULE.match(text) or _MORE.match(text):
            continue
        if after_default:
            out.settings.default_policy = default_policy(name, line)
            after_default = False
        elif m := _DISK.match(text):
            disk, in_table = _disk(name, line, m), False
            for earlier in (d for d in out.disks if d.number == disk.number):
                warn(name, f"line {earlier.line}", f"MPIO Disk{disk.number} is listed again at line {line.number}: "
                                                   "the later listing kept")
            out.disks = [d for d in out.disks if d.number != disk.number] + [disk]
        elif _LIST_HEADER.match(text):
            disk, in_table = None, False
        elif m := _LISTED.match(text):
            policy = m.group(3)
            if policy not in SHORT:
                raise _refused(name, line.number, f"LB Policy {policy!r}: expected one of {', '.join(SHORT)}")
            out.listed.append(ListedDisk(int(m.group(1)), line.number, m.group(2), policy, m.group(4)))
        elif setting_line(name, line, out.settings):
            disk = None
        elif disk is None:
            raise _refused(name, line.number, f"{text[:60]!r}: not a line mpclaim -s -d prints (an `MPIO DiskN` line "
                                              "or row, or a Get-MPIOSetting line)")
        elif m := _FIELD.match(text):
            _field(disk, line, m)
        elif _PATH_HEADER.match(text):
            in_table = True
        elif in_table and (m := _PATH.match(text)):
            disk.paths.append(_path(name, line, m))
        elif in_table and (m := _TPG.match(text)) and disk.paths:
            _tpg(name, line, m, disk)
        else:
            raise _refused(name, line.number, f"{text[:60]!r}: not a line of mpclaim -s -d {disk.number} (`Controlling "
                                              "DSM:`, `SN:`, `Supported Load Balance Policies:`, the path table, a "
                                              "path row `Path-ID State port|bus|target|lun Weight` or its "
                                              "`TPG_State :` line)")
    if not out.disks and not out.listed and not out.settings.values and out.settings.default_policy is None:
        raise ScenarioError(name, "", "no `MPIO DiskN` line: not mpclaim -s -d output")
    for d in out.disks:
        if len(d.paths) != d.path_count:
            raise _refused(name, d.line, f"MPIO Disk{d.number}: {d.path_count} paths announced, {len(d.paths)} listed "
                                         "(the listing was cut or edited)")
        _one_state_per_group(name, d)
    return out


def _one_state_per_group(name: str, disk: MpioDisk) -> None:
    """A target port group has one ALUA state for a LUN: two states under one TPG_Id are an edited
    listing, refused rather than read one way or the other."""
    first: dict[int, MpioPath] = {}
    for p in disk.paths:
        if p.tpg_id is None:
            continue
        seen = first.setdefault(p.tpg_id, p)
        if seen.tpg_state != p.tpg_state:
            raise _refused(name, p.tpg_line, f"TPG_Id {p.tpg_id} is {p.tpg_state} here and {seen.tpg_state} under the "
                                             f"path of line {seen.line}: a target port group has one state per disk")


def _disk(name: str, line: pasted.Line, m: re.Match[str]) -> MpioDisk:
    number, count, policy_text, alua = m.groups()
    if policy_text not in POLICIES:
        raise _refused(name, line.number, f"policy {policy_text!r}: expected one of {', '.join(POLICIES)}")
    if alua not in ALUA:
        raise _refused(name, line.number, f"{alua!r}: expected one of {', '.join(ALUA)}")
    return MpioDisk(int(number), line.number, int(count), policy_text, POLICIES[policy_text], alua)


def _field(disk: MpioDisk, line: pasted.Line, m: re.Match[str]) -> None:
    key, value = m.group(1), m.group(2).strip()
    if key == "Controlling DSM":
        disk.dsm = value
    elif key == "SN":
        disk.serial, disk.serial_line = value, line.number
    else:
        disk.supported = tuple(value.split())


def _path(name: str, line: pasted.Line, m: re.Match[str]) -> MpioPath:
    path_id, state, port, bus, target, lun, weight = m.groups()
    if state not in STATES:
        raise _refused(name, line.number, f"path state {state!r}: expected one of {', '.join(STATES)}")
    return MpioPath(line.number, path_id, state, int(port), int(bus), int(target), int(lun), int(weight),
                    address=f"{port}|{bus}|{target}|{lun}")


def _tpg(name: str, line: pasted.Line, m: re.Match[str], disk: MpioDisk) -> None:
    state, tpg, rtp = m.group(1), int(m.group(2)), int(m.group(3))
    if state not in STATES:
        raise _refused(name, line.number, f"TPG_State {state!r}: expected one of {', '.join(STATES)}")
    disk.paths[-1] = replace(disk.paths[-1], tpg_state=state, tpg_id=tpg, relative_port=rtp, tpg_line=line.number)


def _refused(name: str, number: int, why: str) -> ScenarioError:
    return ScenarioError(name, f"line {number}", why)
