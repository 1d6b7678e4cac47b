"""`esxcli iscsi adapter param get -A vmhbaNN`, and `esxcli iscsi adapter target portal param get
-A vmhbaNN -a ADDRESS -n IQN` (one target portal's): a table of the adapter's iSCSI parameters,
the header `Name Current Default Min Max Settable Inherit`, a line of dashes under it, then one
parameter a line (a cell is one word: `15`, `false`, `prohibited`, `na` where a parameter has no
range). The grammar is ESXi 5.0's, as elatov's listings show it (`tests/data/esxcli/README.md`);
later releases are taken to print the same columns (no later sample was found: unconfirmed). The columns are read by words, not by
place: a page that lost esxcli's padding (elatov's VCAP5-DCA 6.4 post prints single blanks) reads
the same.

The table does not name its adapter: the command line pasted with it does (`~ # esxcli iscsi
adapter param get -A vmhba33`, with or without its prompt; `-A NAME`, `--adapter NAME` or
`--adapter=NAME`). A listing without it is refused: which adapter it is cannot be guessed.

The session timers pathlab simulates (`TIMERS`) must be whole seconds within the listing's own
Min and Max; a target portal that does not inherit one of them from its adapter is refused
(pathlab sets an adapter's timers for all its sessions). Every error is one line naming the file
and line."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pathlab.api import ScenarioError, warn
from pathlab.readers import pasted
from pathlab.readers._dashed_table import DASHES, rows_under
from pathlab.readers._whole import is_whole

COMMAND = "esxcli iscsi adapter param get"
PORTAL_COMMAND = "esxcli iscsi adapter target portal param get"
HEADER = ("Name", "Current", "Default", "Min", "Max", "Settable", "Inherit")
#: The session timers the engine simulates, by esxcli's name: the adapter's `iscsi` key.
TIMERS = {"NoopOutInterval": "noop_out_interval", "NoopOutTimeout": "noop_out_timeout",
          "RecoveryTimeout": "recovery_timeout"}
#: Parameters read to compare with vendor practice, not simulated: the login's timeout (whole
#: seconds) and TCP delayed ACK (true or false).
COMPARED = ("LoginTimeout", "DelayedAck")
#: Either command line, as `esxcli` or `localcli` runs it (options may stand before the namespace).
COMMAND_LINE = re.compile(r"^(?:esxcli|localcli)\b.*?\biscsi\s+adapter\s+(?:(target\s+portal)\s+)?param\s+get\b")
_ADAPTER = re.compile(r"(?:^|\s)(?:-A|--adapter)(?:\s+|=)(\S+)")
_ADDRESS = re.compile(r"(?:^|\s)(?:-a|--address)(?:\s+|=)(\S+)")
_IQN = re.compile(r"(?:^|\s)(?:-n|--name)(?:\s+|=)(\S+)")
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")


@dataclass(frozen=True)
class Param:
    """One row as printed, and its line."""

    name: str
    current: str
    default: str
    low: str
    high: str
    settable: bool
    inherit: bool
    line: int


@dataclass(frozen=True)
class AdapterParams:
    """The parameters of one adapter (or of one of its target portals: `portal` is `ADDRESS IQN`),
    the adapter as its command line names it and that line."""

    file: str
    adapter: str
    command_line: int
    portal: str | None
    params: tuple[Param, ...]

    def get(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def timers(self) -> dict[str, tuple[int, Param]]:
        """The simulated timers the listing gives, by the adapter's `iscsi` key: seconds and row."""
        return {key: (int(p.current), p) for name, key in TIMERS.items() if (p := self.get(name)) is not None}


def read(path: str | Path) -> AdapterParams:
    name = str(path)
    every = pasted.file_lines(path)
    lines = pasted.unwrapped(name, every)
    command, command_line = _command(name, lines)
    ours = list(pasted.output_lines(name, lines, (COMMAND_LINE,), COMMAND)())
    rows: list[pasted.Line] = []
    after: list[pasted.Line] = []  # what follows the blank line that ends the table (a reply's prose)
    for line in ours:
        text = line.text.strip()
        if COMMAND_LINE.match(text) or pasted.command_of(line.text) is not None:
            continue
        if after or (not text and len(rows) > 1 and not DASHES.match(rows[-1].text)):
            after.append(line)  # esxcli prints no blank line inside the table
        elif text:
            rows.append(line)
    if remarks := [line for line in after if line.text.strip()]:
        warn(name, f"lines {remarks[0].number}-{remarks[-1].number}", f"skipped {len(remarks)} line(s) after the "
                                                                      f"`{COMMAND}` table, from "
                                                                      f"{remarks[0].text.strip()[:50]!r}")
    if not rows:
        raise ScenarioError(name, "line 1", f"no output: expected the `{COMMAND}` table")
    header = rows[0]
    if tuple(header.text.split()) != HEADER:
        raise ScenarioError(name, f"line {header.number}", f"expected the header `{' '.join(HEADER)}` of "
                                                           f"`{COMMAND}`, found {header.text.strip()[:60]!r}")
    body = rows_under(name, header.number, [(line.number, line.text) for line in rows[1:]], "parameter")
    if command is None or command_line is None:
        raise ScenarioError(name, f"line {header.number}", f"the adapter is not named: give the command line with "
                                                           f"the table (`{COMMAND} -A vmhba64`), which names it")
    adapter = _ADAPTER.search(command)
    if adapter is None:
        raise ScenarioError(name, f"line {command_line}", "the command line names no adapter (-A vmhbaNN or "
                                                          "--adapter=vmhbaNN)")
    portal_match = COMMAND_LINE.match(command)
    portal = None
    if portal_match is not None and portal_match.group(1):
        address, iqn = _ADDRESS.search(command), _IQN.search(command)
        portal = " ".join(m.group(1) for m in (address, iqn) if m is not None) or "a target portal"
    params = tuple(_row(name, number, text) for number, text in body)
    seen: dict[str, int] = {}
    for p in params:
        if p.name in seen:
            raise ScenarioError(name, f"line {p.line}", f"{p.name} a second time (first at line {seen[p.name]}): "
                                                        "give one adapter's table per file")
        seen[p.name] = p.line
    found = AdapterParams(name, adapter.group(1), command_line, portal, params)
    for key in TIMERS:
        _check_timer(found, key)
    _check_compared(found)
    return found


def _command(name: str, lines: pasted.Source) -> tuple[str | None, int | None]:
    """The command line (prompt and `sudo` removed) and its line: a section's, or a bare
    `esxcli …` line pasted without its prompt; the last one before the table wins."""
    found: tuple[str | None, int | None] = (None, None)
    for line in lines():
        text = line.text.strip()
        command = pasted.command_of(line.text)
        command = command if command is not None else text
        if COMMAND_LINE.match(command):
            found = (command, line.number)
    return found


def _row(name: str, number: int, text: str) -> Param:
    cells = text.split()
    if len(cells) != len(HEADER):
        raise ScenarioError(name, f"line {number}", f"expected {len(HEADER)} cells ({' '.join(HEADER)}), found "
                                                    f"{len(cells)}: {text.strip()[:60]!r}")
    param, current, default, low, high, settable, inherit = cells
    if not _NAME.match(param):
        raise ScenarioError(name, f"line {number}", f"`Name`: expected a parameter name such as NoopOutInterval, "
                                                    f"found {param[:40]!r}")
    for column, value in (("Settable", settable), ("Inherit", inherit)):
        if value not in ("true", "false"):
            raise ScenarioError(name, f"line {number}", f"`{column}` of {param}: expected true or false, found "
                                                        f"{value[:20]!r}")
    return Param(param, current, default, low, high, settable == "true", inherit == "true", number)


def _check_compared(found: AdapterParams) -> None:
    """LoginTimeout in whole seconds within the row's own range, DelayedAck true or false."""
    login, ack = found.get("LoginTimeout"), found.get("DelayedAck")
    if login is not None and (not is_whole(login.current) or (
            is_whole(login.low) and is_whole(login.high) and not int(login.low) <= int(login.current) <= int(login.high))):
        raise ScenarioError(found.file, f"line {login.line}", f"LoginTimeout Current {login.current[:20]!r}: expected whole "
                                                              f"seconds within the listing's own range {login.low} to "
                                                              f"{login.high}")
    if ack is not None and ack.current not in ("true", "false"):
        raise ScenarioError(found.file, f"line {ack.line}", f"DelayedAck Current {ack.current[:20]!r}: expected true or "
                                                            "false")


def _check_timer(found: AdapterParams, name: str) -> None:
    """A simulated timer: whole seconds within the row's own Min and Max; on a target portal,
    inherited from the adapter."""
    p = found.get(name)
    if p is None:
        return
    where = f"line {p.line}"
    if not is_whole(p.current):
        raise ScenarioError(found.file, where, f"{name} Current: expected whole seconds, found {p.current[:20]!r}")
    if is_whole(p.low) and is_whole(p.high) and not int(p.low) <= int(p.current) <= int(p.high):
        raise ScenarioError(found.file, where, f"{name} Current {p.current} is outside the listing's own range "
                                               f"{p.low} to {p.high}")
    if found.portal is not None and not p.inherit:
        raise ScenarioError(found.file, where, f"{name} is set on the target portal ({found.portal}), not inherited "
                                               f"from {found.adapter}: pathlab sets an adapter's timers for all its "
                                               f"sessions; give `{COMMAND} -A {found.adapter}` instead")
