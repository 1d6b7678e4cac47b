"""The typed host (issue 32 item 1): an import's tables, each value with its provenance, from
which the scenario is built without text to parse again and the annotated text is written."""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path

import pytest

import pathlab
from conftest import ROOT
from pathlab import Scenario, ScenarioError
from pathlab.importer.provenance import Assumed, Derived, Listed, Noted, Read, Unknown

LINUX = ROOT / "tests" / "data" / "linux"


def _host(*files: str | Path) -> pathlab.Host:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        return pathlab.import_host(*(str(f) for f in files))


def test_an_esxi_hosts_values_carry_where_they_come_from_and_build_the_scenario_its_text_gives() -> None:
    host = _host("vmax-iops1000")
    assert host.text == host.tables.render() == host.to_toml()
    assert host.tables.values() == tomllib.loads(host.text)
    assert Scenario.from_text(host.text, host.scenario.file).devices == host.scenario.devices
    array = host.tables.of("arrays")[0]
    vendor = array.source("vendor")
    assert isinstance(vendor, Read) and vendor.file.endswith("esxcli-storage-nmp-device-list.txt")
    assert vendor.text == "Device Display Name"
    assert isinstance(array.source("model"), Unknown)
    # The port's service is the capture's one busy device at capacity (round robin at iops=1000).
    service = array.source("service")
    assert isinstance(service, Derived) and service.used[0].endswith("esxtop-batch.csv")
    assert array.get("service") == {"fixed": "25.4us", "distribution": "exponential"}
    adapters = host.tables.of("host")[0].find("adapters")
    assert adapters is not None and isinstance(adapters.elements[0].fields["queue_depth"], Assumed)  # type: ignore[union-attr]
    device = host.tables.of("devices")[0]
    listed = device.find("listed.device")
    assert listed is not None and isinstance(listed.source, Listed)  # type: ignore[union-attr]
    # Nothing in it is assumed that advise would span: the capture measured port and load.
    assert host.tables.assumed("arrays", "service") == [] and host.tables.assumed("workloads", "outstanding") == []


def test_a_linux_hosts_defaults_are_assumed_in_its_tables() -> None:
    host = _host(LINUX / "multipath_check-multipath-20_netapp-debian-squeeze.txt")  # two NETAPP arrays, two maps
    assert host.tables.values() == tomllib.loads(host.text)
    assert [t.get("name") for t in host.tables.of("arrays")] == ["NETAPP", "NETAPP-2"]
    assert host.tables.assumed("arrays", "service") == [0, 1]
    assert host.tables.assumed("workloads", "outstanding") == [0, 1]  # no I/O statistics given


# Two ALUA maps as print.c lays them out: one of two groups (optimized, non-optimized) over two
# SCSI hosts, one of a single group; a `failback` in multipath.conf's defaults.
ALUA_LISTING = """\
mpatha (36001405aaaaaaaaaaaaaaaaaaaaaaaa1) dm-0 LIO-ORG,block1
size=10G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=50 status=active
| `- 2:0:0:0 sdb 8:16 active ready running
`-+- policy='service-time 0' prio=10 status=enabled
  `- 3:0:0:0 sdc 8:32 active ready running
mpathb (36001405aaaaaaaaaaaaaaaaaaaaaaaa2) dm-1 LIO-ORG,block2
size=10G features='0' hwhandler='1 alua' wp=rw
`-+- policy='round-robin 0' prio=50 status=active
  |- 2:0:0:1 sdd 8:48 active ready running
  `- 3:0:0:1 sde 8:64 active ready running
"""


def test_each_key_adapter_and_path_of_a_linux_host_says_its_own_source(tmp_path: Path) -> None:
    listing, conf = tmp_path / "multipath-ll.txt", tmp_path / "multipath.conf"
    listing.write_text(ALUA_LISTING)
    conf.write_text("defaults {\n    failback 15\n}\n")
    host = _host(listing, conf)
    mp, cf = str(listing), str(conf)
    adapters = host.tables.of("host")[0].find("adapters")
    assert [e.source for e in adapters.elements] == [  # type: ignore[union-attr]
        Read(mp, 4, "SCSI host 2 of sdb (2:0:0:0)"), Read(mp, 6, "SCSI host 3 of sdc (3:0:0:0)")]
    first, second = host.tables.of("devices")
    assert {k: first.source(f"policy.{k}") for k in first.get("policy")} == {
        "name": Derived(f"{mp}: a `multipath -ll` map is dm-multipath's", (mp,)),
        "selector": Read(mp, 3, "policy='service-time 0'", "map at line 1"),
        "path_grouping_policy": Derived(f"{mp}, map at line 1: the listing shows a group per path, no two usable ones of "
                                        "one priority: failover or group_by_prio build it; not determined", (mp,)),
        "no_path_retry": Derived(f"{mp}: the listing's features show queue_if_no_path (map at line 1): no_path_retry "
                                 "queue or a number of retries sets it; not determined", (mp,)),
        "features": Read(mp, 2, "features='1 queue_if_no_path' (queue_if_no_path is no_path_retry's)", "map at line 1"),
        "hardware_handler": Read(mp, 2, "hwhandler='1 alua'", "map at line 1"),
        "failback": Read(cf, 2, "failback 15 (defaults)"),
    }
    assert second.source("policy.selector") == Read(mp, 9, "policy='round-robin 0'", "map at line 7")
    assert second.source("policy.no_path_retry") == Derived(
        f"{mp}: the listing's features show no queue_if_no_path (map at line 7)", (mp,))
    assert second.source("policy.prio") is None  # not in the policy: the claim's
    paths = [e for e in second.entries() if e.key[:2] == ("listed", "paths")]
    assert [(e.key[2], e.source) for e in paths] == [  # type: ignore[union-attr]
        ("host2:C0:T0:L1", Listed(mp, 10)), ("host3:C0:T0:L1", Listed(mp, 11))]


def test_a_scenario_built_from_values_refuses_what_its_text_refuses_in_the_same_words() -> None:
    host = _host("vmax-iops1000")
    bad = ['arrays.0.service.fixed="-4us"']
    with pytest.raises(ScenarioError) as from_text:
        Scenario.from_text(host.text, host.scenario.file, set=bad)
    with pytest.raises(ScenarioError) as from_values:
        Scenario.from_values(host.tables.values(), host.text, host.scenario.file, set=bad)
    assert from_values.value.args == from_text.value.args
    assert from_values.value.args[0] == host.scenario.file and from_values.value.args[1] == "arrays.0.service.fixed"
    # A value the tables give wrong is refused by its field, the host's captures named.
    values = host.tables.values()
    values["devices"][0]["queue_depth"] = 0
    with pytest.raises(ScenarioError) as wrong:
        Scenario.from_values(values, host.text, host.scenario.file)
    assert wrong.value.args[:2] == (host.scenario.file, "devices.0.queue_depth")
    # Variants and overrides rebuild from the values.
    again = host.scenario.with_set({"devices.0.queue_depth": 16})
    assert again.tables is host.scenario.tables and again.devices[0].name == host.scenario.devices[0].name


def test_an_nvme_iopolicy_is_read_where_the_listing_shows_it_and_assumed_where_not() -> None:
    shown = _host(LINUX / "nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt").tables.of("devices")[0]
    assert shown.get("policy") == {"name": "nvme", "iopolicy": "round-robin"}
    assert shown.source("policy") == Read(str(LINUX / "nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt"), 3,
                                          "iopolicy=round-robin")
    unshown = _host(LINUX / "nvme-list-subsys_v1_manpage.txt").tables.of("devices")[0]
    assert unshown.get("policy") == {"name": "nvme"} and isinstance(unshown.source("policy"), Assumed)


def test_a_powerpath_hosts_values_are_typed_with_their_source() -> None:
    """The PowerPath and MPIO importers type each value's source as the others do: read at a line,
    derived by a rule from the files it used, or assumed."""
    listing = ROOT / "tests" / "data" / "powerpath" / "001-clariion-solaris-failover-mode-1.txt"
    host = _host(listing)
    assert host.tables.values() == tomllib.loads(host.text)
    device = host.tables.of("devices")[0]
    assert device.source("policy") == Read(str(listing), 5, "policy=CLAROpt; simulated as adaptive: the CLI reference "
                                                            "defines CLARiiON optimization by path load and the "
                                                            "device's priority, as it does adaptive")
    array = host.tables.of("arrays")[0]
    assert isinstance(array.source("vendor"), Derived) and array.source("vendor").used == (str(listing),)
    assert not any(isinstance(t.source(k), Noted) for t in host.tables.tables for k in t.values())
    assert host.tables.assumed("arrays", "service") == [0]
    assert host.tables.assumed("workloads", "outstanding") == []  # the listing's queued I/Os: one snapshot


def test_show_of_an_imported_host_takes_what_was_imported_from_its_tables(tmp_path: Path) -> None:
    """`show` tells what a fault or `--set` changed since the import from the host as imported:
    the typed tables where the scenario was built from them (no text parsed again), the same as
    its text gives."""
    from pathlab.output.configuration import configuration, text

    listing = tmp_path / "mp.txt"
    listing.write_text("mpatha (3600a098038303634722b4d59646c4436) dm-0 NETAPP,LUN C-Mode\n"
                       "size=10G features='0' hwhandler='1 alua' wp=rw\n"
                       "|-+- policy='service-time 0' prio=0 status=enabled\n"
                       "| `- 1:0:0:0 sda 8:0  failed faulty running\n"
                       "`-+- policy='service-time 0' prio=10 status=active\n"
                       "  `- 1:0:1:0 sdb 8:16 active ready  running\n")
    host = _host(listing)
    assert host.scenario.tables is not None
    typed = text(configuration(host.scenario, "paths", "linux"))
    assert typed == text(configuration(Scenario.from_text(host.text, "host.toml"), "paths", "linux")) \
        == listing.read_text()


def _every_entry(host: pathlab.Host) -> list[tuple[str | None, str, object]]:
    from pathlab.importer.host_tables import Entry

    return [(t.kind, ".".join(i.key), i.source) for t in host.tables.tables for i in t.entries() if isinstance(i, Entry)]


@pytest.mark.parametrize("files", [
    ("vmax-iops1000",),
    (LINUX / "multipath_check-multipath-20_netapp-debian-squeeze.txt",),
    (LINUX / "multipath-ll_opensvc-issue6_ibm-one-group-per-path.txt",),
    (LINUX / "nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt",),
    (ROOT / "tests" / "data" / "powerpath" / "001-clariion-solaris-failover-mode-1.txt",),
    (ROOT / "tests" / "data" / "mpio" / "001-vplex-metro-rrws-eight-paths.txt",),
])
def test_every_value_an_import_gives_says_where_it_comes_from(files: tuple[str | Path, ...]) -> None:
    # Table.key requires a provenance (`Own` for the scenario's own names and references): none is None.
    host = _host(*files)
    assert [(kind, key) for kind, key, source in _every_entry(host) if source is None] == []


def test_symmetric_names_its_rule_and_the_maps_it_read() -> None:
    owned = _host(LINUX / "multipath-ll_opensvc-issue6_ibm-one-group-per-path.txt").tables.of("arrays")[0]
    file = str(LINUX / "multipath-ll_opensvc-issue6_ibm-one-group-per-path.txt")
    assert (owned.get("symmetric"), owned.source("symmetric")) == (False, Derived(
        f"{file}: the map at line 1 parts the paths to the LUN's owner from the others (groups of different "
        "priorities, or an ownership handler's active group): LUNs owned by a controller, not symmetric", (file,)))
    file = str(LINUX / "multipath_check-multipath-22_old-brackets-fujitsu.txt")
    equal = _host(file).tables.of("arrays")[0]
    assert equal.get("symmetric") is True
    # Its last map (line 6) shows one group in 0.4.8's bracket layout, which cannot show a cut at a
    # line's end: the rule says so.
    assert equal.source("symmetric") == Derived(
        f"{file}: no map of the array parts its owner's paths from the others (maps at lines 1, 6: one group, groups "
        "of one priority, or apart only by failed paths): symmetric; map at line 6: 0.4.8's `\\_` is drawn alike "
        "before every group and path, so whether the paste stops at line 10, the listing's last, with other groups "
        "after it is not shown", (file,))


def test_a_key_added_without_its_provenance_is_refused() -> None:
    from pathlab.importer.host_tables import Table
    from pathlab.importer.provenance import Own

    t = Table("arrays", array=True)
    with pytest.raises(ValueError, match="symmetric: a key added needs its provenance"):
        t.set("symmetric", True)
    t.set("name", "A", Own("the array's name in the scenario"))
    t.set("name", "B")  # a key there keeps its provenance
    assert (t.get("name"), t.source("name")) == ("B", Own("the array's name in the scenario"))
    assert t.lines() == ["[[arrays]]", 'name = "B"']  # the scenario's own: no comment


def test_the_tables_a_run_reads_leave_the_listings_out_and_run_the_same_byte_for_byte() -> None:
    host = _host("vmax-iops1000")
    whole, run_tables = host.tables.values(), host.tables.values(listed=False)
    assert any("listed" in d for d in whole["devices"])
    assert not any("listed" in d for d in run_tables["devices"])
    assert run_tables == {**whole, "devices": [{k: v for k, v in d.items() if k != "listed"} for d in whole["devices"]]}
    sets = ['run.duration="50ms"', 'run.warmup="10ms"']
    runs = [Scenario.from_values(t, host.text, host.scenario.file, set=sets).run() for t in (whole, run_tables)]
    assert runs[0].to_json() == runs[1].to_json()
    assert runs[0].setups == runs[1].setups
