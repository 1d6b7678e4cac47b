"""`advise --failures`: the stalls the timers predict (`failure_theory`) against what the runs
measure, the vendor's timers beating the host's where theory says they should, the write hazard
and TP4129/CCR on NVMe, the timers' provenance on an imported host, and bad input in one line.
Runs are short: about 1,000 I/Os a second, 2 seeds, seconds of simulated time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pathlab
from conftest import ROOT, advise_one_at_a_time
from conftest import pathlab as cli
from pathlab.advisor.failure_advice import FailureAdvice
from pathlab.advisor.failure_kinds import applicable
from pathlab.advisor.timer_candidates import tree
from two_controllers import two_controllers

NETAPP = "tests/data/failures/netapp-two-fabrics.toml"
NETAPP_ROW = "NetApp ONTAP (FAS/AFF/ASA)"
#: Within one I/O's cycle (1 ms of think time and its service) of a stall no probe's grid decides.
CYCLE_S = 0.0015
#: Each candidate's predicted stall (s) on NETAPP: the SCSI command timeout for a hung path,
#: fast_io_fail_tmo for the kinds the HBA sees, and every path down held while the paths are away
#: (no_path_retry queue, the hardware table's for NETAPP) for the 5 s the fault lasts.
PREDICTED = {"in force": {"path_hang": 3, "link_down": 8, "controller_reboot": 8, "switch_down": 8, "all_paths_down": 5},
             NETAPP_ROW: {"path_hang": 3, "link_down": 5, "controller_reboot": 5, "switch_down": 5, "all_paths_down": 5}}


@pytest.fixture(scope="module")
def netapp() -> FailureAdvice:
    return pathlab.advise(str(ROOT / NETAPP), failures="all", seeds=2)


def test_each_kind_stalls_as_the_timers_predict(netapp: FailureAdvice) -> None:
    assert [k.kind for k in netapp.kinds] == ["path_hang", "link_down", "controller_reboot", "switch_down",
                                              "all_paths_down"]
    got = {(r.candidate, r.kind): r for r in netapp.rows}
    for candidate, kinds in PREDICTED.items():
        for kind, seconds in kinds.items():
            row = got[(candidate, kind)]
            assert row.predicted.seconds == seconds, (candidate, kind)
            assert row.predicted.tick == 0
            assert abs(row.measured.longest_wait_s - seconds) < CYCLE_S, (candidate, kind, row.measured)
            assert row.measured.failed_ios == 0
            # One I/O in flight: a write on the lost path, aborted and retried elsewhere before the
            # path logs in again, is the one hazard a SCSI loss can make; a loss of every path
            # retries nothing elsewhere.
            assert row.measured.hazards <= (0 if kind == "all_paths_down" else 1), (candidate, kind)


def test_the_vendors_timers_rank_first_and_stall_less_where_theory_says(netapp: FailureAdvice) -> None:
    assert [r.candidate for r in netapp.ranking] == [NETAPP_ROW, "in force"]
    rows = {(r.candidate, r.kind): r.measured.longest_wait_s for r in netapp.rows}
    for kind in ("link_down", "controller_reboot", "switch_down"):
        assert rows[(NETAPP_ROW, kind)] < rows[("in force", kind)] - 2.9
    settings = {s.name: (s.value, s.provenance) for s in netapp.candidates[0].settings}
    assert settings["fast_io_fail_tmo"] == ("8s", "read")
    assert settings["dev_loss_tmo"] == ("infinity", "derived")
    assert settings["polling_interval"] == ("5", "assumed")
    assert settings["no_path_retry"] == ("queue", "derived")
    assert netapp.recommended.commands[1].splitlines() == [
        "devices {", "    device {", '        vendor "NETAPP"', '        product "LUN C-Mode"',
        "        fast_io_fail_tmo 5", "    }", "}"]


def test_over_iscsi_the_nop_out_and_the_checker_decide_within_their_grids() -> None:
    """A hung connection is found by the NOP-Out (every 2 s, unanswered 1 s) and held
    replacement_timeout (= fast_io_fail_tmo); every path down, held 4 s of the 5 s it lasts, waits
    for the checker (every 5 s) to find a path back: each within its grid's period."""
    iscsi = {"host.stack.scsi_transport": "iscsi", "host.stack.fast_io_fail_tmo": "4s", "host.stack.io_timeout": "30s",
             "host.stack.noop_out_interval": "2s", "host.stack.noop_out_timeout": "1s"}
    advice = pathlab.advise(str(ROOT / NETAPP), failures="path_hang,all_paths_down", seeds=2, set=iscsi)
    expected = {("in force", "path_hang"): (7, 2), ("in force", "all_paths_down"): (10, 5),
                (NETAPP_ROW, "path_hang"): (8, 2), (NETAPP_ROW, "all_paths_down"): (5, 0)}
    assert {s.name: s.where for s in advice.candidates[0].settings}["noop_out_interval"] == \
        "--set host.stack.noop_out_interval"
    for row in advice.rows:
        seconds, tick = expected[(row.candidate, row.kind)]
        assert (row.predicted.seconds, row.predicted.tick) == (seconds, tick)
        assert seconds - tick - CYCLE_S <= row.measured.longest_wait_s <= seconds + CYCLE_S, row


def test_the_timers_in_force_are_the_runs_a_variants_included() -> None:
    """A variant's `host.stack` timer is what the run reads, and what in force says it is (the
    file's table was read, its variant's set not: the advice then compared candidates against a
    timer the runs did not have)."""
    from pathlab.advisor.timer_candidates import in_force

    text = (ROOT / NETAPP).read_text() + '\n[variants.slow_fail]\nset = { "host.stack.fast_io_fail_tmo" = "9s" }\n'
    scenario = pathlab.Scenario.from_text(text, "netapp.toml", "slow_fail")
    settings = {s.name: (s.value, s.where) for s in in_force(scenario, scenario.devices).settings}
    assert settings["fast_io_fail_tmo"] == ("9s", "variant slow_fail (set host.stack.fast_io_fail_tmo)")
    over = pathlab.Scenario.from_text(text, "netapp.toml", "slow_fail", ["host.stack.fast_io_fail_tmo=7s"])
    assert {s.name: (s.value, s.where) for s in in_force(over, over.devices).settings}["fast_io_fail_tmo"] == (
        "7s", "--set host.stack.fast_io_fail_tmo")


def test_nvme_hazards_and_the_tp4129_hold_with_and_without_ccr() -> None:
    """Writes lost with their controller and retried at once are hazards; TP4129's hold of 2 ×
    KATO leaves none and stalls that long; CCR ends the hold after a round trip."""
    text = two_controllers(duration="5s", seed=3, stack='keep_alive_timeout = "2s"', policy='name = "nvme"',
                           workload='outstanding = 4\nblock_size = "4KiB"\nread_pct = 0\nthink_time = "1ms"',
                           fault="")
    scenario = pathlab.Scenario.from_text(text.split("[[faults]]")[0], "nvme.toml")
    advice = pathlab.advise(scenario, failures="path_hang,link_down", seeds=2)
    got = {(r.candidate, r.kind): r for r in advice.rows}
    hold, ccr = "TP4129 hold 2 × KATO + CQT", "TP4129 hold, ended by CCR"
    assert got[("in force", "link_down")].measured.hazards > 0
    assert got[(hold, "link_down")].measured.hazards == got[(ccr, "link_down")].measured.hazards == 0
    assert got[(hold, "link_down")].predicted.seconds == 4
    assert abs(got[(hold, "link_down")].measured.longest_wait_s - 4) < CYCLE_S
    assert got[(ccr, "link_down")].measured.longest_wait_s < CYCLE_S
    # a silent controller: found by the keep-alive within 1.5 × KATO (its 1 s grid decides where)
    hang = got[("in force", "path_hang")]
    assert hang.predicted.seconds == 3 and hang.predicted.tick == 1
    assert 3 - 1 - CYCLE_S <= hang.measured.longest_wait_s <= 3 + CYCLE_S
    assert advice.ranking[0].candidate == ccr


def test_traffic_based_keep_alive_moves_the_prediction_and_makes_tp4129_hold_three_kato() -> None:
    """The array's controllers advertise traffic-based keep-alive: the silent controller is still
    found within 1.5 × KATO, but within KATO/4 of it (a check every 500 ms, one skipped for the
    completions before the loss), and TP4129's candidate holds 3 × KATO."""
    text = two_controllers(duration="5s", seed=3, stack='keep_alive_timeout = "2s"', policy='name = "nvme"',
                           workload='outstanding = 4\nblock_size = "4KiB"\nread_pct = 0\nthink_time = "1ms"',
                           fault="").replace("tpgs = true", "tpgs = true\ntraffic_based_keep_alive = true")
    scenario = pathlab.Scenario.from_text(text.split("[[faults]]")[0], "nvme.toml")
    advice = pathlab.advise(scenario, failures="path_hang,link_down", seeds=2)
    got = {(r.candidate, r.kind): r for r in advice.rows}
    tbkas = next(s for s in advice.candidates[0].settings if s.name == "TBKAS")
    assert (tbkas.value, tbkas.provenance, tbkas.where) == ("1", "read", "nvme.toml, [[arrays]] a traffic_based_keep_alive")
    hold = "TP4129 hold 3 × KATO + CQT"
    assert got[(hold, "link_down")].predicted.seconds == 6
    assert abs(got[(hold, "link_down")].measured.longest_wait_s - 6) < CYCLE_S
    assert got[(hold, "link_down")].measured.hazards == 0
    hang = got[("in force", "path_hang")]
    assert (hang.predicted.seconds, hang.predicted.tick) == (3, 0.5)
    assert 3 - 0.5 - CYCLE_S <= hang.measured.longest_wait_s <= 3 + CYCLE_S


WINDOWS = "tests/data/failures/netapp-windows.toml"
SPDK = "tests/data/failures/spdk-two-controllers.toml"


def test_windows_mpio_stalls_as_its_retry_interval_disk_timeout_and_pdo_remove_period_say() -> None:
    """msdsm retries a request RetryInterval (1 s) after it fails: a lost link costs 1 s, a hung
    path the disk timeout (3 s) + 1 s; every path down for the 40 s the fault lasts fails the I/O
    after RetryInterval + PDORemovePeriod (Microsoft's 20 s) and holds it the whole loss under
    NetApp's 130 s, which ranks first (no I/O failed); a lost command waits its 120 s default
    timeout past the paths' return, and the run goes on past it, unless NetApp's path
    verification finds the path first."""
    advice = pathlab.advise(str(ROOT / WINDOWS), failures="all", seeds=2)
    predicted = {"path_hang": (4, 0), "link_down": (1, 0), "controller_reboot": (1, 0), "switch_down": (1, 0)}
    expected = {"in force": {**predicted, "all_paths_down": (21, 1)}, NETAPP_ROW: {**predicted, "all_paths_down": (40, 0)}}
    for row in advice.rows:
        seconds, tick = expected[row.candidate][row.kind]
        assert (row.predicted.seconds, row.predicted.tick) == (seconds, tick), row
        assert seconds - tick - CYCLE_S <= row.measured.longest_wait_s <= seconds + CYCLE_S, row
        assert (row.measured.failed_ios > 0) == (row.candidate == "in force" and row.kind == "all_paths_down"), row
    changed = {s.name: s.value for s in advice.candidates[1].settings if s.provenance == "candidate"}
    assert changed == {"RetryCount": "6", "PathVerifyEnabled": "1", "PDORemovePeriod": "130"}
    assert advice.recommended.label == NETAPP_ROW
    assert advice.recommended.commands[1] == ("Set-MPIOSetting -NewPDORemovePeriod 130 -NewRetryCount 6 "
                                              "-NewRetryInterval 1 -NewPathVerificationState Enabled "
                                              "-CustomPathRecovery Enabled -NewPathRecoveryInterval 30")
    default = pathlab.advise(str(ROOT / WINDOWS), failures="path_hang", seeds=2, set={"host.stack": {}})
    assert default.windows == (("path_hang", 2.0, 42.0, 126.0),)
    in_force, netapp = default.rows
    assert in_force.predicted.seconds == 121
    assert abs(in_force.measured.longest_wait_s - 121) < CYCLE_S, in_force
    # NetApp's path verification (every 30 s, its command unanswered 10 s) finds the hung path
    # before the 120 s disk timeout: within 30 s of 30 + 10 + 1 s.
    assert (netapp.predicted.seconds, netapp.predicted.tick) == (41, 30)
    assert 41 - 30 - CYCLE_S <= netapp.measured.longest_wait_s <= 41 + CYCLE_S, netapp


def test_spdk_stalls_as_its_timers_say_with_and_without_the_tp4129_hold() -> None:
    """SPDK: a silent controller is found by the keep-alive timeout (the engine's I/O timeout, 3
    s here), a lost link is retried at once (its writes are hazards), and every path down waits
    for a reconnect (every 2 s) or fails at ctrlr_loss_timeout_sec (6 s); TP4129's hold of 2 ×
    KATO (2 s) adds 4 s to the first two and leaves no hazard; with every path down the I/O fails
    ctrlr_loss_timeout_sec after the controllers' loss, the hold being shorter: a held I/O
    released after it fails at once."""
    advice = pathlab.advise(str(ROOT / SPDK), failures="path_hang,link_down,all_paths_down", seeds=2)
    hold, ccr = "TP4129 hold 2 × KATO + CQT", "TP4129 hold, ended by CCR"
    expected = {"in force": {"path_hang": (3, 0), "link_down": (0, 0), "all_paths_down": (6, 0)},
                hold: {"path_hang": (7, 0), "link_down": (4, 0), "all_paths_down": (6, 0)},
                ccr: {"path_hang": (3, 0), "link_down": (0, 0), "all_paths_down": (6, 0)}}
    for row in advice.rows:
        seconds, tick = expected[row.candidate][row.kind]
        assert (row.predicted.seconds, row.predicted.tick) == (seconds, tick), row
        assert seconds - tick - CYCLE_S <= row.measured.longest_wait_s <= seconds + CYCLE_S, row
        assert (row.measured.failed_ios > 0) == (row.kind == "all_paths_down"), row
        # a hung path's writes are retried at 3 s, after the target's KATO + CQT (2 s): no hazard
        assert (row.measured.hazards > 0) == (row.candidate == "in force" and row.kind != "path_hang"), row
    assert "ctrlr_loss_timeout_sec" in {s.name for s in advice.candidates[0].settings}


def test_a_run_above_or_below_its_prediction_is_said() -> None:
    """Seen on the Ceph gateway scenario (`reactions/nvmeof-gateway-rebalance`): a controller
    reboot predicted at 0 s (retried at once) waited 7 s behind the ANA change."""
    from pathlab.advisor.failure_advice import FailureRow, Measured
    from pathlab.advisor.failure_pipeline import _beyond_theory, _short_of_theory
    from pathlab.advisor.failure_theory import Prediction

    def row(predicted: float, measured: float) -> FailureRow:
        return FailureRow("in force", "controller_reboot", "ceph-gw/gw-a", Prediction(predicted, 0, "rule"),
                          Measured(measured, measured, 0, 0, 1000.0, 0.0, True))

    assert _beyond_theory([row(0, 7)]) == [
        "in force, controller_reboot: the runs' longest wait (7 s) is above the prediction (0 s): more than the "
        "timers decide waited (an ALUA or ANA transition, a queue behind the retries)"]
    assert _beyond_theory([row(0, 0.2), row(5, 5.4)]) == [] == _short_of_theory([row(5, 4.6)])
    assert len(_short_of_theory([row(5, 4.4)])) == 1


def test_an_imported_hosts_timers_are_read_with_file_and_line() -> None:
    corpus = ROOT / "tests/data/corpus"
    advice = advise_one_at_a_time([str(corpus / "multipath-ll/002-netapp-aff-rocky10-alua-two-groups/bare.txt"),
                                   str(corpus / "multipath-conf/001-ibm-sap-netapp-rhel7-iscsi/bare.txt")], "link_down")
    fast = next(s for s in advice.candidates[0].settings if s.name == "fast_io_fail_tmo")
    assert (fast.value, fast.provenance) == ("5", "read")
    assert fast.where.endswith("001-ibm-sap-netapp-rhel7-iscsi/bare.txt, line 7 (defaults)")
    assert [c.label for c in advice.candidates] == ["in force"]  # NetApp's timers are those in force
    assert any(n.startswith(f"{NETAPP_ROW}'s published timers are those in force") for n in advice.notes)
    (row,) = advice.rows
    assert row.predicted.seconds == 5 and abs(row.measured.longest_wait_s - 5) < 0.01
    assert any("no_path_retry queue" in f.title for f in advice.findings)


MPIO_SETTINGS = """PS C:\\> Get-MPIOSetting

PathVerificationState     : Disabled
PathVerificationPeriod    : 30
PDORemovePeriod           : 60
RetryCount                : 3
RetryInterval             : 2
UseCustomPathRecoveryTime : Disabled
CustomPathRecoveryTime    : 40
DiskTimeoutValue          : 5
"""


def test_an_imported_windows_hosts_get_mpiosetting_timers_are_read_and_run(tmp_path: Path) -> None:
    """Get-MPIOSetting's DiskTimeoutValue 5, RetryInterval 2 and PDORemovePeriod 60, read with
    their lines: a hung path costs 5 + 2 s, a lost link 2 s, and every path down outlasts the 40 s
    loss (2 + 60 s): held throughout, none failed."""
    settings = tmp_path / "mpio-settings.txt"
    settings.write_text(MPIO_SETTINGS)
    advice = advise_one_at_a_time([str(ROOT / "tests/data/mpio/003-msdsm-rr-symmetric-two-paths.txt"), str(settings)],
                                  "path_hang,link_down,all_paths_down")
    read = {t.name: (t.value, t.provenance, t.where) for t in advice.candidates[0].settings}
    assert read == {"DiskTimeoutValue": ("5", "read", f"{settings}, line 10"),
                    "RetryCount": ("3", "read", f"{settings}, line 6"),
                    "RetryInterval": ("2", "read", f"{settings}, line 7"),
                    "PDORemovePeriod": ("60", "read", f"{settings}, line 5")}
    for row, seconds in zip(advice.rows, (7, 2, 40), strict=True):
        assert row.predicted.seconds == seconds, row
        assert abs(row.measured.longest_wait_s - seconds) < CYCLE_S, row
        assert row.measured.failed_ios == 0


def test_the_cli_prints_the_table_json_and_html(tmp_path: Path) -> None:
    report = tmp_path / "failures.html"
    done = cli("advise", NETAPP, "--failures=link_down", "--seeds", "2", "--format", "json", "--html", str(report))
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["recommended"]["candidate"] == NETAPP_ROW
    assert document["ranked_by"].startswith("write hazards, then I/Os failed")
    assert [(r["candidate"], r["predicted_s"]) for r in document["rows"]] == [("in force", 8), (NETAPP_ROW, 5)]
    assert "failures: link_down; timers: in force, NetApp" in done.stderr
    page = report.read_text()
    assert "Candidate × failure" in page and "multipathd reconfigure" in page and page.count("<svg") == 1


ONE_PATH = """
[host]
adapters = [{ name = "vmhba1" }]

[[arrays]]
name = "a"
service = { fixed = "20us" }
ports = [{ name = "P0" }]

[[fabric]]
adapters = ["vmhba1"]
ports = ["a/P0"]
latency = "10us"

[[devices]]
name = "naa.1"
array = "a"
lun = 1

[policy]
name = "VMW_PSP_RR"

[[workloads]]
devices = ["naa.1"]
outstanding = 1
"""


@pytest.mark.parametrize(("args", "message"), [
    ((NETAPP, "--failures=bogus"), "--failures: unknown failure kind 'bogus': allowed all, path_hang, link_down"),
    ((NETAPP, "--failures=site_down"), "--failures: site_down: this host has no array in a [[replication]] group"),
    (("one-path.toml", "--failures"), "one-path.toml: --failures: no device has two paths"),
    (("--failures", "one-path.toml"), "advise: --failures: 'one-path.toml' is taken as the failure kinds and no FILES"),
])
def test_bad_input_is_one_line_exit_2(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    (tmp_path / "one-path.toml").write_text(ONE_PATH)
    given = [str(ROOT / a) if a == NETAPP else a for a in args]
    done = cli("advise", *given, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_esxi_software_iscsi_stalls_as_its_session_timers_say() -> None:
    """An ESXi host's software iSCSI adapter with VMware's session timers: a hung path is found by
    the next NOP-Out (every 15 s from time zero: the one at 15 s after the loss at 2 s), 10 s
    unanswered, then held RecoveryTimeout 10 s: 33 s; a link down is held RecoveryTimeout."""
    advice = pathlab.advise(str(ROOT / "tests/data/failures/esxi-iscsi.toml"), failures="path_hang,link_down", seeds=2)
    said = {s.name: s.provenance for s in advice.candidates[0].settings}
    assert said["RecoveryTimeout"] == said["NoopOutInterval"] == "assumed"
    got = {row.kind: row for row in advice.rows}
    assert (got["path_hang"].predicted.seconds, got["path_hang"].predicted.tick) == (35, 15)
    assert abs(got["path_hang"].measured.longest_wait_s - 33) < CYCLE_S
    assert got["link_down"].predicted.seconds == 10
    assert abs(got["link_down"].measured.longest_wait_s - 10) < CYCLE_S


def test_an_ana_change_stalls_for_the_anatt_as_the_rule_predicts_before_the_run() -> None:
    """A controller reboot whose partner's ANA groups stay in the change state for the array's
    ANATT (3 s): Linux holds the I/O while the partner is live (`nvme_available_path`), so the
    stall is the change, predicted from ANATT before the run; the controller reboot alone
    retries at once; TP4129's hold (4 s) outlasts the change; nothing fails."""
    text = two_controllers(duration="5s", seed=3, stack='keep_alive_timeout = "2s"', policy='name = "nvme"',
                           workload='outstanding = 4\nblock_size = "4KiB"\nread_pct = 0\nthink_time = "1ms"',
                           fault="")
    text = text.split("[[faults]]")[0].replace("tpgs = true", 'tpgs = true\nanatt = "3s"')
    advice = pathlab.advise(pathlab.Scenario.from_text(text, "nvme.toml"), failures="controller_reboot,ana_change",
                            seeds=2)
    hold = "TP4129 hold 2 × KATO + CQT"
    expected = {("in force", "controller_reboot"): 0, ("in force", "ana_change"): 3, (hold, "ana_change"): 4}
    got = {(r.candidate, r.kind): r for r in advice.rows}
    for key, seconds in expected.items():
        row = got[key]
        assert row.predicted.seconds == seconds and row.predicted.tick == 0, row
        assert seconds <= row.measured.longest_wait_s <= seconds + CYCLE_S, row
        assert row.measured.failed_ios == 0, row
    assert "held until the change ends" in got[("in force", "ana_change")].predicted.rule
    anatt = next(s for s in advice.candidates[0].settings if s.name == "ANATT")
    assert (anatt.value, anatt.provenance, anatt.where) == ("3s", "read", "nvme.toml, [[arrays]] a anatt")
    kind = next(k for k in advice.kinds if k.kind == "ana_change")
    assert (kind.target, kind.fault["ana_change"]) == ("a/CT0", "3s")


def test_an_imported_nvme_hosts_anatt_comes_from_nvme_id_ctrl_with_file_and_line() -> None:
    listing = ROOT / "tests/data/corpus/nvme-list-subsys/009-netapp-rocky10-tcp-two-subnets/bare.txt"
    id_ctrl = ROOT / "tests/data/nvme-id-ctrl/two-controllers.txt"
    advice = advise_one_at_a_time([str(listing), str(id_ctrl)], "ana_change")
    anatt = next(s for s in advice.candidates[0].settings if s.name == "ANATT")
    assert (anatt.value, anatt.provenance, anatt.where) == ("10", "read", f"{id_ctrl}, line 56 (nvme53; anacap 31 at "
                                                                          "line 57)")
    row = next(r for r in advice.rows if r.candidate == "in force")
    # one I/O at a time, 1 ms apart: the one that waits may leave up to a think time after the change begins
    assert row.predicted.seconds == 10 and abs(row.measured.longest_wait_s - 10) < CYCLE_S
    assert row.measured.failed_ios == 0 and (row.kind, row.target) == ("ana_change", "NETAPP/A")


def test_a_host_without_anatt_has_no_ana_change_kind() -> None:
    text = two_controllers(duration="5s", seed=3, stack="", policy='name = "nvme"', workload="outstanding = 1",
                           fault="")
    with pytest.raises(pathlab.ScenarioError, match="ana_change: this host has no NVMe array of two controllers or "
                                                    r"more with ANA groups and an ANATT \(the scenario's anatt"):
        pathlab.advise(pathlab.Scenario.from_text(text.split("[[faults]]")[0], "nvme.toml"), failures="ana_change")


def _alua_host(stack: str, policy: str, implicit: str | None) -> pathlab.Scenario:
    text = two_controllers(duration="5s", seed=3, stack=stack, policy=policy,
                           workload='outstanding = 4\nblock_size = "4KiB"\nthink_time = "1ms"', fault="")
    text = text.split("[[faults]]")[0]
    if implicit:
        text = text.replace("tpgs = true", f'tpgs = true\nimplicit_transition_time = "{implicit}"')
    return pathlab.Scenario.from_text(text, "alua.toml")


@pytest.mark.parametrize(("policy", "stack", "predicted", "tick", "measured"), [
    # Linux requeues every 1 s (+ the refusal's 20 µs round trip): the third retry is the first
    # after the 3 s transition; the prediction is at most a whole retry after its end
    ('name = "dm-multipath"', 'fast_io_fail_tmo = "0s"', 4.0, 1.0, 3.0002),
    # ESXi holds the I/O on the path until the end; the first to wait left within a think time of the reboot
    ('name = "VMW_PSP_RR"', "", 3.0, 0.0, 2.99944)])
def test_an_alua_transition_stalls_as_the_rule_predicts_before_the_run(policy: str, stack: str, predicted: float,
                                                                       tick: float, measured: float) -> None:
    """A SCSI ALUA host: CT0 reboots and CT1's port groups are Transitioning for the array's
    implicit transition time (3 s, read from the scenario), predicted by
    `stall_rule.alua_transition` before the run; nothing fails (the transition ends in time)."""
    advice = pathlab.advise(_alua_host(stack, policy, "3s"), failures="alua_transition", seeds=2)
    (row,) = advice.rows
    assert (row.kind, row.target, row.predicted.seconds, row.predicted.tick) == ("alua_transition", "a/CT0", predicted,
                                                                                 tick)
    assert abs(row.measured.longest_wait_s - measured) < 1e-4 and row.measured.failed_ios == 0
    assert predicted - tick - CYCLE_S <= row.measured.longest_wait_s <= predicted
    setting = next(s for s in advice.candidates[0].settings if s.name == "implicit transition time")
    assert (setting.value, setting.provenance, setting.where) == ("3s", "read",
                                                                  "alua.toml, [[arrays]] a implicit_transition_time")
    (kind,) = advice.kinds
    assert kind.fault["ana_change"] == "3s"


def test_an_implicit_transition_time_given_by_set_runs_the_alua_transition_as_the_files() -> None:
    """`--set arrays.0.implicit_transition_time=3s` on a file without one: the kind is run, as
    the run reads the array (the same 3.0002 s the file's 3 s gives above), said as set."""
    scenario = _alua_host('fast_io_fail_tmo = "0s"', 'name = "dm-multipath"', None)
    advice = pathlab.advise(scenario.with_set({"arrays.0.implicit_transition_time": "3s"}),
                            failures="alua_transition", seeds=2)
    (row,) = advice.rows
    assert (row.kind, row.predicted.seconds, row.predicted.tick) == ("alua_transition", 4.0, 1.0)
    assert abs(row.measured.longest_wait_s - 3.0002) < 1e-4 and row.measured.failed_ios == 0
    setting = next(s for s in advice.candidates[0].settings if s.name == "implicit transition time")
    assert (setting.value, setting.where) == ("3s", "--set arrays.0.implicit_transition_time")


def test_a_scsi_host_without_an_implicit_transition_time_has_no_alua_transition_kind() -> None:
    """The transition's length is the array's; the 60 s scsi_dh_alua allows is the host's
    tolerance, not how long the array takes, so it is not assumed."""
    scenario = _alua_host('fast_io_fail_tmo = "0s"', 'name = "dm-multipath"', None)
    with pytest.raises(pathlab.ScenarioError, match=r"alua_transition: this host has no SCSI ALUA array .* with an "
                                                    r"implicit transition time \(the scenario's implicit_transition_time"):
        pathlab.advise(scenario, failures="alua_transition")
    kinds = applicable(scenario, tree(scenario), {})
    assert [k.kind for k in kinds] == ["path_hang", "link_down", "controller_reboot", "all_paths_down"]


def test_the_anatt_in_force_is_the_devices_own_subsystems_not_the_longest_of_the_host() -> None:
    """Two subsystems' controllers report ANATT 10 (nvme53, of the device's subsystem) and 30 (nvme99,
    another subsystem's): the device's ANA change lasts its own subsystem's 10 s."""
    from pathlab.advisor.timer_candidates import in_force
    from pathlab.importer import import_files
    from pathlab.importer.timer_values import TimerValue

    listing = ROOT / "tests/data/corpus/nvme-list-subsys/009-netapp-rocky10-tcp-two-subnets/bare.txt"
    scenario = pathlab.Scenario.from_text(import_files([str(listing)]).text, "imported.toml")
    timers = [TimerValue("anatt", "10", "nvme53", "id-ctrl.txt, line 56 (nvme53)"),
              TimerValue("anatt", "30", "nvme99", "id-ctrl.txt, line 240 (nvme99)")]
    anatt = next(s for s in in_force(scenario, scenario.devices, timers).settings if s.name == "ANATT")
    assert (anatt.value, anatt.where) == ("10", "id-ctrl.txt, line 56 (nvme53)")


def test_an_anatt_only_another_subsystem_gave_is_said_assumed_not_read() -> None:
    """Only another subsystem's controller (nvme99) printed its ANATT, 30: the import wrote it as
    the array's, the longest of those read; the device's ANA change runs it, said assumed (with
    the value's line and what would settle it), never as read for this device."""
    from pathlab.advisor.timer_candidates import in_force
    from pathlab.importer import import_files
    from pathlab.importer.timer_values import TimerValue

    listing = ROOT / "tests/data/corpus/nvme-list-subsys/009-netapp-rocky10-tcp-two-subnets/bare.txt"
    text = import_files([str(listing)]).text.replace('vendor = "NETAPP"', 'vendor = "NETAPP"\nanatt = "30s"', 1)
    scenario = pathlab.Scenario.from_text(text, "imported.toml")
    timers = [TimerValue("anatt", "30", "nvme99", "id-ctrl.txt, line 240 (nvme99)")]
    anatt = next(s for s in in_force(scenario, scenario.devices, timers).settings if s.name == "ANATT")
    assert (anatt.value, anatt.provenance) == ("30s", "assumed")
    assert anatt.where == ("the array's (imported.toml, [[arrays]] NETAPP anatt), another subsystem's (id-ctrl.txt, "
                           "line 240 (nvme99)): no `nvme id-ctrl` of this device's subsystem's controllers was read "
                           "(nqn.1992-08.com.netapp:sn.64e65e6caae711ef9668d039ea951c46:subsystem.nvme4, nvme102, "
                           "nvme151, nvme4, nvme53); one of theirs would settle it")
    # Given by --set, it is read from there.
    given = scenario.with_set({"arrays.0.anatt": "30s"})
    anatt = next(s for s in in_force(given, given.devices, timers).settings if s.name == "ANATT")
    assert (anatt.provenance, anatt.where) == ("read", "--set arrays.0.anatt")


def test_the_vendor_ctrl_loss_tmo_candidates_are_the_devices_own_subsystems_models() -> None:
    """Another subsystem's controller (nvme99) reads as an HPE Alletra over TCP: HPE's udev rule
    sets its ctrl_loss_tmo, not that of the device's NetApp controllers, so it is no candidate
    for this device (the subsystem scope ANATT and TBKAS are read with)."""
    from pathlab.advisor.timer_candidates import candidates
    from pathlab.importer import import_files
    from pathlab.importer.timer_values import TimerValue

    listing = ROOT / "tests/data/corpus/nvme-list-subsys/009-netapp-rocky10-tcp-two-subnets/bare.txt"
    scenario = pathlab.Scenario.from_text(import_files([str(listing)]).text, "imported.toml")
    timers = [TimerValue("model", "HPE Alletra", "nvme99", "id-ctrl.txt, line 3 (nvme99's mn)"),
              TimerValue("transport", "tcp", "nvme99", "list.txt, line 9 (nvme99)")]
    labels = [c.label for c in candidates(scenario, scenario.devices, timers)[0]]
    assert not any(label.startswith("HPE") for label in labels), labels
    assert any(label.startswith("HPE") for label in
               [c.label for c in candidates(scenario, scenario.devices,
                                            [TimerValue(t.setting, t.value, "nvme53", t.where) for t in timers])[0]])


def test_the_ctrl_loss_tmo_in_force_is_the_devices_own_subsystems_not_the_longest_of_the_host() -> None:
    """A controller of another subsystem (nvme99) reconnects forever (ctrl_loss_tmo -1): the
    device's own controllers' 600 s is in force, not the host's longest."""
    from pathlab.advisor.timer_candidates import in_force
    from pathlab.importer import import_files
    from pathlab.importer.timer_values import TimerValue

    listing = ROOT / "tests/data/corpus/nvme-list-subsys/009-netapp-rocky10-tcp-two-subnets/bare.txt"
    scenario = pathlab.Scenario.from_text(import_files([str(listing)]).text, "imported.toml")
    timers = [TimerValue("ctrl_loss_tmo", "600", "nvme53", "sysfs.txt, line 4 (nvme53's sysfs ctrl_loss_tmo)"),
              TimerValue("ctrl_loss_tmo", "-1", "nvme99", "sysfs.txt, line 9 (nvme99's sysfs ctrl_loss_tmo)")]
    now = in_force(scenario, scenario.devices, timers)
    loss = next(s for s in now.settings if s.name == "ctrl_loss_tmo")
    assert (loss.value, loss.where) == ("600", "sysfs.txt, line 4 (nvme53's sysfs ctrl_loss_tmo)")
    assert now.overrides["host.stack.controller_loss_timeout"] == "600s"
