"""Names repeated across hosts (NOTES "What is left" item 5): a LUN several hosts share keeps its
NAA on every one of them, and every ESXi host has a `vmhba1`. Today a scenario's names are one
table per kind for all its hosts, so a second host's same name is refused in one line (the first
test). The others say what a second host's same name should do, each a strict xfail naming where
it breaks today (NOTES.md, "Review leftovers (session 10)"): a name of one host written alone,
a name several hosts have written `HOST/NAME` (as a port is `ARRAY/PORT`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SCENARIOS, pathlab
from pathlab import Scenario
from pathlab.output import hosts
from test_hosts import TWO_HOSTS

NAA = "naa.60000970000197900123533030303031"


def two_hosts(adapter_b: str = "vmhba2", device_b: str = "naa.b1", zone: str = '"vmhba1", "vmhba2"',
              load: str = '"naa.a1", "naa.b1"', extra: str = "") -> str:
    """test_hosts.py's two hosts (esx-a with vmhba1 and LUN 1 as naa.a1, esx-b with LUN 1 as
    naa.b1, on one array port), with esx-b's adapter `adapter_b` and device `device_b`."""
    text = TWO_HOSTS.format(servers=1, outstanding=1, pauses_a="", pauses_b="")
    for old, new in (('adapters = [{ name = "vmhba2" }]', f'adapters = [{{ name = "{adapter_b}" }}]'),
                     ('adapters = ["vmhba1", "vmhba2"]', f"adapters = [{zone}]"),
                     ('name = "naa.b1"', f'name = "{device_b}"'), ('devices = ["naa.a1", "naa.b1"]', f"devices = [{load}]")):
        assert old in text
        text = text.replace(old, new, 1)
    return text + extra


def refused(tmp_path: Path, text: str) -> tuple[str, str]:
    """The one error line of `validate` on `text`, as (field, message)."""
    scenario = tmp_path / "two-hosts.toml"
    scenario.write_text(text)
    done = pathlab("validate", str(scenario))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("pathlab: error:")]
    field, _, message = line.removeprefix(f"pathlab: error: {scenario}: ").partition(": ")
    return field, message


@pytest.mark.parametrize(("text", "field", "message"), [
    (two_hosts(adapter_b="vmhba1", zone='"vmhba1"'), "hosts.0.adapters.0.name",
     '"vmhba1" is host esx-a\'s adapter too: adapter names are one table for every host; name it apart'),
    (two_hosts(device_b="naa.a1", load='"naa.a1"'), "devices.1.name",
     '"naa.a1" is host esx-a\'s device too: device names are one table for every host; name it apart'),
])  # fmt: skip
def test_today_a_second_hosts_same_name_is_refused_in_one_line(tmp_path: Path, text: str, field: str,
                                                                message: str) -> None:
    found, said = refused(tmp_path, text)
    assert found == field and said.startswith(message), (found, said)


BREAKS_ADAPTERS = ("model/build/hosts.rs `adapters` (values.rs `one_table_for_every_host`): adapter names are "
                   "unique over every host, and model/build/fabric.rs finds a zone's adapters in one table of all "
                   "hosts' names")
BREAKS_DEVICES = ("model/build/devices.rs `names` (values.rs `one_table_for_every_host`): device names are unique "
                  "over every host; workloads, replication groups and esxcli find a device in that one table "
                  "(model/names.rs `Names`)")


@pytest.mark.xfail(strict=True, reason=BREAKS_ADAPTERS)
def test_two_hosts_each_with_a_vmhba1_are_zoned_by_host_and_adapter() -> None:
    text = two_hosts(adapter_b="vmhba1", zone='"esx-a/vmhba1", "esx-b/vmhba1"')
    paths = Scenario.from_text(text, "two-hosts.toml").describe()["paths"]
    assert {(p["host"], p["adapter"]) for p in paths} == {("esx-a", "vmhba1"), ("esx-b", "vmhba1")}


@pytest.mark.xfail(strict=True, reason=BREAKS_DEVICES)
def test_a_lun_two_hosts_share_keeps_its_naa_on_both() -> None:
    text = two_hosts(device_b=NAA, load=f'"esx-a/{NAA}", "esx-b/{NAA}"').replace('"naa.a1"', f'"{NAA}"')
    devices = Scenario.from_text(text, "two-hosts.toml").describe()["devices"]
    assert [(d["name"], d["host"]) for d in devices] == [(NAA, "esx-a"), (NAA, "esx-b")]


@pytest.mark.xfail(strict=True, reason=f"{BREAKS_ADAPTERS}; {BREAKS_DEVICES}; faults find a path by its runtime "
                                       "name in one table of all hosts' paths (model/fault.rs)")
@pytest.mark.parametrize(("text", "field"), [
    (two_hosts(adapter_b="vmhba1", zone='"vmhba1"'), "fabric.0.adapters.0"),
    (two_hosts(device_b="naa.a1", load='"naa.a1"'), "workloads.0.devices.0"),
    (two_hosts(adapter_b="vmhba1", zone='"esx-a/vmhba1", "esx-b/vmhba1"',
               extra='\n[[faults]]\nkind = "path_down"\nat = "0.1s"\npath = "vmhba1:C0:T0:L1"\n'), "faults.0.path"),
])  # fmt: skip
def test_a_name_two_hosts_have_written_alone_is_refused_naming_both(tmp_path: Path, text: str, field: str) -> None:
    found, message = refused(tmp_path, text)
    assert found == field and "esx-a" in message and "esx-b" in message, (found, message)


@pytest.mark.xfail(strict=True, reason=f"{BREAKS_DEVICES}; model/build/claim.rs applies an esxcli command to the one "
                                       "device its name finds")
def test_an_esxcli_command_naming_a_shared_naa_sets_it_on_every_host() -> None:
    # As an admin runs the same esxcli on each host of a cluster.
    extra = f'esxcli = ["esxcli storage nmp device set -d {NAA} -P VMW_PSP_MRU"]\n'
    text = extra + two_hosts(device_b=NAA, load=f'"esx-a/{NAA}", "esx-b/{NAA}"').replace('"naa.a1"', f'"{NAA}"')
    devices = Scenario.from_text(text, "two-hosts.toml").describe()["devices"]
    assert [(d["host"], d["psp"]) for d in devices] == [("esx-a", "VMW_PSP_MRU"), ("esx-b", "VMW_PSP_MRU")]


@pytest.mark.xfail(strict=True, reason="observe/result.rs: interval rows carry a name and no host, so "
                                       "output/hosts.py `view` keeps every host's rows of that name")
def test_one_hosts_view_keeps_its_own_rows_of_a_name_another_host_has() -> None:
    # A run's result as the bindings give it, cut to what `view` reads: both hosts have a vmhba1.
    data = {"hosts": [{"name": "esx-a", "adapters": ["vmhba1"]}, {"name": "esx-b", "adapters": ["vmhba1"]}],
            "devices": [{"name": "naa.a1", "host": "esx-a"}, {"name": "naa.b1", "host": "esx-b"}],
            "paths": [], "adapters": [{"name": "vmhba1", "host": "esx-a"}, {"name": "vmhba1", "host": "esx-b"}],
            "adapter_intervals": [{"name": "vmhba1", "t_s": 0.5, "cmds_s": 100.0},
                                  {"name": "vmhba1", "t_s": 0.5, "cmds_s": 900.0}]}
    assert [r["cmds_s"] for r in hosts.view(data, "esx-a")["adapter_intervals"]] == [100.0]


@pytest.mark.xfail(strict=True, reason="importer/__init__.py `import_files`: one capture of each kind, of one host; "
                                       "the importers build one [host]")
def test_two_hosts_vm_support_trees_import_as_two_hosts_sharing_the_naa(tmp_path: Path) -> None:
    trees = []
    for host in ("esx01", "esx02"):
        root = tmp_path / f"esx-{host}-vm-support" / "commands"
        root.mkdir(parents=True)
        for listing, name in (("devices", "localcli_storage-nmp-device-list.txt"),
                              ("paths", "localcli_storage-nmp-path-list.txt")):
            shown = pathlab("show", listing, str(SCENARIOS / "c1-vmax-1lun.toml"))
            assert shown.returncode == 0, shown.stderr
            (root / name).write_text(shown.stdout)
        trees.append(str(root.parent))
    done = pathlab("import", *trees)
    assert done.returncode == 0, done.stderr
    devices = Scenario.from_text(done.stdout, "imported.toml").describe()["devices"]
    assert len(devices) == 2 and len({d["host"] for d in devices}) == 2 and {d["name"] for d in devices} == {NAA}
