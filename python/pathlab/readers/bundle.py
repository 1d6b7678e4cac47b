"""A folder given where a capture is expected: a sosreport or vm-support tree, or a folder of
captures. The files pathlab reads are found by the names those tools give them (sos names a
command's output after the command, `sos_commands/multipath/multipath_-v4_-ll`; vm-support
keeps `commands/localcli_storage-nmp-device-list.txt`), one file per kind, the most informative
where a tree has several (`-ll` runs the path checkers, `-l` does not; the nmp path list has the
ALUA states, the core one has not). A sosreport's copy of /sys (`sys/`) is given whole as the
NVMe multipath attributes when it holds any (`readers.nvme_sysfs` reads the files in it). What
was taken, and what was left, is said on stderr."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pathlab.api import ScenarioError, warn
from pathlab.readers.nvme_sysfs import CopiedSys, attribute_files

#: Folders not worth walking into (a sosreport's copies of /proc and /sys hold thousands of files).
_SKIP_DIRS = frozenset({"sys", "dev", "run", ".git", "__pycache__"})
#: Files bigger than this are not a listing (an esxtop capture is judged by its name alone).
_MAX_LISTING_BYTES = 64 << 20


@dataclass(frozen=True)
class Known:
    """A file a tree may hold: its kind, the name that tells it, and its rank among files of the
    same kind (lower is better)."""

    kind: str
    name: re.Pattern[str]
    rank: int


#: By kind, best first. Names are matched against the path inside the tree, `/` separated.
KNOWN = (
    Known("multipath", re.compile(r"(?:^|/)multipath_(?:-v\d_)?-ll$"), 0),
    Known("multipath", re.compile(r"(?:^|/)multipathd_(?:-k.?)?show_(?:maps_)?topology\S*$"), 1),
    Known("multipath", re.compile(r"(?:^|/)multipath_-l$"), 2),
    Known("multipath.conf", re.compile(r"(?:^|/)etc/multipath\.conf$"), 0),
    Known("diskstats", re.compile(r"(?:^|/)proc/diskstats$"), 0),
    Known("nvme", re.compile(r"(?:^|/)nvme_list-subsys(?:_-o_json)?$"), 0),
    Known("nvme", re.compile(r"(?:^|/)nvme_show-topology\S*$"), 1),
    # sos's iscsi plugin runs `iscsiadm -m session -P 3` (sos/report/plugins/iscsi.py).
    Known("iscsi-sessions", re.compile(r"(?:^|/)iscsiadm_-m_session_-P_?[13]$"), 0),
    Known("devices", re.compile(r"(?:^|/)(?:localcli|esxcli)_storage-nmp-device-list\.txt$"), 0),
    Known("paths", re.compile(r"(?:^|/)(?:localcli|esxcli)_storage-nmp-path-list\.txt$"), 0),
    Known("paths", re.compile(r"(?:^|/)(?:localcli|esxcli)_storage-core-path-list\.txt$"), 1),
    Known("esxtop", re.compile(r"(?:^|/)[^/]*esxtop[^/]*\.csv$"), 0),
)


def files_in(folder: str | Path) -> list[str]:
    """The capture files of a tree, one per kind, in the order of `KNOWN`'s kinds; a folder with
    none is refused, naming what was looked for."""
    root = Path(folder)
    found: dict[str, list[tuple[int, str]]] = {}
    for directory, subdirs, names in os.walk(root, onerror=_refuse(root)):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIP_DIRS)
        for name in sorted(names):
            path = Path(directory) / name
            inside = path.relative_to(root).as_posix()
            for known in KNOWN:
                if known.name.search(inside) and _is_listing(path, known.kind):
                    found.setdefault(known.kind, []).append((known.rank, str(path)))
                    break
    copied_sys = _copied_sys(root, found.get("nvme", []))
    attributes = attribute_files(copied_sys) if copied_sys.is_dir() else []
    if attributes:
        # The attributes belong to the paths `nvme list-subsys` lists: without it they describe nothing.
        if "nvme" in found:
            found["nvme-sysfs"] = [(0, CopiedSys(copied_sys, attributes))]
        else:
            warn(str(folder), "nvme-sysfs", "sys/ holds NVMe multipath attributes, but the tree has no `nvme list-subsys` "
                                            "(sos_commands/nvme/nvme_list-subsys) they belong to: left")
    if not found:
        raise ScenarioError(str(folder), "", "no capture pathlab reads in this folder: looked for sosreport's "
                                             "sos_commands/multipath/multipath_-v4_-ll, etc/multipath.conf, proc/diskstats, "
                                             "nvme_list-subsys, iscsiadm_-m_session_-P_3, sys/ (NVMe attributes), and "
                                             "vm-support's commands/localcli_storage-nmp-device-list.txt and "
                                             "storage-nmp-path-list.txt, or an esxtop*.csv")
    chosen = []
    for kind in [*dict.fromkeys(k.kind for k in KNOWN), "nvme-sysfs"]:
        if kind not in found:
            continue
        ranked = sorted(found[kind])
        best = ranked[0][1]
        chosen.append(best)
        left = [p for _, p in ranked[1:]]
        warn(str(folder), kind, f"read {_shown(root, best)}" + (f" (left: {', '.join(_shown(root, p) for p in left)})"
                                                               if left else ""))
    return chosen


def _copied_sys(root: Path, nvme_listings: list[tuple[int, str]]) -> Path:
    """The tree's copy of /sys: at its top, or, when the folder given holds the sosreport's own
    folder (the folder a tarball was extracted into), the `sys` nearest above the NVMe listing
    that is read (`sos_commands/nvme/...`), within the folder given."""
    top = root / "sys"
    if top.is_dir() or not nvme_listings:
        return top
    for folder in Path(min(nvme_listings)[1]).parents:
        if folder == root or root not in folder.parents:
            break
        if (folder / "sys").is_dir():
            return folder / "sys"
    return top


def _is_listing(path: Path, kind: str) -> bool:
    """A regular, non-empty file of a plausible size (sos leaves empty files for commands that
    failed)."""
    try:
        size = path.stat().st_size
    except OSError:
        return False
    return path.is_file() and size > 0 and (kind == "esxtop" or size <= _MAX_LISTING_BYTES)


def _shown(root: Path, path: str) -> str:
    return Path(path).relative_to(root).as_posix()


def _refuse(root: Path) -> Callable[[OSError], None]:
    def fail(error: OSError) -> None:
        raise ScenarioError(str(root), "", f"cannot be read: {error.strerror or error}")
    return fail
