"""The static stall rule advise uses (`advisor/stall_rule.py`) and the engine agree for the same
timers: each rule's stall against the longest response (or the event log) of a short run with
the same settings in `[host.stack]`. The rules give the worst case of a probe's grid, so the
runs lose their path just after a probe goes out."""

from __future__ import annotations

import pytest

from pathlab import keep_alive
from pathlab.advisor import stall_rule
from pathlab.api import Scenario
from two_controllers import two_controllers

#: Each of 4 workers thinks 1 ms between 4 KiB reads, so seconds of simulated time stay cheap.
WORKLOAD = 'outstanding = 4\nblock_size = "4KiB"\nthink_time = "1ms"'


def scenario(policy: str, stack: str, at: str, detection: str, duration: str, kind: str, target: str,
             workload: str = WORKLOAD) -> str:
    """`two_controllers` whose paths `target` names are lost at `at`, seen by `detection`."""
    return two_controllers(duration=duration, seed=3, stack=stack, policy=policy, workload=workload,
                           fault=f'kind = "{kind}"\nat = "{at}"\ndetection = "{detection}"\n{target}')

#: Within one I/O's cycle: the first I/O sent after the loss starts within a think time and a
#: service of it, and its retry on CT1 adds 0.55 ms.
CYCLE_S = 0.00115


def run(policy: str, stack: str, at: str, detection: str, duration: str, all_paths: bool = False,
        one_path: bool = False) -> dict:
    """A run whose paths through P0 (or only vmhba1's, `one_path`, or every path) are lost at `at`."""
    kind, target = ("all_paths_down", "") if all_paths else ("port_down", 'port = "a/P0"')
    if one_path:
        kind, target = "path_down", 'path = "vmhba1:C0:T0:L3"'

    text = scenario(policy, stack, at, detection, duration, kind, target)
    return Scenario.from_text(text, "stall.toml").run().data


def longest_s(data: dict) -> float:
    return data["summary"]["resp_max_ms"] / 1e3


@pytest.mark.parametrize(("fast_io_fail", "dev_loss"), [(2.0, None), (3.0, 1.5)])
def test_an_fc_link_down_stalls_as_the_rule_says(fast_io_fail: float, dev_loss: float | None) -> None:
    rule = stall_rule.dm_link_down(fast_io_fail, dev_loss)
    stack = f'fast_io_fail_tmo = "{fast_io_fail}s"' + ("" if dev_loss is None else f', dev_loss_tmo = "{dev_loss}s"')
    data = run('name = "dm-multipath"', stack, "1s", "link", "5s")
    assert rule.seconds == (dev_loss or fast_io_fail)
    assert abs(longest_s(data) - rule.seconds) < CYCLE_S


def test_an_iscsi_connection_loss_stalls_at_most_as_the_rule_says() -> None:
    rule = stall_rule.dm_iscsi_connection_lost(fast_io_fail=2.0, noop_interval=2.0, noop_timeout=1.0)
    stack = ('scsi_transport = "iscsi", fast_io_fail_tmo = "2s", noop_out_interval = "2s", '
             'noop_out_timeout = "1s"')
    # Lost 1 ms after the NOP-Out at 2 s: the next one, at 4 s, times out at 5 s; held 2 s more.
    data = run('name = "dm-multipath"', stack, "2001ms", "timeout", "8s")
    assert rule.seconds == 5.0
    assert abs(longest_s(data) - (rule.seconds - 0.001)) < CYCLE_S


def test_a_silent_path_stalls_for_the_command_timeout_as_the_rule_says() -> None:
    rule = stall_rule.dm_path_hang(command_timeout=3.0, max_polling=20.0, checker_timeout=3.0)
    data = run('name = "dm-multipath"', 'io_timeout = "3s"', "1s", "timeout", "5s")
    assert rule.seconds == 3.0
    assert abs(longest_s(data) - rule.seconds) < CYCLE_S


def test_every_path_down_gives_up_after_no_path_retry_checker_intervals_as_the_rule_says() -> None:
    rule = stall_rule.dm_all_paths_down("3", polling=1.5)
    data = run('name = "dm-multipath"\nno_path_retry = 3', 'checker_interval = "1500ms", fast_io_fail_tmo = "0s"',
               "1s", "link", "2s", all_paths=True)
    times = {e["event"]: e["t_s"] for e in data["events"] if e["event"] in ("no_path", "gave_up")}
    assert rule.seconds == 4.5
    assert times["gave_up"] - times["no_path"] == pytest.approx(rule.seconds, abs=1e-9)


@pytest.mark.parametrize(("kato", "io_timeout", "at"), [(2.0, 30.0, "2001ms"), (5.0, 2.0, "2501ms")])
def test_a_silent_nvme_controller_stalls_at_most_as_the_rule_says(kato: float, io_timeout: float, at: str) -> None:
    """Lost 1 ms after a keep-alive went out (every KATO/2): the next one times out KATO later,
    1.5 × KATO after the loss at worst; a shorter io_timeout ends it first. One controller is
    lost (the rule assumes another path works: with both of P0's lost, an I/O timed out on one
    is retried on the other, silent too, and waits io_timeout twice)."""
    rule = stall_rule.nvme_controller_silent(kato, io_timeout)
    stack = f'keep_alive_timeout = "{kato}s", io_timeout = "{io_timeout}s"'
    data = run('name = "nvme"', stack, at, "timeout", "7s", one_path=True)
    assert rule.seconds == min(1.5 * kato, io_timeout)
    worst_case_gap = 0.001 if 1.5 * kato < io_timeout else 0.0
    assert abs(longest_s(data) - (rule.seconds - worst_case_gap)) < CYCLE_S


@pytest.mark.parametrize(("at", "worst"), [("1010ms", True), ("1s", False)])
def test_traffic_based_keep_alive_finds_a_silent_controller_as_the_rule_says(at: str, worst: bool) -> None:
    """KATO 2 s towards a controller that advertises TBKAS: Linux checks every 500 ms and sends no
    keep-alive at a check that saw completions. Lost 10 ms after a check, the check at 1.5 s saw
    I/O sent since 1 s completed (a command started before the check at 1 s would not count:
    Linux's comp_seen needs one started since): the keep-alive goes at 2 s, found at 4 s, 1.5 ×
    KATO after the loss less 10 ms; lost at the check at 1 s (which saw completions since
    500 ms), found at 3.5 s: 1.25 × KATO, the earliest under I/O."""
    found = keep_alive.detection(2.0, traffic_based=True)
    rule = stall_rule.nvme_controller_silent(2.0, 30.0, traffic_based=True)
    assert (found.earliest, found.latest, rule.seconds) == (2.5, 3.0, 3.0)
    assert "checked every KATO/4" in rule.rule
    text = scenario('name = "nvme"', 'keep_alive_timeout = "2s"', at, "timeout", "6s", "path_down",
                    'path = "vmhba1:C0:T0:L3"').replace("tpgs = true", "tpgs = true\ntraffic_based_keep_alive = true")
    data = Scenario.from_text(text, "stall.toml").run().data
    expected = found.latest - 0.01 if worst else found.earliest
    assert abs(longest_s(data) - expected) < CYCLE_S


@pytest.mark.parametrize(("hang", "within"), [(1.5, 0.0), (2.5, 2.0)])
def test_an_nvme_hang_the_keep_alive_misses_stalls_for_io_timeout(hang: float, within: float) -> None:
    """KATO 2 s, io_timeout 4 s: a hang of 1.5 s ends before any keep-alive times out, so the
    commands lost in it wait io_timeout; one of 2.5 s (between KATO and 1.5 × KATO) is missed
    too when it begins 1 ms after a keep-alive went out (the next, at 2 s, would time out at 4 s,
    after the 3.5 s return), and found by the keep-alive where it begins earlier in the grid."""
    from pathlab.advisor.failure_theory import Timers, predict

    timers = Timers({"keep_alive_timeout": 2.0, "io_timeout": 4.0, "reconnect_delay": 10.0})
    predicted = predict("linux-nvme", "path_hang", timers, hang)
    assert (predicted.seconds, predicted.tick) == (4.0, within)
    until = f'path = "vmhba1:C0:T0:L3"\nuntil = "{1001 + hang * 1000:.0f}ms"'
    text = scenario('name = "nvme"', 'keep_alive_timeout = "2s", io_timeout = "4s"', "1001ms", "timeout", "7s",
                    "path_down", until)
    data = Scenario.from_text(text, "hang.toml").run().data
    assert [e["event"] for e in data["events"] if e["event"] == "path_failed"] == []
    assert abs(longest_s(data) - 4.0) < CYCLE_S


def test_the_result_counts_write_hazards_per_device() -> None:
    """A lost NVMe controller's writes retried at once are hazards; TP4129's hold makes them 0."""
    def hazards(extra: str) -> int:
        text = scenario('name = "nvme"', f'keep_alive_timeout = "2s"{extra}', "1s", "link", "7s", "port_down",
                        'port = "a/P0"', workload=WORKLOAD.replace("think_time", 'read_pct = 0\nthink_time'))
        data = Scenario.from_text(text, "w.toml").run().data
        return data["devices"][0]["hazards"]

    assert hazards("") > 0
    assert hazards(", tp4129_hold = 2") == 0


def iscsi_adapters(text: str, timers: str) -> str:
    """`two_controllers`' two adapters as ESXi software iSCSI adapters with `timers`."""
    plain = 'adapters = [{ name = "vmhba1" }, { name = "vmhba2" }]'
    assert plain in text
    return text.replace(plain, f'adapters = [{{ name = "vmhba1", iscsi = {{ {timers} }} }}, '
                               f'{{ name = "vmhba2", iscsi = {{ {timers} }} }}]')


def test_an_esxi_iscsi_path_that_stops_answering_stalls_as_the_rule_says() -> None:
    """Lost 1 ms after the NOP-Out at 2 s: the next, at 4 s, goes unanswered 10 s, then the
    session holds the I/O RecoveryTimeout 3 s: 15 s after the NOP-Out before the loss."""
    rule = stall_rule.esxi_iscsi_path_hang(interval=2.0, noop_timeout=10.0, recovery=3.0, io_timeout=30.0)
    # The lost path is the one in use (round robin might be on the other when it goes).
    fixed = 'name = "VMW_PSP_FIXED"\npreferred = "vmhba1:C0:T0:L3"'
    text = scenario(fixed, "", "2001ms", "timeout", "18s", "path_down", 'path = "vmhba1:C0:T0:L3"')
    text = iscsi_adapters(text, 'noop_out_interval = "2s", noop_out_timeout = "10s", recovery_timeout = "3s"')
    data = Scenario.from_text(text, "esxi-iscsi.toml").run().data
    assert rule.seconds == 15.0
    assert abs(longest_s(data) - (rule.seconds - 0.001)) < CYCLE_S


def test_mpio_path_verification_finds_a_silent_path_as_the_rule_says() -> None:
    """Lost 1 ms after the verification at 4 s: the next, at 8 s, goes unanswered 10 s (msdsm's
    RTPG timeout), before the 20 s disk timeout; the request is retried after RetryInterval 1 s."""
    rule = stall_rule.mpio_path_hang(disk_timeout=20.0, retry_count=3, retry_interval=1.0, verification=4.0)
    stack = 'io_timeout = "20s", path_verify = true, path_verification_period = "4s"'
    data = run('name = "mpio"\npolicy = "round_robin"', stack, "4001ms", "timeout", "20s", one_path=True)
    assert rule.seconds == 15.0
    assert abs(longest_s(data) - (rule.seconds - 0.001)) < CYCLE_S
    assert stall_rule.mpio_path_hang(20.0, 3, 1.0, verification=30.0).seconds == 21.0
