"""The host's name where its captures hold it: an `esxtop -b` capture's counter paths
(`\\\\esx01\\Physical Disk…`), a vm-support bundle's `esxcli system hostname get` (`Host Name:`),
a sosreport's `hostname` (its top-level file, or `sos_commands/host/hostname`). Listings
(`esxcli`, `multipath -ll`, `nvme list-subsys`, diskstats) name no host. A capture naming several
hosts is refused, and so are captures given for one host that name different ones."""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from pathlib import Path

from pathlab.api import ScenarioError
from pathlab.importer.provenance import Read
from pathlab.readers import esxtop_bytes, pdh_csv
from pathlab.readers.pdh_csv import Records

#: Where a tree keeps its host's name, tried in order: (path inside the tree, how the name is read).
HOSTNAME_FILES = (
    ("hostname", "whole"),  # sosreport
    ("sos_commands/host/hostname", "whole"),
    ("sos_commands/general/hostname", "whole"),  # sos before 3.x
    ("commands/localcli_system-hostname-get.txt", "Host Name"),  # vm-support
    ("commands/esxcli_system-hostname-get.txt", "Host Name"),
)
#: A host name as a scenario can hold it (no `/`: a reference `HOST/NAME` splits at it).
VALID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,253}$")


def host_named(inputs: Sequence[str], files: Sequence[str]) -> tuple[str, Read] | None:
    """(the name, the file and line it was read at) of the host whose `inputs` (as given: folders
    and files) and their capture `files` name it; None where none does. Two that disagree are
    refused naming both."""
    found: list[tuple[str, Read]] = []
    for folder in (Path(i) for i in inputs if Path(i).is_dir()):
        named = _in_tree(folder)
        if named:
            found.append(named)
    for file in files:
        named = _in_esxtop(file)
        if named:
            found.append(named)
    for name, where in found[1:]:
        if not same_host(name, found[0][0]):
            raise ScenarioError(where.comment(), "", f"names host {name}, {found[0][1].comment()} names {found[0][0]}: "
                                                     "the captures of one host are given together; give each host's apart")
    return found[0] if found else None


def let_go_kept() -> None:
    """What naming a host kept of its esxtop capture for the capture's reader (`_in_esxtop`: the
    core's open capture, or the header the Python reader split), let go once the host is read:
    where its import refused before reading the capture, or the naming refused, nothing took it,
    and the file stayed open in the worker until another host's capture was kept."""
    esxtop_bytes.let_go()
    pdh_csv.let_go()


def same_host(a: str, b: str) -> bool:
    """Two names of one host: equal but for case (DNS names are not case-sensitive) and the
    domain one of them may carry (esxtop prints the FQDN, `hostname-get` the short name)."""
    return a.split(".")[0].casefold() == b.split(".")[0].casefold() and (
        "." not in a or "." not in b or a.casefold() == b.casefold())


def _in_tree(folder: Path) -> tuple[str, Read] | None:
    """The name a sosreport or vm-support tree holds, at its top or in the one folder it holds (a
    tarball extracted into `folder`)."""
    roots = [folder] + [d for d in sorted(folder.iterdir()) if d.is_dir()][:1] if folder.is_dir() else []
    for root in roots:
        for inside, how in HOSTNAME_FILES:
            file = root / inside
            # (a link out of the tree, as to /etc/hostname, would name the machine pathlab runs on)
            if file.is_file() and file.resolve().is_relative_to(folder.resolve()) and file.stat().st_size < 4096:
                for number, line in enumerate(file.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                    key, colon, value = line.partition(":")
                    name = line.strip() if how == "whole" else value.strip() if colon and key.strip() == how else ""
                    if name:
                        return checked_name(name, f"{file}, line {number}"), Read(str(file), number)
    return None


def _in_esxtop(file: str) -> tuple[str, Read] | None:
    """The host an `esxtop -b` capture's counter paths name (its header, line 1), read past a
    byte-order mark as the capture's reader reads it."""
    with open(file, encoding="utf-8-sig", errors="replace", newline="") as f:
        if not f.read(16).lstrip('"').startswith("(PDH-CSV"):
            return None
        core = esxtop_bytes.opened(file, keep=True)  # (kept for the capture's reader, as the header below)
        if core is not None:
            hosts = core[1][1]
        else:  # a header that is not a line as esxtop writes it
            f.seek(0)
            try:
                hosts = _hosts_of(next(Records(f, file, keep=True), [])[1:])
            except csv.Error as e:  # as the capture's reader says it
                raise ScenarioError(file, "line 1", f"not CSV: {e}") from None
    where = f"{file}, line 1"
    if len(hosts) > 1:
        raise ScenarioError(file, "line 1", f"counters of hosts {', '.join(hosts[:4])}: give one host's esxtop capture")
    return (checked_name(hosts[0], where), Read(file, 1, f"counter paths \\\\{hosts[0]}\\")) if hosts else None


def _hosts_of(columns: list[str]) -> list[str]:
    """The hosts the counter paths `\\\\host\\Object(instance)\\Counter` name, in the order
    first named. A capture's columns run to hundreds of thousands, of one host (a capture of
    several is refused): a column of the last host named is passed by its prefix alone."""
    hosts: dict[str, None] = {}
    prefix = None  # `\\\\host\\` of the last host named
    for column in columns:
        if prefix is not None and column.startswith(prefix):
            continue
        if column.startswith("\\\\"):
            host = column[2:].split("\\", 1)[0]
            hosts[host] = None
            prefix = f"\\\\{host}\\"
    return list(hosts)


def checked_name(name: str, where: str) -> str:
    """`name`, refused (naming `where` it came from) unless a scenario can hold it."""
    if not VALID.match(name):
        raise ScenarioError(where, "", f"host name {name!r}: a host's name is letters, digits, '.', '-' and '_'")
    return name
