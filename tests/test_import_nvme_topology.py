"""`pathlab import` of `nvme list-subsys` gets the ports and states as the host has them: two TCP
services of one address are two ports, a listing without ANA states says so, and a path in an
ANA state that takes no I/O carries none."""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

from pathlab.api import PathlabWarning
from pathlab.importer import import_files, nvme

CORPUS = Path(__file__).parent / "data" / "corpus"


def _imported(path: Path) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PathlabWarning)
        done = import_files([str(path)])
    return tomllib.loads(done.text), done.warnings


def test_four_tcp_services_of_one_address_are_four_ports() -> None:
    """nvme-cli PR 1693: four controllers on 192.168.154.10, services 4420 to 4423."""
    scenario, _ = _imported(CORPUS / "nvme-show-topology/001-nvme-cli-pr1693-four-ports-one-address/bare.txt")
    arrays = {a["name"]: a for a in scenario["arrays"]}
    assert set(arrays) == {"NVME", "TOSHIBA"}  # the nvmet target (NQN without a domain) and a local PCIe disk
    assert len(arrays["NVME"]["ports"]) == 4


def test_a_listing_without_ana_states_says_every_path_was_taken_as_optimized() -> None:
    scenario, said = _imported(CORPUS / "nvme-list-subsys/015-netapp-ubuntu2204-tcp-live-without-ana/bare.txt")
    assert any("shows no ANA state" in message for _, message in said)
    assert all(a["symmetric"] for a in scenario["arrays"])


def test_blank_separated_addresses_of_nvme_cli_1_give_their_target() -> None:
    assert nvme._target("traddr=10.0.0.1 trsvcid=4421 host_traddr=10.0.0.9", "nvme0") == "10.0.0.1:4421"
    assert nvme._target("traddr=nn-0x20:pn-0x21,host_traddr=nn-0x10:pn-0x11", "nvme0") == "nn-0x20:pn-0x21"
    assert nvme._target("", "nvme3") == "nvme3"


def test_paths_in_an_ana_state_without_io_are_down_from_the_start() -> None:
    table = pd.DataFrame([
        {"subsystem": "nvme-subsys0", "nqn": "nqn.1992-08.com.netapp:sn.1:subsystem.a", "hostnqn": None,
         "iopolicy": "round-robin", "nsid": None, "path": None, "controller": f"nvme{i}", "transport": "fc",
         "address": f"traddr=nn-0x20:pn-0x2{i},host_traddr=nn-0x10:pn-0x1{i % 2}", "state": "live",
         "ana_state": state, "line": i + 3}
        for i, state in enumerate(["optimized", "inaccessible", "optimized", "inaccessible"])])
    text, _ = nvme.build(table, "list.txt", None, "")
    faults = tomllib.loads(text).get("faults", [])
    assert len(faults) == 2
    assert all("ANA inaccessible" in line for line in text.splitlines() if line.startswith("path =") and "nvme" in line)
