"""Each NVMe controller's model and transport, as the host's files give them, for the vendors'
udev rules to be compared with (`advisor/nvme_vendor_timers.py`): nvme-cli's rules set
`ctrl_loss_tmo` on a controller by its `model` and `transport` attributes (`71-nvmf-netapp.rules`:
`ATTR{transport}=="tcp", ATTR{model}=="NetApp ONTAP Controller"`).

The transport is the listing's, on the controller's line (else sysfs `transport`). The model is
the first of: the controller's own `nvme id-ctrl` (`mn`, tied to it by `nvme_anatt.tied`), an `nvme id-ctrl` that
names no controller (its subsystem's, by `subnqn`), the listing's (`nvme list -v`'s MN on the
controller's line, `nvme list-subsys -v`'s `model=` on its subsystem's). Two files that give one
controller two models are refused, naming both lines: they are not one host's. Each is a
`TimerValue` (setting `model`, `transport`) of the controller, with its file and line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError
from pathlab.importer.timer_values import TimerValue
from pathlab.readers.nvme_id_ctrl import IdCtrl

if TYPE_CHECKING:
    import pandas as pd


def _where(file: str, line: object, subsystem: str, what: str) -> str:
    """A listing value's place: its line, or (JSON) the subsystem's field."""
    return f"{file}, line {line}" if isinstance(line, int) else f"{file}, subsystem {subsystem}'s {what}"


#: Why a model read for one controller is every controller's of its subsystem.
SUBSYSTEM_MODEL = "a controller's `model` is its subsystem's: drivers/nvme/host/sysfs.c nvme_show_str_function(model)"


def controller_models(listing: pd.DataFrame, file: str, outputs: Sequence[IdCtrl] = (),
                      id_file: str = "", sysfs: pd.DataFrame | None = None, sysfs_file: str = "") -> list[TimerValue]:
    """The `model` and `transport` of every controller of `listing` that a file gives."""
    out = _controllers(listing, file, outputs, id_file)
    if sysfs is None:
        return out
    given = {(t.scope, t.setting): t for t in out}
    for r in sysfs.itertuples():
        if r.object != "controller" or r.attribute not in ("model", "transport"):
            continue
        value, where = str(r.value).strip(), f"{sysfs_file}, {r.where} ({r.name}'s sysfs {r.attribute})"
        other = given.get((str(r.name), str(r.attribute)))
        if other is not None and other.value != value:
            raise ScenarioError(sysfs_file, str(r.where), f"{r.name}'s {r.attribute} {value}: {other.where} gives "
                                                          f"{other.value}: give one host's outputs")
        if other is None:
            out.append(TimerValue(str(r.attribute), value, str(r.name), where))
    return out


def _controllers(listing: pd.DataFrame, file: str, outputs: Sequence[IdCtrl], id_file: str) -> list[TimerValue]:
    """The listing's transports and the models of `nvme id-ctrl` or the listing."""
    own = {o.controller: o for o in outputs if o.controller is not None and o.mn is not None}
    of_nqn = {str(o.subnqn.value): o for o in outputs if o.mn is not None}
    out: list[TimerValue] = []
    seen: set[str] = set()
    for r in listing.itertuples():
        c = r.controller
        if not isinstance(c, str) or not c or c in seen:
            continue
        seen.add(c)
        subsystem, nqn = str(r.subsystem), str(r.nqn).strip()
        line = int(r.line) if str(r.line).isdigit() else None  # a JSON listing has none
        if isinstance(r.transport, str) and r.transport:
            out.append(TimerValue("transport", r.transport, c, f"{_where(file, line, subsystem, 'Transport')} ({c})"))
        listed = r.model if isinstance(r.model, str) and r.model else None
        model_line = int(r.model_line) if listed is not None and str(r.model_line).isdigit() else None
        read = own.get(c) or of_nqn.get(nqn)
        if read is not None and read.mn is not None:
            if listed is not None and listed != read.mn.value:
                raise ScenarioError(id_file, f"line {read.mn.line}", f"mn {read.mn.value}: {file} "
                                    + (f"line {model_line}" if model_line is not None else f"subsystem {subsystem}")
                                    + f" gives {c}'s model as {listed}: give one host's outputs")
            scope = read.controller or nqn
            whose = f"{scope}'s mn" if scope == c else f"{scope}'s mn; {SUBSYSTEM_MODEL}"
            out.append(TimerValue("model", str(read.mn.value), c, f"{id_file}, line {read.mn.line} ({whose})"))
        elif listed is not None:
            whose = c if model_line is not None and model_line == line else f"{subsystem}'s model; {SUBSYSTEM_MODEL}"
            out.append(TimerValue("model", listed, c, f"{_where(file, model_line, subsystem, 'Model')} ({whose})"))
    return out
