"""A dm-multipath policy's `prio`, `hardware_handler` and `features`: checked against what
multipath-tools accepts, winning over the hardware table in `multipath -ll` and in the groups the
policy makes, and written by the import from the listing."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import ROOT, SCENARIOS, one_error_line, pathlab, pathlab_process
from pathlab.api import Scenario
from pathlab.importer.linux_topology import table_features

CX4 = "scenarios/cx4-alua-path-failure.toml"
FIELD = f"pathlab: error: {CX4}: devices.0.policy"


@pytest.mark.parametrize(("keys", "line"), [
    ('prio = "random"', f'{FIELD}.prio: "random" is not simulated; simulated: const, alua, emc, ontap, rdac, hp_sw, weightedpath'),
    ('prio = "bogus"', f"{FIELD}.prio: unknown value `bogus`, expected one of `alua`, `ana`, `const`, `datacore`, "
                       "`emc`, `hds`, `hp_sw`, `iet`, `ontap`, `path_latency`, `random`, `rdac`, `sysfs`, `weightedpath`"),
    ('hardware_handler = "alua"', f'{FIELD}.hardware_handler: "alua" is not a handler; allowed: "0", "1 alua", '
                                  '"1 rdac", "1 emc", "1 hp_sw", "1 ana"'),
    ('features = "3 pg_init_retries 50"', f'{FIELD}.features: "3 pg_init_retries 50" must be the count of words '
                                          'then the words ("0", "2 pg_init_retries 50")'),
    ('features = "1 queue_if_no_path"',
     f'{FIELD}.features: queue_if_no_path is set by no_path_retry = "queue", not in features'),
])
def test_values_multipath_tools_would_not_take_are_refused_in_one_line(keys: str, line: str) -> None:
    done = pathlab_process("show", "devices", CX4, "--style", "linux",
                           "--set", f'devices.*.policy={{ name = "dm-multipath", {keys} }}')
    assert one_error_line(done) == line


def test_prio_const_puts_every_path_of_an_alua_array_in_one_group() -> None:
    """The CX4 reports ALUA (2 paths AO, 2 ANO per LUN): under multipath.conf's `prio const`
    every path has priority 1, so the DGC entry's group_by_prio makes one group of all four
    (detect_pgpolicy is off once prio is named). Handler and features given are printed."""
    policy = '{ name = "dm-multipath", prio = "const", hardware_handler = "0", features = "2 pg_init_retries 50" }'
    shown = pathlab("show", "devices", CX4, "--style", "linux", "--set", f"devices.*.policy={policy}").stdout
    assert shown.splitlines()[:7] == [
        "mpatha (36006016000000000000000000000a001) dm-0 DGC,VRAID",
        "size=100G features='3 queue_if_no_path pg_init_retries 50' hwhandler='0' wp=rw",
        "`-+- policy='service-time 0' prio=1 status=active",
        "  |- 0:0:0:1 sda 8:0    active ready running",
        "  |- 0:0:1:1 sdi 8:128  active ready running",
        "  |- 1:0:0:1 sdq 65:0   active ready running",
        "  `- 1:0:1:1 sdy 65:128 active ready running",
    ]


def test_features_lose_queue_if_no_path_and_are_recounted() -> None:
    assert table_features("4 queue_if_no_path pg_init_retries 50 retain_attached_hw_handler") == \
        "3 pg_init_retries 50 retain_attached_hw_handler"
    assert table_features("1 queue_if_no_path") == "0"
    assert table_features("0") == "0"
    assert table_features(None) is None


def test_the_import_writes_prio_handler_and_features_the_listing_shows(tmp_path: Path) -> None:
    """3PAR, one group of four paths at `prio=1`, `hwhandler='0'`, `features='1 queue_if_no_path'`."""
    sample = ROOT / "tests/data/corpus/multipath-ll/011-hp-3par-ubuntu-guide-lost-indent/bare.txt"
    out = tmp_path / "imported.toml"
    pathlab("import", str(sample), "-o", str(out))
    policy = next(line for line in out.read_text().splitlines() if line.startswith("policy = "))
    assert policy.split("  #")[0] == ('policy = { name = "dm-multipath", selector = "round-robin", '
                                      'path_grouping_policy = "multibus", no_path_retry = "queue", prio = "const", '
                                      'features = "0", hardware_handler = "0" }')


def test_weightedpath_gives_the_priorities_named_and_refuses_a_name_that_is_no_path() -> None:
    # Path 1 of each LUN at 20, the others not named: 0 (weightedpath.c's DEFAULT_PRIORITY), whatever ALUA says.
    weights = '{ "vmhba1:C0:T1:L1" = 20, "vmhba2:C0:T1:L1" = 20 }'
    policy = f'{{ name = "dm-multipath", prio = "weightedpath", path_priorities = {weights} }}'
    shown = pathlab("show", "devices", CX4, "--style", "linux", "--set", f"devices.0.policy={policy}").stdout
    assert [line for line in shown.splitlines()[:8] if "prio=" in line] == [
        "|-+- policy='service-time 0' prio=20 status=active", "`-+- policy='service-time 0' prio=0 status=enabled"]
    wrong = policy.replace("vmhba2:C0:T1:L1", "vmhba3:C0:T1:L1")
    assert one_error_line(pathlab("show", "devices", CX4, "--set", f"devices.0.policy={wrong}")) == (
        f'{FIELD}.path_priorities: "vmhba3:C0:T1:L1" is not a path of naa.6006016000000000000000000000a001; paths: '
        "vmhba1:C0:T0:L1, vmhba1:C0:T1:L1, vmhba2:C0:T0:L1, vmhba2:C0:T1:L1")
    old = pathlab("show", "devices", CX4, "--set", f"devices.0.policy={policy}", "--set", 'host.multipath_tools="0.4.8"')
    assert one_error_line(old) == (f"{FIELD}.prio: weightedpath is not in multipath-tools 0.4.8 (the host's "
                                   "multipath_tools): it came in 0.5.0")
    elsewhere = '{ name = "dm-multipath", prio = "alua", path_priorities = { "vmhba1:C0:T1:L1" = 20 } }'
    assert one_error_line(pathlab("show", "devices", CX4, "--set", f"devices.0.policy={elsewhere}")) == (
        f'{FIELD}.path_priorities: only prio = "weightedpath" takes it')


@pytest.mark.parametrize(("extra", "handler"), [
    ([], "0"),  # an array without a table entry, no ALUA: none
    (['arrays.0.tpgs=true'], "1 alua"),
    (['arrays.0.vendor="DGC"', 'arrays.0.model="VRAID"'], "1 emc"),  # the hardware table's CLARiiON entry
    (['policy={name="dm-multipath", hardware_handler="1 rdac"}'], "1 rdac"),  # the scenario's
])
def test_the_maps_status_prints_the_handler_in_force(extra: list[str], handler: str) -> None:
    """The engine's `multipath -ll` status printed `hwhandler='1 alua'` whatever the handler."""
    scenario = Scenario.load(SCENARIOS / "two-paths-one-30ms.toml", set=[
        'policy={name="dm-multipath"}', 'run.duration="0.2s"', 'run.warmup="0.1s"', 'run.interval="0.1s"', *extra])
    assert {d.status.fields["hwhandler"] for d in scenario.devices} == {handler}
    assert f"hwhandler='{handler}' wp=rw" in scenario.run().data["devices"][0]["device_config"].splitlines()[0]
