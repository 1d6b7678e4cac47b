"""ESXi's SATPs as `esxcli storage nmp satp list` prints them (vSphere 6.7 Storage guide, "Display
SATPs for the Host"): a claim rule naming no PSP gives the device its SATP's default PSP, and the
plugins of the arrays pathlab does not ship (EqualLogic, SVC, Invista/VPLEX, EVA, LSI, MSA) claim
devices as the host lists them."""

from __future__ import annotations

import pytest

from pathlab import Scenario

ONE_DEVICE = """
name = "satp-default"
esxcli = ["esxcli storage nmp satp rule add -s {satp} -V {vendor}"]
[run]
duration = "1s"
[host]
name = "esx"
adapters = [{{ name = "vmhba1" }}, {{ name = "vmhba2" }}]
[[arrays]]
name = "array"
vendor = "{vendor}"
model = "BOX"
service = {{ fixed = "25us" }}
ports = [{{ name = "P0" }}, {{ name = "P1" }}]
[[fabric]]
adapters = ["vmhba1", "vmhba2"]
ports = ["array/P0", "array/P1"]
latency = "2us"
[[devices]]
name = "naa.600000000000000000000000000000b1"
array = "array"
lun = 1
[[workloads]]
name = "reads"
devices = ["naa.600000000000000000000000000000b1"]
outstanding = 4
"""


@pytest.mark.parametrize(("satp", "vendor", "psp"), [
    ("VMW_SATP_ALUA", "ACME", "VMW_PSP_MRU"),
    ("VMW_SATP_ALUA_CX", "DGC", "VMW_PSP_RR"),
    ("VMW_SATP_SYMM", "EMC", "VMW_PSP_RR"),
    ("VMW_SATP_EQL", "EQLOGIC", "VMW_PSP_FIXED"),
    ("VMW_SATP_SVC", "IBM", "VMW_PSP_FIXED"),
    ("VMW_SATP_INV", "EMC", "VMW_PSP_FIXED"),
    ("VMW_SATP_EVA", "HP", "VMW_PSP_FIXED"),
    ("VMW_SATP_LSI", "LSI", "VMW_PSP_MRU"),
    ("VMW_SATP_MSA", "HP", "VMW_PSP_MRU"),
    ("VMW_SATP_DEFAULT_AP", "ACME", "VMW_PSP_MRU"),
])
def test_a_claim_rule_without_a_psp_gives_the_satps_default_psp(satp: str, vendor: str, psp: str) -> None:
    (device,) = Scenario.from_text(ONE_DEVICE.format(satp=satp, vendor=vendor), "satp.toml").devices
    assert (device.satp, device.policy.name) == (satp, psp)
