"""iSCSI portals of a Linux host (issue 22): `iscsiadm -m session -P 3` beside `multipath -ll`.
Open-iscsi gives every session a SCSI host of its own (`Host Number`, the H of the paths'
H:C:T:L), so each path's session, and the portal that session runs to, is known: each portal
(address:port) is one array port, whatever number of sessions (host interfaces) reach it, and the
ports are listed by target portal group (`<target IQN>,t,<tag>`: pathlab models no portal group,
the group is named beside each port). Paths of SCSI hosts with no session (FC, SAS) keep their
ports by host and target. A session listing that disagrees with the multipath listing, or that
is of another host, is refused with one line naming the file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError
from pathlab.importer.same_host import refuse_other_host

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Portal:
    """The array port an iSCSI session reaches: its portal (`10.37.120.10:3260`, the port's
    name), its target portal group, and the session listing's line that shows it."""

    name: str
    group: str
    line: int


def portals_by_host(sessions: dict[str, pd.DataFrame], sfile: str, paths: list[Any], mfile: str) -> dict[int, Portal]:
    """SCSI host number → the portal its session runs to, for the hosts of `paths`. Refused: a
    listing without host numbers (`-P 1`), one whose sessions carry none of the paths' SCSI hosts
    (another host's), and a LUN whose disk differs between the two listings."""
    table, devices = sessions["sessions"], sessions["devices"]
    if table["host"].isna().all():
        raise ScenarioError(sfile, "", "no `Host Number` in this session listing (`iscsiadm -m session -P 1`): the "
                                       "paths of multipath -ll name their session by SCSI host; give `-P 3`")
    by_host: dict[int, Portal] = {}
    for s in table.itertuples():
        if s.host is None or s.host != s.host:  # a session cut before its devices (NaN)
            continue
        portal = Portal(str(s.portal), f"{s.target},t,{s.tpgt}", int(s.portal_line))
        by_host[int(s.host)] = portal
    hosts = {int(p.hctl.split(":")[0]) for p in paths}
    refuse_other_host(sfile, "its sessions' SCSI hosts", by_host, f"the paths' in {mfile}", hosts,
                      "a session listing of another host, or of another boot")
    disk_at = {(int(d.host), int(d.channel), int(d.id), int(d.lun)): (str(d.disk), int(d.line))
               for d in devices.itertuples() if isinstance(d.disk, str)}
    for p in paths:
        h, c, t, lun = (int(x) for x in p.hctl.split(":"))
        listed = disk_at.get((h, c, t, lun))
        if listed is not None and listed[0] != str(p.device):
            raise ScenarioError(sfile, f"line {listed[1]}", f"{p.hctl} is disk {listed[0]} here but {p.device} in "
                                                            f"{mfile} (line {p.line}): the listings are of different "
                                                            "hosts or times")
    return {h: portal for h, portal in by_host.items() if h in hosts}

