"""What makes an array port one hosts share: an identity the port keeps whoever reaches it, read
from a host's import. An FC target port's WWN (ESXi path names carry `fc.WWNN:WWPN` of the
target), an iSCSI portal's address (a Linux host's sessions name it: the port is named by it), an
NVMe target's address on the subsystem's array (a port is named by its traddr, the array by the
NQN's domain). None where the host's captures give nothing another host could match: an ESXi
iSCSI session (named by the host's own ISID; the portal's address is not in the path listings),
a Linux FC or SAS port (`multipath -ll` names the SCSI host and target number, not the WWN), or
a port named by the host's adapter and target number."""

from __future__ import annotations

import re

#: The ESXi importer's comment on a port (`esxi.py`): `<path list>: target fc.WWNN:WWPN`.
ESXI_FC_TARGET = re.compile(r": target (fc\.[0-9A-Fa-f]+:[0-9A-Fa-f]+)$")
#: An iSCSI portal as the Linux importer names a port: `10.37.120.10:3260`, `[fe80::1]:3260`.
PORTAL = re.compile(r"^(\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]):\d+$")


def port_identity(stack: str, array: str, port: str, comment: str) -> str | None:
    """The identity of `array`'s port `port` as a host of `stack` (esxi, linux, nvme) imported it,
    its line's comment `comment`; None where the captures give none."""
    if stack == "esxi":
        match = ESXI_FC_TARGET.search(comment)
        return f"FC target {match.group(1).lower()}" if match else None
    if stack == "linux":
        return f"iSCSI portal {port}" if PORTAL.match(port) else None
    if stack == "nvme":
        return f"NVMe {array} traddr {port}"
    return None
