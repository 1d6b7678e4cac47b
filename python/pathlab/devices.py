"""Each device's multipathing as the engine resolved it, as typed data: the policy in force with
every parameter (the scenario's, the rest from the stack's defaults, the claim tables or esxcli
commands), the policy's status, the host stack and the array's vendor and model. The advisor and
the importer read these instead of the scenario's TOML or the status text the stack prints."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
