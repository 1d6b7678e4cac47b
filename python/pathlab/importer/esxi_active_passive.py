"""An ESXi host's array without target port groups whose path list parts a LUN's paths into
`Group State: active` and `standby`: an active/passive array (VMW_SATP_CX, _DEFAULT_AP, _LSI, _MSA:
the owning storage processor's paths active, the other's standby until a trespass). Its
controllers are derived from the ports: ports active together for one LUN (or standby together)
lead to one controller, an active and a standby port of one LUN to two; each LUN's owner is the
controller of its active paths. Every LUN relates its ports, not only one that shows both states:
"one storage processor is actively providing access to a given LUN ... I/O can be successfully
sent only to an active port for a given LUN" (vSphere Storage 6.0/6.5, "Types of Storage
Systems"), so a LUN's active ports are its owner's whatever else it shows. Ports the LUNs relate
in sets apart from one another (a port whose every path is dead, a host zoned to other ports for
other LUNs) lead to controllers the listing does not name: which of the first set's they are is
not determined, and said; each set is simulated on controllers of its own, one per side its
ports show (a set of active ports alone gets one, not a pair). A listing whose states contradict
this (one port active beside and against another) is said and read as before (symmetric)."""

from __future__ import annotations

from dataclasses import dataclass, field
from string import ascii_uppercase
from typing import NamedTuple

from pathlab.importer.provenance import Derived


class PathGroup(NamedTuple):
    """A path of the list: the target port it reaches, its `Group State` and its line."""

    target: str
    state: str | None
    line: int | None


@dataclass
class ActivePassive:
    #: The controllers, named in the order the list first shows them (A, B, then C, D for ports
    #: no LUN relates to those; only the sides some port shows).
    controllers: list[str] = field(default_factory=list)
    #: Each target port's controller.
    port_controller: dict[str, str] = field(default_factory=dict)
    #: Each LUN's owner: the controller of its active paths.
    owners: dict[str, str] = field(default_factory=dict)
    #: Where it was read (the lines of the LUNs whose paths part).
    source: Derived | None = None
    #: What the listing leaves open: ports in a set the LUNs do not relate to the first.
    warnings: list[str] = field(default_factory=list)


class _Sides:
    """Union-find over ports with a parity: two ports of one set are on one controller (parity
    0) or on the two controllers of a pair (parity 1)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}
        self.parity: dict[str, int] = {}

    def find(self, port: str) -> tuple[str, int]:
        self.parent.setdefault(port, port)
        self.parity.setdefault(port, 0)
        root, odd = port, 0
        while self.parent[root] != root:
            odd ^= self.parity[root]
            root = self.parent[root]
        return root, odd

    def relate(self, a: str, b: str, apart: int) -> bool:
        """Puts `a` and `b` on one controller (`apart` 0) or on a pair's two (1); False where the
        list said otherwise before."""
        (ra, pa), (rb, pb) = self.find(a), self.find(b)
        if ra == rb:
            return pa ^ pb == apart
        self.parent[rb], self.parity[rb] = ra, pa ^ pb ^ apart
        return True


def active_passive(paths_of: dict[str, list[PathGroup]], path_file: str) -> tuple[ActivePassive | None, str | None]:
    """The array's controllers and owners from its LUNs' Group States (`paths_of`: LUN → its paths,
    in the list's order); (None, None) where no LUN shows an active path beside a standby one, and
    (None, why) where the states contradict one another."""
    sides = _Sides()
    parted: list[tuple[str, list[PathGroup]]] = []
    for device, paths in paths_of.items():
        active = [p for p in paths if p.state == "active"]
        standby = [p for p in paths if p.state == "standby"]
        relations = [*((active[0].target, p, 0) for p in active[1:]), *((standby[0].target, p, 0) for p in standby[1:])]
        if active and standby:
            parted.append((device, paths))
            relations.insert(0, (active[0].target, standby[0], 1))
        for first, p, apart in relations:
            if not sides.relate(first, p.target, apart):
                return None, (f"{path_file}, line {p.line}: {device}'s path to {p.target} is {p.state} where other LUNs' "
                              f"paths put its port {'beside' if apart else 'against'} {first}'s: not read as an "
                              "active/passive array")
    if not parted:
        return None, None
    out = ActivePassive()
    ports = list(dict.fromkeys(p.target for paths in paths_of.values() for p in paths))
    shown = {sides.find(port) for port in ports}  # the sides some port leads to
    names: dict[tuple[str, int], str] = {}

    def controller(port: str) -> str:
        root, odd = sides.find(port)
        if (root, odd) not in names:
            # A pair's two sides named together, so that A and B are one pair's; a side no port shows is not named.
            for side in ((root, odd), (root, 1 - odd)):
                if side in shown:
                    names[side] = _controller_name(len(names))
                    out.controllers.append(names[side])
        return names[(root, odd)]

    for device, paths in parted:
        out.owners[device] = controller(next(p.target for p in paths if p.state == "active"))
    first_set = sides.find(next(p.target for p in parted[0][1]))[0]
    other_sets: dict[str, list[PathGroup]] = {}  # each other set's ports (by its root), where first listed
    for paths in paths_of.values():
        for p in paths:
            if p.target not in out.port_controller:
                out.port_controller[p.target] = controller(p.target)
                if sides.find(p.target)[0] != first_set:
                    other_sets.setdefault(sides.find(p.target)[0], []).append(p)
    for device, paths in paths_of.items():
        # A LUN whose standby paths are not shown (dead, or not listed): its active paths' controller, where one.
        owning = {out.port_controller[p.target] for p in paths if p.state == "active"}
        if device not in out.owners and len(owning) == 1:
            out.owners[device] = owning.pop()
    lines = [str(p.line) for _, paths in parted for p in paths[:1] if p.line is not None]
    said = ", ".join(lines[:5]) + (f" and {len(lines) - 5} more" if len(lines) > 5 else "")
    out.source = Derived(f"{path_file}: the paths of {len(parted)} LUN{'s' if len(parted) > 1 else ''} show Group State "
                         f"active and standby (line{'s' if len(lines) > 1 else ''} {said}) and no target port group: "
                         "an active/passive array, the ports active together for a LUN one controller's, its standby "
                         "ones the other's" + (f"; {len(other_sets)} set{'s' if len(other_sets) > 1 else ''} of ports no LUN "
                                               "relates to the first on controllers of their own, said"
                                               if other_sets else ""),
                         (path_file,))
    first_ports = [port for port in ports if sides.find(port)[0] == first_set]
    for seen in other_sets.values():
        named = sorted({out.port_controller[p.target] for p in seen})
        where = [str(p.line) for p in seen if p.line is not None]
        out.warnings.append(
            f"{path_file}: no LUN's paths relate the port{'s' if len(seen) > 1 else ''} {', '.join(p.target for p in seen)}"
            + (f" (line{'s' if len(where) > 1 else ''} {', '.join(where[:5])})" if where else "")
            + f" to {', '.join(first_ports[:5])}{' and more' if len(first_ports) > 5 else ''}: which of the array's "
            f"controllers {'they lead' if len(seen) > 1 else 'it leads'} to is not determined; simulated on "
            f"{'controllers' if len(named) > 1 else 'a controller'} of {'their' if len(seen) > 1 else 'its'} own "
            f"({', '.join(named)})")
    return out, None


def _controller_name(k: int) -> str:
    """The k-th controller's name: A to Z, then A2, B2, ... (never one name twice)."""
    return ascii_uppercase[k % 26] + (str(k // 26 + 1) if k >= 26 else "")
