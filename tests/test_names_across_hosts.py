"""Names repeated across hosts (NOTES "What is left" item 5): a LUN several hosts share keeps its
NAA on every one of them, and every ESXi host has a `vmhba1`. Adapter and device names are per
host (session 11, `model/names_per_host.rs`): a name of one host may be written alone, a name
several hosts have is written `HOST/NAME` (as a port is `ARRAY/PORT`), and written alone it is
refused naming both (but an esxcli command naming a NAA alone sets it on every host that has it);
one host's name twice is refused (the first test). Two hosts' imports together are
tests/test_import_cluster.py's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import pathlab
from pathlab import Scenario, host_views
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


def test_a_second_hosts_adapter_and_device_names_are_its_own_and_one_hosts_twice_is_refused(tmp_path: Path) -> None:
    scenario = tmp_path / "two-hosts.toml"
    scenario.write_text(two_hosts(adapter_b="vmhba1", zone='"esx-a/vmhba1", "esx-b/vmhba1"', device_b="naa.a1",
                                  load='"esx-a/naa.a1", "esx-b/naa.a1"'))
    done = pathlab("validate", str(scenario))
    assert done.returncode == 0, done.stderr
    again = '\n[[devices]]\nname = "naa.b1"\narray = "shared"\nlun = 2\nhost = "esx-b"\n'
    assert refused(tmp_path, two_hosts(extra=again)) == ("devices.2.name", '"naa.b1" is defined twice')


def test_two_hosts_each_with_a_vmhba1_are_zoned_by_host_and_adapter() -> None:
    text = two_hosts(adapter_b="vmhba1", zone='"esx-a/vmhba1", "esx-b/vmhba1"')
    paths = Scenario.from_text(text, "two-hosts.toml").describe()["paths"]
    assert {(p["host"], p["adapter"]) for p in paths} == {("esx-a", "vmhba1"), ("esx-b", "vmhba1")}


def test_a_lun_two_hosts_share_keeps_its_naa_on_both() -> None:
    text = two_hosts(device_b=NAA, load=f'"esx-a/{NAA}", "esx-b/{NAA}"').replace('"naa.a1"', f'"{NAA}"')
    devices = Scenario.from_text(text, "two-hosts.toml").describe()["devices"]
    assert [(d["name"], d["host"]) for d in devices] == [(NAA, "esx-a"), (NAA, "esx-b")]


ALL_PATHS_DOWN = '\n[[faults]]\nkind = "all_paths_down"\nat = "0.1s"\ndevice = "{device}"\n'
ESXCLI = 'esxcli = ["esxcli storage nmp device set -d {device} -P VMW_PSP_MRU"]\n'
REPLICATED = """
[[arrays]]
name = "peer"
service = {{ fixed = "10us" }}
ports = [{{ name = "P0" }}]

[[replication]]
name = "pod"
arrays = ["shared", "peer"]
devices = [{devices}]
latency = "1ms"
bandwidth = "10Gb"
"""


@pytest.mark.parametrize(("text", "field"), [
    (two_hosts(adapter_b="vmhba1", zone='"vmhba1"'), "fabric.0.adapters.0"),
    (two_hosts(device_b="naa.a1", load='"naa.a1"'), "workloads.0.devices.0"),
    (two_hosts(device_b="naa.a1", load='"esx-a/naa.a1"', extra=ALL_PATHS_DOWN.format(device="naa.a1")), "faults.0.device"),
    (two_hosts(device_b="naa.a1", load='"esx-a/naa.a1"', extra=REPLICATED.format(devices='"naa.a1"')),
     "replication.0.devices.0"),
    (two_hosts(adapter_b="vmhba1", zone='"esx-a/vmhba1", "esx-b/vmhba1"',
               extra='\n[[faults]]\nkind = "path_down"\nat = "0.1s"\npath = "vmhba1:C0:T0:L1"\n'), "faults.0.path"),
])  # fmt: skip
def test_a_name_two_hosts_have_written_alone_is_refused_naming_both(tmp_path: Path, text: str, field: str) -> None:
    found, message = refused(tmp_path, text)
    assert found == field and "esx-a" in message and "esx-b" in message, (found, message)


def test_a_fault_on_host_slash_runtime_name_takes_down_that_hosts_path_only() -> None:
    # Both hosts' paths are vmhba1:C0:T0:L1 (each host's vmhba1 to the one port, LUN 1).
    extra = '\n[[faults]]\nkind = "path_down"\nat = "0.1s"\npath = "esx-b/vmhba1:C0:T0:L1"\n'
    text = two_hosts(adapter_b="vmhba1", zone='"esx-a/vmhba1", "esx-b/vmhba1"', extra=extra)
    sim = Scenario.from_text(text, "two-hosts.toml").handle.simulation(path_intervals=False)
    sim.run_until(200_000_000)
    paths = sim.describe()["paths"]
    assert [(p["host"], p["name"], p["up"]) for p in paths] == [("esx-a", "vmhba1:C0:T0:L1", True),
                                                                ("esx-b", "vmhba1:C0:T0:L1", False)]


def test_a_device_written_host_slash_name_is_that_hosts_in_faults_esxcli_and_replication(tmp_path: Path) -> None:
    text = ESXCLI.format(device="esx-b/naa.a1") + two_hosts(
        device_b="naa.a1", load='"esx-a/naa.a1", "esx-b/naa.a1"', extra=ALL_PATHS_DOWN.format(device="esx-b/naa.a1"))
    sim = Scenario.from_text(text, "two-hosts.toml").handle.simulation(path_intervals=False)
    sim.run_until(200_000_000)
    described = sim.describe()
    assert [(p["host"], p["up"]) for p in described["paths"]] == [("esx-a", True), ("esx-b", False)]
    assert [(d["host"], d["psp"]) for d in described["devices"]] == [("esx-a", "VMW_PSP_RR"), ("esx-b", "VMW_PSP_MRU")]
    # describe() tells no device's replication group: that each host's NAA is a device of its own is.
    load = '"esx-a/naa.a1", "esx-b/naa.a1"'
    text = two_hosts(device_b="naa.a1", load=load, extra=REPLICATED.format(devices=load))
    assert Scenario.from_text(text, "two-hosts.toml").describe()["devices"]
    twice = REPLICATED.format(devices='"esx-b/naa.a1", "esx-b/naa.a1"')
    assert refused(tmp_path, two_hosts(device_b="naa.a1", load=load, extra=twice)) == (
        "replication.0.devices.1", '"esx-b/naa.a1" is already in a replication group')


def test_an_esxcli_command_naming_a_shared_naa_sets_it_on_every_host() -> None:
    # As an admin runs the same esxcli on each host of a cluster.
    extra = f'esxcli = ["esxcli storage nmp device set -d {NAA} -P VMW_PSP_MRU"]\n'
    text = extra + two_hosts(device_b=NAA, load=f'"esx-a/{NAA}", "esx-b/{NAA}"').replace('"naa.a1"', f'"{NAA}"')
    devices = Scenario.from_text(text, "two-hosts.toml").describe()["devices"]
    assert [(d["host"], d["psp"]) for d in devices] == [("esx-a", "VMW_PSP_MRU"), ("esx-b", "VMW_PSP_MRU")]


def test_one_hosts_view_keeps_its_own_rows_of_a_name_another_host_has() -> None:
    # A run's result as the bindings give it, cut to what `view` reads: both hosts have a vmhba1,
    # so its interval rows are named esx-a/vmhba1 and esx-b/vmhba1 (sim/sampling.rs `RowNames`).
    data = {"hosts": [{"name": "esx-a", "adapters": ["vmhba1"]}, {"name": "esx-b", "adapters": ["vmhba1"]}],
            "devices": [{"name": "naa.a1", "host": "esx-a"}, {"name": "naa.b1", "host": "esx-b"}],
            "paths": [], "adapters": [{"name": "vmhba1", "host": "esx-a"}, {"name": "vmhba1", "host": "esx-b"}],
            "adapter_intervals": [{"name": "esx-a/vmhba1", "t_s": 0.5, "cmds_s": 100.0},
                                  {"name": "esx-b/vmhba1", "t_s": 0.5, "cmds_s": 900.0}]}
    assert host_views.view(data, "esx-a")["adapter_intervals"] == [{"name": "vmhba1", "t_s": 0.5, "cmds_s": 100.0}]


def test_a_run_names_the_rows_of_a_shared_adapter_and_path_by_host() -> None:
    # Each host's vmhba1 carries its own LUN alone: in each host's view, one adapter row and one
    # path row per interval, each with its device's commands.
    text = two_hosts(adapter_b="vmhba1", zone='"esx-a/vmhba1", "esx-b/vmhba1"')
    text = text.replace('duration = "4s"', 'duration = "0.2s"').replace('warmup = "1s"', 'warmup = "0.1s"')
    data = Scenario.from_text(text, "two-hosts.toml").run().data
    assert {r["name"] for r in data["adapter_intervals"]} == {"esx-a/vmhba1", "esx-b/vmhba1"}
    assert {r["name"] for r in data["path_intervals"]} == {"esx-a/vmhba1:C0:T0:L1", "esx-b/vmhba1:C0:T0:L1"}
    for host in ("esx-a", "esx-b"):
        seen = host_views.view(data, host)
        device = [(r["t_s"], r["cmds_s"]) for r in seen["device_intervals"]]
        assert [(r["name"], r["t_s"], r["cmds_s"]) for r in seen["adapter_intervals"]] == [
            ("vmhba1", t, cmds) for t, cmds in device]
        assert [(r["name"], r["t_s"], r["cmds_s"]) for r in seen["path_intervals"]] == [
            ("vmhba1:C0:T0:L1", t, cmds) for t, cmds in device]


def test_a_run_names_the_rows_and_events_of_a_shared_naa_by_host() -> None:
    # Both hosts have the NAA; esx-b loses its one path to it: its events are esx-b's alone.
    extra = ALL_PATHS_DOWN.format(device=f"esx-b/{NAA}").replace('at = "0.1s"', 'at = "0.15s"')
    text = two_hosts(device_b=NAA, load=f'"esx-a/{NAA}", "esx-b/{NAA}"', extra=extra).replace('"naa.a1"', f'"{NAA}"')
    text = text.replace('duration = "4s"', 'duration = "0.2s"').replace('warmup = "1s"', 'warmup = "0.1s"')
    data = Scenario.from_text(text.replace("seed = 3", 'seed = 3\ninterval = "50ms"'), "two-hosts.toml").run().data
    assert {r["name"] for r in data["device_intervals"]} == {f"esx-a/{NAA}", f"esx-b/{NAA}"}
    assert {e["device"] for e in data["events"]} == {f"esx-b/{NAA}"}
    esx_a, esx_b = host_views.view(data, "esx-a"), host_views.view(data, "esx-b")
    assert esx_a["events"] == [] and {e["device"] for e in esx_b["events"]} == {NAA}
    for seen in (esx_a, esx_b):
        device = [(r["t_s"], r["cmds_s"]) for r in seen["device_intervals"] if r["name"] == NAA]
        assert [(r["t_s"], r["cmds_s"]) for r in seen["adapter_intervals"]] == device
    # esx-b's device has no path after 0.15 s: its last interval carries nothing, esx-a's does.
    assert esx_b["device_intervals"][-1]["cmds_s"] == 0 < esx_a["device_intervals"][-1]["cmds_s"]


def one_hosts_view(data: dict[str, Any], host: str) -> dict[str, Any]:
    """One host's view, filtered table by table for that host alone (as `host_views.view` was
    written before it was taken from `views`): the reference `views` is checked against."""
    own_rows = host_views._own_rows
    entry = next(h for h in data["hosts"] if h["name"] == host)
    keep = [i for i, d in enumerate(data["devices"]) if d["host"] == host]
    devices = {data["devices"][i]["name"] for i in keep}
    out = dict(data, host=host, hosts=[entry])
    out["devices"] = [data["devices"][i] for i in keep]
    out["paths"] = [p for p in data["paths"] if p["host"] == host]
    if "unsimulated" in data:
        out["unsimulated"] = [u for u in data["unsimulated"] if u["host"] == host]
    if "linux" in data:
        linux = data["linux"]
        out["linux"] = dict(linux, hosts=entry["adapters"], devices=[linux["devices"][i] for i in keep])
    if "adapters" in data:
        out["adapters"] = [a for a in data["adapters"] if a["host"] == host]
    objects = devices | {p["name"] for p in out["paths"]} | set(entry["adapters"])
    for table in ("device_intervals", "path_intervals", "adapter_intervals"):
        if table in data:
            out[table] = own_rows(data[table], objects, host)
    if "events" in data:
        out["events"] = own_rows(data["events"], devices, host, key="device")
    if "application" in data:
        app = data["application"]
        out["application"] = dict(app, **{part: own_rows([r for r in app[part] if r["host"] == host], devices | {""},
                                                          host, key="device")
                                          for part in ("devices", "hosts", "recovery")})
    return out


@pytest.mark.parametrize("shared", ["adapter", "naa"])
def test_every_hosts_views_in_one_pass_are_each_hosts_view(shared: str) -> None:
    # `views` (a cluster's findings) finds every host's rows in one pass: the same views as `view`
    # host by host, rows named HOST/NAME renamed, events and the application's rows too, keys in order.
    if shared == "adapter":
        text = two_hosts(adapter_b="vmhba1", zone='"esx-a/vmhba1", "esx-b/vmhba1"')
    else:
        extra = ALL_PATHS_DOWN.format(device=f"esx-b/{NAA}").replace('at = "0.1s"', 'at = "0.15s"')
        text = two_hosts(device_b=NAA, load=f'"esx-a/{NAA}", "esx-b/{NAA}"', extra=extra).replace('"naa.a1"', f'"{NAA}"')
    text = text.replace('duration = "4s"', 'duration = "0.2s"').replace('warmup = "1s"', 'warmup = "0.1s"')
    data = Scenario.from_text(text.replace("seed = 3", 'seed = 3\ninterval = "50ms"'), "two-hosts.toml").run().data
    every = list(host_views.views(data))
    assert [host for host, _ in every] == ["esx-a", "esx-b"]
    for host, seen in every:
        alone = one_hosts_view(data, host)
        assert seen == alone and list(seen) == list(alone) and host_views.view(data, host) == alone
    renamed = "adapter_intervals" if shared == "adapter" else "device_intervals"
    assert all("/" not in r["name"] for _, seen in every for r in seen[renamed]) and every[0][1][renamed]
    assert shared == "adapter" or {e["device"] for e in every[1][1]["events"]} == {NAA}


def test_each_hosts_vmhba1_has_its_own_wwn_in_the_path_list(tmp_path: Path) -> None:
    scenario = tmp_path / "two-hosts.toml"
    scenario.write_text(two_hosts(adapter_b="vmhba1", zone='"esx-a/vmhba1", "esx-b/vmhba1"'))
    done = pathlab("show", "paths", str(scenario))
    assert done.returncode == 0, done.stderr
    # Adapters counted by (name, host): esx-a's vmhba1 first; the one array port on both.
    uids = [line.split("-naa.")[0] for line in done.stdout.splitlines() if line.startswith("fc.")]
    assert uids == ["fc.2000001b32000001:2100001b32000001-fc.5006016000000001:5006016100000001",
                    "fc.2000001b32000002:2100001b32000002-fc.5006016000000001:5006016100000001"]


def test_advise_takes_a_scenario_whose_hosts_share_a_naa_as_a_cluster(tmp_path: Path) -> None:
    """Hosts sharing a NAA are a cluster: advised whole (advisor/cluster_pipeline.py), each host's
    figures apart, never read as one device (tests/test_advise_cluster.py has the rest)."""
    text = two_hosts(device_b=NAA, load=f'"esx-a/{NAA}", "esx-b/{NAA}"').replace('"naa.a1"', f'"{NAA}"')
    scenario = tmp_path / "two-hosts.toml"
    scenario.write_text(text)
    done = pathlab("advise", str(scenario), "--duration", "0.5s", "--warmup", "0.2s", "--seeds", "2", "--format", "json")
    assert done.returncode == 0, done.stderr
    advice = json.loads(done.stdout)
    assert advice["hosts"] == ["esx-a", "esx-b"]
    for label, by_host in advice["host_figures"].items():
        assert set(by_host) == {"esx-a", "esx-b"} and all(f["iops"][0] > 0 for f in by_host.values()), label
