"""`esxcli storage nmp device list` and `esxcli storage nmp path list`, as ESXi prints them; a
device imported from `esxcli storage hpp device list`, and its paths from `esxcli storage hpp
path list`, as those listings printed them."""

from __future__ import annotations

from typing import Any

from pathlab.output.as_read import NOT_READ, now_held


def _wwn(prefix: str, index: int) -> str:
    return f"{prefix}{index:06x}"


def _imported_device(d: dict[str, Any], at_start: bool) -> str:
    """An imported device's block as its listing printed it: its display name, the keys pathlab
    does not model (`Is USB`, the custom config) and, where the simulation has them as read, its
    SATP and PSP with their configs (the PSP's only at the start: it changes as I/O runs) and its
    working paths; where it does not, the simulation's."""
    own = d["listed"]["device"]
    satp_same = own.get("Storage Array Type") == d["satp"]
    psp_same = own.get("Path Selection Policy") == d["psp"]
    working = own.get("Working Paths", "")
    as_read = sorted(w.strip() for w in working.split(",") if w.strip()) == sorted(d["working_paths"])
    values = {
        "Device Display Name": own.get("Device Display Name", NOT_READ),
        "Storage Array Type": d["satp"],
        # The SATP's config holds the target port groups' states: as read only before a fault moves them.
        "Storage Array Type Device Config": own.get("Storage Array Type Device Config", NOT_READ)
        if satp_same and at_start else d["satp_config"],
        "Path Selection Policy": d["psp"],
        "Path Selection Policy Device Config": own.get("Path Selection Policy Device Config", NOT_READ)
        if psp_same and at_start else d["psp_config"],
        "Working Paths": working if as_read else ", ".join(d["working_paths"]),
    }
    others = own.get("Other Keys", "").split("\n") if own.get("Other Keys") else []
    values.update((k, own.get(k, "")) for k in others)
    # ESXi's order: the custom config before the working paths, the flags after.
    order = [k for k in values if k != "Working Paths" and k not in others] + \
        [k for k in others if "Custom Config" in k] + ["Working Paths"] + [k for k in others if "Custom Config" not in k]
    return "\n".join([d["name"], *(f"   {k}: {values[k]}" for k in order)])


#: `esxcli storage hpp device list`'s keys, in ESXi's order (7.0 and 8.0).
HPP_KEYS = ("Device Display Name", "Path Selection Scheme", "Path Selection Scheme Config", "Current Path",
            "Working Path Set", "Is SSD", "Is Local", "Paths", "Use ANO")


def _hpp_device(d: dict[str, Any]) -> str:
    """An imported `hpp device list` block as read (HPP has no SATP: none is printed); its
    working path set the simulation's, marked `?`, once a fault has moved it from the one imported."""
    own = dict(d["listed"]["device"])
    now, then = d["working_paths"], d["imported"]["device"]["working_paths"] if d.get("imported") else d["working_paths"]
    if sorted(now) != sorted(then):
        own["Working Path Set"] = now_held(", ".join(now))
    return "\n".join([d["name"], *(f"   {k}: {own.get(k, NOT_READ)}" for k in HPP_KEYS)])


def device_list(desc: dict[str, Any]) -> str:
    blocks = []
    for d in desc["devices"]:
        if d.get("listed") and "Path Selection Scheme" in d["listed"]["device"]:
            blocks.append(_hpp_device(d))
            continue
        if d.get("listed"):
            blocks.append(_imported_device(d, desc.get("time_s", 0) == 0))
            continue
        blocks.append(
            "\n".join(
                [
                    d["name"],
                    f"   Device Display Name: {d['display_name']}",
                    f"   Storage Array Type: {d['satp']}",
                    f"   Storage Array Type Device Config: {d['satp_config']}",
                    f"   Path Selection Policy: {d['psp']}",
                    f"   Path Selection Policy Device Config: {d['psp_config']}",
                    "   Path Selection Policy Device Custom Config: ",
                    f"   Working Paths: {', '.join(d['working_paths'])}",
                    "   Is USB: false",
                ]
            )
        )
    return "\n\n".join(blocks) + "\n"


def path_list(desc: dict[str, Any], san: dict[str, Any] | None = None) -> str:
    """Each block opens with the path UID: FC WWNs made up from the adapter and target numbers,
    counted over `san`, the whole description when `desc` is one host's view, so that no two
    hosts' adapters share a WWN (not even two hosts' vmhba1) and an array port has the same one
    on every host."""
    display = {d["name"]: d["listed"]["device"].get("Device Display Name", NOT_READ) if d.get("listed")
               else d["display_name"] for d in desc["devices"]}
    every = (san or desc)["paths"]
    adapters = sorted({(p["adapter"], p["host"]) for p in every})
    targets = sorted({p["target"] for p in every})
    read = {(d["name"], n): v for d in desc["devices"] if d.get("listed") for n, v in d["listed"]["paths"].items()}
    imported = {d["name"] for d in desc["devices"] if d.get("listed")}
    at_start = desc.get("time_s", 0) == 0
    blocks = []
    for p in desc["paths"]:
        own = read.get((p["device"], p["name"]), {})
        if "Path State" in own:
            blocks.append(_hpp_path(p, own, display[p["device"]], at_start))
            continue
        a, t = adapters.index((p["adapter"], p["host"])) + 1, targets.index(p["target"]) + 1
        uid = (f"fc.{_wwn('2000001b32', a)}:{_wwn('2100001b32', a)}-"
               f"fc.{_wwn('5006016000', t)}:{_wwn('5006016100', t)}-{p['device']}")
        satp_config, psp_config, priority = p["satp_path_config"], p["psp_path_config"], "0"
        if p["device"] in imported:  # as its listing printed it: no made-up WWN, priority or config
            own = read.get((p["device"], p["name"]), {})
            uid, priority = own.get("UID", NOT_READ), own.get("Array Priority", NOT_READ)
            if at_start and own.get("Group State") == p["group_state"]:  # the simulation has it as read
                satp_config = own.get("Storage Array Type Path Config", NOT_READ)
                psp_config = own.get("Path Selection Policy Path Config", NOT_READ)
        # ESX 4.0 printed no `Array Priority` (4.1 added it): an imported path without one shows none.
        no_priority = (p["device"], p["name"]) in read and "Array Priority" not in read[p["device"], p["name"]]
        blocks.append(
            "\n".join(
                [
                    uid,
                    f"   Runtime Name: {p['name']}",
                    f"   Device: {p['device']}",
                    f"   Device Display Name: {display[p['device']]}",
                    f"   Group State: {p['group_state']}",
                    *([] if no_priority else [f"   Array Priority: {priority}"]),
                    f"   Storage Array Type Path Config: {satp_config}",
                    f"   Path Selection Policy Path Config: {psp_config}",
                ]
            )
        )
    return "\n\n".join(blocks) + "\n"


def _hpp_path(p: dict[str, Any], own: dict[str, Any], display: str, at_start: bool) -> str:
    """An imported `hpp path list` block as read (no `Path Config` where the listing printed
    none); once the simulation has moved the path's state from the one read, its state and config
    the simulation's, marked `?`."""
    same = at_start and own["Path State"] == p["group_state"]
    state = own["Path State"] if same else now_held(p["group_state"])
    config = own.get("Path Config") if same else now_held(p["satp_path_config"])
    return "\n".join([own.get("Path Name", NOT_READ), f"   Runtime Name: {p['name']}", f"   Device: {p['device']}",
                      f"   Device Display Name: {display}", f"   Path State: {state}",
                      *([] if config is None else [f"   Path Config: {config}"])])
