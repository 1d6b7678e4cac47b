"""Where an ESXi host's device list and path list disagree on a target port group's state.

`esxcli storage nmp device list` prints each ALUA device's `Storage Array Type Device Config`
with every target port group's state (`{TPG_id=1,TPG_state=AO}{TPG_id=2,TPG_state=ANO}`), and
`esxcli storage nmp path list` each path's own (`{TPG_id=1,TPG_state=AO,RTP_id=…}`, beside its
`Group State`): both print the SATP's view of the same groups when the command ran, so at one
moment they agree (a path's TPG_state is its group's state in the device list, matching its
Group State: Mostafa Khalil, "Storage Design and Implementation in vSphere 6", 2nd ed., the ALUA
chapter, pearsonitcertification.com/articles/article.aspx?p=2819032). Where they differ, the array moved the
LUN between the two commands (an ALUA transition: a trespass, a controller reboot, the array's
own balancing) or one listing is a stale view (a paste of another day).

The rule (*the path list for the groups it reaches*): the later listing would be current, but
esxcli prints no time with either and pathlab reads none, so which one is current is not
determined, and said: a finding naming both files, both lines and both states, and a warning.
The scenario takes the path list's state for every group the device's paths reach (the state of
each path it simulates: ESXi's PSP picks among a device's paths by their group state, which the
path list prints beside it), and the device list's only for groups no path of the host reaches
(`esxi_tpg_config`). A group whose paths show more than one state (the path list disagrees with
itself) has no one state in it: the scenario runs its paths as its controller stands to the
device (optimized where it owns it, the array's non-owner state where not), which is said with
the paths that run otherwise than they show (`_apart`). Before this the device list decided silently where every path was AO (a
group it showed ANO ran non-optimized on paths the path list showed AO), and the path list where
one was not."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pathlab.finding import Finding
from pathlab.importer.esxi_non_owner import lines_of
from pathlab.importer.esxi_tpg_config import tpg_states
from pathlab.importer.frame_rows import cell as _value
from pathlab.importer.frame_rows import cell_int

#: Why neither listing is known to be current, and which the scenario takes.
NOT_DETERMINED = ("esxcli prints no time with either listing, so which is current is not determined (an ALUA "
                  "transition between the two commands, or one listing a stale view); the scenario takes the path "
                  "list's state for the groups the device's paths reach (each path's own, by which ESXi's PSP picks "
                  "among them), the device list's only for groups no path reaches or whose paths show more than one "
                  "state (said apart)")


@dataclass
class Reconciled:
    """Each device's groups as the path list shows them (device -> TPG_id -> state, where its
    paths in the group show one state), and what was said where the device list differs."""

    taken: dict[str, dict[int, str]] = field(default_factory=dict)
    found: list[Finding] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)


def reconciled(devices: list[Any], paths_of: dict[Any, list[Any]], group_of: Callable[[Any], str | None],
               dev_file: str, path_file: str) -> Reconciled:
    """The path list's state of each group a device's paths reach, and a finding and a warning
    for each device whose SATP config shows one of those groups in another state."""
    out = Reconciled()
    for d in devices:
        shown: dict[int, list[Any]] = {}  # TPG_id -> the device's paths in it showing a state
        for p in paths_of.get(d.device, []):
            group = group_of(p)
            if group is not None and group.isascii() and group.isdigit() and _value(getattr(p, "tpg_state", None)) is not None:
                shown.setdefault(int(group), []).append(p)
        states = {g: {str(p.tpg_state) for p in ps} for g, ps in shown.items()}
        out.taken[str(d.device)] = {g: next(iter(s)) for g, s in states.items() if len(s) == 1}
        config = dict(tpg_states(d))
        line = cell_int(getattr(d, "satp_config_line", None))
        at = f"{dev_file}" + (f", line {line}" if line is not None else "")
        for g in [g for g in shown if len(states[g]) > 1]:
            _apart(out, d.device, g, shown, paths_of.get(d.device, []), group_of, config.get(g), at, path_file)
        differ = [g for g in shown if g in config and len(states[g]) == 1 and states[g] != {config[g]}]
        if not differ:
            continue
        pairs = [(f"TPG_id={g}: TPG_state={config[g]} in the device list, {'/'.join(sorted(states[g]))} in the path list",
                  f"{path_file}, {lines_of(shown[g])}: TPG_id={g},TPG_state={'/'.join(sorted(states[g]))} (Group State "
                  f"{'/'.join(sorted({str(_value(getattr(p, 'group_state', None))) for p in shown[g]}))})")
                 for g in differ]
        configs = "".join(f"{{TPG_id={g},TPG_state={config[g]}}}" for g in differ)
        out.found.append(Finding(
            f"{d.device}: the device list and the path list disagree on its target port groups' states: "
            f"{'; '.join(title for title, _ in pairs)} (captured)",
            f"{at}: Storage Array Type Device Config {configs}; {'; '.join(where for _, where in pairs)}: "
            f"{NOT_DETERMINED}"))
        out.warnings.append((f"devices.{d.device}.owner", f"{at} and {path_file}: {'; '.join(t for t, _ in pairs)}: "
                                                          f"{NOT_DETERMINED}"))
    return out


def _apart(out: Reconciled, device: str, group: int, shown: dict[int, list[Any]], paths: list[Any],
           group_of: Callable[[Any], str | None], config: str | None, at: str, path_file: str) -> None:
    """A group whose paths show more than one state (the path list disagrees with itself: a path
    whose state ESXi had not updated when it printed, or one changing): neither listing gives the
    group one state, and the scenario runs each path by whether its group's controller owns the
    device (`esxi.py`: the group of its first active-optimized path), so the paths that show
    otherwise are run otherwise, and said: a finding and a warning naming them."""
    first = next((p for p in paths if _value(getattr(p, "tpg_state", None)) == "AO"), None)
    owner = group_of(first) if first is not None else None
    owns = owner is not None and owner.isascii() and owner.isdigit() and int(owner) == group
    by_state: dict[str, list[Any]] = {}
    for p in shown[group]:
        by_state.setdefault(str(p.tpg_state), []).append(p)
    states = "; ".join(f"{s} ({lines_of(ps)})" for s, ps in sorted(by_state.items()))
    if owns:
        run = (f"active-optimized: its group owns the device in the scenario (the group of its first active-optimized "
               f"path, {lines_of([first])})")
        overridden = [p for s, ps in by_state.items() if s != "AO" for p in ps]
    else:
        whose = (f"its owner is TPG_id={owner}, the group of its first active-optimized path, {lines_of([first])}"
                 if first is not None else "no path of it is active-optimized")
        run = f"as a group that does not own the device ({whose}): in the array's state for those, never active-optimized"
        overridden = by_state.get("AO", [])
    names = ", ".join(f"{p.runtime_name} ({lines_of([p])})" for p in overridden)
    listed = f"; the device list shows TPG_state={config} ({at})" if config is not None else ""
    title = (f"{device}: the path list shows its paths in TPG_id={group} in more than one state: {states} "
             "(captured)")
    said = (f"{path_file}: TPG_id={group}'s paths show {states}{listed}: the path list disagrees with itself (a path "
            f"whose state was not updated when esxcli printed it, or a transition under way), so no one state of the "
            f"group is taken from it; the scenario runs the group's paths {run}, so {names or 'no path'} "
            f"{'is' if len(overridden) == 1 else 'are'} run otherwise than shown")
    out.found.append(Finding(title, said))
    out.warnings.append((f"devices.{device}.owner", said))
