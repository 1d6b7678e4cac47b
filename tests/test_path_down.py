"""Every importer writes a path the listing shows out of use as the same fault, through one
helper (`importer/path_down.py`): a `path_down` at 0 s whose `path` says where the listing shows
it, the kind and time the scenario's own. Samples with a dead path of each kind: ESXi (`Group
State: dead`), dm-multipath (`failed faulty`), NVMe (ANA inaccessible), and the two the SCSI host
importer builds, PowerPath (`dead`) and MPIO (`Failed`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS, pathlab, quiet
from pathlab import import_host
from pathlab.importer.path_down import FROM_START
from pathlab.importer.provenance import Assumed, Read

DATA = ROOT / "tests" / "data"


def _esxi(tmp: Path) -> list[Path]:
    devices, paths = tmp / "devices.txt", tmp / "paths.txt"
    failed = str(SCENARIOS / "cx4-alua-path-failure.toml")  # vmhba1:C0:T0 lost at 120 s
    devices.write_text(pathlab("show", "devices", failed, "--at", "150s").stdout)
    paths.write_text(pathlab("show", "paths", failed, "--at", "150s").stdout)
    return [devices, paths]


def _nvme(tmp: Path) -> list[Path]:
    sys.path.insert(0, str(ROOT / "tests"))
    from test_nvme_list_json import DOCUMENT  # namespace 7 through nvme1 inaccessible

    listing = tmp / "list-v.json"
    listing.write_text("# nvme list -v -o json\n" + DOCUMENT)
    return [listing]


def _one_changed(tmp: Path, name: str, sample: str, old: str, new: str, head: str = "") -> list[Path]:
    """`sample` (under tests/data) with its line `old` written `new`, as file `name` under `tmp`."""
    text = (DATA / sample).read_text()
    assert old in text
    listing = tmp / name
    listing.write_text(head + text.replace(old, new))
    return [listing]


def _powerpath(tmp: Path) -> list[Path]:
    alive = "  12 qla2xxx                sde         SP B0    active   alive      0      0"
    return _one_changed(tmp, "powermt.txt", "powerpath/003-vnx-linux-alua-dev-emcpowera.txt", alive,
                        alive.replace("alive      0      0", "dead       0      1"), head="Pseudo name=emcpowera\n")


def _mpio(tmp: Path) -> list[Path]:
    live = "0000000087060000 Active/Optimized   005|000|000|001   0"
    return _one_changed(tmp, "mpclaim.txt", "mpio/003-msdsm-rr-symmetric-two-paths.txt", live,
                        "0000000087060000 Failed             005|000|000|001   0")


SAMPLES = {
    "esxi": (_esxi, 8),
    "linux": (lambda tmp: [DATA / "linux" / "multipath_check-multipath-24_iscsi-failed-path.txt"], 1),
    "nvme": (_nvme, 1),
    "powerpath": (_powerpath, 1),
    "mpio": (_mpio, 1),
}


@pytest.mark.parametrize("kind", SAMPLES)
def test_each_importers_dead_path_is_the_one_fault_from_the_start(tmp_path: Path, kind: str) -> None:
    make, count = SAMPLES[kind]
    with quiet():
        host = import_host(*(str(f) for f in make(tmp_path)))
    faults = host.tables.of("faults")
    assert len(faults) == count
    for fault in faults:
        assert (fault.get("kind"), fault.get("at")) == ("path_down", "0s")
        assert fault.source("kind") is FROM_START and fault.source("at") is FROM_START
        assert isinstance(fault.source("path"), (Read, Assumed))  # where the listing shows it out of use
