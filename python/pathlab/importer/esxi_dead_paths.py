"""An ESXi path the listing shows out of use stays so in the imported host: a path fault from the
start, and a finding, as a Linux listing's failed paths and PowerPath's dead ones are.

Which paths: `esxcli storage nmp path list` prints a path's `Group State` (the SATP's view: active,
active unoptimized, standby, unavailable, dead), `esxcli storage core path list` its `State`
(active, standby, dead, disabled), and `esxcli storage hpp path list` the same state as `Path State`
(its rows carry it as `group_state` too: it is asked first). `dead` is a path the host lost (NMP sends it no I/O until a
path evaluation finds it back, every 300 s by default); `disabled` one the admin turned off
(`esxcli storage core path set --state=off`), which NMP skips the same way. `standby` and
`unavailable` are ALUA states the model simulates from the target port groups, not faults."""

from __future__ import annotations

from typing import Any

from pathlab.finding import Finding
from pathlab.importer.frame_rows import cell_int
from pathlab.importer.host_tables import HostTables
from pathlab.importer.path_down import down_from_start
from pathlab.importer.provenance import Read

#: Per row column, the field the listing prints it as and its states of a path the host sends no
#: I/O (HPP's `path_state` first: its rows carry it as `group_state` too, which it never printed).
OUT_OF_USE = {"path_state": ("Path State", ("dead", "disabled")), "group_state": ("Group State", ("dead",)),
              "state": ("State", ("dead", "disabled"))}


def out_of_use(path: Any) -> tuple[str, str] | None:
    """The listing's field and the state it shows, where `path` (a path list's row) is out of use."""
    for column, (field, states) in OUT_OF_USE.items():
        shown = getattr(path, column, None)
        if isinstance(shown, str) and shown in states:
            return field, shown
    return None


def dead_path_faults(host: HostTables, paths: list[Any], path_file: str) -> list[Finding]:
    """A `path_down` fault at 0 s for each path the list shows out of use, and a finding naming it;
    `paths`: the rows of the devices simulated."""
    found = []
    for p in paths:
        if (shown := out_of_use(p)) is None:
            continue
        field, state = shown
        line = cell_int(getattr(p, "line", None))
        down_from_start(host, str(p.runtime_name), Read(path_file, line, f"{p.runtime_name}: {field}: {state}"))
        found.append(Finding(f"{p.device}: path {p.runtime_name} is {state} (captured)",
                             f"{path_file}" + (f", line {line}" if line is not None else "") + f": {field}: {state}; "
                             "the host sends it no I/O, and neither does the imported host"))
    return found

