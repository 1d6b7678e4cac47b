"""Each device's multipathing as the engine resolved it, as typed data: the policy in force with
every parameter (the scenario's, the rest from the stack's defaults, the claim tables or esxcli
commands), the policy's status, the host stack and the array's vendor and model. The advisor and
the importer read these instead of the scenario's TOML or the status text the stack prints."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Array:
    name: str
    vendor: str
    model: str


@dataclass(frozen=True)
class Policy:
    """A policy with every parameter in force, as a scenario's policy table writes them."""

    name: str
    params: Mapping[str, Any]
    #: The parameters the scenario gives; the others are the stack's or the claim's.
    given: tuple[str, ...] = ()

    def __getitem__(self, key: str) -> Any:
        return self.params[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)

    def table(self) -> dict[str, Any]:
        """The policy table a scenario writes for it (`{"name": ..., **params}`)."""
        return {"name": self.name, **self.params}

    @property
    def label(self) -> str:
        """The setting as an admin says it, for titles: "round robin, iops=1000", "dm,
        service-time, multibus", "nvme, queue-depth"."""
        if self.name == "VMW_PSP_RR":
            kind = self.get("type", "iops")
            limits = {"latency": "latency", "default": f"iops={self.get('iops')} or bytes={self.get('bytes')}"}
            return f"round robin, {limits.get(kind, f'{kind}={self.get(kind)}')}"
        family = _FAMILIES.get(self.name, self.name)
        values = [str(self.params[k]) for k in _SETTING.get(self.name, ()) if self.params.get(k) is not None]
        return ", ".join([family, *values])


#: How a policy's family reads in a label, by its name in a scenario (the rest read as named).
_FAMILIES = {"VMW_PSP_FIXED": "fixed", "VMW_PSP_MRU": "most recently used", "dm-multipath": "dm",
             "gated-least-load": "pathlab gated-least-load"}
#: The parameters that tell a family's settings apart, in the order a label shows them (the
#: others tune a setting: a label leaves them out).
_SETTING = {"HPP": ("scheme",), "dm-multipath": ("selector", "path_grouping_policy"), "nvme": ("iopolicy",),
            "spdk": ("policy", "selector"), "mpio": ("policy",), "powerpath": ("policy",)}


@dataclass(frozen=True)
class Status:
    """What the policy shows of itself (`pathlab_policy::PolicyStatus`): `kind` names its family
    (round_robin, round_robin_latency, fixed, mru, hpp, gated_least_load, dm_multipath, nvme,
    spdk, mpio, power_path); `fields` are that family's, paths by runtime name."""

    kind: str
    fields: Mapping[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]


@dataclass(frozen=True)
class Device:
    name: str
    host: str
    #: esxi, linux-dm, linux-nvme, spdk or windows.
    stack: str
    array: Array
    #: The array-type plugin that claimed it, on ESXi.
    satp: str | None
    policy: Policy
    status: Status


def _device(d: Mapping[str, Any]) -> Device:
    params = {k: v for k, v in d["policy"].items() if k != "name"}
    status = {k: v for k, v in d["status"].items() if k != "kind"}
    return Device(d["name"], d["host"], d["stack"], Array(**d["array"]), d["satp"],
                  Policy(d["policy"]["name"], params, tuple(d["given"])), Status(d["status"]["kind"], status))


def from_engine(rows: Iterable[Mapping[str, Any]]) -> list[Device]:
    """The devices as the engine gives them (`SimulationHandle.devices`, `finish`: one dict each)."""
    return [_device(d) for d in rows]


def in_force(devices: Sequence[Device]) -> str:
    """The setting the devices run (`Policy.label`), or each setting with how many run it."""
    counts = Counter(d.policy.label for d in devices)
    if len(counts) <= 1:
        return next(iter(counts), "no device")
    return "; ".join(f"{label} ({n} devices)" for label, n in counts.most_common())
