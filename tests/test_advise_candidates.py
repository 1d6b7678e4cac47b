"""The advisor's candidates reach beyond the policy in force: an ESXi host on Fixed or MRU is
offered round robin (with the command that switches the PSP first), and a dm-multipath host is
offered the path groupings it does not run, each with its multipath.conf stanza."""

from __future__ import annotations

from pathlib import Path

import pathlab
from conftest import SCENARIOS, quiet
from pathlab import Scenario
from pathlab.advisor.candidates import candidates

SHORT = {"run.duration": "0.2s", "run.warmup": "0s"}


def _labels(file: str, **sets: object) -> dict:
    scenario = Scenario.load(SCENARIOS / file, set={**SHORT, **sets})
    return {c.label: c for c in candidates(scenario, scenario.run())}


def test_a_host_on_fixed_is_offered_round_robin_with_the_psp_switched_first() -> None:
    offered = _labels("four-paths-one-slow.toml", **{"devices.*.policy": {"name": "VMW_PSP_FIXED"}})
    rr = offered["round robin, iops=1"]
    device = next(line.split("--device=")[1].split()[0] for line in rr.commands if "deviceconfig set" in line)
    assert rr.commands.index(f"esxcli storage nmp device set --device={device} --psp=VMW_PSP_RR") < \
        rr.commands.index(f"esxcli storage nmp psp roundrobin deviceconfig set --device={device} --type=iops --iops=1")
    assert "round robin, latency" in offered


def test_a_host_on_round_robin_is_not_told_to_switch_its_psp() -> None:
    offered = _labels("four-paths-one-slow.toml")
    assert not any("--psp=VMW_PSP_RR" in line for line in offered["round robin, iops=1"].commands)


def test_a_dm_host_on_failover_grouping_is_offered_multibus_and_group_by_prio() -> None:
    offered = _labels("reactions/dm-shaky-path.toml", policy={"name": "dm-multipath", "selector": "round-robin",
                                                              "path_grouping_policy": "failover"})
    assert {"dm multibus", "dm group_by_prio"} <= set(offered)
    assert '        path_grouping_policy "multibus"' in offered["dm multibus"].commands
    assert "multipathd reconfigure" in offered["dm multibus"].commands


def test_the_grouping_in_force_is_never_offered_as_a_change() -> None:
    offered = _labels("reactions/dm-shaky-path.toml")  # multibus in force
    assert "dm multibus" not in offered and "dm group_by_prio" in offered


def test_a_candidate_the_practice_check_would_flag_says_so_beside_it() -> None:
    """Issue 32 item 9: multibus on a NetApp ONTAP host is offered with the finding the advisor
    would make of it; group_by_prio, NetApp's practice, is offered without."""
    with quiet():
        host = pathlab.import_host(Path(__file__).parent / "data/linux/multipath_check-multipath-20_netapp-debian-squeeze.txt")
    scenario = Scenario.from_text(host.text, "imported.toml", set=SHORT)
    offered = {c.label: c for c in candidates(scenario, scenario.run())}
    assert offered["dm multibus"].caveat.endswith(
        "path_grouping_policy multibus is not NetApp ONTAP (FAS/AFF/ASA)'s practice (group_by_prio): a finding on "
        "every device it sets, offered for its simulated figures alone")
    assert "practice" not in offered["dm service-time"].caveat
