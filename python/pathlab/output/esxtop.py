"""Esxtop's disk panels as text: devices (`u`), adapters (`d`) and paths (`d` expanded)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

_RATES = ("CMDS/s", "READS/s", "WRITES/s", "MBREAD/s", "MBWRTN/s", "DAVG/cmd", "KAVG/cmd", "GAVG/cmd", "QAVG/cmd")
_RATE_KEYS = ("cmds_s", "reads_s", "writes_s", "mbread_s", "mbwrtn_s", "davg_ms", "kavg_ms", "gavg_ms", "qavg_ms")


def _rates(obj: dict[str, Any]) -> list[str]:
    return [f"{obj[k]:.2f}" for k in _RATE_KEYS]


def _table(headers: Sequence[str], rows: list[list[str]], left: int) -> str:
    """Left-aligns the first `left` columns and right-aligns the rest, esxtop style."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def fmt(cells: Sequence[str]) -> str:
        return " ".join(c.ljust(w) if i < left else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return "\n".join([fmt(headers)] + [fmt(r) for r in rows])


def _queue(d: dict[str, Any]) -> list[str]:
    """DQLEN, ACTV, QUED, %USD and LOAD. A Linux NVMe head has no device queue (`dqlen` null):
    its DQLEN, %USD and LOAD print as "-", since nothing there is a share of a queue."""
    if d["dqlen"] is None:
        return ["-", f"{d['actv']:.2f}", f"{d['qued']:.2f}", "-", "-"]
    usd = 100.0 * d["actv"] / d["dqlen"]
    load = (d["actv"] + d["qued"]) / d["dqlen"]
    return [str(d["dqlen"]), f"{d['actv']:.2f}", f"{d['qued']:.2f}", f"{usd:.0f}", f"{load:.2f}"]


def devices(data: dict[str, Any]) -> str:
    rows = []
    for d in data["devices"]:
        npth = sum(1 for p in data["paths"] if p["device"] == d["name"])
        cells = [d["name"], str(npth), *_queue(d)]
        rows.append(cells + _rates(d))
    return _table(("DEVICE", "NPTH", "DQLEN", "ACTV", "QUED", "%USD", "LOAD") + _RATES, rows, 1)


def paths(data: dict[str, Any]) -> str:
    """Esxtop's path panel, with what an admin checks next to it: the device, the path's state
    and ALUA state (as `esxcli storage nmp path list` shows them), errors and retries."""
    rows = [
        [p["name"], p["device"], p["target"], p["state"], p["alua"]] + _rates(p)
        + [str(p["errors"]), str(p["retries"])]
        for p in data["paths"]
    ]
    return _table(("PATH", "DEVICE", "TARGET", "STATE", "ALUA") + _RATES + ("ERRS", "RETRY"), rows, 5)


def adapters(data: dict[str, Any]) -> str:
    rows = []
    for a in data["adapters"]:
        npth = sum(1 for p in data["paths"] if p["adapter"] == a["name"])
        rows.append([a["name"], str(npth), str(a["aqlen"]), f"{a['actv']:.2f}", f"{a['qued']:.2f}"] + _rates(a))
    return _table(("ADAPTR", "NPTH", "AQLEN", "ACTV", "QUED") + _RATES, rows, 1)


def _stations(title: str, stations: list[dict[str, Any]]) -> str:
    rows = [[s["name"], f"{s['cmds_s']:.2f}", f"{s['util_pct']:.1f}"] for s in stations]
    return _table((title, "CMDS/s", "%BUSY"), rows, 1)


def ports(data: dict[str, Any]) -> str:
    return _stations("ARRAY PORT", data["ports"])


def controllers(data: dict[str, Any]) -> str:
    return _stations("CONTROLLER", data["controllers"])


def raid_groups(data: dict[str, Any]) -> str:
    """Each RAID group's disks together: operations per second and mean %BUSY."""
    groups = [{"name": g["name"], "cmds_s": g["disk_ops_s"], "util_pct": g["util_pct"]} for g in data["raid_groups"]]
    return _stations("RAID GROUP", groups)
