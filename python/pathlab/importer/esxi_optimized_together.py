"""An ESXi host whose paths show a device active-optimized through more than one target port
group, beside a group that is not: no one group owns the device.

A uniform metro host (zoned to both arrays of a metro pair) reaches the port groups of both: Pure
ActiveCluster reports every path of both arrays active-optimized unless a preferred array is set
for the host (then the remote array's non-optimized: Pure's "ActiveCluster: Optimizing Host
Performance with Array Preferences"), and an array with LUN ownership adds a group per
controller. So `esxcli storage nmp path list` can show `TPG_id=1,TPG_state=AO`, `TPG_id=2,
TPG_state=AO` and `TPG_id=3,TPG_state=ANO` for one device. The import read the first AO group as
the owner, so TPG 2's paths ran non-optimized.

The rule (*optimized together*): the groups a device's paths show AO together serve it alike, so
none of them owns it: the scenario has one controller for them (`TPG1+TPG2`), the device's owner,
and each other group one of its own, whose paths take the state they show (`esxi_non_owner`).
The scenario's controllers are an array's: a group is in one of them for every device, so the
groups AO together on any device are joined (on an array every path of which is AO, symmetric,
the joins are not written) (and groups joined through a shared group with
them); a device that shows a joined group AO and another of them not (LUN 1 AO on TPG 1 and 2,
LUN 2 AO on TPG 1 alone, TPG 2 ANO) cannot have its states in the scenario, and is left out of
the host, said, rather than run with a state its paths do not show. Whether the joined groups are
two arrays (whose writes also cross the replication link, which one host's listings do not show)
or two controllers of one, which array a group not AO is of, and each group's distance, are not
determined by the listings, and said."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pathlab.finding import Finding
from pathlab.importer.esxi_non_owner import lines_of
from pathlab.importer.frame_rows import cell as _value
from pathlab.importer.joined import Joined
from pathlab.importer.shorter_first import shorter_first


@dataclass
class Together:
    """Each array's target port groups joined (array -> group -> the scenario's controller name,
    only where groups are joined), the devices whose states the joined controllers cannot hold
    (device -> why), and what is said of each array joined (written where the array is owned:
    on a symmetric one every path is AO, and no controller is written)."""

    controller: dict[str, dict[str, str]] = field(default_factory=dict)
    left_out: dict[str, Finding] = field(default_factory=dict)
    said: dict[str, str] = field(default_factory=dict)
    #: Each array's lines that show its groups active-optimized together (`lines_of`: those of
    #: every device that joins them, kept or left out), for its controllers' and ports' comments.
    lines: dict[str, str] = field(default_factory=dict)
    #: Each device owned by a joined controller: why, from its own active-optimized groups.
    owned: dict[str, str] = field(default_factory=dict)

    def of(self, array: str, group: str) -> str:
        """The scenario's controller for `group` of `array`: its joined one, else `TPG<group>`."""
        return self.controller.get(array, {}).get(group, f"TPG{group}")


def _name(groups: list[str]) -> str:
    return "+".join(f"TPG{g}" for g in sorted(groups, key=shorter_first))


def optimized_together(paths_of: dict[str, list[Any]], vendor_of: dict[str, str], group_of: Any,
                       path_file: str) -> Together:
    """`paths_of`: each device's paths (rows with `tpg_state` and `line`); `group_of(path)` the
    port group of a path (None where it shows none)."""
    out = Together()
    states: dict[str, dict[str, set[str]]] = {}  # device -> group -> the states its paths there show
    for device, paths in paths_of.items():
        for p in paths:
            group = group_of(p)
            state = _value(getattr(p, "tpg_state", None))
            if group is not None and state is not None:
                states.setdefault(device, {}).setdefault(group, set()).add(str(state))
    joined: Joined[tuple[str, str]] = Joined()  # the groups a device shows AO together, per array
    joining: dict[str, list[Any]] = {}  # array -> the active-optimized paths that join its groups
    for device, shown in states.items():
        optimized = [g for g, s in shown.items() if s == {"AO"}]
        if len(optimized) > 1:
            array = vendor_of[device]
            joining.setdefault(array, []).extend(p for p in paths_of[device]
                                                 if _value(getattr(p, "tpg_state", None)) == "AO")
            for g in optimized:
                joined.add((array, g))
            for g in optimized[1:]:
                joined.join((array, g), (array, optimized[0]))
    for (array, _), keys in joined.blocks().items():
        groups = [g for _, g in keys]
        for g in groups:
            out.controller.setdefault(array, {})[g] = _name(groups)
    out.lines = {array: lines_of(paths) for array, paths in joining.items()}
    if not out.controller:
        return out
    joined_devices: dict[str, list[str]] = {}  # array -> the devices AO through more than one of its groups
    alone: dict[str, list[str]] = {}  # array -> the devices a joined controller owns, AO in one group of it
    for device, shown in states.items():
        array = vendor_of[device]
        if array not in out.controller:
            continue
        owners = {out.of(array, g) for g, s in shown.items() if "AO" in s}
        wrong = [(g, s) for g, s in shown.items() if out.of(array, g) in owners and s != {"AO"}]
        if len(owners) > 1 or wrong:
            out.left_out[device] = _left_out(device, shown, owners, wrong, paths_of[device], path_file)
        elif owners and "+" in (owner := next(iter(owners))):
            optimized = [f"TPG{g}" for g in sorted(shown, key=shorter_first) if shown[g] == {"AO"}]
            if len(optimized) > 1:
                joined_devices.setdefault(array, []).append(device)
                out.owned[device] = (f"{path_file}: its paths in {' and '.join(optimized)} all active-optimized: each "
                                     "serves it optimized, none owns it (esxi_optimized_together)")
            else:
                alone.setdefault(array, []).append(device)
                out.owned[device] = (f"{path_file}: owned by the joined controller {owner} (esxi_optimized_together), "
                                     f"its paths active-optimized in {optimized[0]} only")
    for array, devices in joined_devices.items():
        names = sorted(set(out.controller[array].values()))
        others = sorted({f"TPG{g}" for d in devices for g in states[d] if out.of(array, g) not in names})
        shown_by = [p for d in devices for p in paths_of[d] if _value(getattr(p, "tpg_state", None)) == "AO"]
        also = alone.get(array, [])
        out.said[array] = (
            f"{path_file}: {len(devices)} device(s) active-optimized through more than one target port group "
            f"({'; '.join(' and '.join(n.split('+')) for n in names)}: {lines_of(shown_by)}), beside "
            f"{', '.join(others) or 'no group'} not: none of them owns those devices, so the groups active-optimized "
            f"together are one controller of the scenario ({', '.join(names)}) that serves them optimized (a uniform "
            "metro host reaching both arrays, as Pure ActiveCluster reports them without a "
            "preferred array, or one array's controllers serving alike); whether they are two arrays (a write then "
            "also crosses the replication link, not in one host's listings), which array a group not optimized is "
            "of, and each group's distance are not determined by the listings"
            + (f"; {len(also)} device(s) active-optimized in one of those groups alone, with no path in the others "
               f"({', '.join(also[:3])}{' and more' if len(also) > 3 else ''}), owned by the joined controller too"
               if also else ""))
    return out


def _left_out(device: str, shown: dict[str, set[str]], owners: set[str], wrong: list[tuple[str, set[str]]],
              paths: list[Any], path_file: str) -> Finding:
    states = ", ".join(f"TPG{g} {'/'.join(sorted(s))}" for g, s in sorted(shown.items()))
    why = (f"its active-optimized groups fall in {len(owners)} of the scenario's controllers ({', '.join(sorted(owners))})"
           if len(owners) > 1 else
           f"{', '.join(f'TPG{g}' for g, _ in wrong)} is joined with its active-optimized group (another device shows "
           "them optimized together) but not optimized for it")
    return Finding(f"{device}: left out of the imported host: its paths' target port group states ({states}) cannot "
                   "be simulated: " + why + "; one controller of the scenario is one set of groups for every device",
                   f"{path_file}, {lines_of(paths)}: Storage Array Type Path Config")
