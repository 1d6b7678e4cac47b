"""A sosreport or vm-support tree given as a folder: the files pathlab reads are found by the names
those tools give them, the most informative of each kind is taken, and what was left is said."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

from conftest import quiet
from pathlab.api import PathlabWarning, ScenarioError
from pathlab.readers.bundle import files_in

LINUX = Path(__file__).parent / "data" / "linux"
ESXCLI = Path(__file__).parent / "data" / "esxcli"


def _place(root: Path, inside: str, sample: Path | None) -> Path:
    path = root / inside
    path.parent.mkdir(parents=True, exist_ok=True)
    if sample is None:
        path.write_text("")
    else:
        shutil.copy(sample, path)
    return path


def _files_in(root: Path) -> tuple[list[str], list[str]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", PathlabWarning)
        found = files_in(root)
    return found, [str(w.message) for w in seen]


def test_a_sosreport_tree_gives_its_ll_listing_conf_and_diskstats(tmp_path: Path) -> None:
    root = tmp_path / "sosreport-db01-2026-11-25"
    ll = _place(root, "sos_commands/multipath/multipath_-v4_-ll", LINUX / "multipath_check-multipath-01_falcon-ipstor.txt")
    _place(root, "sos_commands/multipath/multipath_-l", LINUX / "multipath-l_fusioninventory-multipath1.txt")
    _place(root, "sos_commands/multipath/multipath_-t", None)  # a command whose output sos kept empty
    conf = _place(root, "etc/multipath.conf", LINUX / "multipath-conf_netapp-customize-parameters.txt")
    stats = _place(root, "proc/diskstats", LINUX / "diskstats_sysstat-root1.txt")
    _place(root, "sys/block/sda/stat", LINUX / "diskstats_sysstat-root1.txt")  # never walked into
    found, said = _files_in(root)
    assert found == [str(ll), str(conf), str(stats)]
    assert any("read sos_commands/multipath/multipath_-v4_-ll (left: sos_commands/multipath/multipath_-l)" in w
               for w in said), said


def test_a_vm_support_tree_gives_its_device_list_and_nmp_path_list(tmp_path: Path) -> None:
    root = tmp_path / "esx-esx01-2026-11-25--10.00-1234"
    devices = _place(root, "commands/localcli_storage-nmp-device-list.txt", ESXCLI / "nmp-device-list-alua.txt")
    nmp = _place(root, "commands/localcli_storage-nmp-path-list.txt", ESXCLI / "nmp-path-list-svc-iscsi-rr.txt")
    _place(root, "commands/localcli_storage-core-path-list.txt", ESXCLI / "core-path-list-sas-fujitsu.txt")
    found, said = _files_in(root)
    assert found == [str(devices), str(nmp)]
    assert any("left: commands/localcli_storage-core-path-list.txt" in w for w in said), said


def test_a_folder_without_captures_is_refused_naming_what_was_looked_for(tmp_path: Path) -> None:
    _place(tmp_path, "notes.txt", LINUX / "multipath-l_fusioninventory-multipath1.txt")
    with pytest.raises(ScenarioError) as refused:
        files_in(tmp_path)
    assert refused.value.args[0] == str(tmp_path)
    assert "multipath_-v4_-ll" in refused.value.args[2] and "localcli_storage-nmp-device-list.txt" in refused.value.args[2]


def test_import_reads_a_sosreport_folder(tmp_path: Path) -> None:
    from pathlab.importer import import_files

    root = tmp_path / "sosreport-db01"
    _place(root, "sos_commands/multipath/multipath_-v4_-ll", LINUX / "multipathd-topology_etva-rdac-ghost.txt")
    with quiet():
        done = import_files([str(root)])
    assert "multipath_-v4_-ll" in done.text.splitlines()[0]
    assert "[[devices]]" in done.text


def test_import_takes_a_vm_support_folder(tmp_path: Path) -> None:
    """The listings of one host (pathlab's own view of the C1 host) where vm-support keeps them."""
    from conftest import SCENARIOS, pathlab

    root = tmp_path / "esx-esx01-vm-support"
    for listing, name in (("devices", "localcli_storage-nmp-device-list.txt"), ("paths", "localcli_storage-nmp-path-list.txt")):
        shown = pathlab("show", listing, str(SCENARIOS / "c1-vmax-1lun.toml"))
        assert shown.returncode == 0, shown.stderr
        (root / "commands").mkdir(parents=True, exist_ok=True)
        (root / "commands" / name).write_text(shown.stdout)
    done = pathlab("import", str(root))
    assert done.returncode == 0, done.stderr
    assert "localcli_storage-nmp-device-list.txt" in done.stdout.splitlines()[0]
    assert done.stdout.count("[[devices]]") == 1
