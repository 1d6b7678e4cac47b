"""NVMe host ports (issue 22): a newer nvme-cli prints the host side of each controller's
address (`host_traddr=`, `host_iface=`, the kernel's `nvmf_get_address`; NVMe/TCP's `src_addr=`).
Controllers reached from two host ports are two host adapters, and `show --style nvme` prints each controller's host
fields back where the listing printed them. The samples are the corpus' (NetApp's host guides)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import pathlab
from pathlab.api import Scenario

CORPUS = Path(__file__).parent / "data" / "corpus" / "nvme-list-subsys"
TWO_SUBNETS = CORPUS / "006-netapp-proxmox8-tcp-two-subnets" / "bare.txt"
FC_TWO_HBAS = CORPUS / "001-netapp-ol10-fc-hostnqn-iopolicy-continued" / "bare.txt"
SOURCE_ONLY = CORPUS / "011-netapp-sles15-tcp-ragged-indent" / "bare.txt"


def _pairs(listing: str, host: str = "host_traddr") -> list[tuple[str, str]]:
    """(traddr, the host field) per controller line, as the listing prints them."""
    return sorted(re.findall(rf"\btraddr=([^,\s*]+)(?:,trsvcid=\d+)?,(?:\S*,)?{host}=([^,\s*]+)", listing))


def _imported(sample: Path, tmp_path: Path) -> Path:
    scenario = tmp_path / "host.toml"
    done = pathlab("import", str(sample), "-o", str(scenario))
    assert done.returncode == 0, done.stderr
    return scenario


@pytest.mark.parametrize("sample", [TWO_SUBNETS, FC_TWO_HBAS], ids=["tcp-two-subnets", "fc-two-hbas"])
def test_two_host_ports_are_two_adapters_and_show_prints_them_back(sample: Path, tmp_path: Path) -> None:
    scenario = _imported(sample, tmp_path)
    host = Scenario.from_text(scenario.read_text(), "imported").describe()
    by_adapter: dict[str, set[str]] = {}
    for p in host["paths"]:
        by_adapter.setdefault(p["adapter"], set()).add(p["target"])
    assert len(by_adapter) == 2, by_adapter  # two host ports, each reaching two array ports
    assert all(len(targets) == 2 for targets in by_adapter.values()), by_adapter
    done = pathlab("show", "paths", str(scenario), "--style", "nvme")
    assert done.returncode == 0, done.stderr
    wanted = _pairs(sample.read_text())
    assert len(wanted) == 4
    assert _pairs(done.stdout) == wanted


def test_fc_host_port_names_keep_their_colons(tmp_path: Path) -> None:
    done = pathlab("show", "paths", str(_imported(FC_TWO_HBAS, tmp_path)), "--style", "nvme")
    assert "host_traddr=nn-0x20000090fae0ec88:pn-0x10000090fae0ec88 live optimized" in done.stdout, done.stdout


def test_a_listing_with_source_addresses_only_shows_no_host_traddr(tmp_path: Path) -> None:
    """NetApp's SLES 15 page: four controllers over two subnets named by `src_addr` alone."""
    assert "host_traddr" not in SOURCE_ONLY.read_text()
    scenario = _imported(SOURCE_ONLY, tmp_path)
    host = Scenario.from_text(scenario.read_text(), "imported").describe()
    assert len({p["adapter"] for p in host["paths"]}) == 2
    done = pathlab("show", "paths", str(scenario), "--style", "nvme")
    assert done.returncode == 0 and "host_traddr" not in done.stdout, done.stdout
    assert _pairs(done.stdout, "src_addr") == _pairs(SOURCE_ONLY.read_text(), "src_addr")
    assert len(_pairs(done.stdout, "src_addr")) == 4
