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
(`esxi_tpg_config`). Before this the device list decided silently where every path was AO (a
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
                  "among them), the device list's only for groups no path reaches")


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
        differ = [g for g in shown if g in config and states[g] != {config[g]}]
        if not differ:
            continue
        line = cell_int(getattr(d, "satp_config_line", None))
        at = f"{dev_file}" + (f", line {line}" if line is not None else "")
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
