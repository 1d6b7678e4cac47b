"""`multipath -ll`, as multipath-tools prints a map (libmultipath/print.c): the map line, its
properties, then each path group with its paths."""

from __future__ import annotations

import string
from typing import Any


def _alias(i: int) -> str:
    letters = string.ascii_lowercase
    name = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        name = letters[r] + name
    return "mpath" + name


def multipath_ll(desc: dict[str, Any]) -> str:
    paths = {p["name"]: p for p in desc["paths"]}
    adapters = sorted({p["adapter"] for p in desc["paths"]})
    sd_index = {p["name"]: i for i, p in enumerate(desc["paths"])}
    blocks = []
    for di, d in enumerate(desc["devices"]):
        wwid = "3" + d["name"].split(".", 1)[-1]
        alua = d["satp"].startswith("VMW_SATP_ALUA") or d["psp"] in ("dm-multipath", "nvme")
        lines = [
            f"{_alias(di)} ({wwid}) dm-{di} {d['vendor']},{d['model']}",
            f"size=100G features='0' hwhandler='{'1 alua' if alua else '0'}' wp=rw",
        ]
        groups = d["groups"]
        for gi, g in enumerate(groups):
            last_group = gi == len(groups) - 1
            selector = g["selector"] or d["psp"]
            lines.append(f"{'`' if last_group else '|'}-+- policy='{selector}' prio={g['priority']} status={g['state']}")
            for pi, name in enumerate(g["paths"]):
                p = paths[name]
                last_path = pi == len(g["paths"]) - 1
                host = adapters.index(p["adapter"])
                target, lun = name.split(":")[2][1:], name.split(":")[3][1:]
                k = sd_index[name]
                dev = "sd" + _alias(k)[len("mpath"):]
                state = "active ready running" if p["up"] else "failed faulty running"
                lead = "  " if last_group else "| "
                lines.append(f"{lead}{'`-' if last_path else '|-'} {host}:0:{target}:{lun} {dev} 8:{16 * k} {state}")
        blocks.append("\n".join(lines))
    return "\n".join(blocks) + "\n"
