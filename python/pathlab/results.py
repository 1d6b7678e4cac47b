"""A run's result as typed objects: the summary, each device's and path's esxtop figures, the
host's events and what the application saw through the faults, made from the engine's result
(`Result.data`, the dicts the JSON output writes) when first read. Their fields are the engine's
names (`observe/result.rs`, `observe/application.rs`, `observe/recovery.rs`); a test checks that
each type has every field of its rows and no other."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import astuple, dataclass, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas is imported where a table is made: `import pathlab` stays quick
    import pandas as pd


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary(Mapping[str, Any]):
    """Vdbench's figures of the measurement window with the response percentiles and the error
    counts, by attribute (`summary.p99_ms`) or by name (`summary["p99_ms"]`, as the JSON's)."""

    ios: int
    iops: float
    mbps: float
    bytes_per_io: float
    read_pct: float
    resp_ms: float
    read_resp_ms: float
    write_resp_ms: float
    resp_max_ms: float
    resp_stddev_ms: float
    #: Time-averaged I/Os outstanding from the workers' view.
    queue_depth: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    p999_ms: float
    errors: int
    retries: int
    failed: int
    #: I/Os issued but neither completed nor failed when the measurement ended (in no other figure).
    in_flight: int

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys():
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    @classmethod
    def _keys(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def to_pandas(self, name: str | None = None) -> pd.Series:
        """The figures as a pandas Series by name."""
        import pandas as pd

        return pd.Series(dict(zip(self._keys(), astuple(self))), name=name)

    def _repr_html_(self) -> str:
        return str(self.to_pandas().to_frame("value").to_html())


@dataclass(frozen=True, slots=True, kw_only=True)
class Esxtop:
    """Esxtop's columns for one object over the measurement window."""

    cmds_s: float
    reads_s: float
    writes_s: float
    mbread_s: float
    mbwrtn_s: float
    davg_ms: float
    kavg_ms: float
    gavg_ms: float
    qavg_ms: float
    davg_rd_ms: float
    kavg_rd_ms: float
    gavg_rd_ms: float
    davg_wr_ms: float
    kavg_wr_ms: float
    gavg_wr_ms: float
    errors: int
    retries: int
    failovers: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DeviceFigures(Esxtop):
    """A device: what claimed it, its policy, and its esxtop figures."""

    name: str
    #: The host that sees it.
    host: str
    array: str
    satp: str
    policy: str
    #: As `esxcli storage nmp device list` prints "Path Selection Policy Device Config".
    device_config: str
    working_paths: tuple[str, ...]
    #: None for a Linux NVMe head: it has no device queue, only the controllers' tags.
    dqlen: int | None
    #: A native NVMe multipath head (its block devices are `nvmeXnY`).
    nvme_head: bool
    actv: float
    qued: float
    p99_ms: float
    #: Writes retried on another path while their first copy could still land (NVMe: sent
    #: before the path's loss, retried within KATO + CQT of it), over the whole run.
    hazards: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PathFigures(Esxtop):
    """A path: where it goes, its states at the end of the run, and its esxtop figures."""

    name: str
    device: str
    #: The host whose adapter it leaves from.
    host: str
    adapter: str
    #: The array port as `array/port`.
    target: str
    #: As the host sees it (active, standby, dead...).
    state: str
    #: The ALUA state the array reports: AO, ANO, STBY, UNAV.
    alua: str
    tpg_id: int
    one_way_us: float
    #: Whether commands get through at the end of the run (the host may not know: `state`).
    connected: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class HostEvent:
    """What the host saw happen to a path or device."""

    t_s: float
    #: `HOST/NAME` when another host has a device of that name.
    device: str
    #: Empty for an event of the whole device.
    path: str
    #: link_down, link_up, path_failed, path_reinstated, alua, no_path, gave_up, path_restored.
    event: str
    detail: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ApplicationSaw:
    """What the application saw of one device, or of one host (its devices together)."""

    host: str
    #: The device; on a host's row, the device of its longest stall (empty when none stalled).
    device: str
    #: The longest time the device had I/O outstanding and none answered (completed or failed),
    #: from the later of its previous answer and the oldest waiting I/O's issue; seconds.
    longest_stall_s: float
    stall_from_s: float
    #: None: still stalled when the measurement ended.
    stall_to_s: float | None
    #: I/Os that failed back to the application, and the first and last time one did.
    failed_ios: int
    first_failed_s: float | None
    last_failed_s: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class FaultWindow:
    """A fault on the run's timeline, seconds from the start (warm-up included)."""

    kind: str
    target: str
    start_s: float
    #: None for a moment (a failover, an ALUA change).
    end_s: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Recovery:
    """How one device (or one host: `device` empty) came back from one fault."""

    #: The fault's place among the scenario's `[[faults]]`, from 0.
    fault: int
    kind: str
    target: str
    start_s: float
    end_s: float | None
    host: str
    device: str
    #: The full rate: the mean over the measured intervals before the fault (commands/s).
    iops_before: float | None
    #: The lowest interval rate until back to full rate; None when it never fell.
    lowest_iops: float | None
    #: From the fault's start to the first interval back within 5% of the full rate (0: it never
    #: fell below); None: not back by the end, or no interval before the fault to compare with.
    back_to_full_rate_s: float | None
    #: The paths in use when the fault started (the policy's working paths).
    paths_before: tuple[str, ...]
    #: From the fault's end until those paths were in use again; None: not by the end of the run,
    #: or a fault without an end or lasting to the end.
    failed_back_s: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Application:
    """What the application saw through a run's faults: per device and per host, the faults, and
    how each device and host came back from each fault."""

    devices: tuple[ApplicationSaw, ...]
    hosts: tuple[ApplicationSaw, ...]
    faults: tuple[FaultWindow, ...]
    recovery: tuple[Recovery, ...]


def application(data: Mapping[str, Any]) -> Application:
    a = data["application"]
    return Application(
        devices=tuple(ApplicationSaw(**d) for d in a["devices"]),
        hosts=tuple(ApplicationSaw(**h) for h in a["hosts"]),
        faults=tuple(FaultWindow(**f) for f in a["faults"]),
        recovery=tuple(Recovery(**{**r, "paths_before": tuple(r["paths_before"])}) for r in a["recovery"]),
    )


def summary(data: Mapping[str, Any]) -> Summary:
    return Summary(**data["summary"])


def devices(data: Mapping[str, Any]) -> tuple[DeviceFigures, ...]:
    return tuple(DeviceFigures(**{**d, "working_paths": tuple(d["working_paths"])}) for d in data["devices"])


def paths(data: Mapping[str, Any]) -> tuple[PathFigures, ...]:
    return tuple(PathFigures(**p) for p in data["paths"])


def events(data: Mapping[str, Any]) -> tuple[HostEvent, ...]:
    return tuple(HostEvent(**e) for e in data["events"])
