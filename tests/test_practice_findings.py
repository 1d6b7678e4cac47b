"""A device set apart from its array vendor's published practice is a finding that names the
setting, the vendor's value and its source; a device that follows it, or whose vendor publishes
nothing for its stack, is not."""

from __future__ import annotations

from typing import Any

from pathlab.advisor.findings import practice_findings
from pathlab.devices import Array, Device, Policy, Status


def _device(stack: str, vendor: str, model: str, policy: str, **params: Any) -> Device:
    return Device("naa.1", "esx01", stack, Array("a", vendor, model), None, Policy(policy, params), Status("x", {}))


def test_an_ontap_lun_on_fixed_is_told_netapps_round_robin() -> None:
    (found,) = practice_findings([_device("esxi", "NETAPP", "LUN C-Mode", "VMW_PSP_FIXED")])
    assert "PSP VMW_PSP_FIXED where it says VMW_PSP_RR" in found.title
    assert "NetApp ONTAP" in found.title and "esxcli" in found.evidence


def test_a_3par_lun_at_iops_1000_is_told_iops_1() -> None:
    (found,) = practice_findings([_device("esxi", "3PARdata", "VV", "VMW_PSP_RR", type="iops", iops=1000)])
    assert "round robin iops 1000 where it says 1" in found.title


def test_a_device_that_follows_the_practice_is_no_finding() -> None:
    assert practice_findings([_device("esxi", "3PARdata", "VV", "VMW_PSP_RR", type="iops", iops=1)]) == []
    assert practice_findings([_device("linux-nvme", "NVME", "NetApp ONTAP Controller", "nvme", iopolicy="queue-depth")]) == []


def test_an_ontap_nvme_namespace_on_numa_is_told_queue_depth() -> None:
    (found,) = practice_findings([_device("linux-nvme", "NVME", "NetApp ONTAP Controller", "nvme", iopolicy="numa")])
    assert "iopolicy numa where it says queue-depth" in found.title


def test_no_finding_where_the_vendor_publishes_nothing_for_the_stack() -> None:
    assert practice_findings([_device("esxi", "IBM", "2145", "VMW_PSP_FIXED")]) == []
