"""Linux NVMe multipath's per-path sysfs attributes and diagnostic counters (merged in 2026:
commit 66ee95b3d490, moved under `diag/` by 37afebc79a11), as people capture them: `grep -r .
/sys/block/nvme*c*n*/{queue_depth,ana_state,diag/*}` (`FILE:VALUE`) or a shell loop's `echo
"$f: $(cat $f)"` (`FILE: VALUE`), with the controllers' `/sys/class/nvme/nvmeY/diag/*`.

What each is (the kernel's `drivers/nvme/host/multipath.c`, libnvme's accessors' documentation):
- `/sys/block/nvmeXcYnZ/` is namespace Z of subsystem X reached through controller Y: one path.
  `queue_depth` is the controller's count of I/Os in flight (`ctrl->nr_active`, every namespace
  of that controller), printed only under iopolicy queue-depth (empty otherwise): one instant,
  not an average. `ana_state` is the path's ANA state, `ana_grpid` its group.
- Per path, since the path was created: `diag/multipath_failover_count` (I/Os failed over from
  this path to another after an error on it), `diag/command_retry_count` (commands retried),
  `diag/command_error_count` (commands that ended with an error status).
- Per controller (`/sys/class/nvme/nvmeY/diag/`): `reset_count`, `reconnect_count` and
  `command_error_count` (admin commands that failed).
- Per head (`/sys/block/nvmeXnZ/diag/`): `io_requeue_no_usable_path_count` (I/Os queued because
  no path was usable) and `io_fail_no_available_path_count` (I/Os failed for want of a path).
- Per subsystem (`/sys/class/nvme-subsystem/nvme-subsysX/iopolicy`): the iopolicy in force.
- Per fabrics controller, its timers (`drivers/nvme/host/sysfs.c`): `ctrl_loss_tmo` (seconds of
  reconnecting before the controller is removed, `off`: never), `reconnect_delay` (seconds
  between attempts), `fast_io_fail_tmo` (seconds after which I/O held for a reconnecting
  controller fails, `off`: held until ctrl_loss_tmo) and `kato` (the keep-alive timeout, seconds).
- Per controller, `model` and `transport` (`drivers/nvme/host/sysfs.c`: the subsystem's model
  number, the transport's name): what the vendors' udev rules set `ctrl_loss_tmo` by.
- The module's I/O timeout, `/sys/module/nvme_core/parameters/io_timeout` (seconds; `admin_timeout`
  likewise for admin commands). nvme_core's other parameters, which `grep -H .
  /sys/module/nvme_core/parameters/*` prints beside them (`shutdown_timeout`, `max_retries`, ...;
  one file per `module_param` the running kernel declares), are passed over and named on stderr.

Any other file under those folders is refused with its line; so are values that are not what
the kernel prints. `grep`'s "No such file or directory" (a kernel without these attributes) is
said on stderr.

A shell's dump of one folder, `find . -type f -exec grep -aH . {} \\;` under a prompt that shows
the folder (bash's `\\w#`: `/sys/class/nvme/nvme0# `), names each file `./FILE` from there: read
as the same attributes, the folder's other files and grep's lines for files it cannot read
(write-only `delete_controller`) passed over and counted on stderr. Several dumps in one file (one
per controller, path or head, each under its own prompt) are read each from its own folder.

A folder is read as a copy of `/sys` (a sosreport's `sys/`): the same attributes, one file each,
wherever they stand under it (`block/nvmeXcYnZ/`, `class/nvme/nvmeY/`, the `devices/` tree they
link to); other files are passed over, and an attribute found at two places is read once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from pathlab.api import ScenarioError, warn
from pathlab.readers import pasted
from pathlab.readers._whole import is_whole

if TYPE_CHECKING:
    from collections.abc import Iterator

    import pandas as pd

#: A fabrics controller's timers, in seconds; `ctrl_loss_tmo` and `fast_io_fail_tmo` print `off`
#: when disabled (`nvme_ctrl_loss_tmo_show`, `nvme_ctrl_fast_io_fail_tmo_show`).
TIMERS = ("ctrl_loss_tmo", "reconnect_delay", "fast_io_fail_tmo", "kato")
#: Timers that print `off` when disabled.
OFF_TIMERS = ("ctrl_loss_tmo", "fast_io_fail_tmo")
#: A controller's identity as the vendors' udev rules match it (`drivers/nvme/host/sysfs.c`):
#: `model` (its subsystem's model number, padded with blanks to 40) and `transport`.
IDENTITY = ("model", "transport")
#: The transports the kernel prints (`nvme_sysfs_show_transport`: each fabrics driver's name, pcie).
TRANSPORTS = ("pcie", "tcp", "rdma", "fc", "loop", "apple-nvme")
#: nvme_core's module parameters read here (`drivers/nvme/host/core.c`), in seconds.
MODULE_PARAMETERS = ("io_timeout", "admin_timeout")
#: Attributes by the object they belong to: a path (nvmeXcYnZ), a controller (nvmeY), a head (nvmeXnZ).
ATTRIBUTES = {
    "path": ("queue_depth", "ana_state", "ana_grpid", "numa_nodes", "diag/multipath_failover_count",
             "diag/command_retry_count", "diag/command_error_count"),
    "controller": ("diag/reset_count", "diag/reconnect_count", "diag/command_error_count", *TIMERS, *IDENTITY),
    "head": ("diag/io_requeue_no_usable_path_count", "diag/io_fail_no_available_path_count"),
    "subsystem": ("iopolicy",),
    "module": MODULE_PARAMETERS,
}
#: The iopolicies the kernel prints (`nvme_iopolicy_names`).
IOPOLICIES = ("numa", "round-robin", "queue-depth")
#: The ANA states the kernel prints (`nvme_ana_state_names`).
ANA_STATES = ("optimized", "non-optimized", "inaccessible", "persistent-loss", "change")
#: `where`: the line of a capture (`line 5`), or the file of a copied /sys (`sys/block/nvme0c1n1/queue_depth`).
COLUMNS = ["name", "object", "attribute", "value", "line", "where"]

_ATTRIBUTE = re.compile(r"^\s*(?P<file>/?(?:\S*/)?sys/\S*?/(?P<name>nvme-subsys\d+|nvme\d+(?:c\d+)?(?:n\d+)?)/"
                        r"(?P<attribute>(?:device/)?(?:diag/)?[a-z_]+))\s*:\s?(?P<value>.*?)\s*$")
#: An attribute's file in a copy of /sys: the object's folder, then the attribute.
_TREE_FILE = re.compile(r"(?:^|/)(?:(?P<name>nvme-subsys\d+|nvme\d+(?:c\d+)?(?:n\d+)?)|module/(?P<module>nvme_core)"
                        r"/parameters)/(?P<attribute>(?:diag/)?[a-z_]+)$")
#: nvme_core's module parameters as `grep -r . /sys/module/nvme_core/parameters/` prints them.
_MODULE = re.compile(r"^\s*(?P<file>/?(?:\S*/)?sys/module/(?P<name>nvme_core)/parameters/(?P<attribute>[a-z_]+))"
                     r"\s*:\s?(?P<value>.*?)\s*$")
#: The command line of an NVMe folder's dump (`find` prints `./FILE`, grep -H the name it was given), under
#: a prompt of `\w` alone or Debian's `\u@\h:\w` (`root@host:/sys/class/nvme/nvme0# `).
FOLDER_DUMP = re.compile(r"^\s*(?:[\w.-]+@[\w.-]+:)?(?P<folder>/\S*sys/[^\s#$]*nvme[^\s#$]*?)/?\s*[#$]\s*"
                         r"(?:sudo\s+)?find\s+\.\s.*-exec\s+grep\s")
_RELATIVE = re.compile(r"^\s*\./(?P<file>[^:\s]+):(?P<value>.*)$")
#: grep's line for a file it cannot read (`grep: ./delete_controller: Permission denied`).
_UNREADABLE = re.compile(r"^\s*grep: \./\S+: [A-Z][\w /]*$")
_MISSING = re.compile(r"^\s*(?:grep|cat): \S*sys/\S*nvme\S*: No such file or directory\s*$")
_COMMANDS = [re.compile(r"/sys/(?:block|class|devices)/\S*nvme|/sys/module/nvme_core")]


def _object(name: str) -> str:
    if name == "nvme_core":
        return "module"
    if name.startswith("nvme-subsys"):
        return "subsystem"
    if re.fullmatch(r"nvme\d+c\d+n\d+", name):
        return "path"
    return "head" if re.fullmatch(r"nvme\d+n\d+", name) else "controller"


def _checked(file: str, number: int, kind: str, attribute: str, value: str) -> str:
    if attribute not in ATTRIBUTES[kind]:
        raise ScenarioError(file, f"line {number}", f"{attribute} of a {kind}: not an NVMe multipath attribute pathlab "
                                                     f"reads (a {kind} has {', '.join(ATTRIBUTES[kind])})")
    counter = attribute.startswith("diag/") or attribute in ("queue_depth", "ana_grpid")
    if attribute == "queue_depth" and value == "":
        return value  # empty unless the iopolicy is queue-depth
    if counter and not is_whole(value):
        raise ScenarioError(file, f"line {number}", f"{attribute} {value!r}: the kernel prints a whole number here")
    if attribute == "iopolicy" and value not in IOPOLICIES:
        raise ScenarioError(file, f"line {number}", f"iopolicy {value!r}: one of {', '.join(IOPOLICIES)}")
    if (attribute in TIMERS or attribute in MODULE_PARAMETERS) and not is_whole(value) \
            and not (attribute in OFF_TIMERS and value == "off"):
        allowed = "a whole number of seconds" + (" or off" if attribute in OFF_TIMERS else "")
        raise ScenarioError(file, f"line {number}", f"{attribute} {value!r}: the kernel prints {allowed} here")
    if attribute == "transport" and value not in TRANSPORTS:
        raise ScenarioError(file, f"line {number}", f"transport {value!r}: one of {', '.join(TRANSPORTS)}")
    if attribute == "model" and not value.strip():
        raise ScenarioError(file, f"line {number}", "model: empty (the kernel prints the model number)")
    if attribute == "ana_state" and value not in ANA_STATES:
        raise ScenarioError(file, f"line {number}", f"ana_state {value!r}: one of {', '.join(ANA_STATES)}")
    return value


def read(path: str | Path) -> pd.DataFrame:
    """One row per attribute: name (nvme0c1n1, nvme1, nvme0n1, nvme_core), object (path,
    controller, head, subsystem, module),
    attribute (`queue_depth`, `diag/reset_count`, ...), value as printed, line, and where it was
    read (`line N`, or the attribute's file in a copy of /sys)."""
    import pandas as pd

    if isinstance(path, CopiedSys):
        return _read_tree(Path(path), path.files)
    if Path(path).is_dir():
        return _read_tree(Path(path), attribute_files(path))
    file = str(path)
    source = _folder_dump(file, pasted.file_lines(path))
    if source is None:
        lines = pasted.output_lines(file, pasted.file_lines(path), _COMMANDS, "grep -r . /sys/block/nvme*c*n*/...")
        known = lambda text: any(r.match(text) is not None for r in (_ATTRIBUTE, _MODULE, _MISSING))  # noqa: E731
        source = pasted.between_lines(file, lines, known, known, "sysfs attributes")
    rows = []
    seen: dict[tuple[str, str], int] = {}
    unused: list[str] = []
    for line in source():
        text = line.text
        if not text.strip():
            continue
        if _MISSING.match(text):
            warn(file, f"line {line.number}", f"{text.strip()}: this kernel lacks the attribute (merged in 2026)")
            continue
        m = _ATTRIBUTE.match(text) or _MODULE.match(text)
        if m is None:
            raise ScenarioError(file, f"line {line.number}", "expected `/sys/.../nvmeXcYnZ/ATTRIBUTE:VALUE` as `grep -r .` "
                                                             f"prints it, found {text.strip()[:50]!r}")
        name, attribute = m["name"], m["attribute"]
        if attribute.startswith("device/"):  # a path's link to its controller
            controller = re.fullmatch(r"nvme\d+c(\d+)n\d+", name)
            if controller is None:
                raise ScenarioError(file, f"line {line.number}", f"{name}/device: only a path (nvmeXcYnZ) links to its "
                                                                 "controller")
            name, attribute = f"nvme{controller[1]}", attribute.removeprefix("device/")
        kind = _object(name)
        if kind == "module" and attribute not in MODULE_PARAMETERS:
            unused.append(f"{attribute} (line {line.number})")  # another of nvme_core's parameters
            continue
        value = _checked(file, line.number, kind, attribute, m["value"])
        if (name, attribute) in seen:
            raise ScenarioError(file, f"line {line.number}", f"{name}/{attribute} a second time (first at line "
                                                             f"{seen[(name, attribute)]}): give one snapshot per file")
        seen[(name, attribute)] = line.number
        rows.append({"name": name, "object": kind, "attribute": attribute, "value": value, "line": line.number,
                     "where": f"line {line.number}"})
    if unused:
        warn(file, "nvme_core", f"{', '.join(unused)}: module parameters pathlab does not use, passed over")
    if not rows:
        raise ScenarioError(file, "", "no NVMe sysfs attribute (`/sys/block/nvmeXcYnZ/queue_depth:3` and the like)")
    return pd.DataFrame(rows, columns=COLUMNS)


def _folder_dump(file: str, source: pasted.Source) -> pasted.Source | None:
    """Folders' dumps (`FOLDER_DUMP`), one after another (one per controller, path or head, each
    under its own prompt), with the attributes read here named in full (`./kato:5` →
    `/sys/class/nvme/nvme0/kato:5`, from the folder of the dump they follow), or None when the
    file is none. Each folder's other files and grep's unreadable ones are passed over and
    counted on stderr; any other line is left for `read` to refuse with its line."""
    first = next((line.number for line in source() if FOLDER_DUMP.match(line.text)), None)
    if first is None:
        return None

    def lines() -> Iterator[pasted.Line]:
        before = 0
        dumps: list[list] = []  # each dump's line, folder, other files and unreadable ones
        for line in source():
            dump = FOLDER_DUMP.match(line.text)
            if dump is not None:
                dumps.append([line.number, dump["folder"], 0, 0])
                continue
            if not dumps or not line.text.strip():
                before += not dumps and bool(line.text.strip())
                continue
            if _UNREADABLE.match(line.text):
                dumps[-1][3] += 1
                continue
            relative = _RELATIVE.match(line.text)
            if relative is None:
                yield line
                continue
            text = f"{dumps[-1][1]}/{relative['file']}:{relative['value']}"
            m = _ATTRIBUTE.match(text) or _MODULE.match(text)
            if m is None or m["attribute"] not in ATTRIBUTES[_object(m["name"])]:
                dumps[-1][2] += 1
                continue
            yield pasted.Line(line.number, text)
        if before:
            warn(file, f"lines 1-{first - 1}", f"{before} line(s) before the dump's command line (line {first}) skipped")
        for at, folder, other, unreadable in dumps:
            warn(file, f"line {at}", f"the dump of {folder}: {other} other file(s) passed over"
                                     + (f", {unreadable} grep could not read" if unreadable else ""))

    return lines


class CopiedSys(str):
    """A tree's copy of /sys as `bundle.files_in` gives it on: its path, with the attribute files
    the tree's walk found in it, so that `read` does not walk it a second time."""

    files: list[tuple[Path, str, str]]

    def __new__(cls, folder: Path, files: list[tuple[Path, str, str]]) -> CopiedSys:
        copied = super().__new__(cls, str(folder))
        copied.files = files
        return copied


def attribute_files(folder: str | Path) -> list[tuple[Path, str, str]]:
    """The NVMe multipath attribute files in a copy of /sys, as (file, object name, attribute), in
    the order of their paths; symbolic links are not followed (sos stores /sys/block's as links
    into the copied devices tree)."""
    import os

    root = Path(folder)
    found = []
    for directory, subdirs, names in os.walk(root):
        subdirs.sort()
        for name in sorted(names):
            file = Path(directory) / name
            m = _TREE_FILE.search(file.relative_to(root).as_posix())
            owner = m and (m["name"] or m["module"])
            if m and owner and m["attribute"] in ATTRIBUTES[_object(owner)] and file.is_file() and not file.is_symlink():
                found.append((file, owner, m["attribute"]))
    return found


def _read_tree(root: Path, files: list[tuple[Path, str, str]]) -> pd.DataFrame:
    """The attributes of a copied /sys (its `attribute_files`), one row each as `read` gives
    them; an attribute found at a second place (the kernel's links: `block/nvme0c1n1` and
    `devices/…/nvme0/nvme0c1n1`) is read from the first and the others said on stderr."""
    import pandas as pd

    rows = []
    first: dict[tuple[str, str], Path] = {}
    again = []
    for file, name, attribute in files:
        if (name, attribute) in first:
            again.append(file)
            continue
        first[(name, attribute)] = file
        value = pasted.read_text(file).strip()
        if "\n" in value:
            raise ScenarioError(str(file), "line 2", f"{attribute}: one value per file in sysfs, found several lines")
        rows.append({"name": name, "object": _object(name), "attribute": attribute,
                     "value": _checked(str(file), 1, _object(name), attribute, value), "line": 1,
                     "where": file.relative_to(root).as_posix()})
    if again:
        warn(str(root), f"{len(again)} file(s)", "the same attributes again under other folders of the copy, read once: "
                                                 + ", ".join(p.relative_to(root).as_posix() for p in again[:3])
                                                 + (", ..." if len(again) > 3 else ""))
    if not rows:
        raise ScenarioError(str(root), "", "no NVMe multipath attribute (nvmeXcYnZ/queue_depth, ana_state, diag/...) "
                                           "in this copy of /sys")
    return pd.DataFrame(rows, columns=COLUMNS)
