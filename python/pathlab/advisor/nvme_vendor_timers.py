"""An NVMe host's `ctrl_loss_tmo` against the array vendor's udev rule (`vendor_practice.toml`'s
nvme-native rows that give it: NetApp ONTAP's and HPE Alletra's -1 for NVMe/TCP), where a file
gives the controller's model (`importer/nvme_models.py`): the rule sets it by the controller's
`model` and `transport`, so both must be read for a row to apply. Each finding quotes the lines it
rests on; where no model is read, or the model is and `ctrl_loss_tmo` is not, it says which file
would settle it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pathlab.advisor import stall_rule as rule
from pathlab.advisor.vendor_table import Practice, practice_for, shipped
from pathlab.finding import Finding
from pathlab.importer.timer_values import TimerValue

#: The transports a controller has `ctrl_loss_tmo` on (fabrics; PCIe has none).
FABRICS = ("tcp", "rdma", "fc")
#: What gives a controller's model.
SETTLE_MODEL = ("`nvme id-ctrl /dev/nvmeN` (its `mn`), `nvme list -v` (its MN column) or `nvme list-subsys -v` "
                "(nvme-cli 2.13 and later: `model=`) would settle it")
#: How many controllers a finding names before "and N more".
NAMED = 3


class Said(Protocol):
    """A value read with where it was read (`timer_findings.Value`)."""

    @property
    def value(self) -> str: ...

    @property
    def where(self) -> str: ...


@dataclass(frozen=True)
class _Controller:
    name: str
    model: Said
    transport: Said


def _names(names: Sequence[str]) -> str:
    return ", ".join(names[:NAMED]) + (f" and {len(names) - NAMED} more" if len(names) > NAMED else "")


def _rows(model: str, transport: str) -> list[Practice]:
    """The rows whose rule sets `ctrl_loss_tmo` on a controller of this model and transport."""
    return [p for p in practice_for("NVME", model, "nvme-native") if p.setting.ctrl_loss_tmo is not None
            and p.ctrl_loss_tmo_transport in (None, transport)]


def read_rows(timers: Iterable[TimerValue]) -> list[Practice]:
    """The rows that apply to the controllers whose model and transport `timers` give."""
    given = {(t.scope, t.setting): t.value for t in timers if t.setting in ("model", "transport")}
    pairs = {(model, given[(c, "transport")]) for (c, setting), model in given.items()
             if setting == "model" and (c, "transport") in given}
    return list(dict.fromkeys(row for model, transport in sorted(pairs) for row in _rows(model, transport)))


def _seconds_text(value: str) -> str:
    return f"{value} (reconnect forever)" if rule.seconds(value) is None else f"{value} s"


def _every_path_down(ctrl_loss: str, fast_io_fail: float | None) -> str:
    """What every path down does under this `ctrl_loss_tmo`, by the stall rule."""
    stall = rule.nvme_all_paths_down(rule.seconds(ctrl_loss), fast_io_fail)
    held = "I/O waits until a path returns" if stall.seconds is None else \
        f"I/O is held about {stall.seconds:g} s, then {stall.then}"
    return f"{held} ({stall.rule})"


def ctrl_loss_practice(read: Mapping[tuple[str, str], Said]) -> list[Finding]:
    """The findings of the controllers `read` gives a fabrics transport of (settings `model`,
    `transport`, `ctrl_loss_tmo`, `fast_io_fail_tmo` by controller)."""
    fabric = sorted((scope for (scope, setting), v in read.items() if setting == "transport" and v.value in FABRICS),
                    key=lambda c: (len(c), c))
    if not fabric:
        return []
    rows = [p for p in shipped().practices if p.setting.ctrl_loss_tmo is not None]
    covered = {p.ctrl_loss_tmo_transport for p in rows}  # None: every transport
    unread = [c for c in fabric if (c, "model") not in read and (None in covered or read[(c, "transport")].value in covered)]
    groups: dict[tuple[str, str, str | None, int], list[_Controller]] = {}
    for c in fabric:
        if (c, "model") not in read:
            continue
        known = _Controller(c, read[(c, "model")], read[(c, "transport")])
        loss = read.get((c, "ctrl_loss_tmo"))
        for i, row in enumerate(_rows(known.model.value, known.transport.value)):
            if loss is not None and rule.seconds(loss.value) == rule.seconds(str(row.setting.ctrl_loss_tmo)):
                continue  # as the vendor says
            groups.setdefault((known.model.value, known.transport.value, loss.value if loss else None, i),
                              []).append(known)
    found = [_finding(members, read) for members in groups.values()]
    if unread:
        vendors = sorted({f"{p.vendor} {p.model}" for p in rows})
        found.append(Finding(f"{_names(unread)}: the array vendors' ctrl_loss_tmo not compared: no model read",
                             f"the rows that give one ({', '.join(vendors)}) match the controller's model and "
                             f"transport, as their udev rules do; {SETTLE_MODEL}"))
    return found


def _finding(members: list[_Controller], read: Mapping[tuple[str, str], Said]) -> Finding:
    first = members[0]
    row = _rows(first.model.value, first.transport.value)[0]
    says = str(row.setting.ctrl_loss_tmo)
    loss = read.get((first.name, "ctrl_loss_tmo"))
    fast = read.get((first.name, "fast_io_fail_tmo"))
    fast_s = rule.seconds(fast.value) if fast is not None else rule.NVME_FAST_IO_FAIL_TMO.value
    identity = (f"model {first.model.value} ({first.model.where}); transport {first.transport.value} "
                f"({first.transport.where})")
    alike = f"; {len(members) - 1} more controller(s) alike" if len(members) > 1 else ""
    source = f"{row.vendor}'s udev rule, {row.source} ({row.date})"
    scope = f"{_names([m.name for m in members])} ({first.model.value}, {first.transport.value})"
    if loss is None:
        return Finding(f"{scope}: {row.vendor} sets ctrl_loss_tmo {_seconds_text(says)}; the one in force is not read",
                       f"{identity}{alike}; {source}; the kernel's default is {rule.NVME_CTRL_LOSS_TMO.text()} "
                       f"({rule.NVME_CTRL_LOSS_TMO.source}) unless `nvme connect --ctrl-loss-tmo` or the vendor's "
                       f"rule, where installed, set another; `grep . /sys/class/nvme/{first.name}/ctrl_loss_tmo` "
                       "would settle it")
    return Finding(f"{scope}: ctrl_loss_tmo {_seconds_text(loss.value)} where {row.vendor} sets {_seconds_text(says)}",
                   f"{identity}; ctrl_loss_tmo {loss.value} ({loss.where}){alike}; {source}; every path down: here "
                   f"{_every_path_down(loss.value, fast_s)}; with {says}, {_every_path_down(says, fast_s)}")
