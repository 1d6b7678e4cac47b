"""The failure kinds `advise --failures` simulates on a host, those its topology has: a path that
stops answering (no link event), a link down the host sees, a controller reboot (an array of two
controllers or more), on an NVMe host an ANA change (the controller reboot, its partner's ANA
groups in the change state for the array's ANATT before they take its namespaces over: where the
array reports ANA groups and its ANATT is known, from the scenario or `nvme id-ctrl`), on a SCSI
ALUA host (dm-multipath, ESXi's VMW_SATP_ALUA) an ALUA transition (the same reboot, its partner's
target port groups Transitioning for the array's implicit transition time: where that time is
known; a host timer such as scsi_dh_alua's 60 s says what the host tolerates, not how long the
array takes, so it is not assumed), a switch
loss (where the scenario names its `[[fabric]]` tables), a site loss (an array in a
`[[replication]]` group: metro) and every path down. Each is one `[[faults]]`
table on the busiest device with two paths or more (its busiest path in a short pilot run, that
path's port's controller and fabric, its array). On a cluster the busiest device of any host, its
path and device named `HOST/NAME` as a fault names them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pathlab._core import parse_duration_ns
from pathlab.api import Scenario, ScenarioError
from pathlab.devices import Device

#: Every kind, in the order the output lists them.
KINDS = ("path_hang", "link_down", "controller_reboot", "ana_change", "alua_transition", "switch_down", "site_down",
         "all_paths_down")
#: What each kind is, as the output says it.
SAID = {"path_hang": "a path stops answering (no link event)", "link_down": "a link down the host sees",
        "controller_reboot": "a controller reboots",
        "ana_change": "a controller reboots, its partner's ANA groups in the change state for ANATT",
        "alua_transition": "a controller reboots, its partner's port groups Transitioning for the implicit "
                           "transition time",
        "switch_down": "a switch is lost",
        "site_down": "a site is lost (metro)", "all_paths_down": "every path down"}


@dataclass(frozen=True)
class FailureKind:
    """One kind of failure on this host: its name, what it hits, and its `[[faults]]` table
    without its times."""

    kind: str
    target: str
    fault: Mapping[str, Any]
    #: How long an ANA change or ALUA transition it puts groups in lasts (seconds): the fault must outlast it.
    change_s: float | None = None

    def at(self, start_s: float, end_s: float) -> dict[str, Any]:
        """The fault table from `start_s` to `end_s` (seconds from the run's start)."""
        return {**self.fault, "at": f"{start_s * 1000:.0f}ms", "until": f"{end_s * 1000:.0f}ms"}


def applicable(scenario: Scenario, tables: Mapping[str, Any], busy: Mapping[str, float]) -> list[FailureKind]:
    """The kinds this host's topology has, in `KINDS` order, on the busiest path (`busy`: each
    path's commands a second in a pilot run) of the busiest device of two paths or more: a lost
    path that carries no I/O holds none. Refused when no device has two paths (a lost path would
    be every path: nothing to fail over to)."""
    described = scenario.describe()
    several = len(scenario.hosts) > 1

    def named(p: dict[str, Any], key: str = "name") -> str:
        """A path's (or device's) name as a fault and the interval rows write it: `HOST/NAME` in a cluster."""
        return f"{p['host']}/{p[key]}" if several else p[key]

    def rate(p: dict[str, Any]) -> float:
        # a cluster's interval rows write HOST/NAME only where another host has the name
        return busy.get(named(p), busy.get(p["name"], 0.0)) if several else busy.get(p["name"], 0.0)

    paths: dict[str, list[dict[str, Any]]] = {}
    for p in described["paths"]:
        paths.setdefault(named(p, "device"), []).append(p)
    devices = [named(d) for d in described["devices"]]
    two = [d for d in devices if len(paths.get(d, [])) >= 2]
    if not two:
        raise ScenarioError(scenario.file, "--failures", "no device has two paths: a lost path would leave none to "
                                                         "fail over to (give a scenario with two paths or more)")
    device = max(two, key=lambda d: sum(rate(p) for p in paths[d]))  # the first of equals
    path = max(paths[device], key=rate)
    array, _, port = path["target"].partition("/")
    found = [FailureKind("path_hang", named(path), {"kind": "path_down", "path": named(path), "detection": "timeout"}),
             FailureKind("link_down", named(path), {"kind": "path_down", "path": named(path), "detection": "link"})]
    array_table: dict[str, Any] = next((a for a in tables.get("arrays", []) if a.get("name") == array), {})
    if len(array_table.get("controllers", [])) >= 2:
        controller = next((p.get("controller") for p in array_table.get("ports", []) if p.get("name") == port), None)
        if controller:
            found.append(FailureKind("controller_reboot", f"{array}/{controller}",
                                     {"kind": "controller_reboot", "array": array, "controller": controller,
                                      "detection": "link"}))
    change = _ana_change(scenario, array_table, paths[device], path)
    if change is not None:
        found.append(change)
    transition = _alua_transition(scenario, array_table, paths[device], path)
    if transition is not None:
        found.append(transition)
    adapters = (path["adapter"], f"{path['host']}/{path['adapter']}")  # written bare, or HOST/NAME in a cluster
    fabric = next((f for f in tables.get("fabric", []) if f.get("name") and any(a in f.get("adapters", []) for a in adapters)
                   and path["target"] in f.get("ports", [])), None)
    if fabric is not None:
        found.append(FailureKind("switch_down", fabric["name"], {"kind": "switch_down", "fabric": fabric["name"],
                                                                 "detection": "link"}))
    if any(array in r.get("arrays", []) for r in tables.get("replication", [])):
        found.append(FailureKind("site_down", array, {"kind": "site_down", "array": array, "detection": "link"}))
    found.append(FailureKind("all_paths_down", device, {"kind": "all_paths_down", "device": device, "detection": "link"}))
    return found


def chosen(scenario: Scenario, tables: Mapping[str, Any], given: str, busy: Mapping[str, float]) -> list[FailureKind]:
    """The kinds `--failures` names (`all`, or kinds separated by commas) among those the host has;
    an unknown kind, or one this host's topology lacks, is refused in one line."""
    names = [n.strip() for n in given.split(",") if n.strip()]
    for name in names:
        if name != "all" and name not in KINDS:
            raise ScenarioError(scenario.file, "--failures", f"unknown failure kind {name!r}: allowed all, "
                                                             f"{', '.join(KINDS)}")
    if not names:
        raise ScenarioError(scenario.file, "--failures", f"no failure kind given: allowed all, {', '.join(KINDS)}")
    have = applicable(scenario, tables, busy)
    if "all" in names:
        return have
    by_kind = {k.kind: k for k in have}
    for name in names:
        if name not in by_kind:
            which = "cluster" if len(scenario.hosts) > 1 else "host"
            raise ScenarioError(scenario.file, "--failures", f"{name}: this {which} has no {_lacks(name)}; its kinds: "
                                                             f"{', '.join(by_kind)}")
    return [by_kind[n] for n in KINDS if n in names]


#: The host stacks that model the ANA change state (the engine's `ana_change_end`).
ANA_STACKS = ("linux-nvme", "spdk")


def _ana_change(scenario: Scenario, array: Mapping[str, Any], device_paths: list[dict[str, Any]],
                path: dict[str, Any]) -> FailureKind | None:
    """The ANA change of the device's owning controller (the controller of its optimized path): the
    controller reboots and its partner's groups change for ANATT (the owner's own, else the
    array's); None where the host is not NVMe, the array reports no ANA groups, owns nothing per
    controller (symmetric) or gives no ANATT."""
    owning = _owning(scenario, array, device_paths, path, lambda own: own.stack in ANA_STACKS)
    if owning is None:
        return None
    written = next((c.get("anatt") for c in array.get("controllers", []) if c.get("name") == owning[1]), None)
    anatt = written or array.get("anatt")
    return None if anatt is None else _changed("ana_change", *owning, anatt)


def _alua_transition(scenario: Scenario, array: Mapping[str, Any], device_paths: list[dict[str, Any]],
                     path: dict[str, Any]) -> FailureKind | None:
    """The ALUA transition of the device's owning controller: it reboots and its partner's target
    port groups report Transitioning for the array's implicit transition time (the scenario's
    `implicit_transition_time`); None where the host is not dm-multipath or ESXi's
    VMW_SATP_ALUA (the stacks the engine's `alua_transition.rs` sources), the array reports no
    port groups, is symmetric, or gives no implicit transition time."""
    if not array.get("implicit_transition_time"):
        return None
    owning = _owning(scenario, array, device_paths, path,
                     lambda own: own.stack == "linux-dm" or own.satp == "VMW_SATP_ALUA")
    return None if owning is None else _changed("alua_transition", *owning, array["implicit_transition_time"])


#: Where an array's implicit transition time is found, by host stack: what would settle it.
SETTLE_TRANSITION = {
    "linux-dm": "`sg_rtpg -e /dev/sdX` of one of its paths (sg3_utils) would settle it",
    "esxi": "no ESXi listing gives it (esxcli's Storage Array Type Device Config shows implicit_support, "
            "explicit_support, alua_followover, action_OnRetryErrors and each group's state, not the time: Broadcom "
            "KB 310442, 'ALUA parameters in ESXi Server'; ESXi has no sg_rtpg); the array reports it to every host, "
            "so the Implicit transition time `sg_rtpg -e /dev/sdX` prints on a Linux host of the same array, or the "
            "value the array's documentation gives, written as implicit_transition_time in the scenario's [[arrays]] "
            "table of it, would settle it",
}


def transition_unknown(scenario: Scenario, tables: Mapping[str, Any]) -> list[str]:
    """What `advise --failures` says of each SCSI ALUA array of two controllers or more, with a
    device of dm-multipath or VMW_SATP_ALUA, whose implicit transition time no file gives: no ALUA
    transition is simulated on it, and what would settle it (the time is the array's own; a host
    timer is not assumed for it)."""
    said = []
    for array in tables.get("arrays", []):
        if array.get("implicit_transition_time") or not array.get("tpgs") or array.get("symmetric") \
                or len(array.get("controllers", [])) < 2:
            continue
        stacks = {"esxi" if d.satp == "VMW_SATP_ALUA" else d.stack for d in scenario.devices
                  if d.array.name == array.get("name") and (d.stack == "linux-dm" or d.satp == "VMW_SATP_ALUA")}
        for stack in sorted(stacks):
            said.append(f"no ALUA transition (alua_transition) simulated on {array.get('name')}: its implicit "
                        f"transition time is not known; {SETTLE_TRANSITION[stack]}")
    return said


def _owning(scenario: Scenario, array: Mapping[str, Any], device_paths: list[dict[str, Any]], path: dict[str, Any],
            stack_fits: Callable[[Device], bool]) -> tuple[str, str] | None:
    """The array's name and the device's owning controller (its optimized path's, else the busiest
    path's), where the device's stack fits and the array reports groups, is not symmetric and has
    two controllers or more; else None."""
    own = next((d for d in scenario.devices if d.name == path["device"] and d.host == path["host"]), None)
    if own is None or not stack_fits(own) or not array.get("tpgs") or array.get("symmetric") \
            or len(array.get("controllers", [])) < 2:
        return None
    owner_path = next((p for p in device_paths if p.get("alua") == "AO"), path)
    name, _, port = owner_path["target"].partition("/")
    owner = next((p.get("controller") for p in array.get("ports", []) if p.get("name") == port), None)
    return None if owner is None else (name, owner)


def _changed(kind: str, array: str, owner: str, lasts: Any) -> FailureKind:
    """The owner's reboot, its partner's groups changing for `lasts` (a duration as written)."""
    seconds = parse_duration_ns(str(lasts)) / 1e9
    return FailureKind(kind, f"{array}/{owner}", {"kind": "controller_reboot", "array": array, "controller": owner,
                                                  "detection": "link", "ana_change": f"{seconds:g}s"}, seconds)


def _lacks(kind: str) -> str:
    return {"controller_reboot": "array of two controllers or more on a device's path",
            "ana_change": "NVMe array of two controllers or more with ANA groups and an ANATT (the scenario's anatt, "
                          "or `nvme id-ctrl`)",
            "alua_transition": "SCSI ALUA array (dm-multipath, or ESXi's VMW_SATP_ALUA) of two controllers or more "
                               "with an implicit transition time (the scenario's implicit_transition_time: the "
                               "array's own, not a host timer; `sg_rtpg -e /dev/sdX` on a Linux host of the array "
                               "gives it, no ESXi listing does)",
            "switch_down": "named [[fabric]] table on a device's path",
            "site_down": "array in a [[replication]] group (metro)"}.get(kind, kind)
