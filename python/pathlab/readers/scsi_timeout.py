"""A SCSI disk's command timeout and error-handler timeout as sysfs prints them, pasted as an admin
captures them:
- `grep . /sys/block/sd*/device/timeout` (`FILE:VALUE`), or a shell loop's `echo "$f: $(cat $f)"`
  (`FILE: VALUE`) or `echo $f $(cat $f)` (`FILE VALUE`);
- a loop over the disks that prints each one's name and value (`for d in /sys/block/sd*; do echo
  $d $(cat $d/device/timeout); done`: `/sys/block/sdc 30`, or `sdc 30`), the attribute named by
  its command line;
- `cat /sys/block/sdc/device/timeout` with its command line, then the lone value.
The SCSI device's folder may be named by its disk (`/sys/block/sdX/device/`) or by its address
(`/sys/class/scsi_device/H:C:T:L/device/`, `/sys/class/scsi_disk/H:C:T:L/device/`,
`/sys/bus/scsi/devices/H:C:T:L/`); a SCSI generic device's (`/sys/class/scsi_generic/sgN/`, as
Pure's page lists them) is refused in one line: `multipath -ll` names no sgN.

What each is (Linux `drivers/scsi/scsi_sysfs.c`): `timeout` (`sdev_show_timeout`: the request
queue's `rq_timeout / HZ`, `%d`) is how long a command waits before it times out and the error
handler aborts it; sd sets `SD_TIMEOUT`, 30 s, unless a udev rule writes another. `eh_timeout`
(`sdev_show_eh_timeout`, `%u`) bounds the error handler's own commands (TEST UNIT READY and the
like while it recovers; `SCSI_DEFAULT_EH_TIMEOUT`, 10 s).

Every line that is not one of these is refused with its line; so is a value that is not a whole
number of seconds, a device given twice, or a line that names no attribute where the command
line does not name one either."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pathlab.api import ScenarioError
from pathlab.readers._whole import is_whole
from pathlab.readers.pasted import Line, command_outputs, file_lines, unwrapped

#: The attributes read.
ATTRIBUTES = ("timeout", "eh_timeout")
#: A SCSI device's folder: by its disk, or by its H:C:T:L address.
_FOLDER = (r"/?(?:\S*/)?sys/(?:block/(?P<disk>sd[a-z]+)/device"
           r"|class/scsi_(?:device|disk)/(?P<hctl>\d+:\d+:\d+:\d+)/device"
           r"|bus/scsi/devices/(?P<bus>\d+:\d+:\d+:\d+))")
#: A whole attribute file, then its value (`:`, `: ` or blanks between).
_WITH_FILE = re.compile(rf"^\s*{_FOLDER}/(?P<attribute>[a-z_]+)\s*(?::\s*|\s+)(?P<value>\S*)\s*$")
#: A disk, as a loop prints it (`/sys/block/sdc`, `sdc`, `sdc:`), then the value.
_WITH_DISK = re.compile(r"^\s*(?:/sys/block/)?(?P<disk>sd[a-z]+)/?\s*(?::\s*|\s+)(?P<value>\S+)\s*$")
_LONE = re.compile(r"^\s*(?P<value>\d\S*)\s*$")
#: A SCSI generic device's (Pure's page checks them so: `find /sys/class/scsi_generic/*/device/timeout
#: -exec grep -H . '{}' \;`): the same attribute, under a name multipath -ll does not show.
_GENERIC = re.compile(r"^\s*/?(?:\S*/)?sys/class/scsi_generic/(?P<name>sg\d+)/device/(?:eh_)?timeout\b")
#: The command lines of these captures: any that reads a SCSI device's timeout in /sys.
COMMAND = re.compile(r"/sys/\S*(?:timeout|block|scsi)|\btimeout\b")
#: An unprompted command line pasted above its output (`grep . /sys/block/sd*/device/timeout`).
_BARE_COMMAND = re.compile(r"^\s*(?:sudo\s+)?(?:grep|cat|for|find|head|egrep)\s.*timeout\b")
_ONE_FILE = re.compile(rf"{_FOLDER}/(?P<attribute>[a-z_]+)\b")


@dataclass(frozen=True)
class DeviceTimeout:
    """One value: the device as its folder names it (`sdc`, or `2:0:0:1`), the attribute, the
    seconds and the line."""

    device: str
    attribute: str
    seconds: int
    line: int


def read(path: str | Path) -> list[DeviceTimeout]:
    """Every value in the file, in its order."""
    name = str(path)
    found: list[DeviceTimeout] = []
    seen: dict[tuple[str, str], int] = {}
    for said, _at, block in command_outputs(name, unwrapped(name, file_lines(path)), COMMAND):
        command = said or ""
        for line in block:
            if not line.text.strip():
                continue
            if _BARE_COMMAND.match(line.text) and not _WITH_FILE.match(line.text):
                command = line.text  # the command line pasted without its prompt
                continue
            value = _value(name, line, command)
            key = (value.device, value.attribute)
            if key in seen:
                raise ScenarioError(name, f"line {line.number}", f"{value.device}'s {value.attribute} a second time "
                                                                 f"(first at line {seen[key]}): give one host's "
                                                                 "values, once each")
            seen[key] = line.number
            found.append(value)
    if not found:
        raise ScenarioError(name, "", "no SCSI device timeout (`grep . /sys/block/sd*/device/timeout` prints "
                                      "`/sys/block/sdc/device/timeout:30`)")
    return found


def _value(name: str, line: Line, command: str) -> DeviceTimeout:
    """One line's value, its device and attribute from the line, else from the command line."""
    at = f"line {line.number}"
    if m := _GENERIC.match(line.text):
        raise ScenarioError(name, at, f"{m['name']}: a SCSI generic device, whose name multipath -ll does not show: "
                                      "give the disks' (`grep . /sys/block/sd*/device/timeout`), the same attribute")
    if m := _WITH_FILE.match(line.text):
        device, attribute, value = m["disk"] or m["hctl"] or m["bus"], m["attribute"], m["value"]
    elif m := _WITH_DISK.match(line.text):
        device, attribute, value = m["disk"], _attribute_of(name, at, command), m["value"]
    elif m := _LONE.match(line.text):
        files = list(_ONE_FILE.finditer(command))
        if len(files) != 1 or "*" in command:
            raise ScenarioError(name, at, f"{line.text.strip()[:40]!r} alone: a value needs its file, on the line "
                                          "(`/sys/block/sdc/device/timeout:30`) or on one `cat` command line above it")
        one = files[0]
        device, attribute, value = one["disk"] or one["hctl"] or one["bus"], one["attribute"], m["value"]
    else:
        raise ScenarioError(name, at, "expected `/sys/block/sdX/device/timeout:SECONDS` (grep . prints it) or `sdX "
                                      f"SECONDS`, found {line.text.strip()[:50]!r}")
    if attribute not in ATTRIBUTES:
        raise ScenarioError(name, at, f"{attribute}: not an attribute read here (a SCSI device's {', '.join(ATTRIBUTES)})")
    if not is_whole(value) or len(value) > 10:
        raise ScenarioError(name, at, f"{attribute} {value[:20]!r}: the kernel prints a whole number of seconds here")
    return DeviceTimeout(device, attribute, int(value), line.number)


def _attribute_of(name: str, at: str, command: str) -> str:
    """The one attribute a loop's command line reads (`.../device/timeout`)."""
    named = {a for a in ATTRIBUTES if re.search(rf"/{a}\b", command)}
    if len(named) != 1:
        raise ScenarioError(name, at, "a disk and a value, but " + (
            "no command line above names the attribute (`for d in ...; do echo $d $(cat "
            "/sys/block/$d/device/timeout); done`)" if not named else "the command line reads both timeout and "
                                                                      "eh_timeout: print each with its file"))
    return named.pop()
