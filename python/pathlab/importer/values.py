"""Values every importer writes the same way: the scenario's heading and run, the size of an I/O
from a capture's byte and I/O rates, as a scenario writes it, what an importer assumes of every array it writes, an NVMe
iopolicy no capture shows, a device a capture leaves out because it was idle, and the refusal
of a capture that saw no I/O."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pathlab.api import ScenarioError
from pathlab.importer.host_tables import HostTables
from pathlab.importer.provenance import Derived, Own

if TYPE_CHECKING:
    import pandas as pd


#: What the comments of a Linux host's scenario mean (dm-multipath and NVMe alike).
SAID = ["# Values the captures give name their file and field; `default:` marks what they do not say:",
        "# confirm those (pathlab printed a warning for each)."]


def heading(said: list[str], name: str, description: str) -> HostTables:
    """A host's tables as every import starts them: the comment lines `said` (the files imported,
    what the comments mean), then the scenario's name and description."""
    out = HostTables()
    for line in said:
        out.top.line(line)
    out.top.key("name", name, Own("the scenario's name"))
    out.top.key("description", description, Own("the scenario's description"))
    return out


def add_run(out: HostTables) -> None:
    """The `[run]` every import writes: 60 s after 10 s of warm-up, figures every 5 s (advise
    chooses its own length)."""
    run = out.table("run")
    length = Own("the simulation's run: advise chooses its own length")
    run.key("duration", "60s", length)
    run.key("warmup", "10s", length)
    run.key("interval", "5s", length)


def io_size(bytes_per_s: float, ios_per_s: float, default: int = 4096) -> int:
    """Bytes per I/O rounded to whole 512-byte sectors (at least one)."""
    if ios_per_s <= 0:
        return default
    return max(512, round(bytes_per_s / ios_per_s / 512) * 512)


def size_text(size: int) -> str:
    """`8KiB`, or `1536B` when not whole KiB."""
    return f"{size // 1024}KiB" if size % 1024 == 0 else f"{size}B"


def zero_load_assumed(array: str) -> tuple[str, str]:
    """The warning of an array whose time beyond its ports' service at low load no capture gave:
    none is written, so none is simulated, and the prediction rests on it (advise's gain ranges
    span 0-0.3 ms of it: `advisor.ranges`)."""
    return (f"arrays.{array}.read_latency", "the array's time beyond its ports' service at low load is not in the "
                                            "captures: none assumed")


def iopolicy_file(subsystem: str) -> str:
    """The sysfs file that holds a subsystem's iopolicy (`nvme-subsys*` where its name has no instance)."""
    import re

    return f"/sys/class/nvme-subsystem/{subsystem if re.fullmatch(r'nvme-subsys[0-9]+', subsystem) else 'nvme-subsys*'}/iopolicy"


def iopolicy_open(file: str) -> str:
    """Why an NVMe subsystem's iopolicy is not determined when no capture shows it: the scenario
    gives none, so the claim takes the kernel's default (`nvme_core.iopolicy`, numa) unless a
    vendor's udev rule matches the subsystem's model, which `nvme list-subsys` does not print either."""
    return (f"the iopolicy is not in the captures ({file} shows no `iopolicy=`): not determined; simulated as the "
            "kernel's default numa")


def iopolicy_assumed(subsystem: str, file: str) -> tuple[str, str]:
    """The warning of an NVMe subsystem whose iopolicy no capture shows, naming the file that would settle it."""
    return (f"devices.{subsystem}.policy", f"{iopolicy_open(file)}; {iopolicy_file(subsystem)} would tell")


def left_out_idle(rates: pd.DataFrame | None, *names: str) -> bool:
    """Whether a device (by any of its `names`) is in no report of a capture that leaves idle
    devices out (`iostat -z`: `readers.iostat.LEAVES_IDLE_OUT`): it was idle in every report."""
    from pathlab.readers.iostat import LEAVES_IDLE_OUT

    return rates is not None and bool(rates.attrs.get(LEAVES_IDLE_OUT)) and not rates["device"].isin(names).any()


def idle_left_out_said(workload: str, device: str, rates_file: str) -> tuple[Derived, tuple[str, str]]:
    """Why a device `left_out_idle` is idle (the rule, for its `Idle` line) and the warning:
    measured idle, not assumed busy, and said, since a capture naming its devices (`iostat -xz
    sdb`) leaves the others out too."""
    where = f"in no report of {rates_file}, which leaves idle devices out (iostat -z)"
    return (Derived(f"{rates_file}, which leaves idle devices out (iostat -z), names {device} in no report", (rates_file,)),
            (f"workloads.{workload}", f"{device} is {where}: taken as idle in every report"))


def saw_no_io(capture: str, field: str, what: str, note: str = "") -> ScenarioError:
    """The refusal of a capture in which every device of the host was idle: a scenario without
    load is no host to advise on (and the engine would refuse it for its missing workloads)."""
    return ScenarioError(capture, field, f"{what}: the capture saw no I/O{note}; capture while the host runs its load")
