"""`powermt display dev=all` (PowerPath on Linux, Solaris, AIX) and `rpowermt display dev=all
host=…` (PowerPath/VE on ESXi): one block per pseudo device, as the PowerPath CLI and System
Messages Reference prints it.

    Pseudo name=emcpower23a
    CLARiiON ID=HK190074900068 [PLADWS002SM]
    Logical device ID=6006016082E71E0009B10334FA67DD11 [LUN 113]
    state=alive; policy=CLAROpt; priority=0; queued-IOs=0
    Owner: default=SP A, current=SP A       Array failover mode: 1
    ==============================================================================
    ---------------- Host ---------------   - Stor -   -- I/O Path -  -- Stats ---
    ###  HW Path                I/O Paths    Interf.   Mode    State  Q-IOs Errors
    ==============================================================================
    3082 ssm@0,0/pci@19,700000/QLGC,qlc@1/fp@0,0 c14t0d6s0 SP A2     active  alive      0      0

The array line names its class (`Symmetrix`, `CLARiiON`, `VNX`, `Unity`, `XtremIO`, `VPLEX`,
`Invista`, …) and serial; PowerPath 6 adds `Device WWN=`, PowerPath/VE `Standard UID=` and a
`type=` field in the state line; `Owner:` is printed for arrays with LUN ownership (the SP that
owns the LUN by default and now, and the array's failover mode: 4 is ALUA, 1 PNR). A path row
is `### HW-path I/O-path Interf. Mode State Q-IOs Errors`, the interface one or two words (`SP
A2`, `FA 9dB`); on Linux the HW path is the HBA's name, which may have blanks (`QLogic Fibre
Channel 2300`): the interface then starts under the header's `Interf.`, as the columns align.
Every line is read or the file refused, naming its line; text after the listing's last line (a
mail's sign-off) is said and left, as the other readers leave it. Words a page or a mail added after a
field's value (`Pseudo name=emcpowerb ? All the paths below…`) are not the tool's: the value is
read by its own form (a device name, a hexadecimal ID, a number) and the rest said as a note,
never read."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pathlab.api import ScenarioError, warn
from pathlab.readers import pasted
from pathlab.readers._listed_once import listed_once
from pathlab.readers._whole import is_whole
from pathlab.readers.rejoin import rejoined

COMMAND = "powermt display dev=all"
COMMANDS = (re.compile(r"\br?powermt(?:\.exe)?\s+display\b"),)

#: The policies `powermt set policy=` sets, as `powermt display` spells them (CLI reference,
#: "powermt set policy"): ad, bf, co, lb, li, nr, re, rr, si, so, xo.
POLICIES = ("ADaptive", "BasicFailover", "CLAROpt", "LeastBlocks", "LeastIos", "NoRedirect", "Request", "RoundRobin",
            "StreamIo", "SymmOpt", "XtremIO")
#: A path's mode (`powermt set mode=`; autostandby puts a path in `asb:prox` or `asb:iopf`) and state.
MODES = ("active", "standby", "unlic", "asb:prox", "asb:iopf")
STATES = ("alive", "dead")
DEVICE_STATES = ("alive", "dead")

_PSEUDO = re.compile(r"^Pseudo name=([\w.-]+)(?P<note>\W.*)?$")
_ARRAY = re.compile(r"^([A-Za-z][\w -]*?) ID=(\S+)(?:\s+\[(.*)\])?$")
_LOGICAL = re.compile(r"^Logical device ID=([0-9A-Fa-f]+|[^\s?\[]+)(?:\s+\[([^\]]*)\])?(?P<note>\W.*)?$")
_WWN = re.compile(r"^(Device WWN|Standard UID)=(\S+)(?:\s+\[.*\])?$")
_OWNER = re.compile(r"^Owner: default=(SP [A-Z]), current=(SP [A-Z])(?:\s+Array failover mode: (\d+))?$")
_RULE = re.compile(r"^=+$")
_BANNER = re.compile(r"^-+ Host -+\s+- Stor -\s+-+ I/O Path -+\s+-+ Stats -+$")
_HEADER = re.compile(r"^###\s+HW Path\s+I/O Paths\s+Interf\.\s+Mode\s+State\s+Q-IOs\s+Errors$")
_ROW = re.compile(r"^(\d+)\s+(\S+)\s+(\S+)\s+(\S+(?:\s+\S+)?)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+)$")


@dataclass(frozen=True)
class PathRow:
    line: int
    #: The `###` column: PowerPath's number of the host bus adapter.
    hba: int
    hw_path: str
    io_path: str
    #: The array port (`SP A2`, `FA 9dB`: its words one blank apart).
    interface: str
    mode: str
    state: str
    queued: int
    errors: int
    #: The port as printed, its blanks kept (`FA  9dB`: Symmetrix pads the director's number).
    interface_text: str = ""


@dataclass
class Device:
    name: str
    line: int
    array_class: str = ""
    array_id: str = ""
    array_label: str = ""
    array_line: int = 0
    logical_id: str = ""
    logical_label: str = ""
    logical_line: int = 0
    wwn: str = ""
    #: The WWN line's key as printed: `Device WWN` (PowerPath 6) or `Standard UID` (PowerPath/VE).
    wwn_key: str = ""
    state: str = ""
    policy: str = ""
    policy_line: int = 0
    queued: int | None = None
    #: The state line's `priority=` and PowerPath/VE's `type=` as printed, and its keys in the
    #: order printed (`show` prints the line back as read).
    priority: str = ""
    type: str = ""
    state_keys: tuple[str, ...] = ()
    owner_default: str = ""
    owner_current: str = ""
    failover_mode: int | None = None
    owner_line: int = 0
    paths: list[PathRow] = field(default_factory=list)


def read(path: str | Path) -> list[Device]:
    """Every pseudo device of the listing, with its paths; the file refused at the first line that
    is not part of the format."""
    name = str(path)
    # What follows the last line the listing can hold (a mail's sign-off, a question) is said and left.
    source = pasted.between_lines(name, rejoined(pasted.output_lines(name, pasted.file_lines(path), COMMANDS, COMMAND),
                                                 _continued), _is_listing_line, _is_listing_line, COMMAND)
    devices: list[Device] = []
    header_seen = False
    interface_at: int | None = None  # where the header's `Interf.` column starts in its line
    for line in source():
        text = line.text.strip()
        if not text:
            continue
        if m := _PSEUDO.match(text):
            _note(name, line.number, m["note"])
            devices.append(Device(m.group(1), line.number))
            header_seen = False
            continue
        if not devices:
            raise _refused(name, line.number, f"{text[:60]!r} before the first `Pseudo name=` line")
        device = devices[-1]
        if header_seen and (m := _ROW.match(text)):
            device.paths.append(_row(name, line.number, m.groups()))
        elif header_seen and (columns := _aligned_row(line.text, interface_at)) is not None:
            device.paths.append(_row(name, line.number, columns))
        elif m := _LOGICAL.match(text):
            _note(name, line.number, m["note"])
            device.logical_id, device.logical_label = m.group(1), m.group(2) or ""
            device.logical_line = line.number
        elif m := _WWN.match(text):
            device.wwn_key, device.wwn = m.group(1), m.group(2)
        elif m := _ARRAY.match(text):
            device.array_class, device.array_id, device.array_label = m.group(1), m.group(2), m.group(3) or ""
            device.array_line = line.number
        elif "state=" in text and ";" in text:
            _state(name, line.number, text, device)
        elif m := _OWNER.match(text):
            device.owner_default, device.owner_current = m.group(1), m.group(2)
            device.failover_mode = int(m.group(3)) if m.group(3) else None
            device.owner_line = line.number
        elif _RULE.match(text) or _BANNER.match(text):
            continue
        elif _HEADER.match(text):
            header_seen = True
            interface_at = line.text.index("Interf.")
        elif _ROW.match(text):
            raise _refused(name, line.number, f"a path row of {device.name} before its table's `### HW Path …` header")
        else:
            raise _refused(name, line.number, f"{text[:60]!r}: not a line `{COMMAND}` prints (a `Pseudo name=`, "
                                              "array ID, `Logical device ID=`, `state=…; policy=…` or `Owner:` line, "
                                              "the path table's header, or a path row `### HW-path I/O-path Interf. "
                                              "Mode State Q-IOs Errors`)")
    if not devices:
        raise ScenarioError(name, "", f"no `Pseudo name=` line: not `{COMMAND}` output")
    for device in devices:
        _complete(name, device)
    return _listed_once(name, devices)


#: What starts a path row (the HBA number, the HW path): a row, whole or damaged (`SP B1......`),
#: is the reader's to read or refuse, not text after the listing.
_ANY_ROW = re.compile(r"^\d+\s+\S+\s+\S")


def _is_listing_line(line: str) -> bool:
    """Whether a line is one `powermt display` prints (its forms as `read` tells them), so that
    text after the last one is not the tool's."""
    text = line.strip()
    return any(form.match(text) for form in (_PSEUDO, _LOGICAL, _WWN, _ARRAY, _OWNER, _RULE, _BANNER, _HEADER, _ROW,
                                             _ANY_ROW)) or ("state=" in text and ";" in text)


#: A whole path row: the HBA number first, the mode, state, queued I/Os and errors last.
_WHOLE_ROW = re.compile(r"^\d+\s.*\s(?:" + "|".join(re.escape(m) for m in MODES) + r")\s+(?:" + "|".join(STATES)
                        + r")\s+\d+\s+\d+$")


def _continued(line: str, next_line: str) -> bool:
    """Whether a wrap left the rest of the table's banner, header or a path row on the next line
    (`rejoin`): the line is not whole, the next is no line of the listing, and with the next one
    (a blank between) it is whole."""
    text, joined = line.strip(), f"{line.strip()} {next_line.strip()}"
    return not _is_listing_line(next_line) and \
        any(not form.match(text) and form.match(joined) for form in (_BANNER, _HEADER, _WHOLE_ROW))


#: What a path row says of the host's settings and topology: the HBA, HW path, I/O path (the
#: host's device) and array port it names, and its mode (`powermt set mode=`). Its state and its
#: queued I/Os and errors are of the listing's moment (the `-- Stats --` columns count).
PATH_SETTINGS = ("hba", "hw_path", "io_path", "interface", "mode")
#: What a device's block says of the host's settings and topology (`_listed_once`): the array and
#: logical device it is (class, ID and label; WWN), its policy and priority (`powermt set
#: policy=`, `powermt set priority=`), PowerPath/VE's `type=`, the SP that owns it by default and
#: the array's failover mode, and its paths' (`PATH_SETTINGS`). Its state, queued I/Os and the SP
#: that owns it now (a trespass moves it) are of the listing's moment.
SETTINGS: dict[str, Callable[[Any], Any] | None] = {
    **dict.fromkeys(("array_class", "array_id", "array_label", "logical_id", "logical_label", "wwn", "policy",
                     "priority", "type", "owner_default", "failover_mode")),
    "paths": lambda paths: [tuple(path[k] for k in PATH_SETTINGS) for path in paths],
}


def _listed_once(name: str, devices: list[Device]) -> list[Device]:
    """Each pseudo device once: listed again the same (the output pasted twice), read once and
    said; again with the same settings and topology (two runs on a busy host), the later taken and
    said; with another, refused naming both lines (`_listed_once`)."""
    rows = [asdict(d) for d in devices]
    device_of = {id(row): d for row, d in zip(rows, devices, strict=True)}
    return [device_of[id(row)] for row in listed_once(rows, "name", name, COMMAND, SETTINGS)]


def _aligned_row(text: str, interface_at: int | None) -> tuple[str, ...] | None:
    """A path row whose HW path has blanks, cut where the header's `Interf.` column starts (the
    word there and the one after it, before the mode); None where the row does not align so."""
    if interface_at is None or not text[interface_at:interface_at + 1].strip() or text[interface_at - 1:interface_at] != " ":
        return None
    left, right = text[:interface_at].split(), text[interface_at:].split()
    if len(left) < 3 or not is_whole(left[0]) or len(right) not in (5, 6):
        return None
    interface = text[interface_at:].rstrip()
    for word in reversed(right[-4:]):  # the counts, state and mode after the port, cut from the right
        interface = interface[:interface.rindex(word)].rstrip()
    return (left[0], " ".join(left[1:-1]), left[-1], interface, *right[-4:])


def _row(name: str, number: int, columns: tuple[str, ...]) -> PathRow:
    hba, hw, io, interface, mode, state, queued, errors = columns
    if not (is_whole(hba) and is_whole(queued) and is_whole(errors)):
        raise _refused(name, number, "expected a path row `### HW-path I/O-path Interf. Mode State Q-IOs Errors`")
    if mode not in MODES:
        raise _refused(name, number, f"path mode {mode!r}: expected one of {', '.join(MODES)}")
    if state not in STATES:
        raise _refused(name, number, f"path state {state!r}: expected one of {', '.join(STATES)}")
    return PathRow(number, int(hba), hw, io, re.sub(r"\s+", " ", interface), mode, state, int(queued), int(errors),
                   interface)


def _state(name: str, number: int, text: str, device: Device) -> None:
    """`state=alive; policy=SymmOpt; priority=0; queued-IOs=0` (PowerPath/VE adds `type=…`)."""
    for part in (p.strip() for p in text.split(";")):
        if not part:
            continue
        key, eq, value = part.partition("=")
        if not eq or key not in ("state", "policy", "priority", "queued-IOs", "type"):
            raise _refused(name, number, f"{part[:40]!r}: the state line holds state=, policy=, priority=, queued-IOs= "
                                         "and type=")
        device.state_keys += (key,)
        if key in ("priority", "type"):
            setattr(device, key, value)
        if key == "state":
            if value not in DEVICE_STATES:
                raise _refused(name, number, f"state={value}: expected one of {', '.join(DEVICE_STATES)}")
            device.state = value
        elif key == "policy":
            if value not in POLICIES:
                raise _refused(name, number, f"policy={value}: not a PowerPath policy pathlab knows "
                                             f"({', '.join(POLICIES)})")
            device.policy, device.policy_line = value, number
        elif key == "queued-IOs":
            count = re.match(r"(\d+)(\W.*)?$", value)
            if count is None:
                raise _refused(name, number, f"queued-IOs={value[:20]}: expected a whole number")
            _note(name, number, count.group(2))
            device.queued = int(count.group(1))


def _note(name: str, number: int, note: str | None) -> None:
    """Words after a field's value that the tool does not print: said, not read."""
    if note and note.strip():
        warn(name, f"line {number}", f"{note.strip()[:60]!r} after the value is not `{COMMAND}`'s: left out as a note")


def _complete(name: str, device: Device) -> None:
    """A device the listing cut before its paths or policy is refused: nothing about it is known."""
    if not device.policy:
        raise _refused(name, device.line, f"{device.name}: no `state=…; policy=…` line follows its `Pseudo name=`")
    if not device.paths:
        raise _refused(name, device.line, f"{device.name}: no path rows follow it (the listing ends or was cut)")


def _refused(name: str, number: int, why: str) -> ScenarioError:
    return ScenarioError(name, f"line {number}", why)
