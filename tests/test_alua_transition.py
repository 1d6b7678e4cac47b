"""SCSI ALUA's Transitioning state in the engine (`model/alua_transition.rs`), the controller
reboot's SCSI counterpart of NVMe's ANA change: CT0 reboots and CT1's target port groups
transition before they take its LUN over. Each timer changes the stall as `stall_rule.alua_transition`
says, and every I/O is accounted for through it."""

from __future__ import annotations

from pathlib import Path

import pytest

import pathlab
from conftest import ROOT
from pathlab.advisor import stall_rule
from pathlab.api import Scenario, ScenarioError
from two_controllers import two_controllers

#: Four workers, 1 ms between 4 KiB reads: seconds of simulated time stay cheap.
WORKLOAD = 'outstanding = 4\nblock_size = "4KiB"\nthink_time = "1ms"'
#: A retry's own service after the stall (the port's 20 µs, the array's 100 µs, the fabric).
SERVICE_S = 0.0005
#: The first I/O to wait leaves within a think time and a service after the reboot: a stall
#: measured from it may be that much shorter.
CYCLE_S = 0.00115
#: Each refusal's round trip on the 10 µs fabric, before the reprep delay.
ROUND_TRIP_S = 2 * 10e-6


def reboot(policy: str, stack: str, change: str, implicit: str = "", workload: str = WORKLOAD) -> dict:
    """CT0 reboots from 1 s to 7 s (the HBA sees its ports go) and CT1's groups transition for `change`."""
    text = two_controllers(duration="6s", seed=3, stack=stack, policy=policy, workload=workload,
                           fault=f'kind = "controller_reboot"\narray = "a"\ncontroller = "CT0"\nat = "1s"\n'
                                 f'until = "7s"\nana_change = "{change}"')
    if implicit:
        text = text.replace("tpgs = true", f'tpgs = true\nimplicit_transition_time = "{implicit}"')
    return Scenario.from_text(text, "transition.toml").run().data


def longest_s(data: dict) -> float:
    return max(d["longest_stall_s"] for d in data["application"]["devices"])


def accounted(data: dict) -> None:
    acc, end = data["accounting"], data["accounting"]["at_end"]
    assert acc["issued"] == end["completed"] + end["failed"] + end["in_flight"]


DM = 'name = "dm-multipath"'
#: CT0's paths fail at once: what waits is CT1's transition.
FC_AT_ONCE = 'fast_io_fail_tmo = "0s"'


def test_linux_retries_on_the_path_every_second_until_the_transition_ends() -> None:
    """A 2.5 s transition: the refused commands go down CT1's paths again every 1 s (plus the
    refusal's round trip); the third retry, 3 s after the reboot, is the first after the end."""
    rule = stall_rule.alua_transition(2.5, esxi=False)
    assert (rule.seconds, rule.then) == (2.5, "it continues on the new state")
    data = reboot(DM, FC_AT_ONCE, "2500ms")
    retry = 3 * ((stall_rule.ALUA_REPREP_DELAY.value or 0) + ROUND_TRIP_S)
    assert rule.seconds <= longest_s(data) <= rule.seconds + 1 + SERVICE_S
    assert abs(longest_s(data) - retry) < SERVICE_S + 3 * ROUND_TRIP_S
    assert data["accounting"]["failed"] == 0
    accounted(data)


def test_linux_fails_the_path_when_the_transition_outlasts_the_implicit_transition_time() -> None:
    """The array reports 2 s; the transition lasts 4 s: scsi_dh_alua sets the group standby at
    2 s, dm-multipath fails the path, and with no path left (`no_path_retry fail`) the I/O fails."""
    rule = stall_rule.alua_transition(4.0, esxi=False, implicit=2.0)
    assert rule.seconds == 2.0 and rule.then.startswith("the path fails")
    data = reboot(DM, FC_AT_ONCE, "4s", implicit="2s")
    assert rule.seconds - CYCLE_S <= longest_s(data) <= rule.seconds
    assert data["accounting"]["failed"] > 0
    events = [e["event"] for e in data["events"]]
    assert events.count("transition_timeout") == 2  # CT1's path of each adapter
    accounted(data)


def test_without_an_implicit_transition_time_linux_waits_sixty_seconds() -> None:
    """The same 4 s transition with no time reported: ALUA_FAILOVER_TIMEOUT's 60 s let it end."""
    rule = stall_rule.alua_transition(4.0, esxi=False)
    assert rule.seconds == 4.0 and stall_rule.ALUA_FAILOVER_TIMEOUT.value == 60
    data = reboot(DM, FC_AT_ONCE, "4s")
    assert rule.seconds <= longest_s(data) <= rule.seconds + 1 + SERVICE_S
    assert data["accounting"]["failed"] == 0 and "transition_timeout" not in {e["event"] for e in data["events"]}
    accounted(data)


def test_esxi_holds_the_io_on_the_path_until_the_transition_ends() -> None:
    """ESXi sees CT0's links go and retries on CT1 at once, where the SATP retries until the end."""
    rule = stall_rule.alua_transition(2.5, esxi=True)
    data = reboot('name = "VMW_PSP_RR"', "", "2500ms")
    assert rule.seconds == 2.5
    assert rule.seconds - CYCLE_S <= longest_s(data) <= rule.seconds + SERVICE_S
    assert data["accounting"]["failed"] == 0
    accounted(data)


def test_a_stack_whose_handling_is_not_sourced_is_refused_in_one_line() -> None:
    with pytest.raises(ScenarioError, match="naa.1 cannot pass through a transition: Windows msdsm: no source found"):
        reboot('name = "mpio"', "", "2s")


def test_the_stalls_hold_at_eight_times_the_queue_and_no_think_time() -> None:
    """The tests above run 4 workers with 1 ms between reads; the stalls are timers, so 32 workers
    with none (about 100,000 I/O/s) must give the same stalls. Here commands are in flight on CT0
    when it reboots: they go to CT1 at once, and the refusal's round trip comes before the
    implicit transition time starts, so the longest wait may pass the rule by that round trip
    (2.00002 s measured against the rule's 2 s, session 17); never by more than a service."""
    heavy = 'outstanding = 32\nblock_size = "4KiB"'
    for args, rule in (((DM, FC_AT_ONCE, "2500ms"), stall_rule.alua_transition(2.5, esxi=False)),
                       ((DM, FC_AT_ONCE, "4s", "2s"), stall_rule.alua_transition(4.0, esxi=False, implicit=2.0)),
                       (('name = "VMW_PSP_RR"', "", "2500ms"), stall_rule.alua_transition(2.5, esxi=True))):
        data = reboot(*args, workload=heavy)
        stall = longest_s(data)
        if rule.then.startswith("the path fails"):
            assert rule.seconds - CYCLE_S <= stall <= rule.seconds + ROUND_TRIP_S + SERVICE_S, (args, stall)
            assert data["accounting"]["failed"] >= 32  # every worker's command in the transition
        elif args[0] == DM:
            retry = 3 * ((stall_rule.ALUA_REPREP_DELAY.value or 0) + ROUND_TRIP_S)
            assert abs(stall - retry) < SERVICE_S + 3 * ROUND_TRIP_S, (args, stall)
        else:
            assert rule.seconds - CYCLE_S <= stall <= rule.seconds + SERVICE_S, (args, stall)
        accounted(data)


def test_an_esxi_alua_array_without_a_transition_time_says_what_would_settle_it(tmp_path: Path) -> None:
    """No ESXi listing shows the array's implicit transition time (esxcli's SATP device config
    gives the ALUA flags and groups' states, not the time), so an imported ESXi host's ALUA array
    had no alua_transition kind without a word; advise --failures now names the files that give
    it, and with the time written in the array's table the kind is there."""
    from pathlab.advisor.failure_kinds import applicable, transition_unknown
    from pathlab.advisor.timer_candidates import tree

    esxi = pathlab.Scenario.load(str(ROOT / "tests/data/failures/esxi-iscsi.toml"))
    (said,) = transition_unknown(esxi, tree(esxi))
    assert said.startswith("no ALUA transition (alua_transition) simulated on a: its implicit transition time is not "
                           "known; no ESXi listing gives it (esxcli's Storage Array Type Device Config shows ")
    assert "Broadcom KB 310442" in said and "`sg_rtpg -e /dev/sdX` prints on a Linux host of the same array" in said
    assert "alua_transition" not in [k.kind for k in applicable(esxi, tree(esxi), {})]
    text = esxi.text.replace("tpgs = true\n", 'tpgs = true\nimplicit_transition_time = "3s"\n')
    (tmp_path / "e.toml").write_text(text)
    timed = pathlab.Scenario.load(str(tmp_path / "e.toml"))
    assert transition_unknown(timed, tree(timed)) == []
    kind = next(k for k in applicable(timed, tree(timed), {}) if k.kind == "alua_transition")
    assert (kind.target, kind.change_s) == ("a/CT0", 3.0)


def test_a_linux_alua_map_without_sg_rtpg_says_sg_rtpg_would_settle_it() -> None:
    from pathlab.advisor.failure_kinds import transition_unknown
    from pathlab.advisor.timer_candidates import tree
    from pathlab.importer import imported_scenario

    listing = ROOT / "tests/data/corpus/multipath-ll/002-netapp-aff-rocky10-alua-two-groups/bare.txt"
    with pytest.warns(pathlab.PathlabWarning):
        _, scenario = imported_scenario((str(listing),))
    assert transition_unknown(scenario, tree(scenario)) == [
        "no ALUA transition (alua_transition) simulated on NETAPP: its implicit transition time is not known; "
        "`sg_rtpg -e /dev/sdX` of one of its paths (sg3_utils) would settle it"]


def test_an_sg_rtpg_output_given_with_an_esxi_hosts_listings_is_refused_saying_where_its_time_goes() -> None:
    from conftest import pathlab as cli

    listing = ROOT / "tests/data/corpus/esxcli-nmp-device-list/009-netapp-esxi6-rr-iops1-ao-ano/bare.txt"
    rtpg = ROOT / "tests/data/sg-rtpg/two-groups-extended.txt"
    done = cli("import", str(listing), str(rtpg))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        f"pathlab: error: {rtpg}: sg_rtpg output given with an ESXi host's listings: ESXi has no sg_rtpg, so its "
        "/dev/sdX is another host's disk, and its output names no LUN to tie to an ESXi device; write its Implicit "
        "transition time as implicit_transition_time in the imported scenario's [[arrays]] table of the same array")
