"""`pathlab import` of `multipath -ll` gets the topology as the host has it: the grouping each map
shows, the controllers its groups stand for, LUN-ownership handlers, `multipath -l`'s missing
states, failed paths that say nothing of a controller, maps with no path left."""

from __future__ import annotations

import tomllib
import warnings
from pathlib import Path
from typing import Any

import pytest

from conftest import quiet
from pathlab.api import PathlabWarning, ScenarioError
from pathlab.importer import import_files
from test_corpus_layout import expected, sample_id, samples
from test_corpus_readers import REFUSED

LINUX = Path(__file__).parent / "data" / "linux"
CORPUS = Path(__file__).parent / "data" / "corpus"


def _imported(path: Path) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    with quiet():
        done = import_files([str(path)])
    return tomllib.loads(done.text), done.warnings


def _maps_with_grouping() -> list[Path]:
    """The multipath samples the readers read (the others are pinned in test_corpus_readers)."""
    return [s for s in samples() if s.parent.name in ("multipath-ll", "multipath-l")
            and (sample_id(s), "bare.txt") not in REFUSED
            and "maps" in expected(s) and all("grouping" in m for m in expected(s)["maps"])]


@pytest.mark.parametrize("sample", _maps_with_grouping(), ids=sample_id)
def test_each_corpus_map_is_imported_with_the_grouping_it_shows(sample: Path) -> None:
    scenario, _ = _imported(sample / "bare.txt")
    grouping = {d["name"]: d["policy"]["path_grouping_policy"] for d in scenario["devices"]}
    for m in expected(sample)["maps"]:
        assert grouping[m.get("wwid", m["name"])] == m["grouping"], m["name"]


def test_an_rdac_array_keeps_its_owner_and_passive_paths() -> None:
    scenario, _ = _imported(LINUX / "multipathd-topology_etva-rdac-ghost.txt")
    (array,) = scenario["arrays"]
    assert (array["tpgs"], array["symmetric"], array["non_owner_state"]) == (False, False, "standby")
    controller = {p["name"]: p["controller"] for p in array["ports"]}
    # mpath3's active group: 5:0:0 and 4:0:0 (targets 0); its ghost paths: targets 1.
    assert controller["H5T0"] == controller["H4T0"] != controller["H5T1"] == controller["H4T1"]


def test_multipath_l_is_said_to_show_no_state() -> None:
    _, said = _imported(LINUX / "multipath-l_fusioninventory-multipath1.txt")
    assert any("no checker state (`multipath -l`)" in message for _, message in said)


def test_a_failed_paths_group_is_not_taken_for_a_second_controller() -> None:
    """MD32xx: group 2's only path failed (prio 0 because the prioritizer could not reach it)."""
    scenario, said = _imported(LINUX / "multipath_check-multipath-26_dell-md32xx-rdac.txt")
    (array,) = scenario["arrays"]
    assert "controllers" not in array and array["symmetric"]
    assert [f["path"] for f in scenario["faults"]] == ["host2:C0:T0:L0"]


def test_groups_of_equal_priority_are_all_optimized_whichever_the_kernel_made_active() -> None:
    """NetApp's Citrix listing: two groups at prio 50 under `1 alua` (the alua prioritizer gives 50
    to active/optimized paths only): all four paths optimized, no second controller."""
    scenario, _ = _imported(CORPUS / "multipath-ll/005-netapp-citrix-mpathutil-two-prio50-groups/bare.txt")
    (array,) = scenario["arrays"]
    assert array["symmetric"] and "controllers" not in array
    assert "owner" not in scenario["devices"][0]


def test_a_map_without_a_path_left_is_said_to_be_left_out(tmp_path: Path) -> None:
    """A NetApp map whose only path is gone (`#:#:#:#`) under queue_if_no_path (the first map of a
    real listing), beside a real listing of maps with paths."""
    gone = (LINUX / "multipath_check-multipath-21_netapp-unknown-path.txt").read_text().split("\n")[:4]
    both = tmp_path / "maps.txt"
    both.write_text("\n".join(gone) + "\n" + (LINUX / "multipath_check-multipath-01_falcon-ipstor.txt").read_text())
    scenario, said = _imported(both)
    dropped = [message for field, message in said if field.startswith("maps.")]
    assert len(dropped) == 1 and "no path with a SCSI address" in dropped[0]
    assert "its I/O waits until a path returns" in dropped[0]
    assert scenario["devices"], "the maps with paths are imported"


def test_a_map_listed_twice_is_refused_naming_both_lines(tmp_path: Path) -> None:
    text = (LINUX / "multipath_check-multipath-01_falcon-ipstor.txt").read_text()
    twice = tmp_path / "twice.txt"
    twice.write_text(text + "\n" + text)
    with pytest.raises(ScenarioError) as refused:
        import_files([str(twice)])
    second = len(text.split("\n")) + 1
    assert refused.value.args[:2] == (str(twice), f"line {second}")
    assert "a second time (first at line 1)" in refused.value.args[2]


#: An ALUA map whose other group prints 1, the alua prioritizer's standby (a Ceph iSCSI gateway's shape).
ALUA_STANDBY_LISTING = """\
mpatha (360014050fd5c9ba6a0d4b7e8e2b6e8f5) dm-0 LIO-ORG,TCMU device
size=100G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw
|-+- policy='queue-length 0' prio=50 status=active
| `- 3:0:0:0 sdb 8:16 active ready running
`-+- policy='queue-length 0' prio={prio} status=enabled
  `- 4:0:0:0 sdc 8:32 active ready running
"""


def test_an_alua_group_at_the_standby_priority_is_standby_not_non_optimized(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(ALUA_STANDBY_LISTING.format(prio=1))
    array = _imported(listing)[0]["arrays"][0]
    assert (array["tpgs"], array["symmetric"], array["non_owner_state"]) == (True, False, "standby")
    listing.write_text(ALUA_STANDBY_LISTING.format(prio=10))  # non-optimized: the default, written as derived
    assert _imported(listing)[0]["arrays"][0]["non_owner_state"] == "active_non_optimized"


def test_an_alua_group_at_0_with_a_path_ready_serves_no_io_and_its_state_is_said_not_determined(tmp_path: Path) -> None:
    # alua.c gives 0 to unavailable, offline, transitioning and reserved states alike; tur.c reads
    # none of them `ready`: simulated unavailable (no I/O, and the alua prioritizer's 0 again),
    # which of the four said not determined (it ran the default, non-optimized, and said nothing).
    listing = tmp_path / "mp.txt"
    listing.write_text(ALUA_STANDBY_LISTING.format(prio=0))
    scenario, said = _imported(listing)
    assert scenario["arrays"][0]["non_owner_state"] == "unavailable"
    assert dict(said)["arrays.LIO-ORG.non_owner_state"] == (
        f"{listing}: the groups beside the owner's print priority 0 (map at line 1): alua.c's for a port group "
        "unavailable, offline, transitioning or in a reserved state alike (80 with the preferred bit): which one is "
        "not determined; simulated unavailable, the simulation's state that serves no I/O (the paths print `ready` "
        "or `ghost`, which tur.c gives none of the four: a check at another moment, or another checker)")
    # A group whose paths are only `i/o pending` prints 0 having averaged none (switchgroup.c): no state read, the
    # default said as assumed (test_import_linux_preferred.py).
    listing.write_text(ALUA_STANDBY_LISTING.format(prio=0).replace("sdc 8:32 active ready", "sdc 8:32 active i/o pending"))
    scenario, said = _imported(listing)
    assert scenario["arrays"][0]["non_owner_state"] == "active_non_optimized"
    assert "having averaged no path" in dict(said)["arrays.LIO-ORG.non_owner_state"]


@pytest.mark.parametrize("prio", [0, 5])
def test_one_alua_group_at_a_priority_alua_gives_one_path_leaves_its_grouping_open(tmp_path: Path, prio: int) -> None:
    # alua.c: 0 (unavailable, offline, transitioning) and 5 (logical-block dependent) are one
    # path's, not an average only multibus makes: group_by_prio builds one such group too.
    listing = tmp_path / "mp.txt"
    listing.write_text(ALUA_STANDBY_LISTING.format(prio=prio).replace("prio=50", f"prio={prio}").split("`-+-")[0]
                       .replace("|-+-", "`-+-").replace("| `-", "  `-"))
    scenario, said = _imported(listing)
    (device,) = scenario["devices"]
    assert device["policy"]["path_grouping_policy"] == "multibus"  # the picture, for the simulation
    assert f"devices.{device['name']}.policy.path_grouping_policy" in dict(said)  # said not determined


#: One group of four `ready` paths at 80 (/tmp/rev26/mp80.txt's shape): (50 + 90 + 90 + 90) / 4.
ONE_GROUP_OF_FOUR = """\
mpatha (360014050fd5c9ba6a0d4b7e8e2b6e8f5) dm-0 LIO-ORG,TCMU device
size=100G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw
`-+- policy='service-time 0' prio={prio} status=active
  |- 3:0:0:0 sdb 8:16 active {state} running
  |- 3:0:1:0 sdc 8:32 active {state} running
  |- 4:0:0:0 sdd 8:48 active {state} running
  `- 4:0:1:0 sde 8:64 active {state} running
"""


@pytest.mark.parametrize(("prio", "state", "mixed"), [(80, "ready", True), (0, "ready", False), (85, "ready", False),
                                                      (81, "ghost", False), (80, "ghost", False), (41, "ghost", True),
                                                      (10, "ghost", False), (90, "ghost", False)])
def test_one_alua_group_of_several_paths_is_one_states_only_at_a_priority_its_checker_states_allow(
        tmp_path: Path, prio: int, state: str, mixed: bool) -> None:
    """The rule (`linux_topology.group_prio_reading`): a group of `ready` or `ghost` paths is at one
    state's priority where alua.c gives it to a state tur.c prints so (`ready`: optimized,
    non-optimized, logical-block dependent; `ghost`: standby, or non-optimized under rdac.c); an
    average of differing priorities, multibus, derived, only where switchgroup.c's integer mean of
    priorities those states allow attains it: 80 over four `ready` paths, (50 + 90 + 90 + 90) / 4
    (dfc8759 left it not determined), 41 over four `ghost` ones, (1 + 1 + 81 + 81) / 4. At 85
    (logical-block dependent, preferred), or a `ghost` group at 81 (standby, preferred) or 10 or 90
    (rdac.c's non-owning controller's ports) it stays open; and at a priority neither (0 over
    `ready` paths, whose least is 5; 80 over `ghost` ones) too, said so (bb66ade read both as
    averages, multibus)."""
    listing = tmp_path / "mp.txt"
    listing.write_text(ONE_GROUP_OF_FOUR.format(prio=prio, state=state))
    with quiet():
        done = import_files([str(listing)])
    (device,) = tomllib.loads(done.text)["devices"]
    assert device["policy"]["path_grouping_policy"] == "multibus"  # the picture, for the simulation
    # Derived (the rule in its comment), or said not determined.
    assert (f"devices.{device['name']}.policy.path_grouping_policy" not in dict(done.warnings)) is mixed
    derived = "one group at a priority that is an integer mean (switchgroup.c) of priorities alua.c gives states"
    assert (derived in done.text) is mixed
    said = dict(done.warnings).get(f"devices.{device['name']}.policy.path_grouping_policy", "")
    unattainable = (prio, state) in ((0, "ready"), (80, "ghost"))
    assert ("nor an integer mean of theirs (switchgroup.c): not read from their states" in said) is unattainable, said


def test_a_map_beside_its_owner_printing_0_and_non_optimized_is_said(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    three_groups = ALUA_STANDBY_LISTING.format(prio=10).replace("`-+- policy='queue-length 0' prio=10 status=enabled",
                                                                 "|-+- policy='queue-length 0' prio=10 status=enabled")
    listing.write_text(three_groups + "`-+- policy='queue-length 0' prio=0 status=enabled\n"
                                      "  `- 5:0:0:0 sde 8:64 active ready running\n")
    scenario, said = _imported(listing)
    assert "non_owner_state" not in scenario["arrays"][0]
    assert dict(said)["arrays.LIO-ORG.non_owner_state"] == (
        f"{listing}: the map at line 1 prints priorities 0, 10 beside its owner's group, the alua prioritizer's "
        "non-optimized and unavailable: one state per device is simulated, the array's")


def test_an_alua_group_beside_the_owner_at_no_simulated_states_priority_is_said_not_read(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    for prio, said_as in ((5, "the alua prioritizer's logical-block dependent (alua.c: 5, 85 with the preferred bit), a "
                              "state pathlab does not simulate"),
                          (30, "a priority alua.c gives no path alone (paths in several states averaged, or another "
                               "prioritizer's)")):
        listing.write_text(ALUA_STANDBY_LISTING.format(prio=prio))
        scenario, said = _imported(listing)
        assert "non_owner_state" not in scenario["arrays"][0]  # it ran the default silently
        assert dict(said)["arrays.LIO-ORG.non_owner_state"] == (
            f"{listing}: the map at line 1 prints priority {prio} beside its owner's group, {said_as}: not read; its "
            "device runs the array's state (non-optimized where no map shows one)")


#: A second map of the same array whose other group is non-optimized (10), its owner the other controller.
NON_OPTIMIZED_MAP = """\
mpathb (360014050fd5c9ba6a0d4b7e8e2b6e8f6) dm-1 LIO-ORG,TCMU device
size=100G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw
|-+- policy='queue-length 0' prio=50 status=active
| `- 4:0:0:1 sdd 8:48 active ready running
`-+- policy='queue-length 0' prio=10 status=enabled
  `- 3:0:0:1 sde 8:64 active ready running
"""


def test_an_array_whose_maps_show_standby_and_non_optimized_keeps_each_maps_own(tmp_path: Path) -> None:
    # The rule ESXi's TPG_state is read by (`non_owner_majority`): the array takes the state most
    # maps show (here one each: the first listed, standby), and the other map's device its own
    # (it simulated non-optimized for both, with a warning).
    listing = tmp_path / "mp.txt"
    listing.write_text(ALUA_STANDBY_LISTING.format(prio=1) + NON_OPTIMIZED_MAP)
    scenario, said = _imported(listing)
    assert scenario["arrays"][0]["non_owner_state"] == "standby"
    assert [(d["name"][-3:], d.get("non_owner_state")) for d in scenario["devices"]] == [
        ("8f5", None), ("8f6", "active_non_optimized")]
    assert "arrays.LIO-ORG.non_owner_state" not in dict(said)
    with quiet():
        text = import_files([str(listing)]).text
    assert (f"non_owner_state = \"standby\"  # {listing}: the groups beside the owner's print priority 1 (map at line 1), "
            "the alua prioritizer's standby (alua.c: 1, 81 with the preferred bit): the other controller's paths are "
            "standby (the state most of its devices show: 1 of 2)\n") in text
    assert (f"non_owner_state = \"active_non_optimized\"  # {listing}: the groups beside the owner's print "
            "priority 10 (map at line 7), the alua prioritizer's non-optimized (alua.c: 10, 90 with the preferred bit): the "
            "other controller's paths serve I/O, forwarded\n") in text


def test_a_map_beside_its_owner_printing_standby_and_non_optimized_is_said(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    three_groups = ALUA_STANDBY_LISTING.format(prio=1).replace("`-+- policy='queue-length 0' prio=1 status=enabled",
                                                                "|-+- policy='queue-length 0' prio=1 status=enabled")
    three_groups += ("`-+- policy='queue-length 0' prio=10 status=enabled\n"
                     "  `- 5:0:0:0 sde 8:64 active ready running\n")
    listing.write_text(three_groups)
    scenario, said = _imported(listing)
    assert "non_owner_state" not in scenario["arrays"][0]
    assert dict(said)["arrays.LIO-ORG.non_owner_state"] == (
        f"{listing}: the map at line 1 prints priorities 1, 10 beside its owner's group, the alua prioritizer's standby "
        "and non-optimized: one state per device is simulated, the array's")


#: A NetApp 7-mode map under the ontap prioritizer (ontap.c): 4 to the owner's paths, 1 to the proxy
#: paths through its partner, which serve I/O (forwarded), not ALUA standby.
ONTAP_PROXY_LISTING = """\
mpatha (360a98000486e2f34576f2f51715a714d) dm-0 NETAPP,LUN
size=100G features='1 queue_if_no_path' hwhandler='0' wp=rw
|-+- policy='round-robin 0' prio=4 status=active
| |- 3:0:0:0 sdb 8:16 active ready running
| `- 4:0:0:0 sdc 8:32 active ready running
`-+- policy='round-robin 0' prio=1 status=enabled
  |- 3:0:1:0 sdd 8:48 active ready running
  `- 4:0:1:0 sde 8:64 active ready running
"""


def test_a_group_at_1_beside_an_owner_that_is_not_alua_optimized_is_not_taken_as_standby(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(ONTAP_PROXY_LISTING)
    array = _imported(listing)[0]["arrays"][0]
    assert (array["tpgs"], array["symmetric"]) == (False, False)
    assert "non_owner_state" not in array  # the proxy paths are non-optimized (the default), not standby


def test_an_ontap_4_1_map_is_an_array_without_tpgs_claimed_as_the_listing_shows(tmp_path: Path) -> None:
    """ontap.c's 4/1 under hwhandler 0: multipath-tools takes the ontap prioritizer only for a LUN
    that does not report TPGS (detect_prio would take alua), so the array has no tpgs, and the
    claim simulated is the listing's: NETAPP's table entry's ontap, its groups at 4 and 1 (was tpgs
    = true: prio alua, whose groups print 50 and 10, which the listing does not show)."""
    import pathlab

    listing = tmp_path / "mp.txt"
    listing.write_text(ONTAP_PROXY_LISTING)
    with quiet():
        done = import_files([str(listing)])
    scenario = pathlab.Scenario.from_text(done.text, "imported.toml")
    assert "tpgs = false  # " in done.text and "the ontap prioritizer's (ontap.c: 4 the owner's paths" in done.text
    (device,) = scenario.devices
    assert (device.policy.params["prio"], device.policy.params["hardware_handler"]) == ("ontap", "0")
    assert [g["priority"] for g in device.status.fields["groups"]] == [4, 1]  # as listed (alua gave 50 and 10)


@pytest.mark.parametrize("order", [(1, 10), (10, 1)])
def test_a_cluster_whose_hosts_show_standby_and_non_optimized_keeps_each_hosts_own(tmp_path: Path,
                                                                                  order: tuple[int, int]) -> None:
    """One LUN of one array, its other controller standby (1) on one host and non-optimized (10)
    on the other (an array answers each initiator's ALUA mode): each host's device is simulated
    as its own listing shows, whichever host comes first (the one host's standby was applied to
    both, the other's non-optimized being the default the Linux import left unwritten)."""
    import pathlab

    hosts = {}
    for host, prio in zip(("a", "b"), order):
        (tmp_path / f"{host}.txt").write_text(ALUA_STANDBY_LISTING.format(prio=prio))
        hosts[host] = [str(tmp_path / f"{host}.txt")]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", PathlabWarning)
        cluster = pathlab.import_cluster(hosts)
    scenario = pathlab.Scenario.from_text(cluster.text, "cluster.toml")
    prios = {d.host: [g["priority"] for g in d.status.fields["groups"]] for d in scenario.devices}
    assert prios == {host: [50, prio] for host, prio in zip(("a", "b"), order)}
    standby = "a" if order[0] == 1 else "b"  # the array takes non-optimized (a tie: the first by name), whatever the order
    assert any(f"{standby}'s devices keep its own" in str(w.message) and "the array answers the hosts apart"
               in str(w.message) for w in said)


@pytest.mark.parametrize("order", [("s", "n", "d"), ("n", "s", "d"), ("d", "s", "n")])
def test_a_host_that_reads_no_state_runs_the_same_whatever_the_hosts_order(tmp_path: Path,
                                                                        order: tuple[str, str, str]) -> None:
    """Hosts s (standby) and n (non-optimized) read the LUN's other controller apart, host d's
    listing gives no state (priority 0 beside the owner's, its path `i/o pending`: a group of no
    `ready` or `ghost` path averages none, switchgroup.c): d ran whichever the
    first host read (the array took the first reading). The array takes the value most hosts read (here a tie: the first by name,
    active_non_optimized), each reading host keeps its own, and d's case is said naming both."""
    import pathlab

    listings = {"s": ALUA_STANDBY_LISTING.format(prio=1), "n": ALUA_STANDBY_LISTING.format(prio=10),
                "d": ALUA_STANDBY_LISTING.format(prio=0).replace("sdc 8:32 active ready", "sdc 8:32 active i/o pending")}
    hosts = {}
    for host in order:
        (tmp_path / f"{host}.txt").write_text(listings[host])
        hosts[host] = [str(tmp_path / f"{host}.txt")]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", PathlabWarning)
        cluster = pathlab.import_cluster(hosts)
    scenario = tomllib.loads(cluster.text)
    assert scenario["arrays"][0]["non_owner_state"] == "active_non_optimized"
    assert {(d["host"], d["name"][-3:], d.get("non_owner_state")) for d in scenario["devices"]} == {
        ("s", "8f5", "standby"), ("n", "8f5", None), ("d", "8f5", None)}
    assert any("d shows no non_owner_state of LIO-ORG, which the other hosts read apart (active_non_optimized, "
               "standby): its devices run active_non_optimized, the value most hosts read" in str(w.message)
               for w in said)


def test_a_devices_own_state_is_kept_where_its_hosts_reading_is_not_the_arrays(tmp_path: Path) -> None:
    """Host x reads standby for the array (its first map) and non-optimized for its second map's
    device; hosts y and z read non-optimized, which the array takes: x's devices keep x's standby,
    but the device whose own map showed non-optimized keeps that (x's array value overwrote it)."""
    import pathlab

    listings = {"x": ALUA_STANDBY_LISTING.format(prio=1) + NON_OPTIMIZED_MAP,
                "y": ALUA_STANDBY_LISTING.format(prio=10), "z": ALUA_STANDBY_LISTING.format(prio=10)}
    for host, text in listings.items():
        (tmp_path / f"{host}.txt").write_text(text)
    with quiet():
        cluster = pathlab.import_cluster({h: [str(tmp_path / f"{h}.txt")] for h in listings})
    scenario = tomllib.loads(cluster.text)
    assert scenario["arrays"][0]["non_owner_state"] == "active_non_optimized"
    assert {(d["host"], d["name"][-3:]): d.get("non_owner_state") for d in scenario["devices"]} == {
        ("x", "8f5"): "standby", ("x", "8f6"): "active_non_optimized", ("y", "8f5"): None, ("z", "8f5"): None}


def test_a_host_that_reads_no_state_where_the_others_agree_is_said_to_run_theirs(tmp_path: Path) -> None:
    """Host s reads standby; host d's map gives no state (priority 0 beside the owner's, its path
    `i/o pending`: averaged from none): d's devices run standby, the array's value, and that is
    said (it was silent where the reading hosts agree)."""
    import pathlab

    listings = {"s": ALUA_STANDBY_LISTING.format(prio=1),
                "d": ALUA_STANDBY_LISTING.format(prio=0).replace("sdc 8:32 active ready", "sdc 8:32 active i/o pending")}
    for host, text in listings.items():
        (tmp_path / f"{host}.txt").write_text(text)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", PathlabWarning)
        cluster = pathlab.import_cluster({h: [str(tmp_path / f"{h}.txt")] for h in listings})
    assert tomllib.loads(cluster.text)["arrays"][0]["non_owner_state"] == "standby"
    assert [str(w.message).split(": ", 2)[-1] for w in said if "shows no non_owner_state" in str(w.message)] == [
        "d shows no non_owner_state of LIO-ORG: its devices run standby, as s read, which no capture of its own settles"]


@pytest.mark.parametrize("order", ["ab", "ba"])
def test_a_cluster_of_a_host_showing_the_array_symmetric_and_one_showing_it_owned_is_refused_naming_both(
        tmp_path: Path, order: str) -> None:
    """`multipath -l` (no priorities: its two one-path groups read as symmetric) on host a, the
    owner's group apart on host b: a's ports without a controller beside b's (it ended in a
    traceback, then in a refusal naming the engine's key). Refused in either order, naming both
    hosts' readings and what to capture."""
    import pathlab

    dash_l = ALUA_STANDBY_LISTING.format(prio=0).replace("prio=50", "prio=0").replace("ready", "undef")
    (tmp_path / "a.txt").write_text(dash_l)
    (tmp_path / "b.txt").write_text(ALUA_STANDBY_LISTING.format(prio=1))
    with quiet(), pytest.raises(ScenarioError) as refused:
        pathlab.import_cluster({h: [str(tmp_path / f"{h}.txt")] for h in order})
    file, key, message = refused.value.args
    assert (file, key) == (str(tmp_path / "a.txt"), "symmetric")
    assert message.startswith(f"a reads array LIO-ORG as symmetric ({tmp_path / 'a.txt'}: no map of the array parts ")
    assert f"b as owned by its controllers ({tmp_path / 'b.txt'}: the map at line 1 parts the paths" in message
    assert message.endswith("the scenario has one reading of an array, so the hosts cannot be simulated together as "
                            "each shows it; give a's `multipath -ll` (its paths' priorities: `-l` shows none), b's "
                            "`multipath -ll` (its paths' priorities: `-l` shows none), or, where the array answers the "
                            "hosts apart (a mode set per host), import each host alone")


def test_the_host_name_no_capture_gives_is_said_as_pathlabs_in_the_file(tmp_path: Path) -> None:
    """`linux01` is a name pathlab makes up where no capture names the host: said beside it (it
    was written bare, its reason in an `Own` text no output prints)."""
    listing = tmp_path / "mp.txt"
    listing.write_text(ONTAP_PROXY_LISTING)
    with quiet():
        text = import_files([str(listing)]).text
    assert 'name = "linux01"  # default: pathlab\'s name for the host: no capture names it\n' in text


def test_a_nul_byte_in_a_listing_is_refused_at_its_line_not_written_into_the_scenario(tmp_path: Path) -> None:
    """The paste harness's NUL byte in a path's device name (`sdb\\0`): it was read into the name
    and written into a comment, a scenario no TOML reader parses."""
    listing = tmp_path / "mp.txt"
    listing.write_text(ONTAP_PROXY_LISTING.replace("sdb ", "sdb\x00 "))
    with pytest.raises(ScenarioError) as refused:
        import_files([str(listing)])
    assert refused.value.args[:2] == (str(listing), "line 4") and "a NUL byte at character 17" in refused.value.args[2]


def test_a_devices_own_non_owner_state_is_checked_as_the_arrays(tmp_path: Path) -> None:
    import pathlab

    listing = tmp_path / "mp.txt"
    listing.write_text(ALUA_STANDBY_LISTING.format(prio=10))
    with quiet():
        text = import_files([str(listing)]).text
    owner = next(line for line in text.splitlines() if line.startswith("owner = "))
    for state, said in (("active_optimized", "allowed: active_non_optimized, standby, unavailable (the owner's paths "
                                             "are the optimized ones)"),
                        ("unavailable", 'unavailable, but array "LIO-ORG" reports no ALUA/ANA states (tpgs = false): '
                                        "the host sees every path alike")):
        device = text.replace(owner, f'{owner}\nnon_owner_state = "{state}"')
        if state == "unavailable":
            device = device.replace("tpgs = true", "tpgs = false")
        with pytest.raises(ScenarioError) as refused:
            pathlab.Scenario.from_text(device, "host.toml")
        assert refused.value.args == ("host.toml", "devices.0.non_owner_state", said)
    standby = pathlab.Scenario.from_text(text.replace(owner, f'{owner}\nnon_owner_state = "standby"'), "host.toml")
    assert [g["priority"] for g in standby.devices[0].status.fields["groups"]] == [50, 1]  # the array's is non-optimized


def test_a_nul_byte_in_an_nvme_listing_read_whole_is_refused_at_its_line(tmp_path: Path) -> None:
    """`nvme list-subsys` is read whole (`pasted.read_text`): a NUL in `non-optimized` was read and
    the listing imported."""
    sample = (CORPUS / "nvme-list-subsys/011-netapp-sles15-tcp-ragged-indent/bare.txt").read_text()
    listing = tmp_path / "subsys.txt"
    listing.write_text(sample.replace("non-optimized", "non\x00-optimized", 1))
    with pytest.raises(ScenarioError) as refused:
        import_files([str(listing)])
    line = 1 + sample[: sample.index("non-optimized")].count("\n")
    assert refused.value.args[:2] == (str(listing), f"line {line}") and "a NUL byte" in refused.value.args[2]
