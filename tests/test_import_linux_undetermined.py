"""What `multipath -ll` does not determine is not decided on a guess (issue 32 item 2): the
grouping of a one-group map (multibus and group_by_prio build the same group when every path has
one priority), no_path_retry where the features show no queue_if_no_path (the built-in table's
value is not the host's), and the grouping of one-path groups whose paths failed. The scenario
still simulates the picture the listing shows; the vendor-practice check never compares what the
captures leave open, and says what would settle it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import pathlab, quiet
from pathlab.api import PathlabWarning
from pathlab.importer import import_files
from pathlab.importer.linux_topology import map_topology
from pathlab.importer.provenance import Derived, Provenance, Read
from pathlab.readers import multipath_ll

WWID = "3600a098038314e535a24584e4b496252"


def _netapp(features: str = "3 queue_if_no_path pg_init_retries 50") -> str:
    """One group of four ALUA paths at prio 50, as NetApp's Rocky Linux 10 page prints it."""
    return (f"{WWID} dm-32 NETAPP,LUN C-Mode\n"
            f"size=10G features='{features}' hwhandler='1 alua' wp=rw\n"
            "`-+- policy='service-time 0' prio=50 status=active\n"
            "  |- 11:0:0:41 sdan 66:112  active ready running\n"
            "  |- 11:0:1:41 sdcb 68:240  active ready running\n"
            "  |- 14:0:2:41 sdfd 129:240 active ready running\n"
            "  `- 14:0:0:41 sddp 71:112  active ready running\n")


def _conf(path: Path, body: str) -> Path:
    path.write_text('devices {\n    device {\n        vendor "NETAPP"\n        product "LUN.*"\n'
                    f"        {body}\n    }}\n}}\n")
    return path


def _imported(*files: Path) -> tuple[str, dict[str, Any]]:
    text, policy, _ = _sourced(*files)
    return text, policy


def _sourced(*files: Path) -> tuple[str, dict[str, Any], dict[str, Provenance | None]]:
    """The scenario's text, the first device's policy, and where each of its keys comes from."""
    with quiet():
        done = import_files([str(f) for f in files])
    policy = tomllib.loads(done.text)["devices"][0]["policy"]
    device = done.tables.of("devices")[0]
    return done.text, policy, {key: device.source(f"policy.{key}") for key in policy}


def _findings(*files: Path) -> str:
    done = pathlab("advise", *(str(f) for f in files))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_one_group_alua_map_is_no_multibus_finding_without_a_conf_that_says_so(tmp_path: Path) -> None:
    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(_netapp())
    _, policy, source = _sourced(listing)
    assert policy["path_grouping_policy"] == "multibus"  # the picture the listing shows, simulated
    assert source["path_grouping_policy"] == Derived(
        f"{listing}, map at line 1: the listing shows one group: multibus or group_by_prio (all paths one priority) "
        "build it; not determined", (str(listing),))
    found = _findings(listing)
    assert "path_grouping_policy multibus where it says group_by_prio" not in found
    assert "NetApp says group_by_prio: multipath.conf or `multipathd show config` would tell" in found


def test_a_conf_saying_group_by_prio_settles_a_one_group_map(tmp_path: Path) -> None:
    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(_netapp())
    conf = _conf(tmp_path / "multipath.conf", "path_grouping_policy group_by_prio")
    _, policy, source = _sourced(listing, conf)
    assert policy["path_grouping_policy"] == "group_by_prio"
    assert source["path_grouping_policy"] == Read(str(conf), 5, "path_grouping_policy group_by_prio (devices entry "
                                                                "NETAPP/LUN.*)")
    found = _findings(listing, conf)
    assert "path_grouping_policy" not in found


def test_a_conf_saying_multibus_keeps_the_practice_finding(tmp_path: Path) -> None:
    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(_netapp())
    conf = _conf(tmp_path / "multipath.conf", "path_grouping_policy multibus")
    found = _findings(listing, conf)
    assert "path_grouping_policy multibus where it says group_by_prio" in found
    assert "would tell" not in found


def test_features_without_queue_if_no_path_are_not_overridden_by_the_hwtable(tmp_path: Path) -> None:
    """NetApp's built-in entry says no_path_retry queue; the map's features say it does not queue."""
    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(_netapp("2 pg_init_retries 50"))
    text, policy, source = _sourced(listing)
    assert policy["no_path_retry"] == "fail"
    assert source["no_path_retry"] == Derived(f"{listing}: the listing's features show no queue_if_no_path (map at "
                                              "line 1); the built-in default would be queue", (str(listing),))
    imported = tmp_path / "imported.toml"
    imported.write_text(text)
    shown = pathlab("show", "devices", str(imported), "--style", "linux")
    assert shown.returncode == 0, shown.stderr
    assert "features='2 pg_init_retries 50'" in shown.stdout and "queue_if_no_path" not in shown.stdout


def test_a_conf_setting_no_path_retry_wins_over_the_features(tmp_path: Path) -> None:
    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(_netapp("2 pg_init_retries 50"))
    text, policy = _imported(listing, _conf(tmp_path / "multipath.conf", "no_path_retry 12"))
    assert policy["no_path_retry"] == 12 and "queue_if_no_path" not in text


def _paths(text: str, tmp_path: Path) -> list[Any]:
    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(text)
    return list(multipath_ll.read(str(listing))["paths"].itertuples())


ONE_PATH_GROUPS = ("mpatha (360000000000000000e00000000010001) dm-0 IET,VIRTUAL-DISK\n"
                   "size=10G features='0' hwhandler='1 alua' wp=rw\n"
                   "|-+- policy='service-time 0' prio=50 status=active\n"
                   "| `- 2:0:0:1 sda 8:0   active ready running\n"
                   "|-+- policy='service-time 0' prio={second} status=enabled\n"
                   "| `- 3:0:0:1 sdb 8:16  active ready running\n"
                   "|-+- policy='service-time 0' prio=0 status=enabled\n"
                   "| `- 4:0:0:1 sdc 8:32  failed faulty running\n"
                   "`-+- policy='service-time 0' prio=0 status=enabled\n"
                   "  `- 5:0:0:1 sdd 8:48  failed faulty running\n")


def test_one_path_groups_whose_paths_failed_say_nothing_of_the_grouping(tmp_path: Path) -> None:
    """The two failed groups show prio 0 (the prioritizer did not reach them): their equal
    priorities are not failover's sign. The usable groups, at 50 and 10, leave it open."""
    shape = map_topology("1 alua", _paths(ONE_PATH_GROUPS.format(second=10), tmp_path))
    assert shape.grouping == "group_by_prio" and shape.undetermined is not None
    assert "failover or group_by_prio build it; not determined" in shape.undetermined
    _, _, source = _sourced(tmp_path / "multipath-ll.txt")
    assert isinstance(source["path_grouping_policy"], Derived)
    assert source["path_grouping_policy"].rule.endswith(f"map at line 1: {shape.undetermined}")


def test_one_path_groups_of_one_priority_among_the_usable_are_failover(tmp_path: Path) -> None:
    shape = map_topology("1 alua", _paths(ONE_PATH_GROUPS.format(second=50), tmp_path))
    assert (shape.grouping, shape.undetermined) == ("failover", None)
    _, _, source = _sourced(tmp_path / "multipath-ll.txt")  # the rule that determines it, named
    assert isinstance(source["path_grouping_policy"], Derived)
    assert source["path_grouping_policy"].rule.endswith("map at line 1: a group per path, two usable ones of one "
                                                        "priority, which group_by_prio would have put together: failover")


def test_queue_if_no_path_does_not_tell_queue_from_the_hwtables_retries() -> None:
    """A CLARiiON map queues (`features=1 queue_if_no_path`): multipath-tools' built-in 60 retries
    and `queue` both set it, so Dell's 12 is not compared with the built-in 60 as the host's."""
    import pathlab
    from pathlab.advisor.findings import practice_findings

    sample = Path(__file__).parent / "data/corpus/multipath-ll/019-insights-rhel5-clariion-emc-debug-lines/bare.txt"
    with quiet():
        host = pathlab.import_host(sample)
    assert [(u.setting, u.device) for u in host.undetermined] == [("no_path_retry", "360060160ade32800f2e3baf47665e211")]
    (found,) = practice_findings(host.scenario.devices, undetermined=host.undetermined)
    assert "no_path_retry 60 where it says 12" not in found.title
    assert found.title.endswith("the built-in default would be 60; Dell says 12: multipath.conf or `multipathd show "
                                "config` would tell")


def test_a_setting_not_determined_is_said_with_the_values_the_captures_do_not_give(tmp_path: Path) -> None:
    """The prediction rests on it as on any assumed value: the import warns, and the host's
    assumptions (advise's "values the captures do not give") list it."""
    import pathlab

    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(_netapp())
    with pytest.warns(PathlabWarning) as said:
        host = pathlab.import_host(listing)
    (grouping,) = [a for a in host.assumptions if a.field.endswith(".policy.path_grouping_policy")]
    assert grouping.assumed == ("the listing shows one group: multibus or group_by_prio (all paths one priority) build "
                                "it; not determined; multipath.conf or `multipathd show config` would tell")
    assert any(grouping.field in str(w.message) for w in said)


def test_one_group_at_a_priority_no_alua_state_has_is_multibus_determined(tmp_path: Path) -> None:
    """multipathd gives a group the mean of its paths' priorities: 30 is two paths at 50 and two
    at 10. group_by_prio would have parted them, so the listing does determine multibus, and the
    finding of non-optimized paths carrying I/O is not contradicted by a 'not determined'."""
    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(_netapp().replace("prio=50", "prio=30"))
    text, policy = _imported(listing)
    assert policy["path_grouping_policy"] == "multibus" and "path_grouping_policy: the listing shows" not in text
    found = _findings(listing)
    assert "non-optimized paths carry I/O" in found and "path_grouping_policy: the listing shows one group" not in found


def test_a_grouping_the_conf_sets_that_pathlab_does_not_simulate_is_said(tmp_path: Path) -> None:
    listing = tmp_path / "multipath-ll.txt"
    listing.write_text(_netapp())
    conf = _conf(tmp_path / "multipath.conf", "path_grouping_policy group_by_serial")
    with quiet():
        said = dict(import_files([str(listing), str(conf)]).warnings)
    assert said[f"devices.{WWID}.policy.path_grouping_policy"] == (
        f"{conf} (devices) sets group_by_serial, a grouping pathlab does not simulate: the listing's groups are "
        "simulated as multibus; multipath.conf or `multipathd show config` would tell")
