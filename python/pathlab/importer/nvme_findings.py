"""What an `nvme list-subsys` (or `show-topology`) listing shows by itself: controllers that carry
no I/O because of their state (`resetting`, `connecting`, `deleting`, `dead`: the kernel's
`nvme_sysfs_show_state`; the importer makes each a path down from the start), and namespaces left
with one usable path, or none. A local PCIe drive has one path by design and is not judged. Each
finding names the listing's line (the JSON object of a `-o json` listing, which has no lines)."""

from __future__ import annotations

import re
from typing import Any

from pathlab.finding import Finding
from pathlab.importer.nvme_namespaces import namespaces, nsid, text

#: ANA states in which a path takes no I/O (the kernel's `nvme_path_is_disabled`, `nvme_state_is_live`).
UNUSABLE_ANA = ("inaccessible", "persistent-loss", "change")
#: Why a controller in each state carries no I/O (the kernel's `nvme_ctrl_state`).
NOT_LIVE = {"resetting": "carries no I/O until it reconnects", "connecting": "carries no I/O until it reconnects",
            "new": "carries no I/O until it is live", "deleting": "carries no I/O: it is being removed",
            "deleting (no IO)": "carries no I/O: it is being removed",
            "dead": "carries no I/O: the kernel gave it up", "unknown state": "carries no I/O: its state is unknown",
            "unknown": "carries no I/O: its state is unknown",
            "(null)": "printed no state ((null)) and no name: taken as not live, it carries no I/O"}


def usable(row: Any) -> bool:
    """Whether a path carries I/O: its controller live (or no state shown: nvme-cli's oldest) and
    its ANA state one that takes I/O."""
    return usable_as_listed(text(row.state), text(row.ana_state))


def usable_as_listed(state: str, ana_state: str) -> bool:
    """`usable` of a controller's state and ANA state as printed ("" where none was)."""
    return state in ("live", "") and ana_state not in UNUSABLE_ANA


def _where(file: str, row: Any) -> str:
    line = text(getattr(row, "line", None))
    return f"{file}, line {line}" if line else f"{file}: {text(row.subsystem)} {text(row.controller)}"


def _address(row: Any) -> str:
    """`tcp traddr=10.0.0.1,trsvcid=4420`: the controller's transport and target, as printed."""
    address = text(row.address)
    target = ",".join(m.group(0) for m in re.finditer(r"(?<![_a-z])(?:traddr|trsvcid)=[^,\s]+", address)) or address
    return " ".join(part for part in (text(row.transport), target) if part)


def listing_findings(table: Any, file: str) -> list[Finding]:
    rows = [r for r in table.itertuples() if text(r.controller)]
    found: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for r in rows:
        state = text(r.state)
        if state in NOT_LIVE and (text(r.subsystem), text(r.controller)) not in seen:
            seen.add((text(r.subsystem), text(r.controller)))
            found.append(Finding(f"{r.controller} ({_address(r)}) of {r.subsystem}: {state}: {NOT_LIVE[state]} (captured)",
                                 f"{_where(file, r)}: {r.controller} is {state}; the import takes its paths as down"))
    for s, ns in namespaces(rows):
        own = [r for r in rows if text(r.subsystem) == s and nsid(r) == ns]
        if all(text(r.transport) == "pcie" for r in own):
            continue  # a local drive: one path is how it is built
        left = [r for r in own if usable(r)]
        name = s + (f" namespace {ns}" if ns is not None else "")
        if not left:
            found.append(Finding(f"{name} has no usable path: its I/O waits while a controller reconnects, and fails "
                                 "when none is left (captured)",
                                 f"{_where(file, own[0])}: {len(own)} path(s), none live with an ANA state that takes I/O"))
        elif len(left) == 1:
            found.append(Finding(f"{name}: one path: no redundancy left (captured)",
                                 f"{_where(file, left[0])}: {left[0].controller} is its only usable path of {len(own)}"))
    return found
