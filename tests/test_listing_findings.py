"""What a `multipath -ll` listing shows without counters, against the verdicts written by hand in
the corpus: a map with no usable path is found (and whether its I/O waits), `multipath -l` is
said to show no state, a failover grouping over equal paths is found, and a healthy listing gets
no finding of trouble. (A healthy verdict may still get "every path through one HBA": sample
multipath-ll/026 shows four paths all through SCSI host 11, which the hand verdict let pass.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import quiet
from pathlab.api import ScenarioError
from pathlab.importer.capture_findings import multipath_findings
from pathlab.importer.listing_findings import listing_findings
from pathlab.readers import multipath_ll
from test_corpus_layout import expected, sample_id, samples

LINUX = Path(__file__).parent / "data" / "linux"
TROUBLE = ("no usable path", "runs on one path", "failover grouping", "without the `1 alua` hardware handler",
           "non-optimized paths carry I/O", "on an ALUA array")


def _titles(listing: Path) -> list[str]:
    with quiet():
        tables = multipath_ll.read(listing)
    return [f.title for f in listing_findings(tables["maps"], tables["paths"], str(listing))
            + multipath_findings(tables["paths"], str(listing))]


def _readable() -> list[Path]:
    out = []
    for s in samples():
        if s.parent.name not in ("multipath-ll", "multipath-l"):
            continue
        try:
            _titles(s / "bare.txt")
        except ScenarioError:  # refused with one line: test_corpus_readers pins which and why
            continue
        out.append(s)
    return out


@pytest.mark.parametrize("sample", _readable(), ids=sample_id)
def test_listing_findings_agree_with_the_hand_verdict(sample: Path) -> None:
    spec = expected(sample)
    titles = _titles(sample / "bare.txt")
    if spec["verdict"] == "down":
        assert any("no usable path" in t for t in titles), titles
    if sample.parent.name == "multipath-l":
        assert any("`multipath -l` runs no path checker" in t for t in titles), titles
    if any("failover grouping" in f["text"] for f in spec["findings"]):
        assert any("failover grouping" in t for t in titles), titles
    if spec["verdict"] == "healthy":
        assert not [t for t in titles if any(word in t for word in TROUBLE)], titles


def test_a_map_whose_only_path_is_gone_waits_under_queue_if_no_path() -> None:
    titles = _titles(LINUX / "multipath_check-multipath-21_netapp-unknown-path.txt")
    assert any("has no usable path: its I/O waits until a path returns (queue_if_no_path)" in t for t in titles), titles


def test_readable_samples_are_most_of_the_multipath_corpus() -> None:
    assert len(_readable()) >= 25


@pytest.mark.parametrize("listing", [Path(__file__).parent / "data" / "corpus" / "multipath-ll" /
                                     "015-ddn-s2a-guide-brackets-lost-indent" / "bare.txt",
                                     LINUX / "multipath-ll_opensvc-issue6_ibm-one-group-per-path.txt"],
                         ids=["ddn-s2a", "ibm-2145"])
def test_alua_priorities_without_the_alua_handler_are_found(listing: Path) -> None:
    """Both maps show hwhandler='0' on line 2 of the map (the header's line 1 names the map) with
    groups at priorities 50 and 10, the alua prioritizer's optimized and non-optimized."""
    (found,) = [f for f in _all(listing) if "without the `1 alua` hardware handler" in f.title]
    assert found.evidence.startswith(f"{listing}, line 1: hwhandler='0', while the groups' priorities [50, 10] "
                                     "(first path at line 4) are the alua prioritizer's")


def _all(listing: Path, conf: Path | None = None) -> list:
    from pathlab.readers import multipath_conf

    with quiet():
        tables = multipath_ll.read(listing)
    return listing_findings(tables["maps"], tables["paths"], str(listing),
                            multipath_conf.read(conf) if conf else None, str(conf or ""))


# Hand-built, in multipath-tools 0.9's layout: one path group over four paths of an ALUA array.
ONE_GROUP = """\
mpatha (3600a098038314962485d543078486c7a) dm-0 NETAPP,LUN C-Mode
size=10G features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 alua' wp=rw
`-+- policy='service-time 0' prio={prio} status=active
  |- 1:0:0:0 sda 8:0   active ready running
  |- 1:0:1:0 sdb 8:16  active ready running
  |- 2:0:0:0 sdc 8:32  active ready running
  `- 2:0:1:0 sdd 8:48  active ready running
"""


MIXED_TITLE = ("map mpatha: one path group over optimized and non-optimized paths of an ALUA array (multibus): "
               "non-optimized paths carry I/O (captured)")


def test_one_group_at_an_average_of_alua_priorities_is_multibus_over_non_optimized_paths(tmp_path: Path) -> None:
    """multipathd gives a group the average of its paths' priorities: two at 50 and two at 10 make 30,
    but so do one at 90 (non-optimized, preferred) and three at 10, with no optimized path: the
    title names paths of differing priorities, not optimized ones (80 over four `ready` paths is
    reached only with an optimized one: the next test)."""
    listing = tmp_path / "mp.txt"
    listing.write_text(ONE_GROUP.format(prio=30))
    (found,) = [f for f in _all(listing) if "non-optimized paths carry I/O" in f.title]
    assert found.title == ("map mpatha: one path group over paths of differing ALUA priorities of an ALUA array "
                           "(multibus): non-optimized paths carry I/O (captured)")
    assert found.evidence.endswith("group_by_prio would keep I/O on the best of them")
    assert found.evidence.startswith(f"{listing}, line 4: the group's priority 30 is no ALUA state's that all its paths' checker "
                                     "states allow")
    listing.write_text(ONE_GROUP.format(prio=50))  # every path optimized (an ASA): nothing to say
    assert not [f for f in _all(listing) if "ALUA" in f.title]


@pytest.mark.parametrize(("prio", "state"), [(5, "ready"), (85, "ready"), (1, "ready"), (81, "ghost"), (10, "ghost"),
                                             (90, "ghost")])
def test_one_group_at_a_priority_alua_gives_one_path_of_its_checker_state_is_not_said_to_mix_states(
        tmp_path: Path, prio: int, state: str) -> None:
    """alua.c gives one path 5 (85 preferred) in the logical-block dependent state, which a `ready`
    path (tur.c: TEST UNIT READY answered GOOD) can be in, 81 standby, a `ghost` one's under tur.c,
    and 10 (90) non-optimized, a `ghost` one's under rdac.c (the non-owning controller's ports) (1
    of `ready` paths is prio const's for every path): a group of such paths at one of them needs
    no two states."""
    listing = tmp_path / "mp.txt"
    listing.write_text(ONE_GROUP.format(prio=prio).replace("ready", state))
    assert not [f for f in _all(listing) if "ALUA" in f.title]


def test_one_group_of_ready_paths_at_an_attainable_mean_is_an_average_over_states(tmp_path: Path) -> None:
    """alua.c gives 80 (0 + 80 preferred) only to a path unavailable, offline or transitioning, which
    tur.c prints down or pending, never `ready`; switchgroup.c's integer mean of `ready` paths'
    priorities attains it, (50 + 90 + 90 + 90) / 4: multibus over optimized and non-optimized paths,
    as /tmp/rev26/mp80.txt shows (dfc8759 read it as one state's and said nothing)."""
    listing = tmp_path / "mp.txt"
    listing.write_text(ONE_GROUP.format(prio=80))
    (found,) = [f for f in _all(listing) if "ALUA" in f.title]
    assert found.title == MIXED_TITLE
    assert found.evidence.startswith(f"{listing}, line 4: the group's priority 80 is no ALUA state's that all its "
                                     "paths' checker states allow (tur.c, rdac.c), and an integer mean of priorities "
                                     "alua.c gives them: an average"), found.evidence


def test_one_group_of_ready_paths_at_0_is_no_average_and_not_said_to_mix_states(tmp_path: Path) -> None:
    """alua.c gives a `ready` path (tur.c) at least 5 (logical-block dependent), so four `ready`
    paths' mean is never 0: 0 is no average over optimized and non-optimized paths (bb66ade said it
    was, with this finding: /tmp/rev26b/mp0ready.txt); the finding is not read, so not said."""
    listing = tmp_path / "mp.txt"
    listing.write_text(ONE_GROUP.format(prio=0))
    assert not [f for f in _all(listing) if "ALUA" in f.title]


def test_prio_const_in_multipath_conf_shown_in_force_on_an_alua_array_names_the_conf_line(tmp_path: Path) -> None:
    listing, conf = tmp_path / "mp.txt", tmp_path / "multipath.conf"
    listing.write_text(ONE_GROUP.format(prio=1))
    conf.write_text('defaults {\n    user_friendly_names yes\n}\ndevices {\n    device {\n        vendor "NETAPP"\n'
                    '        product "LUN.*"\n        prio const\n        path_grouping_policy multibus\n    }\n}\n')
    titles = {f.title: f.evidence for f in _all(listing, conf)}
    assert titles["map mpatha: prio const on an ALUA array (captured)"].startswith(
        f"{conf}, line 8: prio const; {listing}, line 1: hwhandler='1 alua', and the listing shows it in force")
    assert titles["map mpatha: path_grouping_policy multibus on an ALUA array (captured)"].startswith(f"{conf}, line 9:")
    # Without multipath.conf the listing alone cannot tell const from a group of standby paths.
    assert not [f for f in _all(listing) if "on an ALUA array" in f.title]


# An rdac array's map as multipath-tools prints it: the owning controller's paths `ready`, the
# other controller's `ghost` (the rdac checker's standby; tur says the same of an ALUA standby port).
RDAC = """\
mpathb (3600a0b80005ae2c50000a0c55a2a2b3c) dm-1 LSI,INF-01-00
size=100G features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 rdac' wp=rw
|-+- policy='service-time 0' prio=14 status={first}
| |- 1:0:0:1 sdb 8:16 {a}
| `- 2:0:0:1 sdd 8:48 {b}
`-+- policy='service-time 0' prio=9 status=enabled
  |- 1:0:1:1 sdc 8:32 active ghost running
  `- 2:0:1:1 sde 8:64 active ghost running
"""


def _path_findings(listing: Path) -> list:
    with quiet():
        return multipath_findings(multipath_ll.read(listing)["paths"], str(listing))


def test_standby_paths_beside_a_serving_one_are_said_as_normal_and_alone_they_are_a_finding(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(RDAC.format(first="active", a="active ready running", b="active ready running"))
    found = _path_findings(listing)
    assert [(f.title, f.evidence, f.normal) for f in found] == [(
        "map mpathb: 2 standby path(s) to the controller or ports that do not serve the LUN now, as the array works; "
        "2 serve it (captured)", f"{listing}, line 7: sdc, sde are ghost", True)]
    # The owner's paths failed: the standby ones are all that is left, and that is a finding.
    listing.write_text(RDAC.format(first="enabled", a="failed faulty running", b="failed faulty running"))
    found = _path_findings(listing)
    assert [(f.title, f.normal) for f in found] == [
        ("sdb (1:0:0:1) of map mpathb is failed/faulty (captured)", False),
        ("sdd (2:0:0:1) of map mpathb is failed/faulty (captured)", False),
        ("map mpathb: no path serves the LUN, every path left is standby (ghost): I/O waits for a failover to make one "
         "active (captured)", False)]


# Two maps of an ALUA array, the second cut by the paste (`{tail}`: what is left of it).
TWO_MAPS = """\
mpatha (3600a098038314962485d543078486c7a) dm-0 NETAPP,LUN C-Mode
size=10G features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=50 status=active
| |- 1:0:0:0 sda 8:0   active ready running
| `- 2:0:0:0 sdc 8:32  active ready running
`-+- policy='service-time 0' prio=10 status=enabled
  |- 1:0:1:0 sdb 8:16  active ready running
  `- 2:0:1:0 sdd 8:48  active ready running
mpathb (3600a098038314962485d543078486c7b) dm-1 NETAPP,LUN C-Mode
{tail}"""
PROPS = "size=10G features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 alua' wp=rw\n"
GROUP = "|-+- policy='service-time 0' prio=50 status=active\n"


@pytest.mark.parametrize(("tail", "end", "listed"), [
    ("", 9, 0),  # the header, then the file ends
    (PROPS[:30], 10, 0),  # the properties cut
    (PROPS + GROUP, 11, 0),  # a group without paths
    (PROPS + GROUP + "| |- 1:0:0:1 sde 8:64   active ready running\n| `- 2:0:0:1 sdf 8:", 13, 1),  # a path cut mid-way
    (PROPS + GROUP + "| |- 1:0:0:1 sde 8:64   active ready running\n| `- 2:0:0:1 sdf 8:80 act", 13, 1),
], ids=["header", "properties-cut", "group", "path-cut-before-its-states", "path-cut-in-its-states"])
def test_a_map_the_listing_ends_inside_is_said_so_not_as_a_path_failure(tmp_path: Path, tail: str, end: int,
                                                                         listed: int) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(TWO_MAPS.format(tail=tail))
    found = [f for f in _all(listing) if "mpathb" in f.title]
    assert [(f.title, f.evidence) for f in found] == [(
        f"map mpathb: the listing ends inside this map (line {end}): its paths after that are not known (captured)",
        f"{listing}, line 9: map mpathb, {listed} path(s) listed before the end at line {end}; paste the whole "
        "`multipath -ll` to judge it")]
    assert not [f for f in _all(listing) if "mpatha" in f.title]


def test_a_map_whose_paths_all_failed_or_are_gone_is_not_a_cut_one(tmp_path: Path) -> None:
    """Groups `enabled` with every path failed, at the end of the file: the map is whole, and has no
    path; so is a header and its properties without a group, as multipath-tools prints a map whose
    paths are gone (tests/data/linux/multipath_check-multipath-03_maps-without-paths.txt)."""
    listing = tmp_path / "mp.txt"
    listing.write_text(TWO_MAPS.format(tail=PROPS))
    titles = [f.title for f in _all(listing)]
    assert "map mpathb has no usable path: its I/O waits until a path returns (queue_if_no_path) (captured)" in titles
    assert not [t for t in titles if "listing ends" in t]
    listing.write_text(TWO_MAPS.format(tail=PROPS.replace("3 queue_if_no_path pg_init_retries 50", "0")
                                       + "`-+- policy='service-time 0' prio=0 status=enabled\n"
                                         "  `- 1:0:0:1 sde 8:64 failed faulty running\n"))
    titles = [f.title for f in _all(listing)]
    assert "map mpathb has no usable path: its I/O fails (captured)" in titles
    assert not [t for t in titles if "listing ends" in t]


def test_a_fragment_that_is_not_the_last_line_is_still_refused(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(TWO_MAPS.format(tail=PROPS + GROUP + "| `- 2:0:0:1 sdf 8:\n"
                                       "  `- 1:0:0:1 sde 8:64 active ready running\n"))
    with pytest.raises(ScenarioError, match="line 12"):
        multipath_ll.read(listing)


# A dry run (`multipath -d`, or `multipath -v2` creating maps) of the same rdac array: no map is
# loaded yet, so the dm state and the group status print `undef` (print.c: `snprint_dm_path_state`
# and `snprint_pg_state` of a map with no table); the checker has run: `ready` and `ghost`.
RDAC_DRY_RUN = """\
create: mpathb (3600a0b80005ae2c50000a0c55a2a2b3c) undef LSI,INF-01-00
size=100G features='1 queue_if_no_path' hwhandler='1 rdac' wp=undef
|-+- policy='round-robin 0' prio=6 status=undef
| `- 1:0:0:1 sdb 8:16 undef ready running
`-+- policy='round-robin 0' prio=1 status=undef
  `- 1:0:1:1 sdc 8:32 undef ghost running
"""


def test_standby_paths_of_a_dry_run_beside_a_ready_one_are_said_as_normal(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(RDAC_DRY_RUN)
    assert [(f.title, f.normal) for f in _path_findings(listing)] == [
        ("map mpathb: 1 standby path(s) to the controller or ports that do not serve the LUN now, as the array works; "
         "1 serve it (captured)", True)]


# A Ceph iSCSI gateway's LUN (LIO-ORG, TCMU): the owning gateway's path optimized, the other
# gateways' paths in ALUA Standby, which the alua prioritizer prints as priority 1 while the tur
# checker, answered by LIO on a standby port, says `ready`.
CEPH_ISCSI = """\
mpatha (360014050fd5c9ba6a0d4b7e8e2b6e8f5) dm-0 LIO-ORG,TCMU device
size=100G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw
|-+- policy='queue-length 0' prio={owner_prio} status={owner_status}
| `- 3:0:0:0 sdb 8:16 {owner}
`-+- policy='queue-length 0' prio={standby_prio} status=enabled
  |- 4:0:0:0 sdc 8:32 active ready running
  `- 5:0:0:0 sdd 8:48 active ready running
"""
STANDBY_WHERE = "line 6: sdc, sdd in the group at priority {prio}, the alua prioritizer's standby (alua.c: 1, 81 with the preferred bit)"


@pytest.mark.parametrize("standby_prio", [1, 81])
def test_alua_standby_paths_beside_an_optimized_one_are_one_normal_line(tmp_path: Path, standby_prio: int) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(CEPH_ISCSI.format(owner_prio=50, owner_status="active", owner="active ready running",
                                         standby_prio=standby_prio))
    assert [(f.title, f.evidence, f.normal) for f in _all(listing)] == [(
        "map mpatha: 2 path(s) in ALUA standby, used when the array makes their ports active, as the array works; "
        "1 optimized path(s) serve it (captured)", f"{listing}, {STANDBY_WHERE.format(prio=standby_prio)}", True)]


def test_alua_standby_paths_with_no_optimized_path_left_are_a_finding(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(CEPH_ISCSI.format(owner_prio=0, owner_status="enabled", owner="failed faulty running",
                                         standby_prio=1))
    assert [(f.title, f.evidence, f.normal) for f in _all(listing)] == [
        ("map mpatha: no optimized path is left, 2 in ALUA standby: I/O waits for a failover to make one active "
         "(captured)", f"{listing}, {STANDBY_WHERE.format(prio=1)}; no usable path in an optimized group (priority 50, "
         "130)", False)]
    # The owner's group non-optimized (10): I/O runs there, and that is said.
    listing.write_text(CEPH_ISCSI.format(owner_prio=10, owner_status="active", owner="active ready running",
                                         standby_prio=1))
    assert [f.title for f in _all(listing) if not f.normal] == [
        "map mpatha: no optimized path is left, 2 in ALUA standby: I/O runs on 1 non-optimized path(s) (captured)"]


def test_groups_all_at_priority_one_are_the_const_prioritizers_not_standby(tmp_path: Path) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(CEPH_ISCSI.format(owner_prio=1, owner_status="active", owner="active ready running",
                                         standby_prio=1))
    assert not [f for f in _all(listing) if "standby" in f.title]


def test_alua_standby_paths_the_checker_calls_ghost_are_said_once(tmp_path: Path) -> None:
    """tur on an ALUA standby port of most arrays: `ghost`, said by the ghost rule alone."""
    listing = tmp_path / "mp.txt"
    listing.write_text(CEPH_ISCSI.format(owner_prio=50, owner_status="active", owner="active ready running",
                                         standby_prio=1).replace("active ready running\n  ", "active ghost running\n  ")
                       .replace("8:48 active ready", "8:48 active ghost"))
    assert not [f for f in _all(listing) if "standby" in f.title]
    assert [(f.title, f.normal) for f in _path_findings(listing)] == [
        ("map mpatha: 2 standby path(s) to the controller or ports that do not serve the LUN now, as the array works; "
         "1 serve it (captured)", True)]
