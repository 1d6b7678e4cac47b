"""`sg_rtpg /dev/sdX` (sg3_utils' REPORT TARGET PORT GROUPS): each target port group a LUN
reports, with its asymmetric access state, and with `-e`/`--extended` the array's IMPLICIT
TRANSITION TIME, each with its line. One file may hold several devices' outputs, each after its
own command line (`# sg_rtpg -e -d /dev/sdc`), which names the device; an output with no command
line before it names none.

The grammar is sg3_utils' own printing code (doug-gilbert/sg3_utils src/sg_rtpg.c, main):
`Report target port groups:`, then with `--extended` `  Implicit transition time: %d` (decimal
seconds, the extended header's byte 1), then per group `  target port group id : 0x%x , Pref=%d`
(`, Rtpg_fmt=%d` added in later releases), `    target port group asymmetric access state : `
`0x%02x` (`--decode` adds ` (active/optimized)` and the like), the supported-states line, `status
code`, `vendor unique status`, `target port count : %02x` and the relative target port ids.

What the time is (SPC-4, REPORT TARGET PORT GROUPS extended header): the longest the array's
implicit transitions take, in seconds; 0 says it is unspecified (Linux scsi_dh_alua then gives a
transition ALUA_FAILOVER_TIMEOUT, 60 s)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pathlab.api import ScenarioError, warn
from pathlab.readers._whole import is_whole
from pathlab.readers.pasted import Line, command_outputs, file_lines, unwrapped

#: The command whose output this is, as pasted before it.
COMMAND = re.compile(r"^sg_rtpg\b")
#: The device a command line names: `/dev/sdc` (the sd name, not a by-id link).
_DEVICE = re.compile(r"(?:^|\s)/dev/(?P<name>sd[a-z]+)(?=\s|$)")
_HEADER = re.compile(r"^\s*Report target port groups:\s*$")
_IMPLICIT = re.compile(r"^\s*Implicit transition time:\s*(?P<value>\S*)\s*$")
_GROUP = re.compile(r"^\s*target port group id\s*:\s*0x(?P<id>[0-9a-fA-F]+)\s*,\s*Pref=(?P<pref>[01])"
                    r"(?:\s*,\s*Rtpg_fmt=\d+)?\s*$")
_STATE = re.compile(r"^\s*target port group asymmetric access state\s*:\s*0x(?P<state>[0-9a-fA-F]{2})\b")
#: The asymmetric access states SPC-4 defines (sg_rtpg's `decode_tpgs_state`).
STATES = {0x0: "active/optimized", 0x1: "active/non optimized", 0x2: "standby", 0x3: "unavailable",
          0x4: "logical block dependent", 0xE: "offline", 0xF: "transitioning between states"}


@dataclass(frozen=True)
class Group:
    """One target port group: its id, its asymmetric access state and the line of each."""

    id: int
    state: int
    line: int


@dataclass(frozen=True)
class Rtpg:
    """One device's output: the device its command line names (None where none does) and that
    line, the implicit transition time (None without `--extended`) and its line, the groups."""

    device: str | None
    command_line: int | None
    implicit: int | None
    implicit_line: int | None
    groups: tuple[Group, ...]


def read(path: str | Path) -> list[Rtpg]:
    """Every device's output in the file, in its order; a file with none, or a line that is not
    what sg_rtpg prints, is refused with its line."""
    name = str(path)
    found: list[Rtpg] = []
    for said, at, block in command_outputs(name, unwrapped(name, file_lines(path)), COMMAND):
        found += _block(name, block, _device(said) if said is not None else None, at)
    if not found:
        raise ScenarioError(name, "", "no `sg_rtpg` output (`Report target port groups:` then `target port group id : "
                                      "0x1 , Pref=0` …) found")
    first: dict[str, Rtpg] = {}
    for out in found:
        seen = first.setdefault(out.device, out) if out.device is not None else out
        if seen.implicit != out.implicit:  # two hosts' sdc pasted together: which one's is not known
            raise ScenarioError(name, f"line {out.command_line}", f"{out.device} a second time, with another implicit "
                                f"transition time ({out.implicit}; {seen.implicit} at line {seen.command_line}): give "
                                "one host's outputs per file")
    return found


def _device(command: str) -> str | None:
    m = _DEVICE.search(command)
    return m.group("name") if m else None


def _block(name: str, lines: list[Line], device: str | None, at: int | None) -> list[Rtpg]:
    """One output (none where the lines hold no `Report target port groups:` header)."""
    start = next((i for i, line in enumerate(lines) if _HEADER.match(line.text)), None)
    if start is None:
        if at is not None:  # the command failed (`command not supported`, `failed to open`): said, not dropped
            shown = next((line.text.strip() for line in lines if line.text.strip()), "")
            warn(name, f"line {at}", f"sg_rtpg of {device or 'a device'} printed no `Report target port groups:`"
                                     + (f" ({shown[:60]!r})" if shown else "") + ": skipped")
        return []
    implicit: tuple[int, int] | None = None
    groups: list[Group] = []
    pending: tuple[int, int] | None = None  # a group whose state line has not come yet
    for line in lines[start + 1:]:
        if _HEADER.match(line.text):
            raise ScenarioError(name, f"line {line.number}", "a second `Report target port groups:` (first at line "
                                                             f"{lines[start].number}): one device per sg_rtpg command line")
        if m := _IMPLICIT.match(line.text):
            implicit = (_number(name, line.number, m.group("value")), line.number)
        elif m := _GROUP.match(line.text):
            if pending is not None:
                raise ScenarioError(name, f"line {pending[1]}", "target port group with no asymmetric access state line")
            pending = (int(m.group("id"), 16), line.number)
            if pending[0] > 0xFFFF:
                raise ScenarioError(name, f"line {line.number}", f"target port group id {pending[0]:#x}: allowed 0x0 to "
                                                                 "0xffff")
        elif m := _STATE.match(line.text):
            state = int(m.group("state"), 16) & 0x0F
            if pending is None:
                raise ScenarioError(name, f"line {line.number}", "an asymmetric access state with no target port group "
                                                                 "id line before it")
            if state not in STATES:
                raise ScenarioError(name, f"line {line.number}", f"asymmetric access state {state:#04x}: allowed "
                                    + ", ".join(f"{s:#04x} ({t})" for s, t in STATES.items()))
            groups.append(Group(pending[0], state, pending[1]))
            pending = None
    if pending is not None:
        raise ScenarioError(name, f"line {pending[1]}", "target port group with no asymmetric access state line")
    if not groups:
        raise ScenarioError(name, f"line {lines[start].number}", "no target port group in this sg_rtpg output (a cut "
                                                                 "output?)")
    return [Rtpg(device, at, implicit[0] if implicit else None, implicit[1] if implicit else None, tuple(groups))]


def _number(name: str, line: int, text: str) -> int:
    """The implicit transition time: sg_rtpg prints the header's byte in decimal (0 to 255)."""
    if not is_whole(text) or int(text) > 0xFF:
        raise ScenarioError(name, f"line {line}", f"Implicit transition time {text!r}: sg_rtpg prints a whole number of "
                                                  "seconds from 0 to 255 here")
    return int(text)
