"""`nvme id-ctrl /dev/nvmeN` (nvme-cli's Identify Controller, text or `-o json`): the fields the
failure timers need of a controller, each with its line. One file may hold several controllers'
outputs, each after its own command line (`# nvme id-ctrl /dev/nvme1`), which names the
controller; an output with no command line before it names none.

The grammar is nvme-cli's own printing code (linux-nvme/nvme-cli): text `printf("anatt     : %d\\n",
ctrl->anatt)`, `anacap    : %d`, `kas       : %d`, `subnqn    : %-.*s` (every release from 1.7, when
`anatt` and `anacap` were first printed, to 2.x's `nvme-print-stdout.c` `stdout_id_ctrl`),
`cntlid    : %x` (1.6-1.8, hex without `0x`) or `%#x` (from 1.9: `0x1`, `0` for zero), `ctratt    :
%#x` (1.7 to 2.x: `0x41`, `0` for zero), `mn        : %-.*s` (the model number's 40 bytes, its
padding blanks dropped here); `-H` adds
indented `[7:7] : 0x1 …` lines under a field, which are not fields. JSON (`nvme-print-json.c`
`json_print_id_ctrl`, 1.x `json_print_nvme_id_ctrl`): one object with `"anatt"`, `"anacap"`,
`"kas"`, `"cntlid"` and `"ctratt"` as decimal integers, `"mn"` and `"subnqn"` (left out when empty).

What they are (NVMe Base 2.1, Identify Controller): ANATT, the ANA Transition Time, the longest a
controller's ANA groups stay in the change state, in seconds (0: the controller does no ANA
reporting); ANACAP bit 4, whether the controller reports the change state at all; KAS, the
keep-alive timer's granularity in 100 ms units; CNTLID, the controller's ID in its subsystem;
CTRATT, the controller's attributes, whose bit 6 (TBKAS) says it supports traffic-based keep-alive
(the host may skip keep-alives while commands flow: Linux then checks every KATO/4); MN, the model
number (what the kernel's and udev's `model` attribute is, and vendors' udev rules match on);
SUBNQN, the subsystem's NQN."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pathlab.api import ScenarioError, warn
from pathlab.readers.pasted import Line, command_outputs, file_lines, unwrapped

#: The command whose output this is (nvme-cli's `id-ctrl`), as pasted before it.
COMMAND = re.compile(r"^nvme\s+id-ctrl\b")
#: The fields read, with the largest value the Identify Controller field holds.
FIELDS = {"anatt": 0xFF, "anacap": 0xFF, "kas": 0xFFFF, "cntlid": 0xFFFF, "ctratt": 0xFFFFFFFF}
#: The fields nvme-cli prints in hexadecimal.
HEX = ("cntlid", "ctratt")
#: The text fields read: the model number and the subsystem's NQN.
TEXTS = ("mn", "subnqn")
#: ANACAP bit 4: "ANA Change state Supported" (nvme-cli `stdout_id_ctrl_anacap`).
ANACAP_CHANGE = 0x10
#: CTRATT bit 6: "Traffic Based Keep Alive Supported" (nvme-cli `stdout_id_ctrl_ctratt`; Linux
#: include/linux/nvme.h NVME_CTRL_ATTR_TBKAS).
CTRATT_TBKAS = 0x40
#: A field line of the text output: `anatt     : 10` (any indentation a page added).
_FIELD = re.compile(r"^\s*(?P<key>[a-z][a-z0-9_]*)\s*:\s?(?P<value>.*?)\s*$")
#: The controller a command line names: `/dev/nvme0`, or a namespace's device (`/dev/nvme0n1`).
_DEVICE = re.compile(r"(?:^|\s)(?:/dev/)?(?P<name>nvme\d+(?:c\d+)?(?:n\d+)?)(?=\s|$)")


@dataclass(frozen=True)
class Field:
    """One field's value and the line it was read at."""

    value: int | str
    line: int


@dataclass(frozen=True)
class IdCtrl:
    """One controller's Identify Controller as printed: the controller its command line names
    (None where no command line names one) and the line of that command, then the fields."""

    controller: str | None
    command_line: int | None
    subnqn: Field
    anatt: Field
    anacap: Field | None
    kas: Field | None
    cntlid: Field | None
    ctratt: Field | None = None
    #: The model number, as printed without its padding; None where not printed or blank.
    mn: Field | None = None

    def reports_change(self) -> bool:
        """Whether the controller reports the ANA change state (ANACAP bit 4); True where ANACAP
        was not printed (nothing says it does not)."""
        return self.anacap is None or bool(int(self.anacap.value) & ANACAP_CHANGE)

    def traffic_based_keep_alive(self) -> bool | None:
        """Whether the controller advertises traffic-based keep-alive (CTRATT bit 6, TBKAS); None
        where CTRATT was not printed."""
        return None if self.ctratt is None else bool(int(self.ctratt.value) & CTRATT_TBKAS)


def read(path: str | Path) -> list[IdCtrl]:
    """Every controller's output in the file, in its order; a file with none, or a field that is
    not what nvme-cli prints, is refused with its line."""
    name = str(path)
    found: list[IdCtrl] = []
    for said, at, block in command_outputs(name, unwrapped(name, file_lines(path)), COMMAND):
        found += _block(name, block, _controller(name, said, at) if said is not None and at is not None else None, at)
    if not found:
        raise ScenarioError(name, "", "no `nvme id-ctrl` output (`anatt     : 10` … `subnqn    : nqn.…`, or its "
                                      "`-o json` object) found")
    first: dict[str, IdCtrl] = {}
    for out in found:
        seen = first.setdefault(out.controller, out) if out.controller is not None else out
        if (seen.subnqn.value, seen.anatt.value) != (out.subnqn.value, out.anatt.value):
            # two hosts' nvme0 pasted together: which one's is not known
            raise ScenarioError(name, f"line {out.command_line}", f"{out.controller} a second time, with another "
                                f"subnqn or anatt (anatt {out.anatt.value}; {seen.anatt.value} at line "
                                f"{seen.anatt.line}): give one host's outputs per file")
    return found


def _controller(name: str, command: str, line: int) -> str | None:
    """The controller a command line names; a namespace's device is refused (under native
    multipath its admin command goes to whichever path the kernel picks)."""
    m = _DEVICE.search(command[len("nvme id-ctrl"):])
    if m is None:
        return None
    if not re.fullmatch(r"nvme\d+", m.group("name")):
        raise ScenarioError(name, f"line {line}", f"nvme id-ctrl {m.group('name')}: a namespace's device names no "
                                                  "controller (its admin command goes to a path the kernel picks); "
                                                  "give /dev/nvmeN, the controller")
    return m.group("name")


def _block(name: str, lines: list[Line], controller: str | None, at: int | None) -> list[IdCtrl]:
    """One output's fields (none where the lines hold no field of it: a blank section)."""
    shown = [line for line in lines if line.text.strip()]
    if not shown:
        return []
    if shown[0].text.lstrip().startswith("{"):
        return [_json(name, shown, controller, at)]
    values: dict[str, Field] = {}
    for line in shown:
        m = _FIELD.match(line.text)
        if m is None or (key := m.group("key")) not in (*FIELDS, *TEXTS):
            continue
        if key in values:
            raise ScenarioError(name, f"line {line.number}", f"a second {key} (first at line {values[key].line}): one "
                                                             "controller per `nvme id-ctrl` command line")
        values[key] = Field(_value(name, line.number, key, m.group("value")), line.number)
    if not values:
        if at is not None:  # the command failed (`NVMe status: …`, `No such file or directory`): said, not dropped
            warn(name, f"line {at}", f"nvme id-ctrl of {controller or 'a controller'} printed none of its fields "
                                     f"({shown[0].text.strip()[:60]!r}): skipped")
        return []
    return [_made(name, values, controller, at, shown[0].number)]


def _value(name: str, line: int, key: str, text: str) -> int | str:
    """A text field's value: the model and the NQN as printed, CNTLID and CTRATT in hex (`%x`,
    `%#x`), the others decimal."""
    if key in TEXTS:
        return text
    try:
        value = int(text, 16) if key in HEX else int(text)
    except ValueError:
        raise ScenarioError(name, f"line {line}", f"{key} {text!r}: nvme-cli prints "
                                                  + ("a hexadecimal number (0x1)" if key in HEX else
                                                     "a whole number") + " here") from None
    if not 0 <= value <= FIELDS[key]:
        raise ScenarioError(name, f"line {line}", f"{key} {value}: allowed 0 to {FIELDS[key]}")
    return value


def _json(name: str, lines: list[Line], controller: str | None, at: int | None) -> IdCtrl:
    """The `-o json` object; each field's line is the line its key is on."""
    text = "\n".join(line.text for line in lines)  # (the lines shown: blank ones left out, so lines[i] is text's line i)
    try:
        data, end = json.JSONDecoder().raw_decode(text, len(text) - len(text.lstrip()))
    except json.JSONDecodeError as e:
        raise ScenarioError(name, f"line {lines[e.lineno - 1].number}", f"not nvme id-ctrl's JSON: {e.msg}") from None
    last = text.count("\n", 0, end)  # the line the object ends on; what follows is a remark (a reply's prose)
    remarks = lines[last:] if text[end:].split("\n", 1)[0].strip() else lines[last + 1:]
    rest = text[end:].lstrip()
    if rest[:1] in ("{", "["):  # two outputs under one command line: refused, as the text's second anatt is
        second = lines[text.count("\n", 0, len(text) - len(rest))].number
        raise ScenarioError(name, f"line {second}", f"a second JSON document (the first at line {lines[0].number}): "
                                                    "one controller per `nvme id-ctrl` command line")
    if remarks:
        span = f"lines {remarks[0].number}-{remarks[-1].number}" if len(remarks) > 1 else f"line {remarks[0].number}"
        warn(name, span, f"skipped {len(remarks)} line(s) after the `nvme id-ctrl -o json` object, from "
                         f"{remarks[0].text.strip()[:50]!r}")
    if not isinstance(data, dict):
        raise ScenarioError(name, f"line {lines[0].number}", "nvme id-ctrl -o json prints one object")
    values: dict[str, Field] = {}
    for key in (*FIELDS, *TEXTS):
        if key not in data:
            continue
        line = next((n.number for n in lines if f'"{key}"' in n.text), lines[0].number)
        value = data[key]
        if key in TEXTS:
            if not isinstance(value, str):
                raise ScenarioError(name, f"line {line}", f"{key} {value!r}: nvme-cli prints a string here")
        elif not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= FIELDS[key]:
            raise ScenarioError(name, f"line {line}", f"{key} {value!r}: a whole number from 0 to {FIELDS[key]}")
        values[key] = Field(value, line)
    return _made(name, values, controller, at, lines[0].number)


def _made(name: str, values: dict[str, Field], controller: str | None, at: int | None, first: int) -> IdCtrl:
    """The output's fields, refused where ANATT or the subsystem's NQN is missing."""
    where = f"line {at}" if at is not None else f"line {first}"
    if "anatt" not in values:
        raise ScenarioError(name, where, "no anatt in this nvme id-ctrl output (nvme-cli prints it from 1.7; an older "
                                         "one, or a cut output?)")
    subnqn = values.get("subnqn")
    if subnqn is None or not str(subnqn.value).strip():
        raise ScenarioError(name, f"line {subnqn.line}" if subnqn else where,
                            "no subnqn in this nvme id-ctrl output: the controller cannot be tied to a subsystem")
    mn = values.get("mn")
    model = Field(str(mn.value).strip(), mn.line) if mn is not None and str(mn.value).strip() else None
    return IdCtrl(controller, at, Field(str(subnqn.value).strip(), subnqn.line), values["anatt"], values.get("anacap"),
                  values.get("kas"), values.get("cntlid"), values.get("ctratt"), model)
