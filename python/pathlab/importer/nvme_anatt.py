"""The ANA Transition Time `nvme id-ctrl` prints, tied to the controller and subsystem the host's
`nvme list-subsys` shows: an output's `subnqn` must be a subsystem of the listing, and the
controller its command line names (`nvme id-ctrl /dev/nvme53`) one of that subsystem's
controllers; anything else is refused in one line, naming both files. Each value is a timer read
with its file and line (`anatt`, and `anacap` where printed, per controller or, where no
command line names it, per subsystem), and the subsystem's ANATT for the scenario's array: the longest its controllers
report (a change may last that long), none where a controller reports no ANA (ANATT 0) or does
not report the change state (ANACAP bit 4 clear), said as a warning."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError
from pathlab.importer.timer_values import TimerValue
from pathlab.readers.nvme_id_ctrl import IdCtrl

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class SubsystemAnatt:
    """A subsystem's ANATT in seconds for the scenario, where it was read, and what is said of it."""

    seconds: int
    file: str
    line: int
    said: str


def tied(outputs: Sequence[IdCtrl], file: str, listing: pd.DataFrame, listing_file: str
         ) -> tuple[list[TimerValue], dict[str, SubsystemAnatt], list[tuple[str, str]]]:
    """The `anatt` timers read, each subsystem NQN's ANATT for the scenario, and the warnings."""
    controllers: dict[str, set[str]] = {}
    for r in listing.itertuples():
        if isinstance(r.nqn, str) and isinstance(r.controller, str):
            controllers.setdefault(r.nqn.strip(), set()).add(r.controller)
    owner = {c: nqn for nqn, names in controllers.items() for c in names}
    timers: list[TimerValue] = []
    by_nqn: dict[str, list[IdCtrl]] = {}
    warnings: list[tuple[str, str]] = []
    for out in outputs:
        nqn = str(out.subnqn.value)
        where = f"line {out.command_line if out.command_line is not None else out.subnqn.line}"
        if nqn not in controllers:
            shown = f"{out.controller} is in {owner[out.controller]}" if out.controller in owner else \
                f"its subsystems: {', '.join(sorted(controllers))}"
            raise ScenarioError(file, where, f"subnqn {nqn} (line {out.subnqn.line}) is no subsystem of {listing_file} "
                                             f"({shown}): give id-ctrl outputs of the same host's controllers")
        if out.controller is not None and out.controller not in controllers[nqn]:
            raise ScenarioError(file, where, f"{out.controller} is not a controller of {nqn} in {listing_file} (its "
                                             f"controllers: {', '.join(sorted(controllers[nqn]))})")
        scope = out.controller or nqn
        anacap = f"; anacap {out.anacap.value} at line {out.anacap.line}" if out.anacap is not None else ""
        timers.append(TimerValue("anatt", str(out.anatt.value), scope,
                                 f"{file}, line {out.anatt.line} ({scope}{anacap})"))
        if out.anacap is not None:  # whether the change state is reported at all (bit 4)
            timers.append(TimerValue("anacap", str(out.anacap.value), scope, f"{file}, line {out.anacap.line} ({scope})"))
        else:  # `IdCtrl.reports_change` takes the change state as reported: an assumption, said
            warnings.append((f"arrays.{nqn}", f"{file}, line {out.anatt.line}: {scope}: no anacap printed; the ANA "
                                              "change state is taken as reported (ANACAP bit 4 would tell)"))
        by_nqn.setdefault(nqn, []).append(out)
    found: dict[str, SubsystemAnatt] = {}
    for nqn, outs in by_nqn.items():
        silent = [o for o in outs if int(o.anatt.value) == 0 or not o.reports_change()]
        if silent:
            o = silent[0]
            why = "ANATT 0: no ANA reporting" if int(o.anatt.value) == 0 else \
                f"anacap {o.anacap.value if o.anacap else ''} (line {o.anacap.line if o.anacap else ''}): the change " \
                "state is not reported"
            warnings.append((f"arrays.{nqn}", f"{file}, line {o.anatt.line}: {o.controller or nqn}: {why}; no ANA "
                                              "change is simulated for this subsystem"))
            continue
        longest = max(outs, key=lambda o: int(o.anatt.value))
        values = {int(o.anatt.value) for o in outs}
        said = f"anatt of {longest.controller or nqn}"
        if len(values) > 1:
            said += f", the longest of {', '.join(str(v) for v in sorted(values))} its controllers report"
        found[nqn] = SubsystemAnatt(int(longest.anatt.value), file, longest.anatt.line, said)
    return timers, found, warnings
