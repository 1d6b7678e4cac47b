"""`iscsiadm -m session -P 3` (or `-P 1`), open-iscsi's session tree, as people paste it: each
session of the Linux initiator with the target it logged in to, the portal it reached and the SCSI
host and disks it carries.

How iscsiadm prints it (`session_info_print_tree`, open-iscsi `usr/session_info.c`): `Target:
<IQN>` when the target changes; `Current Portal: <address>:<port>,<portal group tag>` (IPv6 in
brackets) and `Persistent Portal:` when the portal changes, else a blank line, so that a session
to the portal of the one before names none of its own; then per session the interface block
(`Iface Name:` first), `SID:` and the states; with `-P 3` the `Attached SCSI devices:` block:
`Host Number: N\tState: …`, one `scsiN Channel CC Id I Lun: L` per LUN and `Attached scsi disk
sdX\t\tState: …` under it. The current portal is where the session runs (a target may redirect a
login away from the persistent one). `-P 1` prints no host and no disks.

Lines of other `key: value` forms inside the listing (timeouts, CHAP, negotiated parameters,
newer fields) are passed over; anything else is refused with its line."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError
from pathlab.readers import pasted
from pathlab.readers._whole import is_whole

if TYPE_CHECKING:
    import pandas as pd

SESSION_COLUMNS = ["target", "portal", "tpgt", "persistent_portal", "iface_ip", "sid", "host", "state", "line",
                   "portal_line", "host_line"]
DEVICE_COLUMNS = ["sid", "host", "channel", "id", "lun", "disk", "state", "line"]

#: The tree (`-P 1` to `-P 3`); plain `iscsiadm -m session` prints one `tcp: [SID] …` line per session.
_COMMANDS = [re.compile(r"^iscsiadm\b.*(?:-m|--mode)[\s=]*session\b.*(?:-P|--print)[\s=]*[1-3]")]
_TARGET = re.compile(r"^\s*Target:\s*(?P<target>\S+)(?:\s+\((?:non-flash|flash)\))?\s*$")
_PORTAL = re.compile(r"^\s*(?P<which>Current|Persistent) Portal:\s*(?P<address>\[[0-9A-Fa-f:.%\w]+\]|\S+?):(?P<port>\d+),"
                     r"(?P<tpgt>-?\d+)\s*$")
_HOST = re.compile(r"^\s*Host Number:\s*(?P<host>\d+)\s+State:\s*(?P<state>\S+)\s*$")
_LUN = re.compile(r"^\s*scsi(?P<host>\d+)\s+Channel\s+(?P<channel>\d+)\s+Id\s+(?P<id>\d+)\s+Lun:\s*(?P<lun>\d+)\s*$")
_DISK = re.compile(r"^\s*Attached scsi disk\s+(?P<disk>\S+)\s+State:\s*(?P<state>\S+)\s*$")
_FIELD = re.compile(r"^\s*(?P<key>[A-Za-z][\w ./()-]*?):\s*(?P<value>.*?)\s*$")
_STARS = re.compile(r"^\s*\*+\s*$")
_HEADER = re.compile(r"^\s*(?:iSCSI Transport Class version\s+\S+|version\s+\S+)\s*$")


@dataclass
class _Session:
    target: str
    target_line: int
    portal: tuple[str, int, int, int] | None  # address, port, tag, line
    persistent: str
    line: int
    sid: int | None = None
    iface_ip: str = ""
    state: str = ""
    host: int | None = None
    host_line: int | None = None
    devices: list[dict[str, object]] = field(default_factory=list)


def _listing_line(text: str) -> bool:
    return any(p.match(text) for p in (_TARGET, _PORTAL, _HOST, _LUN, _DISK, _HEADER)) or \
        re.match(r"^\s*(?:Iface Name|SID|iSCSI Session State):", text) is not None


def read(path: str | Path) -> dict[str, pd.DataFrame]:
    """`sessions`: one row per session (target IQN, portal `address:port` it runs to, portal group
    tag, persistent portal, initiator address, SID, SCSI host number or NA, session state, its line,
    the portal's line and the host's); `devices`: one row per LUN a session carries (-P 3), with
    the line naming its disk (the LUN's line where none is named)."""
    import pandas as pd

    file = str(path)
    lines = pasted.output_lines(file, pasted.file_lines(path), _COMMANDS, "iscsiadm -m session -P 3")
    first = lambda text: _HEADER.match(text) is not None or _TARGET.match(text) is not None  # noqa: E731
    sessions: list[_Session] = []
    target: tuple[str, int] | None = None
    portal: tuple[str, int, int, int] | None = None
    persistent = ""
    lun: dict[str, object] | None = None
    for line in pasted.between_lines(file, lines, first, _listing_line, "iscsiadm -m session -P 3")():
        text, at = line.text, f"line {line.number}"
        if _HEADER.match(text) and (sessions or target is not None):
            # iscsiadm prints its version once per run: two runs joined (two hosts, or one twice)
            raise ScenarioError(file, at, "iscsiadm's version line a second time: two runs of `iscsiadm -m session "
                                          "-P 3` in one file; give one run per file")
        if not text.strip() or _STARS.match(text) or _HEADER.match(text):
            continue
        if m := _TARGET.match(text):
            target, portal, persistent = (m["target"], line.number), None, ""
            continue
        if m := _PORTAL.match(text):
            if m["which"] == "Current":
                portal = (m["address"].strip("[]"), int(m["port"]), int(m["tpgt"]), line.number)
            else:
                persistent = f"{m['address']}:{m['port']}"
            continue
        current = sessions[-1] if sessions else None
        if text.strip().startswith("Iface Name:") or (text.strip().startswith("SID:") and (current is None or
                                                                                          current.sid is not None)):
            if target is None:
                raise ScenarioError(file, at, "a session before any `Target:` line: iscsiadm names the target first")
            current = _Session(target[0], target[1], portal, persistent, line.number)
            sessions.append(current)
            lun = None
        if current is None:
            if _FIELD.match(text) or text.strip().endswith(":"):
                continue  # a heading or field before the first session's interface block
            raise ScenarioError(file, at, f"not a line of `iscsiadm -m session -P 3`: {text.strip()[:50]!r}")
        if m := _HOST.match(text):
            if current.host is not None:
                raise ScenarioError(file, at, f"a second Host Number in session {current.sid} (first at line "
                                              f"{current.host_line})")
            current.host, current.host_line = int(m["host"]), line.number
        elif m := _LUN.match(text):
            if current.host is None or int(m["host"]) != current.host:
                raise ScenarioError(file, at, f"scsi{m['host']} under Host Number {current.host}: iscsiadm lists a "
                                              "session's LUNs under its own SCSI host")
            lun = {"host": current.host, "channel": int(m["channel"]), "id": int(m["id"]),
                   "lun": int(m["lun"]), "disk": None, "state": None, "line": line.number}
            current.devices.append(lun)
        elif m := _DISK.match(text):
            if lun is None or lun["disk"] is not None:
                raise ScenarioError(file, at, "`Attached scsi disk` without its `scsiN Channel … Lun:` line above it")
            lun["disk"], lun["state"], lun["line"] = m["disk"], m["state"], line.number
        elif m := _FIELD.match(text):
            _field(file, at, current, m["key"].strip(), m["value"])
        elif not text.strip().endswith(":"):
            raise ScenarioError(file, at, f"not a line of `iscsiadm -m session -P 3`: {text.strip()[:50]!r}")
    seen: dict[int | None, int] = {}
    for s in sessions:
        if s.sid in seen:
            raise ScenarioError(file, f"line {s.line}", f"SID {s.sid} a second time (first at line {seen[s.sid]}): "
                                                        "give one run of iscsiadm per file")
        seen[s.sid] = s.line
    if not sessions:
        raise ScenarioError(file, "", "no iSCSI session (`Target:`, `Current Portal:`, `Iface Name:`, `SID:` as "
                                      "`iscsiadm -m session -P 3` prints them)")
    return {"sessions": pd.DataFrame([_row(file, s) for s in sessions], columns=SESSION_COLUMNS),
            "devices": pd.DataFrame([dict(d, sid=s.sid) for s in sessions for d in s.devices], columns=DEVICE_COLUMNS)}


def _field(file: str, at: str, session: _Session, key: str, value: str) -> None:
    if key == "SID":
        if not is_whole(value):
            raise ScenarioError(file, at, f"SID {value!r}: iscsiadm prints the session's number here")
        session.sid = int(value)
    elif key == "Iface IPaddress":
        session.iface_ip = value
    elif key == "iSCSI Session State":
        session.state = value


def _row(file: str, s: _Session) -> dict[str, object]:
    if s.portal is None:
        raise ScenarioError(file, f"line {s.line}", f"a session of {s.target} with no `Current Portal:` above it")
    if s.sid is None:
        raise ScenarioError(file, f"line {s.line}", f"a session of {s.target} without its `SID:` line")
    address, port, tpgt, portal_line = s.portal
    return {"target": s.target, "portal": f"{address}:{port}", "tpgt": tpgt, "persistent_portal": s.persistent,
            "iface_ip": s.iface_ip, "sid": s.sid, "host": s.host, "state": s.state, "line": s.line,
            "portal_line": portal_line, "host_line": s.host_line}
