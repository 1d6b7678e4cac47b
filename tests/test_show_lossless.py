"""`show` is lossless and honest (issue 32, item 3): a listing made up at random by the tool's own
printing rules (`generated_multipath.py`) is imported, shown in its own style, and read back by
`show` prints it back byte for byte: every value exactly as printed, and nothing else.

Seeded (hypothesis, derandomized): the same listings every run."""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

import generated_esxcli
import generated_mpclaim
import generated_nvme
import generated_nvme_list
import generated_powermt
from generated_multipath import Map, listings
from pathlab.api import Scenario
from pathlab.importer import nvme
from pathlab.importer.linux import LinuxCaptures, build
from pathlab.output.configuration import configuration, text
from pathlab.readers import multipath_ll, nvme_subsys

#: Listings per test and run (about 80 ms each: the reader's and importer's pandas tables cost
#: most of it): the file stays within a few seconds. PATHLAB_LOSSLESS_EXAMPLES=3000 runs more.
EXAMPLES = int(os.environ.get("PATHLAB_LOSSLESS_EXAMPLES", "30"))
_DIR = tempfile.TemporaryDirectory(prefix="pathlab-lossless-")


def _read(listing: str, name: str) -> dict[str, Any]:
    path = Path(_DIR.name) / name
    path.write_text(listing)
    return multipath_ll.read(path)


def shown_linux(listing: str, style: str = "linux", at: str = "0s", set: dict[str, Any] | None = None) -> str:  # noqa: A002
    """`pathlab import` of the listing, then `pathlab show paths --style STYLE [--at] [--set]`."""
    read = _read(listing, "multipath-ll.txt")
    file = str(Path(_DIR.name) / "multipath-ll.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scenario_text = build(LinuxCaptures(read["maps"], read["paths"], files={"multipath": file}))[0].render()
        scenario = Scenario.from_text(scenario_text, "imported.toml", set=set)
        return text(configuration(scenario, "paths", style, at=at))


def shown_nvme(listing: str, suffix: str = ".txt") -> str:
    """`pathlab import` of an `nvme list-subsys` listing, then `pathlab show paths --style nvme`."""
    path = Path(_DIR.name) / f"list-subsys{suffix}"
    path.write_text(listing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scenario_text = nvme.build(nvme_subsys.read(path), str(path), None, "")[0].render()
        return text(configuration(Scenario.from_text(scenario_text, "imported.toml"), "paths", "nvme"))


def shown_esxi(devices: str, paths: str, commands: tuple[str, str] = ("", "")) -> tuple[str, str]:
    """`pathlab import` of an esxcli device list and path list (each after its command line where
    `commands` gives one), then `pathlab show devices` and `show paths` in their style."""
    from pathlab.importer import import_files

    device_file, path_file = Path(_DIR.name) / "device-list.txt", Path(_DIR.name) / "path-list.txt"
    device_file.write_text(commands[0] + devices)
    path_file.write_text(commands[1] + paths)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scenario = Scenario.from_text(import_files([str(device_file), str(path_file)]).text, "imported.toml")
        return text(configuration(scenario, "devices", "esxi")), text(configuration(scenario, "paths", "esxi"))


def _text(v: Any) -> str | None:
    return None if v is None or str(v) in ("<NA>", "nan", "None") else str(v)


#: A map's header and properties, and a path's own fields, as the reader gives them.
MAP_FIELDS = ("name", "wwid", "dm", "vendor", "product", "size", "features", "hwhandler", "wp")
PATH_FIELDS = ("map", "hctl", "device", "dev_t", "dm_state", "checker_state", "online_state")


def fields(listing: str, name: str) -> tuple[list[tuple[str | None, ...]], list[tuple[str | None, ...]]]:
    """Every map's and every path's own values (the groups aside), in a stable order."""
    read = _read(listing, name)
    maps = [tuple(_text(getattr(m, c)) for c in MAP_FIELDS) for m in read["maps"].itertuples()]
    paths = sorted(tuple(_text(getattr(p, c)) for c in PATH_FIELDS) for p in read["paths"].itertuples())
    return maps, paths


SETTINGS = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(listings())
def test_multipath_ll_every_value_shown_as_read(drawn: tuple[str, list[Map]]) -> None:
    """Every map's name, WWID, dm device, vendor, product, size, features, handler and wp, and
    every path's H:C:T:L, device, major:minor and states come back exactly, and nothing else:
    whatever groups the import made of them."""
    listing, _ = drawn
    assert fields(shown_linux(listing), "shown.txt") == fields(listing, "multipath-ll.txt")


@SETTINGS
@given(listings(shapes=("one", "failover")))
def test_multipath_ll_shown_back_byte_for_byte(drawn: tuple[str, list[Map]]) -> None:
    """Printed by the same rules (`print.c`'s, padding included), a listing of maps in one group,
    or one path per group, comes back byte for byte: groups, priorities and statuses too."""
    listing, _ = drawn
    assert shown_linux(listing) == listing


@SETTINGS
@given(listings(shapes=("one", "failover"), gone=True))
def test_a_map_whose_paths_are_gone_is_shown_back_byte_for_byte(drawn: tuple[str, list[Map]]) -> None:
    """A map whose every path multipathd knows no device of (print.c's `#:#:#:#`, `-`, `#:#`) has
    nothing to simulate: the import keeps it as read (`[[unsimulated]]`) and `show` prints it back
    at its place among the others."""
    listing, _ = drawn
    assert shown_linux(listing) == listing


@SETTINGS
@given(listings(shapes=("one", "failover"), checked=False))
def test_multipath_l_shown_back_byte_for_byte(drawn: tuple[str, list[Map]]) -> None:
    """`multipath -l` (no checker, no prioritizer) shown in its own style comes back byte for byte."""
    listing, _ = drawn
    assert shown_linux(listing, style="linux-l") == listing


@SETTINGS
@given(generated_nvme.listings())
def test_nvme_list_subsys_shown_back_byte_for_byte(listing: str) -> None:
    """nvme-cli 1.x and 2.x text: every subsystem's name, NQN, host NQN and iopolicy, every
    controller's name, transport, address (host side too), state and ANA state, as printed."""
    assert shown_nvme(listing) == listing


@SETTINGS
@given(generated_esxcli.listings())
def test_esxcli_device_and_path_lists_shown_back_byte_for_byte(lists: tuple[str, str]) -> None:
    """ESXi 5.0 and 5.5-8 field sets: every device's display name, SATP and PSP with their
    configs, custom config, working paths and flags, every path's UID, group state, priority and
    configs, as printed (the path blocks in any order: ESXi's is not a value)."""
    devices, paths = shown_esxi(*lists)
    assert devices == lists[0]
    assert sorted(paths.split("\n\n")) == sorted(lists[1].split("\n\n"))


@SETTINGS
@given(generated_esxcli.hpp_device_lists())
def test_hpp_device_list_shown_back_byte_for_byte(listing: str) -> None:
    """ESXi 7 and 8's `esxcli storage hpp device list`: every device's display name, scheme and
    config, current path, working path set, flags and paths, as printed (no SATP: HPP has none)."""
    from pathlab.importer import import_files

    path = Path(_DIR.name) / "hpp-device-list.txt"
    path.write_text(listing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scenario = Scenario.from_text(import_files([str(path)]).text, "imported.toml")
        assert text(configuration(scenario, "devices", "esxi")) == listing


@SETTINGS
@given(generated_esxcli.hpp_lists())
def test_hpp_device_and_path_lists_shown_back_byte_for_byte(lists: tuple[str, str]) -> None:
    """ESXi 7 and 8's `esxcli storage hpp device list` with its `hpp path list`: every device's
    block as printed, every path's name, runtime name, device, display name, state and config
    (ESXi 7's TPG form, ESXi 8's ANA group) as printed, each block whole (the paths in the
    scenario's order)."""
    devices, paths = shown_esxi(*lists)
    assert devices == lists[0]
    assert sorted(paths.split("\n\n")) == sorted(lists[1].split("\n\n"))


@SETTINGS
@given(generated_esxcli.listings(releases=("4.0", "4.1")))
def test_esx4_device_and_path_lists_shown_back_byte_for_byte(lists: tuple[str, str]) -> None:
    """ESX 4.0 and 4.1, pasted after their commands (`esxcli nmp device list`, `esxcli nmp path
    list`): every value comes back in ESXi's field sets of the time, 4.0's path blocks without
    the `Array Priority` it did not print."""
    devices, paths = shown_esxi(*lists, commands=("~ # esxcli nmp device list\n", "~ # esxcli nmp path list\n"))
    assert devices == lists[0]
    assert sorted(paths.split("\n\n")) == sorted(lists[1].split("\n\n"))


@SETTINGS
@given(generated_nvme.subsystems().filter(lambda drawn: drawn[0] == "2.x"))
def test_nvme_list_subsys_json_shown_back_as_its_text(drawn: tuple[str, list[dict[str, Any]]]) -> None:
    """nvme-cli 2.x JSON, imported, shows as nvme-cli prints the same subsystems in text."""
    assert shown_nvme(generated_nvme.json_text(drawn[1]), ".json") == generated_nvme.text(drawn[1])


#: Listings the generated ones found whose groups the import once merged (`show` prints the
#: model's groups: the simulation's). An `emc` handler on an array whose hardware table entry has
#: another prioritizer (here none: const), and `rdac` on one pathlab's table lacks: the groups
#: part the owner's paths from the others, so the handler's own prioritizer is taken
#: (`linux_topology.OWNER_PRIORITIZER`), and the simulation groups them as the listing does.
HANDLER_NOT_IN_TABLE = """\
mpatha (368d61f116b9c2e1a5cf06c6ab4f54a900) dm-0 LIO-ORG,disk01
size=123G features='0' hwhandler='1 emc' wp=rw
|-+- policy='queue-length 0' prio=4 status=active
| `- 1:0:0:0 sda 8:0  active ready running
`-+- policy='queue-length 0' prio=1 status=enabled
  `- 2:0:1:0 sdb 8:16 active ghost running
"""
RDAC_ONE_PATH_EACH = """\
mpatha (362e418ba536b8195a51bbf365f4dc9e00) dm-37 DELL,MD36xxi
[size=19G][features=1 retain_attached_hw_handler][hwhandler=1 rdac][rw]
\\_ service-time 0 [prio=89][active]
 \\_ 99:0:112:0 sdgi 131:224 [active][ready]
\\_ service-time 0 [prio=55][enabled]
 \\_ 54:0:112:0 sddl 71:48   [active][ghost]
"""
#: Maps grouped by priority without a handler beside an array of LUN ownership: ALUA is read per
#: array (it was read for the host: none where any map showed rdac or emc).
OWNERSHIP_BESIDE = """\
mpatha (36b77a6265ba977c3c1c1f948ed0316400) dm-18 HP,HSV210
size=150G features='0' hwhandler='0' wp=rw
|-+- policy='round-robin 0' prio=50 status=active
| `- 13:0:49:0 sdqs 132:448 active ready running
`-+- policy='round-robin 0' prio=10 status=enabled
  `- 90:0:48:0 sdot 129:400 active ready running
mpathb (36b1787c40bad5dd369379b797e9db5803) dm-56 DELL,MD36xxi
size=150G features='0' hwhandler='1 rdac' wp=rw
|-+- policy='round-robin 0' prio=14 status=active
| `- 13:0:112:1 sdpj 130:400 active ready running
`-+- policy='round-robin 0' prio=9 status=enabled
  `- 90:0:113:1 sdch 69:80   active ghost running
"""


#: `multipath -l` of two groups (no priority read) without a handler: group_by_prio parted them
#: by priority, so the active one is the owner's and the other another controller's (it was
#: simulated as one group).
UNCHECKED_TWO_GROUPS = """\
mpathb (3610188afe3f63c42e72e0946db1e1ba01) dm-38 NETAPP,LUN C-Mode
size=95M features='1 retain_attached_hw_handler' hwhandler='0' wp=rw
|-+- policy='queue-length 0' prio=0 status=active
| `- 72:0:1:1 sdoc 128:384 active undef running
`-+- policy='queue-length 0' prio=0 status=enabled
  |- 72:0:0:1 sder 129:48  active undef running
  `- 89:0:0:1 sdk  8:160   active undef running
"""


#: `multipath -l` of a LUN mirrored across two arrays, a local group and a remote one, each array
#: numbering the LUN its own way (1 and 5): two groups, not one of eight.
LOCAL_AND_REMOTE = """\
mpatha (36001405aabbccddeeff00112233445566) dm-2 HUAWEI,XSG1
size=500G features='1 queue_if_no_path' hwhandler='0' wp=rw
|-+- policy='service-time 0' prio=0 status=active
| |- 1:0:0:1 sdb 8:16  active undef running
| |- 1:0:1:1 sdc 8:32  active undef running
| |- 2:0:0:1 sdd 8:48  active undef running
| `- 2:0:1:1 sde 8:64  active undef running
`-+- policy='service-time 0' prio=0 status=enabled
  |- 1:0:2:5 sdf 8:80  active undef running
  |- 1:0:3:5 sdg 8:96  active undef running
  |- 2:0:2:5 sdh 8:112 active undef running
  `- 2:0:3:5 sdi 8:128 active undef running
"""


@pytest.mark.parametrize(("listing", "style"), [(HANDLER_NOT_IN_TABLE, "linux"), (RDAC_ONE_PATH_EACH, "linux"),
                                                (OWNERSHIP_BESIDE, "linux"), (UNCHECKED_TWO_GROUPS, "linux-l"),
                                                (LOCAL_AND_REMOTE, "linux-l")],
                         ids=["handler-not-in-table", "rdac-one-path-each", "ownership-beside", "unchecked-two-groups",
                              "local-and-remote"])
def test_groups_the_import_merged_come_back(listing: str, style: str) -> None:
    assert shown_linux(listing, style=style) == listing


#: A dry run (`multipath -d`, `create:`) of an rdac array whose LUN is off its preferred
#: controller: the rdac prioritizer gives the preferred path 4 (its ghost: the other controller
#: owns the LUN now) and the owner's secondary path 3 (`prioritizers/rdac.c`: owner 0x02,
#: preferred 0x04, secondary 0x01), groups sorted by priority; dm state and group status `undef`.
RDAC_DRY_RUN = """\
create: mpathb (3600a0b8000322f0c0000b35c591356d4) undef LSI,INF-01-00
size=20G features='1 queue_if_no_path' hwhandler='1 rdac' wp=undef
|-+- policy='round-robin 0' prio=4 status=undef
| `- 5:0:0:1 sdd 8:48 undef ghost running
`-+- policy='round-robin 0' prio=3 status=undef
  `- 5:0:1:1 sdf 8:80 undef ready running
"""
#: An active/passive HP array under hp_sw: the active controller's paths 4, the standby ones 2 (hp_sw.c).
HP_SW = """\
mpatha (3600508b4000156d70001200000b00000) dm-2 HP,MSA1000
size=36G features='0' hwhandler='1 hp_sw' wp=rw
|-+- policy='round-robin 0' prio=4 status=active
| |- 0:0:0:1 sda 8:0  active ready running
| `- 1:0:0:1 sdc 8:32 active ready running
`-+- policy='round-robin 0' prio=2 status=enabled
  |- 0:0:1:1 sdb 8:16 active ghost running
  `- 1:0:1:1 sdd 8:48 active ghost running
"""


@pytest.mark.parametrize("listing", [RDAC_DRY_RUN, HP_SW], ids=["rdac-dry-run", "hp-sw"])
def test_ownership_groups_come_back(listing: str) -> None:
    assert shown_linux(listing) == listing


@SETTINGS
@given(listings(shapes=("prio",)))
def test_multipath_ll_groups_by_priority_shown_back_byte_for_byte(drawn: tuple[str, list[Map]]) -> None:
    """Maps grouped by priority (the owner's ports first, ALUA or LUN ownership, one array's
    handler beside another's) come back byte for byte: groups, priorities and statuses too."""
    listing, _ = drawn
    assert shown_linux(listing) == listing


@SETTINGS
@given(listings(checked=False))
def test_multipath_l_groups_shown_back_byte_for_byte(drawn: tuple[str, list[Map]]) -> None:
    """`multipath -l` of every shape, groups of several paths too (group_by_prio parted them by a
    priority the listing does not show), comes back byte for byte."""
    listing, _ = drawn
    assert shown_linux(listing, style="linux-l") == listing


#: A group whose every path failed (priority 0) beside a usable one, and arrays of ALUA and of
#: LUN ownership on one host: both come back.
FAILED_GROUP = """\
mpatha (3600a098038303634722b4d59646c4436) dm-0 NETAPP,LUN C-Mode
size=10G features='0' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=0 status=enabled
| `- 1:0:0:0 sda 8:0  failed faulty running
`-+- policy='service-time 0' prio=10 status=active
  `- 1:0:1:0 sdb 8:16 active ready  running
"""
ALUA_AND_RDAC = """\
mpatha (3600a098038303634722b4d59646c4436) dm-0 NETAPP,LUN C-Mode
size=10G features='0' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=50 status=active
| `- 1:0:0:0 sda 8:0  active ready running
`-+- policy='service-time 0' prio=10 status=enabled
  `- 1:0:1:0 sdb 8:16 active ready running
mpathb (36001438009b04d1c0000b0000c5a0000) dm-1 DELL,MD36xxi
size=20G features='0' hwhandler='1 rdac' wp=rw
|-+- policy='round-robin 0' prio=14 status=active
| `- 2:0:0:1 sdc 8:32 active ready running
`-+- policy='round-robin 0' prio=9 status=enabled
  `- 2:0:1:1 sdd 8:48 active ghost running
"""


@pytest.mark.parametrize("listing", [FAILED_GROUP, ALUA_AND_RDAC], ids=["failed-group", "alua-and-rdac"])
def test_groups_that_come_back(listing: str) -> None:
    assert shown_linux(listing) == listing


def test_what_the_simulation_changes_is_shown_as_simulated() -> None:
    """A path failed at 10 s prints the simulated states at 20 s, and its group the simulated
    priority and status; a selector chosen by `--set` is printed as simulated, not as read."""
    failed = shown_linux(FAILED_GROUP, at="20s", set={"faults": [{"kind": "path_down", "at": "10s",
                                                                  "path": "host1:C0:T1:L0"}]})
    assert "1:0:1:0 sdb 8:16 failed faulty running" in failed
    assert "prio=10 status=active" not in failed  # no group of that priority is left up
    chosen = shown_linux(FAILED_GROUP, set={"devices.0.policy.selector": "round-robin"})
    assert "policy='round-robin 0'" in chosen and "service-time" not in chosen


def test_a_path_the_listing_did_not_show_is_marked() -> None:
    """pathlab zones an adapter to every port of the array, so a map that the listing shows on
    fewer ports than another of its array gets a path more: printed with `?` for what was not read."""
    listing = """\
mpatha (3600a098038303634722b4d59646c4436) dm-0 NETAPP,LUN C-Mode
size=10G features='0' hwhandler='1 alua' wp=rw
`-+- policy='service-time 0' prio=50 status=active
  |- 1:0:0:0 sda 8:0  active ready running
  `- 1:0:1:0 sdb 8:16 active ready running
mpathb (3600a098038303634722b4d59646c4437) dm-1 NETAPP,LUN C-Mode
size=20G features='0' hwhandler='1 alua' wp=rw
`-+- policy='service-time 0' prio=50 status=active
  `- 1:0:0:1 sdc 8:32 active ready running
"""
    shown = shown_linux(listing).splitlines()
    assert shown[:9] == listing.splitlines()[:8] + ["  |- 1:0:0:1 sdc 8:32 active ready running"]
    assert shown[9] == "  `- ?       ?   ?    active ready running"


def test_a_listed_path_that_is_no_path_is_said() -> None:
    """A hand-edited `listed` table naming a path the device does not have is warned about."""
    from pathlab.api import PathlabWarning

    read = _read(FAILED_GROUP, "multipath-ll.txt")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scenario_text = build(LinuxCaptures(read["maps"], read["paths"], files={"multipath": "ll.txt"}))[0].render()
    scenario_text = scenario_text.replace('"host1:C0:T1:L0" = {', '"host9:C0:T1:L0" = {')
    with pytest.warns(PathlabWarning, match=r"listed.paths: host9:C0:T1:L0 is no path of the device"):
        configuration(Scenario.from_text(scenario_text, "edited.toml"), "paths", "linux")


def test_an_esxi_device_config_is_shown_as_read_until_a_fault_moves_its_port_groups(tmp_path: Path) -> None:
    """The SATP's device config carries the target port groups' ALUA states: as the listing
    printed it at the start, the simulation's once a fault has moved them (it stayed as read)."""
    from conftest import pathlab

    listing = Path(__file__).parent / "data/corpus/esxcli-nmp-device-list/003-esx41-clariion-alua-cx-fixed/bare.txt"
    scenario = tmp_path / "cx.toml"
    scenario.write_text(pathlab("import", str(listing)).stdout)
    fault = '[{ kind = "alua_state", at = "1s", path = "vmhba2:C0:T1:L1", state = "standby" }]'

    def config(*args: str) -> str:
        out = pathlab("show", "devices", str(scenario), "--set", f"faults={fault}", *args).stdout
        (line,) = [x for x in out.splitlines() if "Storage Array Type Device Config" in x]
        return line

    assert "{TPG_id=1,TPG_state=ANO}{TPG_id=2,TPG_state=AO}" in config()
    assert "{TPG_id=1,TPG_state=STBY}" in config("--at", "2s") and "TPG_state=ANO" not in config("--at", "2s")


def shown_as(listing: str, style: str) -> str:
    """`pathlab import` of one listing, then `pathlab show paths --style STYLE`."""
    from pathlab.importer import import_files

    path = Path(_DIR.name) / f"{style}.txt"
    path.write_text(listing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scenario = Scenario.from_text(import_files([str(path)]).text, "imported.toml")
        return text(configuration(scenario, "paths", style))


def shown_powermt(listing: str) -> str:
    """`pathlab import` of a `powermt display dev=all` listing, then `pathlab show paths --style powerpath`."""
    return shown_as(listing, "powerpath")


def powermt_values(listing: str) -> list[tuple[Any, ...]]:
    """Every value `readers.powermt` reads of a listing, each device's and each path's, lines aside."""
    from dataclasses import astuple, replace

    from pathlab.readers import powermt

    path = Path(_DIR.name) / "powermt-read.txt"
    path.write_text(listing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        devices = powermt.read(path)
    return [astuple(replace(d, line=0, array_line=0, logical_line=0, policy_line=0, owner_line=0,
                            paths=[replace(p, line=0) for p in d.paths])) for d in devices]


@SETTINGS
@given(generated_powermt.listings())
def test_powermt_every_value_shown_as_read(drawn: tuple[str, str]) -> None:
    """Every device's pseudo name, array class, ID and label, logical device ID and label, WWN,
    state line (type, state, policy, priority, queued I/Os, in their order), owners and failover
    mode, and every path's HBA number, HW path, I/O path, interface (its blanks too), mode, state,
    queued I/Os and errors come back exactly, whichever layout printed them; in the Linux and
    Solaris columns (`show`'s), byte for byte."""
    layout, listing = drawn
    shown = shown_powermt(listing)
    assert powermt_values(shown) == powermt_values(listing)
    if layout in ("linux", "ve"):
        assert shown == listing


def test_powermt_sample_comes_back_and_a_fault_is_marked() -> None:
    """A published Solaris listing (four LUNs, CLAROpt, failover mode 1) comes back byte for byte;
    a path failed by a fault prints the simulation's state marked `?`, a policy chosen by `--set`
    the simulation's name marked so."""
    sample = (Path(__file__).parent / "data/powerpath/001-clariion-solaris-failover-mode-1.txt").read_text()
    listing = sample[sample.index("Pseudo name="):].removesuffix("\n")  # the file ends in a blank line
    assert shown_powermt(listing) == listing
    from pathlab.importer import import_files

    path = Path(_DIR.name) / "powermt.txt"
    path.write_text(listing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        imported = import_files([str(path)]).text
        failed = Scenario.from_text(imported, "imported.toml", set={
            "faults": [{"kind": "path_down", "at": "1s", "path": "hba3083:C0:T0:L113"}],
            "devices.1.policy": {"name": "powerpath", "policy": "round_robin"}})
        shown = text(configuration(failed, "paths", "powerpath", at="2s")).splitlines()
    assert shown[10] == "3083 ssm@0,0/pci@19,700000/QLGC,qlc@1,1/fp@0,0 c15t0d6s0 SP B2     active  dead?      0      2"
    assert shown[17] == "state=alive; policy=RoundRobin?; priority=0; queued-IOs=0"
    assert shown[3] == "state=alive; policy=CLAROpt; priority=0; queued-IOs=0"


def mpclaim_values(listing: str) -> Any:
    """Every value `readers.mpclaim` reads of a file, each disk's, path's, list row's and
    setting's, lines aside."""
    from dataclasses import astuple, replace

    from pathlab.readers import mpclaim

    path = Path(_DIR.name) / "mpclaim-read.txt"
    path.write_text(listing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        read = mpclaim.read(path)
    disks = [astuple(replace(d, line=0, serial_line=0, paths=[replace(p, line=0, tpg_line=0) for p in d.paths]))
             for d in read.disks]
    rows = [astuple(replace(r, line=0)) for r in read.listed]
    settings = ({k: v for k, (v, _) in read.settings.values.items()},
                read.settings.default_policy[0] if read.settings.default_policy else None)
    return disks, rows, settings


@SETTINGS
@given(generated_mpclaim.listings())
def test_mpclaim_every_value_shown_as_read(listing: str) -> None:
    """Every disk's number, path count, policy, ALUA support, DSM, serial and supported policies,
    every path's ID, state, SCSI address, weight and target port group (state, id, relative
    port), the disk list's rows and the Get-MPIOSetting and default-policy values come back
    exactly, and byte for byte."""
    shown = shown_as(listing, "mpio")
    assert mpclaim_values(shown) == mpclaim_values(listing)
    assert shown == listing


def test_mpclaim_sample_values_come_back_and_a_fault_is_marked() -> None:
    """A published VPLEX disk (eight paths, four Standby) with Get-MPIOSetting beside it: every
    value comes back; a path failed by a fault prints `Failed?`, a policy set otherwise its
    mpclaim name marked."""
    from pathlab.importer import import_files

    sample = (Path(__file__).parent / "data/mpio/001-vplex-metro-rrws-eight-paths.txt").read_text()
    settings = "PS C:\\> Get-MPIOSetting\n\nPDORemovePeriod           : 60\nRetryCount                : 3\n"
    listing = sample.replace("```", "") + settings
    shown = shown_as(listing, "mpio")
    assert mpclaim_values(shown) == mpclaim_values(listing)
    assert shown.endswith("PS C:\\> Get-MPIOSetting\n\nPDORemovePeriod           : 60\nRetryCount                : 3\n")
    path = Path(_DIR.name) / "mpio.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        imported = import_files([str(path)]).text
        failed = Scenario.from_text(imported, "imported.toml", set=[
            'faults=[{ kind = "path_down", at = "1s", path = "port4:C0:T9:L1" }]',
            'devices.0.policy={ name = "mpio", policy = "least_queue_depth" }'])
        lines = text(configuration(failed, "paths", "mpio", at="2s")).splitlines()
    assert lines[2] == "MPIO Disk2: 08 Paths, Least Queue Depth?, ALUA Not Supported"
    assert lines[9] == "    0000000077040009 Failed?            004|000|009|001   0"


def nvme_list_values(listing: str) -> list[tuple[Any, ...]]:
    """Every value `readers.nvme_subsys` reads of an `nvme list -v` listing, row by row, lines aside."""
    path = Path(_DIR.name) / "list-v-read.txt"
    path.write_text(listing)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = nvme_subsys.read(path).drop(columns=["line", "iopolicy_line"])
    return [tuple(_text(v) if not isinstance(v, dict) else repr(v) for v in row) for row in table.itertuples(index=False)]


@SETTINGS
@given(generated_nvme_list.listings())
def test_nvme_list_verbose_shown_back_byte_for_byte(listing: str) -> None:
    """nvme-cli 2.0, 2.5, 2.9 and 3.0's columns: every subsystem's name, NQN and controllers, every
    controller's name, Orchestrator, Cntlid, serial, model (blanks too), firmware, transport, address, slot,
    subsystem and namespaces, every namespace's device, generic device, NSID as printed, usage,
    format and controllers come back exactly, and byte for byte."""
    shown = shown_as(listing, "nvme-list")
    assert nvme_list_values(shown) == nvme_list_values(listing)
    assert shown == listing
