"""Two things of one name in a host's listings are refused naming the user's file, lines and names,
never the scenario's internal keys (`devices.1.name … is defined twice`, `fabric: target number 0
is given twice`): two NVMe subsystems of one NQN, and HPP devices of two arrays behind one target."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import quiet
from pathlab.api import ScenarioError
from pathlab.importer import import_files

LISTING = Path(__file__).parent / "data" / "corpus" / "nvme-list-subsys" / "009-netapp-rocky10-tcp-two-subnets" / "bare.txt"
NQN = "nqn.1992-08.com.netapp:sn.64e65e6caae711ef9668d039ea951c46:subsystem.nvme4"

#: Two HPP devices of two vendors' arrays behind target 0 of vmhba1 and vmhba2 (made up in
#: `esxcli storage hpp device list`'s form).
HPP = "\n".join(f"""\
naa.{naa}
   Device Display Name: {vendor} Fibre Channel Disk (naa.{naa})
   Path Selection Scheme: LB-RR
   Path Selection Scheme Config: {{iops=1,bytes=10485760;}}
   Current Path: vmhba1:C0:T0:L{lun}
   Working Path Set: vmhba1:C0:T0:L{lun}, vmhba2:C0:T0:L{lun}
   Is SSD: true
   Is Local: false
   Paths: vmhba1:C0:T0:L{lun}, vmhba2:C0:T0:L{lun}
   Use ANO: false
""" for naa, vendor, lun in (("624a9370000000000000000000000001", "PURE", 1),
                             ("600a0980000000000000000000000002", "NETAPP", 2)))


def _refused(path: Path) -> tuple[str, ...]:
    with quiet(), pytest.raises(ScenarioError) as refused:
        import_files([str(path)])
    return refused.value.args


def test_two_subsystems_of_one_nqn_are_refused_naming_both(tmp_path: Path) -> None:
    text = LISTING.read_text()
    other = text.replace("nvme-subsys4", "nvme-subsys5")
    for old in ("nvme102 ", "nvme151 ", "nvme4 ", "nvme53 "):
        other = other.replace(old, old.replace("nvme", "nvme2"))
    (tmp_path / "list-subsys.txt").write_text(text + other)
    assert _refused(tmp_path / "list-subsys.txt") == (
        str(tmp_path / "list-subsys.txt"), "line 11",
        f"nvme-subsys5 (from line 11) has the NQN of nvme-subsys4 (from line 4), {NQN}: a device is named by its "
        "subsystem's NQN; two hosts' listings in one file? give one host's")


def test_devices_of_two_arrays_behind_one_target_are_refused_naming_both(tmp_path: Path) -> None:
    (tmp_path / "hpp.txt").write_text(HPP)
    assert _refused(tmp_path / "hpp.txt") == (
        str(tmp_path / "hpp.txt"), "line 12",
        "vmhba1:C0:T0:L2 (naa.600a0980000000000000000000000002, array NETAPP) and vmhba1:C0:T0:L1 (line 1: "
        "naa.624a9370000000000000000000000001, array PURE) reach one target of vmhba1: a target is one array's port "
        "(arrays are told apart by the vendor in each device's Display Name: a renamed device, or two hosts' listings?)")
