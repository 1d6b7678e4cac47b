"""advise --failures on an ESXi host with software iSCSI adapters and on Windows MPIO with path
verification: the timers in force read from the scenario (the adapter's `iscsi` table, with
file and key), VMware's defaults assumed with their source, and the predictions the timers give
(no run: the engine's agreement is `test_stall_rule_engine.py`'s)."""

from __future__ import annotations

from pathlab.advisor.failure_theory import predict
from pathlab.advisor.timer_candidates import in_force
from pathlab.api import Scenario
from two_controllers import two_controllers


def esxi_iscsi(timers: str) -> Scenario:
    text = two_controllers(duration="1s", seed=1, stack="", policy='name = "VMW_PSP_RR"',
                           workload='outstanding = 1\nthink_time = "1ms"', fault='kind = "path_down"\nat = "0.5s"\n'
                           'path = "vmhba1:C0:T0:L3"')
    text = text.replace('adapters = [{ name = "vmhba1" }, { name = "vmhba2" }]',
                        f'adapters = [{{ name = "vmhba1", iscsi = {{ {timers} }} }}, {{ name = "vmhba2" }}]')
    return Scenario.from_text(text, "esxi-iscsi.toml")


def test_the_adapters_iscsi_timers_are_read_and_the_rest_assumed() -> None:
    scenario = esxi_iscsi('recovery_timeout = "20s"')
    now = in_force(scenario, scenario.devices, (), "vmhba1:C0:T0:L3")
    said = {s.name: (s.value, s.provenance, s.where) for s in now.settings}
    assert said["RecoveryTimeout"] == ("20s", "read", "esxi-iscsi.toml, the adapter vmhba1's iscsi.recovery_timeout")
    assert said["NoopOutInterval"][:2] == ("15", "assumed")
    assert "NoopOutInterval 15, 1 to 60" in said["NoopOutInterval"][2]
    assert now.timers.iscsi
    # VMware's 15 + 10 s find the loss before ESXi's 30 s I/O timeout; then RecoveryTimeout.
    hang = predict("esxi", "path_hang", now.timers, 60.0)
    assert (hang.seconds, hang.tick) == (45.0, 15.0)
    assert predict("esxi", "link_down", now.timers, 60.0).seconds == 20.0
    # The paths' return cuts the session's hold short.
    assert predict("esxi", "link_down", now.timers, 5.0).seconds == 5.0
    # A path of the FC adapter: ESXi fails it at once.
    fc = in_force(scenario, scenario.devices, (), "vmhba2:C0:T0:L3")
    assert not fc.timers.iscsi
    assert predict("esxi", "link_down", fc.timers, 60.0).seconds == 0.0


def test_a_clusters_lost_path_reads_its_own_hosts_iscsi_adapter() -> None:
    # Two hosts; only esx2's vmhba1 is a software iSCSI adapter. The lost path is
    # named HOST/NAME as a cluster's faults name it: its own host's session timers are read.
    text = two_controllers(duration="1s", seed=1, stack="", policy='name = "VMW_PSP_RR"',
                           workload='outstanding = 1\nthink_time = "1ms"', fault='kind = "path_down"\nat = "0.5s"\n'
                           'path = "esx2/vmhba1:C0:T0:L3"')
    text = text.replace('[host]\n', '[host]\nname = "esx1"\n').replace(
        '[[arrays]]', '[[hosts]]\nname = "esx2"\nadapters = [{ name = "vmhba1", iscsi = { recovery_timeout = "20s" } }, '
        '{ name = "vmhba2" }]\n\n[[arrays]]').replace(
        'adapters = ["vmhba1", "vmhba2"]', 'adapters = ["esx1/vmhba1", "esx1/vmhba2", "esx2/vmhba1", "esx2/vmhba2"]').replace(
        'lun = 3\n', 'lun = 3\nhost = "esx2"\n').replace('devices = ["naa.1"]', 'devices = ["esx2/naa.1"]')
    scenario = Scenario.from_text(text, "cluster.toml")
    now = in_force(scenario, scenario.devices, (), "esx2/vmhba1:C0:T0:L3")
    said = {s.name: (s.value, s.provenance) for s in now.settings}
    assert said["RecoveryTimeout"] == ("20s", "read")
    assert predict("esxi", "link_down", now.timers, 60.0).seconds == 20.0
    # esx1's vmhba1 of the same name is not an iSCSI adapter: failed at once.
    assert not in_force(scenario, scenario.devices, (), "esx1/vmhba1:C0:T0:L3").timers.iscsi


def test_a_noop_out_slower_than_the_io_timeout_leaves_it_first() -> None:
    scenario = esxi_iscsi('noop_out_interval = "60s", noop_out_timeout = "20s", recovery_timeout = "5s"')
    now = in_force(scenario, scenario.devices, (), "vmhba1:C0:T0:L3")
    # 60 + 20 s is past the 30 s I/O timeout, but a loss just before a NOP-Out is found 20 s
    # later: the worst is a NOP-Out timing out just before the command would, then RecoveryTimeout.
    assert predict("esxi", "path_hang", now.timers, 200.0).seconds == 35.0


def test_mpio_path_verification_in_force_moves_the_path_hang_prediction() -> None:
    def timers(stack: str):  # type: ignore[no-untyped-def]
        text = two_controllers(duration="1s", seed=1, stack=stack, policy='name = "mpio"',
                               workload='outstanding = 1\nthink_time = "1ms"',
                               fault='kind = "path_down"\nat = "0.5s"\npath = "vmhba1:C0:T0:L3"')
        scenario = Scenario.from_text(text, "mpio.toml")
        return in_force(scenario, scenario.devices)

    off = timers("")
    assert predict("windows", "path_hang", off.timers, 200.0).seconds == 121.0
    on = timers("path_verify = true")
    said = {s.name: (s.value, s.provenance) for s in on.settings}
    assert said["PathVerifyEnabled"] == ("1", "read")
    assert said["PathVerificationPeriod"] == ("30", "assumed")
    verified = predict("windows", "path_hang", on.timers, 200.0)
    assert (verified.seconds, verified.tick) == (41.0, 30.0)
