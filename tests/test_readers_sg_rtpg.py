"""`sg_rtpg` (sg3_utils' REPORT TARGET PORT GROUPS) read in its own printing code's grammar, its
implicit transition time tied to the map `multipath -ll` shows by the /dev/sdX its command line
names, and run by `advise --failures` as the ALUA transition's length; bad input in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

import pathlab
from conftest import ROOT, advise_one_at_a_time
from pathlab.readers import sg_rtpg

SAMPLE = ROOT / "tests/data/sg-rtpg/two-groups-extended.txt"
LISTING = ROOT / "tests/data/corpus/multipath-ll/002-netapp-aff-rocky10-alua-two-groups/bare.txt"
MAP = "3600a0980383149764b5d567257516273"


def test_the_groups_and_the_implicit_transition_time_are_read_with_their_lines() -> None:
    (out,) = sg_rtpg.read(SAMPLE)
    assert (out.device, out.command_line, out.implicit, out.implicit_line) == ("sdc", 1, 4, 3)
    assert [(g.id, g.state, g.line) for g in out.groups] == [(1, 0x0, 4), (2, 0x1, 12)]


def test_an_older_release_without_rtpg_fmt_and_without_decoding_is_read(tmp_path: Path) -> None:
    text = "$ sg_rtpg /dev/sdb\nReport target port groups:\n  target port group id : 0x1 , Pref=0\n" \
           "    target port group asymmetric access state : 0x0f\n"
    (tmp_path / "r.txt").write_text(text)
    (out,) = sg_rtpg.read(tmp_path / "r.txt")
    assert (out.device, out.implicit, [(g.id, g.state) for g in out.groups]) == ("sdb", None, [(1, 0xF)])


@pytest.mark.parametrize(("text", "where", "message"), [
    ("Report target port groups:\n  Implicit transition time: 300\n", "line 2", r"Implicit transition time "
                                                                       r"'300': sg_rtpg prints a whole number of seconds "
                                                                       r"from 0 to 255 here"),
    ("Report target port groups:\n  target port group id : 0x1 , Pref=0\n"
     "    target port group asymmetric access state : 0x05\n", "line 3", r"asymmetric access state 0x05: allowed 0x00"),
    ("Report target port groups:\n  target port group id : 0x1 , Pref=0\n", "line 2",
     r"target port group with no asymmetric access state line"),
    ("hello\n", "", r"no `sg_rtpg` output")])
def test_what_sg_rtpg_does_not_print_is_refused_with_its_line(tmp_path: Path, text: str, where: str,
                                                              message: str) -> None:
    (tmp_path / "r.txt").write_text(text)
    with pytest.raises(pathlab.ScenarioError, match=message) as refused:
        sg_rtpg.read(tmp_path / "r.txt")
    assert refused.value.args[1] == where


def test_one_device_twice_with_another_time_is_refused_the_same_time_read(tmp_path: Path) -> None:
    """Two hosts' sdc pasted in one file: the larger time was taken for the map without a word."""
    other = SAMPLE.read_text().replace("rhel9", "rhel8").replace("time: 4", "time: 60")
    (tmp_path / "r.txt").write_text(SAMPLE.read_text() + other)
    with pytest.raises(pathlab.ScenarioError, match=r"sdc a second time, with another implicit transition time "
                                                    r"\(60; 4 at line 1\): give one host's outputs per file") as refused:
        sg_rtpg.read(tmp_path / "r.txt")
    assert refused.value.args[1] == "line 20"
    (tmp_path / "r.txt").write_text(SAMPLE.read_text() * 2)  # run twice: one time
    assert [(o.device, o.implicit) for o in sg_rtpg.read(tmp_path / "r.txt")] == [("sdc", 4), ("sdc", 4)]


def test_a_device_whose_sg_rtpg_failed_is_said_not_dropped(tmp_path: Path) -> None:
    """A path that does not answer REPORT TARGET PORT GROUPS was left out without a word."""
    (tmp_path / "r.txt").write_text(SAMPLE.read_text() + "[root@rhel9 ~]# sg_rtpg -e -d /dev/sdb\n"
                                    "Report Target Port Groups command not supported\n")
    with pytest.warns(pathlab.PathlabWarning, match=r"r.txt: line 20: sg_rtpg of sdb printed no `Report target port "
                                                    r"groups:` \('Report Target Port Groups command not supported'\): "
                                                    r"skipped"):
        assert [o.device for o in sg_rtpg.read(tmp_path / "r.txt")] == ["sdc"]


def test_the_time_goes_to_the_maps_array_and_advise_runs_the_transition_that_long() -> None:
    """The listing's NetApp map, its path sdc's output: the array's implicit transition time is
    4 s, read; dm-multipath's fast_io_fail_tmo (5 s) outlasts it on the lost controller, so the
    prediction is the lost paths' 5 s, and the run waits that."""
    advice = advise_one_at_a_time([str(LISTING), str(SAMPLE)], "alua_transition")
    setting = next(s for s in advice.candidates[0].settings if s.name == "implicit transition time")
    assert (setting.value, setting.provenance, setting.where) == ("4", "read", f"{SAMPLE}, line 3 (sdc of map {MAP})")
    row = next(r for r in advice.rows if r.candidate == "in force")
    assert (row.kind, row.target, row.predicted.seconds) == ("alua_transition", "NETAPP/A", 5.0)
    assert abs(row.measured.longest_wait_s - 5.0) < 0.0015 and row.measured.failed_ios == 0


@pytest.mark.parametrize(("command", "where", "message"), [
    ("", "line 3", r"no command line naming the device \(`sg_rtpg -e /dev/sdX`\) before this output: its map in .* is "
         r"not known"),
    ("# sg_rtpg -e /dev/sdz\n", "line 1", r"sdz is no path of .*bare\.txt \(its paths: sdb, sdc, sdcf, sdcg\): give "
                                r"sg_rtpg outputs of the same host's paths")])
def test_an_output_not_tied_to_a_path_of_the_listing_is_refused_in_one_line(tmp_path: Path, command: str, where: str,
                                                                            message: str) -> None:
    body = SAMPLE.read_text().split("\n", 1)[1]
    (tmp_path / "r.txt").write_text(command + body)
    with pytest.raises(pathlab.ScenarioError, match=message) as refused:
        pathlab.advise([str(LISTING), str(tmp_path / "r.txt")], failures="alua_transition", seeds=2)
    assert refused.value.args[:2] == (str(tmp_path / "r.txt"), where)


@pytest.mark.parametrize(("header", "said"), [
    ("", "line 1: sdc: no implicit transition time (sg_rtpg without -e/--extended prints none)"),
    ("  Implicit transition time: 0\n", "line 3: sdc: implicit transition time 0, unspecified by the array")])
def test_an_output_that_gives_no_time_gives_the_array_none_and_says_so(tmp_path: Path, header: str, said: str) -> None:
    from pathlab.importer.rtpg_times import tied
    from pathlab.readers import multipath_ll

    lines = SAMPLE.read_text().splitlines(keepends=True)
    (tmp_path / "r.txt").write_text("# sg_rtpg /dev/sdc\n" + lines[1] + header + "".join(lines[3:]))
    paths = multipath_ll.read(str(LISTING))["paths"]
    timers, found, warnings = tied(sg_rtpg.read(tmp_path / "r.txt"), "r.txt", paths, str(LISTING))
    assert (timers, found, warnings) == ([], {}, [(f"maps.{MAP}", f"r.txt, {said}")])


def test_an_output_for_a_map_the_listing_shows_without_alua_is_said(tmp_path: Path) -> None:
    """sg_rtpg answers only for a LU of target port groups: tied to a map of one group at one
    priority and no handler (the array taken without tpgs, where no ALUA transition is simulated),
    the time it gives would be unused without a word; the warning says which file to check."""
    import warnings

    from pathlab.importer import import_files

    listing = ROOT / "tests/data/linux/multipath_check-multipath-01_falcon-ipstor.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        done = import_files([str(listing), str(SAMPLE)])
    assert dict(done.warnings)["arrays.FALCON.tpgs"] == (
        f"{SAMPLE}: sg_rtpg reports target port groups for sdc (map mpatha, line 3), an ALUA LU, but {listing} shows "
        "the array without ALUA (equal paths (one group, or groups of one priority)); simulated without tpgs, so no "
        "ALUA transition is simulated and its implicit transition time is not used; give the sg_rtpg output of this "
        "host's paths, or set the array's tpgs = true if it reports port groups")


def test_each_device_gets_its_own_arrays_transition_time_not_another_arrays(tmp_path: Path) -> None:
    """Two ALUA arrays on one host, each map's path answering sg_rtpg with its own time (NetApp 4 s,
    the second array 9 s): the NetApp device's setting in force is its own array's 4 s, read from
    its own output, not the longest over the host (9 s, the other array's)."""
    from pathlab.advisor.timer_candidates import in_force

    other = ("3624a9370aaaabbbbccccdddd00000001 dm-1 PURE,FlashArray\n"
             "size=100G features='0' hwhandler='1 alua' wp=rw\n"
             "|-+- policy='service-time 0' prio=50 status=active\n"
             "| `- 11:0:0:1  sdd  8:48   active ready running\n"
             "`-+- policy='service-time 0' prio=10 status=enabled\n"
             "  `- 11:0:1:1  sde  8:64   active ready running\n")
    (tmp_path / "mp.txt").write_text(LISTING.read_text() + other)
    pure = SAMPLE.read_text().replace("/dev/sdc", "/dev/sdd").replace("Implicit transition time: 4",
                                                                         "Implicit transition time: 9")
    (tmp_path / "r.txt").write_text(SAMPLE.read_text() + pure)
    with pytest.warns(pathlab.PathlabWarning):
        host = pathlab.import_host(str(tmp_path / "mp.txt"), str(tmp_path / "r.txt"))
    by_array = {d.array.name: d for d in host.scenario.devices}
    settings = {name: next(s for s in in_force(host.scenario, [d], host.timers).settings
                           if s.name == "implicit transition time") for name, d in by_array.items()}
    assert sorted((s.value, s.where.rpartition("(")[2]) for s in settings.values()) == [
        ("4", f"sdc of map {MAP})"), ("9", "sdd of map 3624a9370aaaabbbbccccdddd00000001)")]
