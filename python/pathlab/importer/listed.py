"""What a listing printed of a device and its paths, word for word, as the scenario's `listed`
table (`[devices.listed.device]`, `[devices.listed.paths]`): `pathlab show` prints these back
as read instead of values of its own (`output/listed.py` reads them; the docs page of `show`
names each field). The simulation does not read them: what it simulates comes from the rest of
the device's table, each value commented with its file and line."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pathlab.toml_values import to_toml


def _text(value: Any) -> str | None:
    """A value the reader gave, as text; None where the listing printed none."""
    if value is None:
        return None
    text = str(value)
    return None if text in ("<NA>", "nan", "None") else text


def listed_lines(source: str, device: Mapping[str, Any], paths: Iterable[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """The `listed` table of the device last opened (`[[devices]]`): `device`'s values and each
    path's (its scenario name, its values), the fields the listing printed none of left out."""
    own = {k: t for k, v in device.items() if (t := _text(v)) is not None}
    lines = ["", f"[devices.listed.device]  # {source}, as printed: `pathlab show` prints it back"]
    lines += [f"{k} = {to_toml(v)}" for k, v in own.items()]
    rows = [(name, {k: t for k, v in values.items() if (t := _text(v)) is not None}) for name, values in paths]
    if rows:
        lines.append("[devices.listed.paths]")
        lines += [f"{to_toml(name)} = {to_toml(values)}" for name, values in rows]
    return lines


def multipath_map(m: Any) -> dict[str, Any]:
    """A `multipath -ll` map's header and properties as read (`readers.multipath_ll`'s columns)."""
    return {"name": m.name, "dm": m.dm, "vendor": m.vendor, "product": m.product, "revision": m.revision,
            "action": m.action, "size": m.size, "features": m.features, "hwhandler": m.hwhandler, "wp": m.wp}


def multipath_path(p: Any, order: int) -> dict[str, Any]:
    """A `multipath -ll` path line and its group's line as read, with its place in the map."""
    return {"order": order, "group": p.group, "selector": p.selector, "group_prio": p.group_prio,
            "group_status": p.group_status, "hctl": p.hctl, "dev": p.device, "dev_t": p.dev_t,
            "dm_state": p.dm_state, "checker_state": p.checker_state, "online_state": p.online_state}


def nvme_subsystem(r: Any) -> dict[str, Any]:
    """An `nvme list-subsys` subsystem's lines as read: its name, NQN, host NQN and iopolicy (the
    last two only where the listing printed them: nvme-cli 1.x prints neither)."""
    return {"subsystem": r.subsystem, "nqn": r.nqn, "hostnqn": r.hostnqn, "iopolicy": r.iopolicy}


def nvme_controller(r: Any, order: int) -> dict[str, Any]:
    """An `nvme list-subsys` controller row as read: name, transport, address, state, ANA state."""
    return {"order": order, "controller": r.controller, "transport": r.transport, "address": r.address,
            "state": r.state, "ana_state": r.ana_state}
