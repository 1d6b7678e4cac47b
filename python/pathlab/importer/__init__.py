"""What a host prints, made into a scenario of it. `kinds.py` is the table of inputs (how each
is recognised, its reader, what it contributes, which host stacks it describes); the inputs given
decide the host's stack, and that stack's module builds the scenario: `esxi.py` (NMP and HPP),
`linux.py` (dm-multipath), `nvme.py` (native NVMe multipath), `powerpath.py` and `mpio.py` (both
through `scsi_host.py`), each taking the inputs as `kind.py`'s
`Kind` and giving `imported.py`'s `Imported`. `capture_findings.py` says what the captures
themselves show."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pathlab.api import Scenario, ScenarioError, warn
from pathlab.importer.imported import Imported
from pathlab.importer.kinds import kind_of

__all__ = ["Imported", "capture_files_of", "import_files", "imported_name", "imported_scenario"]


#: The inputs that decide the host's stack, first match first: a `nvme list-subsys` (or the paths'
#: sysfs attributes) makes it a native NVMe host, a `multipath -ll` a dm-multipath one; anything
#: else is read as an ESXi host.
STACK_OF = (("nvme", "nvme"), ("nvme-sysfs", "nvme"), ("nvme-id-ctrl", "nvme"), ("multipath", "linux"), ("powermt", "powerpath"),
            ("mpclaim", "windows"), ("mpio-settings", "windows"))


def import_files(files: list[str]) -> Imported:
    """A scenario of the host the files describe, each file read by the reader of its kind; a
    folder (a sosreport or vm-support tree) gives the captures it holds."""
    from pathlab.importer import esxi, linux, mpio, nvme, powerpath

    found = {name: kind_of(name) for name in capture_files_of(files)}
    # One capture of each kind: of two, one would silently win (captures are not merged).
    first: dict[str, str] = {}
    for name, kind in found.items():
        same = {"hpp-devices": "devices", "iostat": "diskstats"}.get(kind.name, kind.name)
        if same in first and not kind.repeatable:
            raise ScenarioError(name, "", f"a second {kind.name} capture (the first: {first[same]}): give one capture "
                                          "of each kind, of one host at one time")
        first[same] = name
    names = {k.name for k in found.values()}
    stack = next((s for kind, s in STACK_OF if kind in names), "esxi")
    builder: dict[str, Any] = {"esxi": esxi.import_host, "linux": linux.import_host, "nvme": nvme.import_host,
                               "powerpath": powerpath.import_host, "windows": mpio.import_host}
    imported: Imported = builder[stack](found)
    imported.stack = stack
    return imported


#: The folders that make a folder a sosreport (`sos_commands`) or vm-support (`commands`) tree.
TREE_FOLDERS = ("sos_commands", "commands")


def capture_files_of(inputs: Sequence[str]) -> list[str]:
    """The files an import reads for `inputs`, the one expansion every caller uses (the MCP
    server checks these very files against its folders): a shipped capture's name gives its
    files; a folder its own files when it has any (a folder of listings) and is no tree, else the
    captures of the tree (a sosreport or vm-support bundle, `bundle.files_in`; one with its
    `sos_commands` or `commands` folder is a tree, whatever files it holds beside, as a real
    sosreport's `hostname` and `uname`); a file itself."""
    from pathlib import Path

    from pathlab import shipped
    from pathlab.readers.bundle import CopiedSys, files_in

    out: list[str] = []
    for name in inputs:
        if isinstance(name, CopiedSys):  # a tree's sys/ copy, already found: read as the attributes it holds
            out.append(name)
            continue
        folder = Path(name)
        own = shipped.capture_files(name) if not folder.exists() else None
        if own is None and folder.is_dir():
            tree = any((folder / inside).is_dir() for inside in TREE_FOLDERS)
            own = [] if tree else sorted(str(f) for f in folder.iterdir() if f.is_file() and f.name != "README.md")
            own = own or files_in(folder)
        out += own if own is not None else [name]
    return out


def imported_scenario(files: tuple[str, ...], name: str | None = None) -> tuple[Imported, Scenario]:
    """The host the captures describe (its TOML text and what the captures show), checked by
    loading it (named `name` in its errors, by default after `files`); warnings for every assumed
    value go to stderr."""
    result = import_files(list(files))
    label = ", ".join(files)
    for field_name, message in result.warnings:
        warn(label, field_name, message)
    return result, Scenario.from_values(result.tables.values(), result.text, name or imported_name(files))


def imported_name(files: tuple[str, ...]) -> str:
    """The name errors in an imported scenario give: the user's own files, never an
    intermediate file they did not write."""
    return f"the host imported from {', '.join(files)}"
