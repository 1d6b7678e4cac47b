"""Issue 32: `esxcli storage hpp path list` given beside an `hpp device list` is read (it was
refused as no nmp or core path list) and shown back in its own style. NetApp's ONTAP host guide
for ESXi 7 (corpus `esxcli-hpp-path-list/001`): four NVMe/FC paths of one namespace, all in
`TPG_id=0`, two `active` (AO) and two `active unoptimized` (ANO), each controller's own state of
the group; the device list beside it is written in the device list's fields for that namespace."""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

from pathlab import Scenario
from pathlab.importer import import_files
from pathlab.output.configuration import configuration, text
from pathlab.readers import esxcli_paths

PATHS = Path(__file__).parent / "data" / "corpus" / "esxcli-hpp-path-list" / "001-netapp-esxi7-nvme-fc-two-ao-two-ano" \
    / "bare.txt"
UUID = "uuid.5084e29a6bb24fbca5ba076eda8ecd7e"
DEVICES = f"""\
{UUID}
   Device Display Name: NVMe Fibre Channel Disk ({UUID})
   Path Selection Scheme: LB-RR
   Path Selection Scheme Config: {{iops=1,bytes=10485760;}}
   Current Path: vmhba64:C0:T0:L1
   Working Path Set: vmhba64:C0:T0:L1, vmhba65:C0:T1:L1
   Is SSD: true
   Is Local: false
   Paths: vmhba64:C0:T0:L1, vmhba65:C0:T1:L1, vmhba65:C0:T0:L1, vmhba64:C0:T1:L1
   Use ANO: false
"""


def test_the_path_list_is_read_with_each_paths_group_state_and_target() -> None:
    table = esxcli_paths.read(PATHS)
    assert table.attrs["listing"] == "esxcli storage hpp path list"
    assert [(r.runtime_name, r.group_state, r.tpg_id, r.tpg_state, r.port_group, r.line) for r in table.itertuples()] == [
        ("vmhba64:C0:T0:L1", "active", 0, "AO", "0-AO", 1), ("vmhba65:C0:T1:L1", "active", 0, "AO", "0-AO", 8),
        ("vmhba65:C0:T0:L1", "active unoptimized", 0, "ANO", "0-ANO", 15),
        ("vmhba64:C0:T1:L1", "active unoptimized", 0, "ANO", "0-ANO", 22)]
    assert table["path"][0] == f"fc.200034800d6d7268:210034800d6d7268-fc.201700a098dfe3d1:201800a098dfe3d1-{UUID}"


def test_beside_its_device_list_it_imports_each_controllers_state_and_shows_back_as_read(tmp_path: Path) -> None:
    devices = tmp_path / "hpp-device-list.txt"
    devices.write_text(DEVICES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        imported = import_files([str(devices), str(PATHS)]).text
    values = tomllib.loads(imported)
    (array,) = values["arrays"]
    assert array["controllers"] == [{"name": "TPG0-AO"}, {"name": "TPG0-ANO"}]
    assert [p["controller"] for p in array["ports"]] == ["TPG0-AO", "TPG0-AO", "TPG0-ANO", "TPG0-ANO"]
    assert values["devices"][0]["owner"] == "TPG0-AO"
    scenario = Scenario.from_text(imported, "imported.toml")
    assert text(configuration(scenario, "devices", "esxi")) == DEVICES
    listing = PATHS.read_text().strip("\n")
    assert sorted(text(configuration(scenario, "paths", "esxi")).strip("\n").split("\n\n")) == \
        sorted(listing.split("\n\n"))
