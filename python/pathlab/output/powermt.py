"""`powermt display dev=all` for the host's devices under the `powerpath` policy, as PowerPath
prints it (the layout of the published samples in `tests/data/powerpath/`, Linux and Solaris, shown
in `readers/powermt.py`, which reads it back: the device's lines, the path table's rules, banner
and header, a row per path).

A path row is `%4d %-25s %-9s %-9s %-7s %-6s %5d %6d` (measured on those samples; PowerPath on
AIX and some releases pad the columns a few places otherwise: the values are the same). Devices
are separated by a blank line.

An imported device prints what its listing printed (`listed`), every line and value as read, in
the listing's order; a path's mode or state, or the device's policy, that the scenario now holds
otherwise (a fault, autostandby, `--set`) is the simulation's, marked `?` (`as_read.now_held`).
A device that was not imported prints the model's own: its name as the pseudo name, each path's
adapter as the HW path and its runtime name as the I/O path, the array port as the interface,
the policy's modes, states and counts as the simulation has them, and no array or logical device
line (the model has neither)."""

from __future__ import annotations

from typing import Any

from pathlab.output.as_read import now_held

RULE = "=" * 78
BANNER = "---------------- Host ---------------   - Stor -   -- I/O Path -  -- Stats ---"
HEADER = "###  HW Path                I/O Paths    Interf.   Mode    State  Q-IOs Errors"
#: The engine's policy names (`status()`) as `powermt display` spells them.
SPELLING = {"Adaptive": "ADaptive"}


def row(hba: str, hw: str, io: str, interface: str, mode: str, state: str, queued: str, errors: str) -> str:
    """One path row, in the samples' columns."""
    return f"{hba:>4} {hw:<25} {io:<9} {interface:<9} {mode:<7} {state:<6} {queued:>5} {errors:>6}".rstrip()


def table(rows: list[str]) -> list[str]:
    return [RULE, BANNER, HEADER, RULE, *rows]


def status(device: dict[str, Any]) -> tuple[str, dict[str, list[str]]]:
    """The policy's own status (`psp_config`): its policy name, and per path its mode, state,
    queued I/Os and errors (`hba0:C0:T0:L1 active alive q_ios=16 errors=0`)."""
    first, *lines = device["psp_config"].splitlines()
    paths = {}
    for line in lines:
        name, mode, state, queued, errors = line.split()
        paths[name] = [mode, state, queued.removeprefix("q_ios="), errors.removeprefix("errors=")]
    policy = first.removeprefix("policy=")
    return SPELLING.get(policy, policy), paths


def _header(own: dict[str, str], policy: str) -> list[str]:
    """An imported device's lines above its table, as read."""
    lines = [f"Pseudo name={own['Pseudo name']}"]
    if "class" in own:
        lines.append(f"{own['class']} ID={own['ID']}" + (f" [{own['ID label']}]" if "ID label" in own else ""))
    if "Logical device ID" in own:
        lines.append(f"Logical device ID={own['Logical device ID']}"
                     + (f" [{own['Logical device label']}]" if "Logical device label" in own else ""))
    if "WWN" in own:
        lines.append(f"{own['WWN key']}={own['WWN']}")
    values = dict(own, policy=policy)
    lines.append("; ".join(f"{key}={values[key]}" for key in own["state keys"].split(",") if key in values))
    if "Owner current" in own:
        mode = f"       Array failover mode: {own['Array failover mode']}" if "Array failover mode" in own else ""
        lines.append(f"Owner: default={own['Owner default']}, current={own['Owner current']}{mode}")
    return lines


def _imported(device: dict[str, Any]) -> list[str]:
    listed, was = device["listed"], device["imported"]["device"]
    policy, now = status(device)
    then_policy, then = status(was)
    own = listed["device"]
    shown_policy = own["policy"] if policy == then_policy else now_held(policy)
    rows = []
    for name, read in sorted(listed["paths"].items(), key=lambda item: int(item[1].get("order", 0))):
        mode, state = read["Mode"], read["State"]
        if name in now and name in then:
            mode = mode if now[name][0] == then[name][0] else now_held(now[name][0])
            state = state if now[name][1] == then[name][1] else now_held(now[name][1])
        rows.append(row(read["###"], read["HW Path"], read["I/O Paths"], read["Interf."], mode, state, read["Q-IOs"],
                        read["Errors"]))
    return _header(own, shown_policy) + table(rows)


def _own(device: dict[str, Any], paths: list[dict[str, Any]], adapters: list[str]) -> list[str]:
    policy, now = status(device)
    queued = sum(int(v[2]) for v in now.values())
    rows = [row(str(adapters.index(p["adapter"])), p["adapter"], p["name"], p["target"].split("/", 1)[-1], *now[p["name"]])
            for p in paths if p["name"] in now]
    return [f"Pseudo name={device['name']}", f"state=alive; policy={policy}; queued-IOs={queued}", *table(rows)]


def display(desc: dict[str, Any]) -> str:
    """Every device of one host's view under the `powerpath` policy, as `powermt display dev=all`."""
    adapters = list(dict.fromkeys(p["adapter"] for p in desc["paths"]))
    blocks = []
    for device in (d for d in desc["devices"] if d["psp"] == "powerpath"):
        if device.get("listed") and device.get("imported"):
            blocks.append(_imported(device))
        else:
            blocks.append(_own(device, [p for p in desc["paths"] if p["device"] == device["name"]], adapters))
    return "\n".join("\n".join(lines) + "\n" for lines in blocks)
