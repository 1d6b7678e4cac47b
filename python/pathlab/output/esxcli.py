"""`esxcli storage nmp device list` and `esxcli storage nmp path list`, as ESXi prints them."""

from __future__ import annotations

from typing import Any


def _wwn(prefix: str, index: int) -> str:
    return f"{prefix}{index:06x}"


def device_list(desc: dict[str, Any]) -> str:
    blocks = []
    for d in desc["devices"]:
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
    display = {d["name"]: d["display_name"] for d in desc["devices"]}
    every = (san or desc)["paths"]
    adapters = sorted({(p["adapter"], p["host"]) for p in every})
    targets = sorted({p["target"] for p in every})
    blocks = []
    for p in desc["paths"]:
        a, t = adapters.index((p["adapter"], p["host"])) + 1, targets.index(p["target"]) + 1
        uid = (f"fc.{_wwn('2000001b32', a)}:{_wwn('2100001b32', a)}-"
               f"fc.{_wwn('5006016000', t)}:{_wwn('5006016100', t)}-{p['device']}")
        blocks.append(
            "\n".join(
                [
                    uid,
                    f"   Runtime Name: {p['name']}",
                    f"   Device: {p['device']}",
                    f"   Device Display Name: {display[p['device']]}",
                    f"   Group State: {p['group_state']}",
                    "   Array Priority: 0",
                    f"   Storage Array Type Path Config: {p['satp_path_config']}",
                    f"   Path Selection Policy Path Config: {p['psp_path_config']}",
                ]
            )
        )
    return "\n\n".join(blocks) + "\n"
