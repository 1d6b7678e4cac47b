"""The namespaces of an NVMe listing and the array controllers their ANA states imply.

`nvme list-subsys` shows one ANA state per controller; `nvme show-topology` shows one per
namespace and controller, and the namespaces of one subsystem may differ: each ANA group has its
own optimized controllers (nvme-cli PR 1693's nvmet target: four namespaces, each optimized
through another of four ports). The scenario's model of ANA is an array of controllers, each
holding some ports, and a device owned by one of them: its paths to the owner's ports are
optimized, the others non-optimized. So the ports are grouped by their states across every
namespace (ports with the same state for every namespace are on one controller), and each
namespace is owned by the group of its optimized ports. That is exact when any two namespaces'
optimized ports are the same or apart; otherwise a namespace's optimized ports span several
groups, it is owned by the group of its first optimized path, and the import says that its
other paths' states are not kept."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.linux_names import letters

#: A namespace of the listing: (subsystem, NSID), the NSID None where the listing shows none.
Namespace = tuple[str, "int | None"]
#: An array port: (array, target address).
Port = tuple[str, str]


def text(value: Any) -> str:
    """A table cell as text, empty for a missing value."""
    import pandas as pd

    return "" if value is None or pd.isna(value) else str(value)


def nsid(row: Any) -> int | None:
    value = text(getattr(row, "nsid", None))
    return int(float(value)) if value else None


def namespaces(rows: list[Any]) -> list[Namespace]:
    """Each subsystem's namespaces in NSID order, subsystems in the listing's order."""
    subsystems = dict.fromkeys(text(r.subsystem) for r in rows)
    out: list[Namespace] = []
    for s in subsystems:
        ids = {nsid(r) for r in rows if text(r.subsystem) == s}
        out += [(s, n) for n in sorted(ids, key=lambda n: -1 if n is None else n)]
    return out


@dataclass
class Controllers:
    #: Each port's controller (`A`, `B`, …).
    of_port: dict[Port, str] = field(default_factory=dict)
    #: Each namespace's owner: the controller of its optimized paths.
    owner: dict[Namespace, str] = field(default_factory=dict)
    #: Namespaces whose optimized ports are on several controllers (their other states are lost).
    split: list[Namespace] = field(default_factory=list)
    #: Namespaces with no optimized path: owned by a controller none of their paths lead to.
    unreached: list[Namespace] = field(default_factory=list)


def controllers(rows: list[Any], port_of: dict[tuple[str, str], Port]) -> Controllers:
    """The controllers of the ports the rows reach, and each namespace's owner. `port_of` maps
    (subsystem, controller name) to the array port. Controllers are named `A`, `B`, … in the order
    of the first namespace each one serves optimized; ports optimized for no namespace last. A
    namespace no path of which is optimized is owned by the first controller it reaches no port of
    (its paths then stay non-optimized, as read)."""
    keys = namespaces(rows)
    state: dict[Port, dict[Namespace, str]] = {}
    for r in rows:
        state.setdefault(port_of[(text(r.subsystem), text(r.controller))], {})[(text(r.subsystem), nsid(r))] = \
            text(r.ana_state)
    signature = {port: tuple(states.get(k, "") for k in keys) for port, states in state.items()}
    first_optimized = {sig: next((i for i, s in enumerate(sig) if s == "optimized"), len(keys))
                       for sig in signature.values()}
    order = sorted(dict.fromkeys(signature.values()), key=lambda sig: first_optimized[sig])
    name = {sig: letters(i).upper() for i, sig in enumerate(order)}  # A..Z, AA..: as many as there are
    out = Controllers({port: name[sig] for port, sig in signature.items()})
    for i, k in enumerate(keys):
        owners = [name[sig] for sig in order if sig[i] == "optimized"]
        if owners:
            out.owner[k] = owners[0]
        else:  # no path optimized (one controller, non-optimized): owned by a controller it has no path to
            reached = {name[sig] for sig in order if sig[i]}
            out.owner[k] = next(c for c in (letters(n).upper() for n in range(len(order) + 1)) if c not in reached)
            out.unreached.append(k)
        if len(owners) > 1:
            out.split.append(k)
    return out
