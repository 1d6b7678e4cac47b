"""What an import gives: the host's scenario as typed tables (each value with its provenance;
`text` is what `pathlab import` writes of them), the warnings for every value assumed, and what
the captures themselves show. Each stack's module (`esxi.py`, `linux.py`, `nvme.py`)
builds one; `import_files` in `__init__.py` chooses the stack."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pathlab.finding import Finding
from pathlab.importer.captured_load import CapturedLoad
from pathlab.importer.host_tables import HostTables
from pathlab.importer.timer_values import TimerValue

if TYPE_CHECKING:
    from pathlab.devices import Device


@dataclass(frozen=True)
class Undetermined:
    """A setting of a device that the captures do not determine: the scenario holds a value that
    builds the picture the listing shows, for the simulation, but no check may rest on it."""

    device: str
    setting: str
    #: Why the captures leave it open, and what would settle it.
    why: str
    settle: str
    #: The cluster's host whose device it is (a cluster's hosts name a shared LUN alike, so the
    #: name alone does not say whose setting is open); None on one host.
    host: str | None = None

    def concerns(self, device: Device) -> bool:
        """Whether this is `device`'s setting: its name, and on a cluster its host."""
        return self.device == device.name and (self.host is None or self.host == device.host)



@dataclass
class Imported:
    tables: HostTables
    warnings: list[tuple[str, str]]
    #: What the captures themselves show (`capture_findings`).
    findings: list[Finding] = field(default_factory=list)
    #: The host's stack (esxi, linux, nvme, powerpath, windows), and whether a capture gave any device's load (its
    #: performance counters, or a snapshot of I/Os in flight; a capture without a figure of the
    #: host's devices gives none): without one, a simulated gain would rest on an assumed load.
    stack: str = "esxi"
    measured_load: bool = False
    #: The settings in the scenario that the captures do not determine.
    undetermined: list[Undetermined] = field(default_factory=list)
    #: The failure timers the host's files give, each with where it was read (`timer_values.py`).
    timers: list[TimerValue] = field(default_factory=list)
    #: Each device's rate and response as a capture measured them, for the setting in force to reproduce.
    captured: list[CapturedLoad] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The annotated scenario `pathlab import` writes."""
        return self.tables.render()
