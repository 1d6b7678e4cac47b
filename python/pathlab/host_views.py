"""Each host's own view of a scenario or a run. A scenario may put several hosts on the same
arrays (`[host]` and `[[hosts]]`); `describe` and a run's result hold every host's devices and
adapters, each naming its host. A real host's esxcli, esxtop, `multipath -ll` and
/proc/diskstats know only its own devices, adapters and paths (and number its SCSI hosts and
disks from its first), so every output format prints one host's view at a time, and the advisor
asks which hosts there are: these functions take each view out. What sits on the array side
(ports, controllers, RAID groups, caches, replication) is shared and kept whole."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pathlab.api import ScenarioError

#: Per-object interval rows, each named by its device, path or adapter: a name another host has
#: too (every ESXi host has a `vmhba1`; hosts sharing a LUN each have its NAA) is written
#: `HOST/NAME`, as is an event's device.
_INTERVAL_TABLES = ("device_intervals", "path_intervals", "adapter_intervals")


def names(data: dict[str, Any]) -> list[str]:
    """The hosts, `[host]` first."""
    return [h["name"] for h in data["hosts"]]


def view(data: dict[str, Any], host: str) -> dict[str, Any]:
    """`data` (a description or a run's result) as `host` sees it: its devices with their paths
    and Linux facts, its adapters, their interval rows, its events and what its application saw
    (`views`' own for the host: one rule for a view, taken one host or every host at once)."""
    for name, out in views(data):
        if name == host:
            return out
    raise KeyError(f"no host {host!r} in the data (`check` says which there are)")


def views(data: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every host's view of `data` (`view`), host by host in order, its rows found in one pass
    over `data`'s: a cluster's findings read each host's view, and 32 hosts' views taken
    one at a time went over the 16,000 devices', 128,000 paths' and their interval rows 32 times.
    Each view is made as it is taken (the rows a host names `HOST/NAME` copied for it then)."""
    entries: dict[str, dict[str, Any]] = {}
    for h in data["hosts"]:
        entries.setdefault(h["name"], h)
    keep = _split(range(len(data["devices"])), entries, lambda i: data["devices"][i]["host"])
    devices = {host: {data["devices"][i]["name"] for i in mine} for host, mine in keep.items()}
    by_host = {table: _split(data[table], entries, lambda r: r["host"])
               for table in ("paths", "unsimulated", "adapters") if table in data}
    objects = {host: devices[host] | {p["name"] for p in by_host["paths"][host]} | set(entry["adapters"])
               for host, entry in entries.items()}
    own = {table: _own_rows_of_each(data[table], objects) for table in _INTERVAL_TABLES if table in data}
    if "events" in data:
        own["events"] = _own_rows_of_each(data["events"], devices, key="device")
    app = data.get("application")
    parts = {part: _split(app[part], entries, lambda r: r["host"]) for part in ("devices", "hosts", "recovery")} \
        if app is not None else {}
    for host, entry in entries.items():
        out = dict(data, host=host, hosts=[entry], devices=[data["devices"][i] for i in keep[host]])
        out |= {table: rows[host] for table, rows in by_host.items()}
        if "linux" in data:
            linux = data["linux"]
            out["linux"] = dict(linux, hosts=entry["adapters"], devices=[linux["devices"][i] for i in keep[host]])
        for table, rows in own.items():
            key = "device" if table == "events" else "name"
            out[table] = [dict(r[0], **{key: r[1]}) if isinstance(r, tuple) else r for r in rows[host]]
        if app is not None:
            out["application"] = dict(app, **{part: _own_rows(rows[host], devices[host] | {""}, host, key="device")
                                              for part, rows in parts.items()})
        yield host, out


def _split(rows: Iterable[Any], hosts: dict[str, Any], host_of: Callable[[Any], str]) -> dict[str, list[Any]]:
    """`rows` by their host (`host_of`), in order; each of `hosts` with a list, rows of no such host left out."""
    out: dict[str, list[Any]] = {host: [] for host in hosts}
    for r in rows:
        mine = out.get(host_of(r))
        if mine is not None:
            mine.append(r)
    return out


def _own_rows_of_each(rows: list[dict[str, Any]], objects: dict[str, set[str]],
                      key: str = "name") -> dict[str, list[Any]]:
    """`_own_rows` for every host at once (`objects`: each host's), in one pass over the rows: a
    row as it is, or (row, the name the host knows it by) where the host's view renames it."""
    holders: dict[str, list[str]] = {}
    for host, mine in objects.items():
        for name in mine:
            holders.setdefault(name, []).append(host)
    out: dict[str, list[Any]] = {host: [] for host in objects}
    for r in rows:
        name = r[key]
        for host in holders.get(name, ()):
            out[host].append(r)
        at = name.find("/")
        while at >= 0:  # `HOST/NAME`, for a host whose own objects do not hold the whole name
            host, rest = name[:at], name[at + 1:]
            known = objects.get(host)
            if known is not None and name not in known and rest in known:
                out[host].append((r, rest))
            at = name.find("/", at + 1)
    return out


def _own_rows(rows: list[dict[str, Any]], objects: set[str], host: str, key: str = "name") -> list[dict[str, Any]]:
    """The rows whose `key` names one of `host`'s `objects`, each named as the host knows it
    (`HOST/` taken off)."""
    prefix = f"{host}/"
    own = []
    for r in rows:
        name = r[key]
        if name in objects:
            own.append(r)
        elif name.startswith(prefix) and name[len(prefix):] in objects:
            own.append(dict(r, **{key: name[len(prefix):]}))
    return own


def check(hosts: list[str], host: str | None, file: str) -> None:
    """An unknown `--host` is bad input: one line naming the option and the hosts there are."""
    if host is not None and host not in hosts:
        raise ScenarioError(file, "--host", f"unknown host \"{host}\"; the scenario's hosts: {', '.join(hosts)}")


def each(data: dict[str, Any], host: str | None, file: str) -> list[tuple[str, dict[str, Any]]]:
    """The views to print, with their host's name: `host`'s alone when given, else every host's
    in order. A scenario with one host gives `data` itself, so its output is what it always was."""
    check(names(data), host, file)
    if host is not None:
        return [(host, view(data, host))]
    every = names(data)
    if len(every) == 1:
        return [(every[0], data)]
    every_view = dict(views(data))
    return [(h, every_view[h]) for h in every]
