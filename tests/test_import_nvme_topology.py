"""`pathlab import` of `nvme list-subsys` gets the ports and states as the host has them: two TCP
services of one address are two ports, a listing without ANA states says so, and a path in an
ANA state that takes no I/O carries none."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from conftest import quiet
from pathlab.api import ScenarioError
from pathlab.importer import import_files, nvme
from pathlab.importer.nvme_namespaces import controllers

CORPUS = Path(__file__).parent / "data" / "corpus"


def _imported(path: Path) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    with quiet():
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
    host, _, _ = nvme.build(table, "list.txt", None, "")
    text = host.render()
    faults = tomllib.loads(text).get("faults", [])
    assert len(faults) == 2
    assert all("ANA inaccessible" in line for line in text.splitlines() if line.startswith("path =") and "nvme" in line)


def test_each_namespace_is_a_device_owned_by_the_controller_of_its_optimized_port() -> None:
    """nvme-cli PR 1693: namespace 1 optimized through 4420, 2 through 4421, 3 through 4422, 4
    through 4423; the local Toshiba drive is PCIe, without ANA."""
    scenario, _ = _imported(CORPUS / "nvme-show-topology/001-nvme-cli-pr1693-four-ports-one-address/bare.txt")
    arrays = {a["name"]: a for a in scenario["arrays"]}
    controller_of = {p["name"]: p["controller"] for p in arrays["NVME"]["ports"]}
    owner = {d["name"]: d.get("owner") for d in scenario["devices"]}
    assert {f"nvmet-test/ns{n}": controller_of[f"192.168.154.10:{4419 + n}"] for n in range(1, 5)} == \
        {k: v for k, v in owner.items() if k.startswith("nvmet-test")}
    assert len({owner[f"nvmet-test/ns{n}"] for n in range(1, 5)}) == 4
    assert arrays["TOSHIBA"]["tpgs"] is False and arrays["TOSHIBA"]["symmetric"] is True
    assert [p["name"] for p in arrays["TOSHIBA"]["ports"]] == ["0000:3d:00.0"]
    assert {a["name"] for a in scenario["host"]["adapters"]} == {"tcp0", "pcie1"}


def _row(ns: int, controller: str, state: str) -> SimpleNamespace:
    return SimpleNamespace(subsystem="nvme-subsys0", nsid=ns, controller=controller, ana_state=state)


def test_namespaces_whose_optimized_ports_overlap_cannot_each_own_one_controller() -> None:
    """Namespace 1 optimized through P1 and P2, namespace 2 through P2 and P3: no grouping of the
    ports into controllers gives both; the first optimized port's controller owns, and it is said."""
    states = {1: {"P1": "optimized", "P2": "optimized", "P3": "non-optimized"},
              2: {"P1": "non-optimized", "P2": "optimized", "P3": "optimized"}}
    rows = [_row(ns, port, state) for ns, by_port in states.items() for port, state in by_port.items()]
    found = controllers(rows, {("nvme-subsys0", p): ("NVME", p) for p in ("P1", "P2", "P3")})
    assert found.of_port == {("NVME", "P1"): "A", ("NVME", "P2"): "B", ("NVME", "P3"): "C"}
    assert found.owner == {("nvme-subsys0", 1): "A", ("nvme-subsys0", 2): "B"}
    assert found.split == [("nvme-subsys0", 1), ("nvme-subsys0", 2)]


def test_two_sides_keep_the_optimized_side_as_a() -> None:
    """One namespace, the list-subsys case: the optimized ports are controller A, the others B."""
    rows = [_row(None, p, s) for p, s in (("P0", "non-optimized"), ("P1", "optimized"), ("P2", "optimized"))]
    found = controllers(rows, {("nvme-subsys0", p): ("NVME", p) for p in ("P0", "P1", "P2")})
    assert found.of_port == {("NVME", "P0"): "B", ("NVME", "P1"): "A", ("NVME", "P2"): "A"}
    assert found.owner == {("nvme-subsys0", None): "A"} and found.split == []


def test_show_topology_keeps_the_nsid_and_a_pcie_drives_address() -> None:
    from pathlab.output import nvme as view

    assert view._nsid("nvmet-test/ns4", 1) == 4 and view._nsid("nqn.2014-08.org.example:one", 2) == 2
    assert view.transport("pcie1") == "pcie" and view._address("TOSHIBA/0000:3d:00.0", "pcie") == "0000:3d:00.0"


# nvme-cli 2.x's `nvme list-subsys` of a NetApp subsystem over TCP (the shape of corpus sample 012),
# the controllers' states and the iopolicy line given.
LIST_SUBSYS = """\
nvme-subsys0 - NQN=nqn.1992-08.com.netapp:sn.a2d41235b78211efb57dd039eab67a95:subsystem.nvme1
               hostnqn=nqn.2014-08.org.nvmexpress:uuid:4c4c4544-0035-4b10-804b-b2c04f344d33
{iopolicy}\\
{controllers}"""
ROW = " +- nvme{i} tcp traddr=192.168.111.{t},trsvcid=4420,host_traddr=192.168.111.80,src_addr=192.168.111.80 {state}"


def _listing(tmp_path: Path, states: list[str], iopolicy: str = "") -> Path:
    listing = tmp_path / "subsys.txt"
    rows = "\n".join(ROW.format(i=i, t=66 + i, state=s) for i, s in enumerate(states))
    listing.write_text(LIST_SUBSYS.format(iopolicy=f"               iopolicy={iopolicy}\n" if iopolicy else "",
                                          controllers=rows + "\n"))
    return listing


def _import(listing: Path) -> Any:
    with quiet():
        return import_files([str(listing)])


def test_a_resetting_controller_as_the_only_path_is_a_finding_and_carries_no_io(tmp_path: Path) -> None:
    listing = _listing(tmp_path, ["resetting"])
    done = _import(listing)
    assert [(f.title, f.evidence) for f in done.findings] == [
        ("nvme0 (tcp traddr=192.168.111.66,trsvcid=4420) of nvme-subsys0: resetting: carries no I/O until it reconnects "
         "(captured)", f"{listing}, line 4: nvme0 is resetting; the import takes its paths as down"),
        ("nvme-subsys0 has no usable path: its I/O waits while a controller reconnects, and fails when none is left "
         "(captured)", f"{listing}, line 4: 1 path(s), none live with an ANA state that takes I/O")]
    faults = tomllib.loads(done.text)["faults"]
    assert [(f["kind"], f["at"]) for f in faults] == [("path_down", "0s")]
    assert f"# {listing}, line 4: nvme0 is resetting" in done.text


@pytest.mark.parametrize("state", ["connecting", "deleting", "dead"])
def test_a_controller_not_live_beside_a_live_one_leaves_one_path(tmp_path: Path, state: str) -> None:
    listing = _listing(tmp_path, ["live", state])
    titles = [f.title for f in _import(listing).findings]
    assert titles[0].startswith(f"nvme1 (tcp traddr=192.168.111.67,trsvcid=4420) of nvme-subsys0: {state}: carries no I/O")
    assert titles[1:] == ["nvme-subsys0: one path: no redundancy left (captured)"]
    assert not [f.title for f in _import(_listing(tmp_path, ["live", "live"])).findings]


def test_nvme_listing_findings_agree_with_the_corpus_hand_verdicts() -> None:
    """Samples whose hand verdict names one path get that finding; healthy ones get none."""
    for sample in sorted(CORPUS.glob("nvme-*/*/expected.toml")):
        spec = tomllib.loads(sample.read_text())
        try:
            titles = [f.title for f in _import(sample.parent / "bare.txt").findings]
        except ScenarioError:  # refused with one line: test_corpus_readers pins which and why
            continue
        if any("one path" in f["text"] for f in spec["findings"]):
            assert any("one path: no redundancy left" in t for t in titles), (sample, titles)
        if spec["verdict"] == "healthy":
            assert titles == [], (sample, titles)


def test_an_iopolicy_the_listing_shows_is_read_with_its_line_and_one_it_does_not_is_said_assumed(tmp_path: Path) -> None:
    listing = _listing(tmp_path, ["live", "live"], iopolicy="queue-depth")
    done = _import(listing)
    (device,) = tomllib.loads(done.text)["devices"]
    assert device["policy"] == {"name": "nvme", "iopolicy": "queue-depth"}
    assert f'iopolicy = "queue-depth" }}  # {listing}, line 3: iopolicy=queue-depth' in done.text
    assert not [m for k, m in done.warnings if k.endswith(".policy")]
    assert not done.undetermined
    # Not shown: the scenario names none (the claim takes the kernel's numa), says so as assumed,
    # and records it as not determined, naming the file that would settle it.
    listing = _listing(tmp_path, ["live", "live"])
    done = _import(listing)
    (device,) = tomllib.loads(done.text)["devices"]
    assert device["policy"] == {"name": "nvme"}
    assert "# default: " in next(line for line in done.text.splitlines() if line.startswith("policy ="))
    why = f"the iopolicy is not in the captures ({listing} shows no `iopolicy=`): not determined; simulated as the " \
          "kernel's default numa"
    settle = "/sys/class/nvme-subsystem/nvme-subsys0/iopolicy would tell"
    assert ("devices.nvme-subsys0.policy", f"{why}; {settle}") in done.warnings
    assert [(u.device, u.setting, u.why, u.settle) for u in done.undetermined] == [(device["name"], "iopolicy", why, settle)]


def test_an_iopolicy_no_capture_shows_is_never_compared_with_the_vendors_practice(tmp_path: Path) -> None:
    """The subsystem's model named (as sysfs would give it) and the iopolicy set to numa: a NetApp
    ONTAP host departs from NetApp's queue-depth only where the iopolicy was read; where no capture
    showed it, the finding says what would settle it instead."""
    from pathlab.advisor.findings import practice_findings
    from pathlab.importer.host import import_host

    with quiet():
        host = import_host(_listing(tmp_path, ["live", "live"]))
    devices = host.scenario.with_set(['arrays.0.vendor="NVME"', 'arrays.0.model="NetApp ONTAP Controller"',
                                      'devices.0.policy={ name = "nvme", iopolicy = "numa" }']).devices
    (compared,) = practice_findings(devices)
    assert compared.title.endswith(": iopolicy numa where it says queue-depth: not NetApp ONTAP (FAS/AFF/ASA)'s practice")
    (unsettled,) = practice_findings(devices, undetermined=host.undetermined)
    assert unsettled.title == (f"{devices[0].name}: iopolicy: {host.undetermined[0].why}; NetApp says queue-depth: "
                               "/sys/class/nvme-subsystem/nvme-subsys0/iopolicy would tell")


def test_an_iopolicy_pathlab_does_not_know_is_refused_with_its_line(tmp_path: Path) -> None:
    listing = _listing(tmp_path, ["live", "live"], iopolicy="weighted")
    with pytest.raises(ScenarioError) as refused:
        _import(listing)
    assert refused.value.args[1:] == ("line 3", "iopolicy=weighted: not one of numa, round-robin, queue-depth")


def test_an_iopolicy_of_a_json_listing_names_its_subsystem(tmp_path: Path) -> None:
    listing = tmp_path / "subsys.json"
    listing.write_text(json.dumps([{"HostNQN": "nqn.2014-08.org.nvmexpress:uuid:4c4c4544", "Subsystems": [{
        "Name": "nvme-subsys0", "NQN": "nqn.1992-08.com.netapp:sn.a2:subsystem.nvme1", "IOPolicy": "queue-depth",
        "Paths": [{"Name": f"nvme{i}", "Transport": "tcp", "Address": f"traddr=192.168.111.{66 + i},trsvcid=4420",
                   "State": "live", "ANAState": "optimized"} for i in range(2)]}]}]))
    done = _import(listing)
    assert f'iopolicy = "queue-depth" }}  # {listing}: nvme-subsys0\'s IOPolicy' in done.text


def test_the_subsystems_sysfs_iopolicy_is_read_where_the_listing_shows_none(tmp_path: Path) -> None:
    listing = _listing(tmp_path, ["live", "live"])
    sysfs = tmp_path / "sysfs.txt"
    sysfs.write_text("/sys/class/nvme-subsystem/nvme-subsys0/iopolicy:round-robin\n"
                     "/sys/block/nvme0c0n1/diag/multipath_failover_count:0\n")
    with quiet():
        done = import_files([str(listing), str(sysfs)])
    (device,) = tomllib.loads(done.text)["devices"]
    assert device["policy"] == {"name": "nvme", "iopolicy": "round-robin"}
    assert f'iopolicy = "round-robin" }}  # {sysfs}, line 1: iopolicy round-robin' in done.text
    assert not [m for k, m in done.warnings if k.endswith(".policy")]
    sysfs.write_text("/sys/class/nvme-subsystem/nvme-subsys0/iopolicy:fastest\n")
    with pytest.raises(ScenarioError) as refused:
        import_files([str(listing), str(sysfs)])
    assert refused.value.args[1:] == ("line 1", "iopolicy 'fastest': one of numa, round-robin, queue-depth")


def test_a_one_controller_subsystem_read_non_optimized_is_imported_non_optimized(tmp_path: Path) -> None:
    """nvme-cli issue 1520's one TCP controller, its ANA state made non-optimized: the namespace
    is owned by a controller its one path does not lead to, so the path is non-optimized as read."""
    from pathlab.api import Scenario

    listing = tmp_path / "list-subsys.txt"
    sample = CORPUS / "nvme-list-subsys/020-nvme-cli-issue1520-one-tcp-path-prompt/bare.txt"
    listing.write_text(sample.read_text().replace("live optimized", "live non-optimized"))
    scenario, _ = _imported(listing)
    assert [p["controller"] for p in scenario["arrays"][0]["ports"]] == ["A"]
    assert scenario["devices"][0]["owner"] == "B"
    with quiet():
        done = import_files([str(listing)])
    assert [p["alua"] for p in Scenario.from_text(done.text, "host.toml").describe()["paths"]] == ["ANO"]
