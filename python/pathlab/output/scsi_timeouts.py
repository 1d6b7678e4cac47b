"""`pathlab show timeouts`: a Linux host's SCSI disks' command timeout as `grep . /sys/block/sd*/
device/timeout` prints it, under its command line, so that `pathlab import` reads it back
(`readers/scsi_timeout.py`): every SCSI path of a dm-multipath device, by the disk name `show
paths --style linux` prints, with the host's `[host.stack] io_timeout`. Where the scenario gives
none the run uses the kernel's 30 s (drivers/scsi/sd.h SD_TIMEOUT), but no file showed it: `?`,
as every `show` style prints a value not read (and `import` refuses it back rather than read a
default as the host's)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pathlab import host_views
from pathlab._core import parse_duration_ns
from pathlab.api import Scenario, ScenarioError
from pathlab.output.esxcli_written import host_tables, printed, refuse_overrides, seconds
from pathlab.output.sink import Output

COMMAND = "# grep . /sys/block/sd*/device/timeout"


@dataclass
class Timeouts(Output):
    """Each host's disks and timeout, `[(host, [disk], seconds)]` (None: the scenario gives none);
    `several`: each under its host's heading."""

    hosts: list[tuple[str, list[str], int | None]]
    several: bool = False

    def table(self) -> str:
        blocks = [(host, "\n".join([COMMAND, *(f"/sys/block/{d}/device/timeout:{_shown(timeout)}" for d in disks)])
                   + "\n") for host, disks, timeout in self.hosts]
        return printed(blocks, self.several)

    def document(self) -> Any:
        return [{"host": host, "timeout_s": timeout, "disks": disks} for host, disks, timeout in self.hosts]


def _shown(timeout: int | None) -> str:
    """A timeout as grep prints it, `?` where no file gave it."""
    return "?" if timeout is None else str(timeout)


def scsi_timeouts(scenario: Scenario, host: str | None = None) -> Timeouts:
    """The timeouts of the scenario's Linux dm-multipath hosts (or of `host`), as the scenario
    writes them; a `--set` or the variant's override of the host's stack is refused (printed as
    written, it would not be what runs)."""
    from pathlab.output.configuration import configuration

    refuse_overrides(scenario, ("host.stack", "hosts"), "show timeouts", "the timeouts")
    linux = {d.host for d in scenario.devices if d.stack == "linux-dm"}
    if not linux or (host is not None and host not in linux):
        raise ScenarioError(scenario.file, "--host" if linux else "devices",
                            f"{host or 'the scenario'} has no device of a Linux dm-multipath host: "
                            "/sys/block/sdX/device/timeout is a Linux SCSI disk's")
    from pathlab.output.multipath import disk_names

    desc = configuration(scenario, "paths", "linux", "0s", host).desc
    dm = {(d.host, d.name) for d in scenario.devices if d.stack == "linux-dm"}
    found = []
    tables = dict(host_tables(scenario, host))
    for name, view in host_views.each(desc, host, scenario.file):
        if name not in linux:  # a cluster's host whose devices run another stack
            continue
        # in the order the shell's glob gives them (sd* sorted by name), as grep prints them
        disks = sorted(disk for device, disk in disk_names(view) if (name, device) in dm)
        written = (tables[name].get("stack", {}) or {}).get("io_timeout")
        if written is not None and parse_duration_ns(str(written)) % 1_000_000_000:
            raise ScenarioError(scenario.file, "host.stack.io_timeout", f"{written}: sysfs holds a disk's timeout in "
                                                                        "whole seconds")
        found.append((name, disks, None if written is None else seconds(written, None)))
    return Timeouts(found, host is None and len(tables) > 1)
