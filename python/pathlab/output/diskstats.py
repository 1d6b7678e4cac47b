"""A run as `/proc/diskstats` sampled once an interval (as admins and kernel developers collect it:
`TS <epoch>` and the file, again and again, the layout pt-diskstats reads): one line per path
device (`sdX`, named and numbered as the kernel would for the host's SCSI addresses; `nvmeXcYnZ`
under a native NVMe head) and per multipath map (`dm-N`) or NVMe head (`nvmeXnY`), with the
20 fields of kernels 5.5 and later
(Documentation/admin-guide/iostats.rst).

Cumulative counters are the interval figures integrated: I/Os, 512-byte sectors, and the time
spent on them (ms) from the latencies (DAVG for a path, GAVG for the map); in-flight is the mean
outstanding of the interval by Little's law; `io_ticks` counts the time at least one I/O was in
flight, taken as min(1, mean in-flight) of the interval. No merges, discards or flushes: the
model has none."""

from __future__ import annotations

from typing import Any

from pathlab.linux_names import sd_dev_t, sd_name
from pathlab.output.nvme import Names

#: Start of the capture's clock (epoch seconds), fixed so that a run's output is the same each time.
START_EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z
#: The device-mapper major most distributions assign.
DM_MAJOR = 253
#: Block-extended devices, NVMe namespaces among them (Documentation/admin-guide/devices.txt).
BLKEXT_MAJOR = 259
SECTOR = 512


class _Counters:
    """One block device's cumulative counters."""

    def __init__(self) -> None:
        self.reads = self.sectors_read = self.read_ms = 0.0
        self.writes = self.sectors_written = self.write_ms = 0.0
        self.io_ms = self.weighted_ms = 0.0
        self.in_flight = 0

    def add(self, row: dict[str, Any], seconds: float, read_ms: float, write_ms: float, in_flight: float) -> None:
        reads, writes = row["reads_s"] * seconds, row["writes_s"] * seconds
        self.reads += reads
        self.writes += writes
        self.sectors_read += row["mbread_s"] * 2**20 / SECTOR * seconds
        self.sectors_written += row["mbwrtn_s"] * 2**20 / SECTOR * seconds
        self.read_ms += reads * read_ms
        self.write_ms += writes * write_ms
        self.io_ms += 1000 * seconds * min(1.0, in_flight)
        self.weighted_ms += reads * read_ms + writes * write_ms
        self.in_flight = round(in_flight)

    def line(self, dev_t: str, name: str) -> str:
        major, minor = dev_t.split(":")
        n = lambda v: int(v)  # noqa: E731 - the kernel's counters are whole numbers
        fields = [n(self.reads), 0, n(self.sectors_read), n(self.read_ms), n(self.writes), 0, n(self.sectors_written),
                  n(self.write_ms), self.in_flight, n(self.io_ms), n(self.weighted_ms), 0, 0, 0, 0, 0, 0]
        return f"{int(major):4d} {int(minor):7d} {name} " + " ".join(map(str, fields))


def _block_devices(data: dict[str, Any]) -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(object, dev_t, kernel name) of every path device, then of every head or map. SCSI paths
    are `sdX` under `dm-N` maps; native NVMe heads are `nvme<s>n<i>` over their paths
    `nvme<s>c<C>n<i>`, block-extended devices (major 259) numbered in order of appearance (the
    kernel's minors follow discovery order)."""
    heads = [d["name"] for d in data["devices"] if d["nvme_head"]]
    adapters = [a["name"] for a in data["adapters"]]
    address = lambda p: (adapters.index(p["adapter"]), *(int(x[1:]) for x in p["name"].split(":")[1:]))  # noqa: E731
    order = sorted((p for p in data["paths"] if p["device"] not in heads), key=address)
    sd_of = {p["name"]: i for i, p in enumerate(order)}
    first_path: dict[str, int] = {}
    for p in order:
        first_path.setdefault(p["device"], sd_of[p["name"]])
    dm_of = {d: i for i, d in enumerate(sorted(first_path, key=first_path.__getitem__))}
    nvme = Names(heads, [p for p in data["paths"] if p["device"] in heads])
    minor = {name: i for i, name in enumerate([*nvme.head, *nvme.path])}
    paths = [(p["name"], sd_dev_t(sd_of[p["name"]]), sd_name(sd_of[p["name"]])) for p in order]
    paths += [(p, f"{BLKEXT_MAJOR}:{minor[p]}", name) for p, name in nvme.path.items()]
    tops = [(d, f"{DM_MAJOR}:{dm_of[d]}", f"dm-{dm_of[d]}") for d in sorted(dm_of, key=dm_of.__getitem__)]
    tops += [(d, f"{BLKEXT_MAJOR}:{minor[d]}", name) for d, name in nvme.head.items()]
    return paths, tops


def diskstats(data: dict[str, Any]) -> str:
    """The samples' text."""
    path_devices, top_devices = _block_devices(data)
    paths = {name: _Counters() for name, _, _ in path_devices}
    maps = {name: _Counters() for name, _, _ in top_devices}
    times = sorted({r["t_s"] for r in data["path_intervals"]})
    by_time: dict[float, list[dict[str, Any]]] = {}
    for r in data["path_intervals"] + data["device_intervals"]:
        by_time.setdefault(r["t_s"], []).append(r)
    out, previous = [], 0.0
    for t in times:
        seconds = t - previous
        previous = t
        for r in by_time[t]:
            if r["name"] in paths:
                in_flight = r["cmds_s"] * r["davg_ms"] / 1000
                paths[r["name"]].add(r, seconds, r["davg_rd_ms"], r["davg_wr_ms"], in_flight)
            elif r["name"] in maps:
                maps[r["name"]].add(r, seconds, r["gavg_rd_ms"], r["gavg_wr_ms"], r["actv"] + r["qued"])
        out.append(f"TS {START_EPOCH + t:.3f}")
        out += [paths[obj].line(dev_t, name) for obj, dev_t, name in path_devices]
        out += [maps[obj].line(dev_t, name) for obj, dev_t, name in top_devices]
    return "\n".join(out) + "\n"
