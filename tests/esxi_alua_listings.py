"""`esxcli storage nmp device list` and `esxcli storage nmp path list` of ALUA devices, written in
esxcli's grammar (VMware's esxcli reference; KB 310442 "ALUA parameters in ESXi server" for the
ALUA SATP's device config): a device block is its name, `Device Display Name`, `Storage Array
Type`, `Storage Array Type Device Config` (`{implicit_support=on; …; {TPG_id=N,TPG_state=S}…}`),
`Path Selection Policy`, its configs, `Working Paths`, `Is USB`; a path block is its UID
(`fc.<adapter WWNN:WWPN>-fc.<target WWNN:WWPN>-<device>`), `Runtime Name`, `Device`, `Device
Display Name`, `Group State` (`active`, `active unoptimized`, `standby`: the state its TPG_state
names), `Array Priority`, `Storage Array Type Path Config` (`{TPG_id=N,TPG_state=S,RTP_id=M,
RTP_health=UP}`) and `Path Selection Policy Path Config`; keys indented three blanks, blocks a
blank line apart. Round robin's working paths are the device's AO paths."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from conftest import pathlab

#: The path list's Group State for each TPG_state.
GROUP_STATE = {"AO": "active", "ANO": "active unoptimized", "STBY": "standby"}


class Reached(NamedTuple):
    """One path: its adapter, target number, its target port (a WWN tail), TPG and TPG_state."""

    adapter: str
    target: int
    port: str
    tpg: int
    state: str


def device_name(lun: int) -> str:
    return f"naa.624a9370a1b2c3d4e5f60718{lun:08x}"


def write(tmp_path: Path, devices: list[tuple[int, list[tuple[int, str]], list[Reached]]],
          vendor: str = "PURE", naa_of: Callable[[int], str] = device_name) -> tuple[Path, Path]:
    """The device list and path list of `devices`, each its LUN, its SATP config's groups
    `[(TPG_id, TPG_state)]` and its paths, the devices named by `naa_of(lun)`; written as devices.txt
    and paths.txt."""
    listed, paths = [], []
    for lun, groups, reached in devices:
        naa = naa_of(lun)
        runtime = [f"{r.adapter}:C0:T{r.target}:L{lun}" for r in reached]
        listed.append("\n".join([
            naa,
            f"   Device Display Name: {vendor} Fibre Channel Disk ({naa})",
            "   Storage Array Type: VMW_SATP_ALUA",
            "   Storage Array Type Device Config: {implicit_support=on; explicit_support=off; explicit_allow=on; "
            "alua_followover=on; action_OnRetryErrors=off; "
            + "".join(f"{{TPG_id={tpg},TPG_state={state}}}" for tpg, state in groups) + "}",
            "   Path Selection Policy: VMW_PSP_RR",
            "   Path Selection Policy Device Config: {policy=rr,iops=1,bytes=10485760,useANO=0; lastPathIndex=0: "
            "NumIOsPending=0,numBytesPending=0}",
            "   Path Selection Policy Device Custom Config: ",
            f"   Working Paths: {', '.join(n for n, r in zip(runtime, reached) if r.state == 'AO')}",
            "   Is USB: false", ""]))
        for n, (r, name) in enumerate(zip(reached, runtime), start=1):
            hba = r.adapter.removeprefix("vmhba")
            paths.append("\n".join([
                f"fc.20000025b500{int(hba):04x}:20000025b501{int(hba):04x}-fc.524a9370{r.port}:524a9371{r.port}-{naa}",
                f"   Runtime Name: {name}",
                f"   Device: {naa}",
                f"   Device Display Name: {vendor} Fibre Channel Disk ({naa})",
                f"   Group State: {GROUP_STATE[r.state]}",
                "   Array Priority: 0",
                f"   Storage Array Type Path Config: {{TPG_id={r.tpg},TPG_state={r.state},RTP_id={n},RTP_health=UP}}",
                "   Path Selection Policy Path Config: PSP VMW_PSP_RR does not support path configuration.", ""]))
    (tmp_path / "devices.txt").write_text("\n".join(listed))
    (tmp_path / "paths.txt").write_text("\n".join(paths))
    return tmp_path / "devices.txt", tmp_path / "paths.txt"


def simulated_states(toml: Path) -> dict[str, str]:
    """Each path's ALUA state as the simulation runs it (`pathlab run`'s path table), a short run."""
    ran = pathlab("run", str(toml), "--set", 'run.duration="1s"', "--set", 'run.warmup="0.5s"')
    assert ran.returncode == 0, ran.stderr
    return {m[1]: m[2] for m in re.finditer(r"^(vmhba\S+)\s+\S+\s+\S+\s+\w+\s+(AO|ANO|STBY|UNAV)\s", ran.stdout, re.M)}
