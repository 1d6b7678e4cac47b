"""Whether a subsystem's controllers advertise traffic-based keep-alive, as `nvme id-ctrl` prints
it (`ctratt`, bit 6: TBKAS), for the scenario's array (`traffic_based_keep_alive`): read with its
file and line, never assumed here (where no output prints `ctratt` the engine's default, not
advertised, stands and advise says it assumed it). The outputs are tied to the listing's
subsystems by `nvme_anatt.tied` first. A subsystem some of whose controllers advertise it and
some not takes it as advertised (the one that does decides its paths' detection and TP4129's
hold), said as a warning."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pathlab.importer.timer_values import TimerValue
from pathlab.readers.nvme_id_ctrl import IdCtrl


@dataclass(frozen=True)
class SubsystemKeepAlive:
    """A subsystem's TBKAS for the scenario, and where it was read."""

    traffic_based: bool
    file: str
    line: int
    said: str


def read(outputs: Sequence[IdCtrl], file: str) -> tuple[list[TimerValue], dict[str, SubsystemKeepAlive],
                                                        list[tuple[str, str]]]:
    """The `ctratt` timers read (one per controller that prints it), each subsystem NQN's TBKAS,
    and the warnings."""
    timers: list[TimerValue] = []
    by_nqn: dict[str, list[IdCtrl]] = {}
    for out in outputs:
        if out.ctratt is None:
            continue
        scope = out.controller or str(out.subnqn.value)
        timers.append(TimerValue("ctratt", hex(int(out.ctratt.value)), scope, f"{file}, line {out.ctratt.line} ({scope})"))
        by_nqn.setdefault(str(out.subnqn.value), []).append(out)
    found: dict[str, SubsystemKeepAlive] = {}
    warnings: list[tuple[str, str]] = []
    for nqn, outs in by_nqn.items():
        advertised = [o for o in outs if o.traffic_based_keep_alive()]
        one = advertised[0] if advertised else outs[0]
        assert one.ctratt is not None
        name = one.controller or nqn
        said = f"ctratt {hex(int(one.ctratt.value))} of {name}: TBKAS (bit 6) " + ("set" if advertised else "clear")
        if advertised and len(advertised) < len(outs):
            others = ", ".join(o.controller or nqn for o in outs if not o.traffic_based_keep_alive())
            warnings.append((f"arrays.{nqn}", f"{file}, line {one.ctratt.line}: {name} advertises traffic-based "
                                              f"keep-alive and {others} not: taken as advertised for the subsystem"))
        found[nqn] = SubsystemKeepAlive(bool(advertised), file, one.ctratt.line, said)
    return timers, found, warnings
