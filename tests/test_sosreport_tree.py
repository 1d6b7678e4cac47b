"""A sosreport tree given to `import` (issue 22): its copy of /sys gives the NVMe multipath
attributes (per path `queue_depth`, `ana_state`, `diag/*`; per controller `diag/reset_count`)
wherever they stand in it, and `sos_commands/iscsi/iscsiadm_-m_session_-P_3` the iSCSI portals.

The trees are small and built here with the file names sos writes (sos 2026-08-21: `nvme.py` runs
`nvme list-subsys`, `iscsi.py` `iscsiadm -m session -P 3`, commands named by `_mangle_command`;
`nvme.py` copies `/sys/block/nvme*/ana_state`, `block.py` `/sys/block/*/queue/`). Their contents
are real where a real one exists: the NetApp list-subsys of the corpus (009), the 3PAR multipath
listing of tests/test_import_iscsi_sessions.py. No published capture of the 2026 attributes
exists: their values are test_nvme_sysfs.py's, written in the kernel's names."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import pathlab
from pathlab.importer import import_files
from test_import_iscsi_sessions import MULTIPATH, _sessions
from test_nvme_sysfs import SUBSYS

#: Attribute files as a copy of /sys holds them (one value per file, a line end after it).
ATTRIBUTES = {
    "sys/block/nvme4c4n1/queue_depth": "3", "sys/block/nvme4c53n1/queue_depth": "15",
    "sys/block/nvme4c102n1/queue_depth": "2", "sys/block/nvme4c151n1/queue_depth": "13",
    "sys/block/nvme4c4n1/ana_state": "non-optimized", "sys/block/nvme4c53n1/ana_state": "optimized",
    "sys/block/nvme4c151n1/diag/command_error_count": "2", "sys/block/nvme4c151n1/diag/command_retry_count": "9",
    "sys/block/nvme4c151n1/diag/multipath_failover_count": "4",
    "sys/class/nvme/nvme53/diag/reset_count": "1",
    # The same path again where the kernel's link leads, and files that are not multipath attributes.
    "sys/devices/virtual/nvme-fabrics/ctl/nvme4/nvme4c4n1/queue_depth": "3",
    "sys/block/nvme4c4n1/queue/nr_requests": "128", "sys/class/nvme/nvme53/model": "NetApp ONTAP Controller",
}


def _nvme_tree(root: Path, attributes: dict[str, str]) -> Path:
    listing = root / "sos_commands" / "nvme" / "nvme_list-subsys"
    listing.parent.mkdir(parents=True)
    shutil.copy(SUBSYS, listing)
    for name, value in attributes.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(value + "\n")
    return root


def test_the_trees_sys_gives_the_snapshot_and_the_counters(tmp_path: Path) -> None:
    tree = _nvme_tree(tmp_path / "sosreport-host-2026", ATTRIBUTES)
    done = pathlab("import", str(tree))
    assert done.returncode == 0, done.stderr
    sysfs = tree / "sys"
    # 3 + 15 + 2 + 13 in flight on subsystem 4's paths (33: not the default 32 of a host without figures).
    assert (f"outstanding = 33  # {sysfs}: queue_depth of nvme4c102n1 2 (block/nvme4c102n1/queue_depth), nvme4c151n1 13 "
            "(block/nvme4c151n1/queue_depth), nvme4c4n1 3 (block/nvme4c4n1/queue_depth)") in done.stdout
    assert 'iopolicy = "queue-depth" }' in done.stdout
    assert "read sys" in done.stderr and "read once: devices/virtual/nvme-fabrics/ctl/nvme4/nvme4c4n1/queue_depth" \
        in done.stderr
    advised = pathlab("advise", str(tree), "--format", "json", "--seeds", "2", "--duration", "1s", "--warmup", "0.5s")
    assert advised.returncode == 0, advised.stderr
    assert (f"{sysfs}, class/nvme/nvme53/diag/reset_count: diag/reset_count 1: counts since creation" in advised.stdout)
    assert f"{sysfs}, block/nvme4c151n1/diag/command_error_count: diag/command_error_count 2" in advised.stdout


def test_the_sys_of_a_sosreport_inside_the_folder_given_is_read(tmp_path: Path) -> None:
    """The folder a tarball was extracted into holds the sosreport's folder: its sys/ is found
    beside the listing read, as when the sosreport's folder is given."""
    tree = _nvme_tree(tmp_path / "extracted" / "sosreport-host-2026", ATTRIBUTES)
    done = pathlab("import", str(tmp_path / "extracted"))
    assert done.returncode == 0, done.stderr
    assert f"outstanding = 33  # {tree / 'sys'}: queue_depth of nvme4c102n1 2" in done.stdout
    assert 'iopolicy = "queue-depth" }' in done.stdout


def test_the_trees_sys_is_walked_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A sosreport's sys/ holds thousands of files: finding the attributes and reading them is one walk.
    tree = _nvme_tree(tmp_path / "sos", ATTRIBUTES)
    walked: list[Path] = []
    walk = os.walk

    def counted(top: Any, *args: Any, **kwargs: Any) -> Iterator[tuple[str, list[str], list[str]]]:
        walked.append(Path(top))
        return walk(top, *args, **kwargs)

    monkeypatch.setattr(os, "walk", counted)
    imported = import_files([str(tree)])
    assert "outstanding = 33" in imported.text
    assert walked.count(tree / "sys") == 1, walked


def test_a_value_the_kernel_does_not_print_names_its_file(tmp_path: Path) -> None:
    tree = _nvme_tree(tmp_path / "sos", {"sys/block/nvme4c4n1/ana_state": "optimised"})
    done = pathlab("import", str(tree))  # after what the tree gave: one error line
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("pathlab: error:")]
    assert len(errors) == 1
    line = errors[0]
    assert f"{tree / 'sys/block/nvme4c4n1/ana_state'}: line 1: ana_state 'optimised'" in line, line


def test_attributes_without_the_listing_are_left_and_said(tmp_path: Path) -> None:
    tree = tmp_path / "sos"
    (tree / "sos_commands" / "multipath").mkdir(parents=True)
    (tree / "sos_commands" / "multipath" / "multipath_-v4_-ll").write_text(MULTIPATH)
    (tree / "sys" / "block" / "nvme0c0n1").mkdir(parents=True)
    (tree / "sys" / "block" / "nvme0c0n1" / "ana_state").write_text("optimized\n")
    done = pathlab("import", str(tree))
    assert done.returncode == 0, done.stderr
    assert "sys/ holds NVMe multipath attributes, but the tree has no `nvme list-subsys`" in done.stderr
    assert 'name = "imported-linux-host"' in done.stdout


def test_the_trees_iscsi_sessions_give_the_portals(tmp_path: Path) -> None:
    tree = tmp_path / "sos"
    (tree / "sos_commands" / "multipath").mkdir(parents=True)
    (tree / "sos_commands" / "multipath" / "multipath_-v4_-ll").write_text(MULTIPATH)
    (tree / "sos_commands" / "iscsi").mkdir()
    (tree / "sos_commands" / "iscsi" / "iscsiadm_-m_session_-P_3").write_text(_sessions())
    done = pathlab("import", str(tree))
    assert done.returncode == 0, done.stderr
    assert "read sos_commands/iscsi/iscsiadm_-m_session_-P_3" in done.stderr
    assert done.stdout.count('{ name = "10.37.120.10:3260" }') == 1
    assert done.stdout.count('{ name = "10.37.121.10:3260" }') == 1
