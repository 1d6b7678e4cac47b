"""A host as its captures describe it, for the library: `import_host(*files)` builds what
`pathlab import` writes, typed: its tables (`HostTables`), each value with its provenance (read,
derived, assumed or unknown), from which its scenario is built and its text written."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property

from pathlab.api import Scenario, ScenarioError
from pathlab.assumption import Assumption
from pathlab.finding import Finding
from pathlab.importer.captured_load import CapturedLoad
from pathlab.importer.host_tables import HostTables
from pathlab.importer.imported import Undetermined
from pathlab.importer.timer_values import TimerValue


@dataclass(frozen=True)
class Host:
    """The host the captures describe: its scenario, what the captures show, and what they did
    not give (assumed)."""

    #: The captures as given (files, a folder, or a shipped capture's name).
    files: tuple[str, ...]
    #: What the host's scenario is named in its errors (after the captures).
    file: str
    #: What the captures themselves show (a full queue, a failed path).
    findings: tuple[Finding, ...]
    #: Values the captures did not give, and what was assumed: a prediction rests on them.
    assumptions: tuple[Assumption, ...]
    #: The host's multipathing stack: esxi, linux (dm-multipath), nvme, powerpath or windows (MPIO).
    stack: str
    #: Whether a capture gave the devices' load (performance counters, or a snapshot of I/Os in
    #: flight); without it advise predicts no gain, it says what to capture.
    measured_load: bool
    #: The scenario's TOML text, every value commented with where it came from (`tables` rendered).
    text: str = field(repr=False)
    #: Settings the scenario holds that the captures do not determine (a one-group map's
    #: grouping): simulated as the listing shows them, never checked against a practice.
    undetermined: tuple[Undetermined, ...] = ()
    #: The failure timers the host's files give (multipath.conf, the maps' features, NVMe sysfs),
    #: each with the file and line it was read at; a timer no file gives is not here.
    timers: tuple[TimerValue, ...] = ()
    #: Each device's rate and response as a capture measured them: what the setting in force,
    #: simulated, must reproduce before advise ranks anything.
    captured: tuple[CapturedLoad, ...] = ()
    #: The host's scenario as typed tables, each value with its provenance: what the scenario is
    #: built from, what advise reads the host's assumptions from, what a cluster merges.
    tables: HostTables = field(default_factory=HostTables, repr=False)

    @cached_property
    def scenario(self) -> Scenario:
        """The host as a checked scenario, built from `tables` when first asked for (the import
        checked it; a cluster's hosts are not held as scenarios: 180 MiB on 32 × 500 × 8)."""
        return Scenario.from_values(self.tables.values(), self.text, self.file)

    def __repr__(self) -> str:
        load = "load measured" if self.measured_load else "no load measured"
        return (f"<pathlab.Host {', '.join(self.files)}: {self.stack}, {len(self.findings)} findings, "
                f"{len(self.assumptions)} assumptions, {load}>")

    def to_toml(self) -> str:
        """The scenario as `pathlab import` writes it."""
        return self.text

    def _repr_html_(self) -> str:
        from pathlab.output.host import host_html

        return host_html(self)


def import_host(*files: str | os.PathLike[str]) -> Host:
    """The host that `files` describe, as `pathlab import` reads them: listings and captures of one
    host (ESXi, dm-multipath, native NVMe), a folder of them (a sosreport or vm-support tree), or a
    shipped capture's name (`vmax-iops1000`). Each assumed value is also warned about
    (`PathlabWarning`); bad input raises `ScenarioError` naming the file and line."""
    return host_and_scenario(*files)[0]


def host_and_scenario(*files: str | os.PathLike[str]) -> tuple[Host, Scenario]:
    """`import_host`'s host and the scenario its import built to check it (a cluster's worker
    reads what it needs of it there and lets it go: the host builds its own when asked)."""
    from pathlab.importer import imported_name, imported_scenario

    given = tuple(str(f) for f in files)
    if not given:
        raise ScenarioError("import_host", "files", "no capture given: give a host's listings and captures")
    imported, scenario = imported_scenario(given, imported_name(given))
    return Host(given, scenario.file, tuple(imported.findings), tuple(Assumption(f, m) for f, m in imported.warnings),
                imported.stack, imported.measured_load, scenario.text, tuple(imported.undetermined),
                tuple(imported.timers), tuple(imported.captured), imported.tables), scenario

