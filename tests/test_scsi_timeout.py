"""A SCSI disk's command timeout (`/sys/block/sdX/device/timeout`) as admins paste it, tied to its
map in `multipath -ll` by the path's sdX or H:C:T:L, written as the host's `[host.stack]
io_timeout` with file and line, and the stall advise predicts and runs for a path that stops
answering; bad input in one line."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import pathlab
from conftest import ROOT, advise_one_at_a_time
from pathlab.readers import scsi_timeout

SAMPLE = ROOT / "tests/data/scsi-timeout/grep-four-paths.txt"
LISTING = ROOT / "tests/data/corpus/multipath-ll/002-netapp-aff-rocky10-alua-two-groups/bare.txt"
MAP = "3600a0980383149764b5d567257516273"


def _read(tmp_path: Path, text: str) -> list[tuple[str, str, int, int]]:
    (tmp_path / "t.txt").write_text(text)
    return [(v.device, v.attribute, v.seconds, v.line) for v in scsi_timeout.read(tmp_path / "t.txt")]


def test_grep_prints_each_file_and_value_read_with_its_line() -> None:
    assert [(v.device, v.attribute, v.seconds, v.line) for v in scsi_timeout.read(SAMPLE)] == [
        ("sdb", "timeout", 60, 2), ("sdc", "timeout", 60, 3), ("sdcf", "timeout", 60, 4), ("sdcg", "timeout", 60, 5)]


@pytest.mark.parametrize(("text", "read"), [
    # a loop over the disks: the attribute from its command line (prompted, or pasted bare)
    ("# for d in sdb sdc; do echo $d $(cat /sys/block/$d/device/timeout); done\nsdb 30\nsdc 60\n",
     [("sdb", "timeout", 30, 2), ("sdc", "timeout", 60, 3)]),
    ("for d in /sys/block/sd*; do echo $d $(cat $d/device/eh_timeout); done\n/sys/block/sdb 10\n",
     [("sdb", "eh_timeout", 10, 2)]),
    # one file's `cat`, its value alone
    ("[root@rocky10 ~]# cat /sys/block/sdc/device/timeout\n30\n", [("sdc", "timeout", 30, 2)]),
    # the device by its address, and a loop's `FILE: VALUE`
    ("/sys/class/scsi_device/10:0:1:0/device/timeout: 45\n/sys/bus/scsi/devices/16:0:2:0/eh_timeout 10\n",
     [("10:0:1:0", "timeout", 45, 1), ("16:0:2:0", "eh_timeout", 10, 2)])])
def test_the_forms_admins_paste_are_read(tmp_path: Path, text: str, read: list[tuple[str, str, int, int]]) -> None:
    assert _read(tmp_path, text) == read


@pytest.mark.parametrize(("text", "where", "message"), [
    ("/sys/block/sdb/device/timeout:30s\n", "line 1", r"timeout '30s': the kernel prints a whole number of seconds"),
    ("/sys/block/sdb/device/queue_depth:32\n", "line 1", r"queue_depth: not an attribute read here \(a SCSI device's "
                                                         r"timeout, eh_timeout\)"),
    ("sdb 30\n", "line 1", r"a disk and a value, but no command line above names the attribute"),
    ("# grep . /sys/block/sd*/device/timeout\n30\n", "line 2", r"'30' alone: a value needs its file"),
    ("/sys/block/sdb/device/timeout:30\n/sys/block/sdb/device/timeout:60\n", "line 2",
     r"sdb's timeout a second time \(first at line 1\): give one host's values, once each"),
    ("hello\n", "line 1", r"expected `/sys/block/sdX/device/timeout:SECONDS`"),
    # `str.isdigit` takes `²` for a digit; `int` does not: refused, not a ValueError
    ("/sys/block/sdb/device/timeout:3\u00b2\n", "line 1", r"the kernel prints a whole number of seconds here"),
    # Pure's page checks the timeouts with `find /sys/class/scsi_generic/*/device/timeout -exec grep -H . '{}' \;`
    ("/sys/class/scsi_generic/sg2/device/timeout:60\n", "line 1", r"sg2: a SCSI generic device, whose name "
                                                                  r"multipath -ll does not show: give the disks'")])
def test_what_sysfs_does_not_print_is_refused_with_its_line(tmp_path: Path, text: str, where: str, message: str) -> None:
    with pytest.raises(pathlab.ScenarioError, match=message) as refused:
        _read(tmp_path, text)
    assert refused.value.args[1] == where


def _imported(*files: Path):
    from pathlab.importer import import_files

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        return import_files([str(f) for f in files])


def test_the_paths_timeout_is_the_hosts_io_timeout_with_its_file_and_line() -> None:
    done = _imported(LISTING, SAMPLE)
    assert f'stack.io_timeout = "60s"  # {SAMPLE}, line 2: sdb\'s device/timeout, every path\'s' in done.text
    assert {(t.setting, t.value, t.scope, t.where) for t in done.timers if t.setting == "timeout"} == {
        ("timeout", "60", MAP, f"{SAMPLE}, line {n} ({sd} of map {MAP})")
        for n, sd in ((2, "sdb"), (3, "sdc"), (4, "sdcf"), (5, "sdcg"))}


def test_paths_of_differing_timeouts_run_the_one_most_give_and_say_the_others(tmp_path: Path) -> None:
    text = SAMPLE.read_text().replace("sdcg/device/timeout:60", "sdcg/device/timeout:30")
    (tmp_path / "t.txt").write_text(text + "/sys/block/sdb/device/eh_timeout:10\n")
    done = _imported(LISTING, tmp_path / "t.txt")
    assert 'stack.io_timeout = "60s"  # ' in done.text
    said = dict(done.warnings)
    assert said["host.stack.io_timeout"] == (
        f"{tmp_path / 't.txt'}: the command timeout 3 of 4 paths give (first sdb, line 2); the engine runs one per "
        "host; the others differ (sdcg 30 s (line 5)): a hang on one of those paths stalls for its own timeout")
    assert said["host.stack"].startswith(f"{tmp_path / 't.txt'}: eh_timeout read (sdb 10 s (line 6)), not simulated")


def test_the_import_and_advise_choose_the_hosts_timeout_by_one_function(tmp_path: Path) -> None:
    """"The most give" was written twice (`scsi_timeouts._host_value`, `timer_candidates._read_timers`):
    one function now; on a tie (two paths 30 s, two 60 s) both take the first given, 30 s."""
    from pathlab.advisor import timer_candidates
    from pathlab.importer import most_given, scsi_timeouts

    assert scsi_timeouts.most_given is timer_candidates.most_given is most_given.most_given
    text = SAMPLE.read_text().replace("sdb/device/timeout:60", "sdb/device/timeout:30")
    (tmp_path / "t.txt").write_text(text.replace("sdc/device/timeout:60", "sdc/device/timeout:30"))
    done = _imported(LISTING, tmp_path / "t.txt")
    assert 'stack.io_timeout = "30s"  # ' in done.text
    read = timer_candidates._read_timers(done.timers)["io_timeout"]
    assert read == ("30", f"{tmp_path / 't.txt'}, line 2 (sdb of map {MAP}) (2 of 4 give another value; the host runs "
                          "one, the most give)")


def test_a_device_the_listing_lacks_is_refused_naming_both_files(tmp_path: Path) -> None:
    (tmp_path / "t.txt").write_text("/sys/block/sdb/device/timeout:30\n/sys/block/sdz/device/timeout:30\n")
    with pytest.raises(pathlab.ScenarioError, match=r"sdz is no path of .*bare\.txt \(its paths: sdb, sdc, sdcf, "
                                                    r"sdcg\): give the timeouts of the same host's paths") as refused:
        _imported(LISTING, tmp_path / "t.txt")
    assert refused.value.args[:2] == (str(tmp_path / "t.txt"), "line 2")


def test_a_path_hang_stalls_for_the_timeout_read_predicted_and_run() -> None:
    """The host's 60 s (not the built-in 30 s): a lost command waits it out, then another path;
    multipathd's checker waits the device's timeout too (max_polling 20 + 60 = 80 s), later."""
    advice = advise_one_at_a_time([str(LISTING), str(SAMPLE)], "path_hang")
    setting = next(s for s in advice.candidates[0].settings if s.name == "SCSI command timeout")
    assert (setting.value, setting.provenance, setting.where) == ("60s", "read", f"{SAMPLE}, line 2 (sdb of map {MAP})")
    row = next(r for r in advice.rows if r.candidate == "in force")
    assert (row.kind, row.predicted.seconds) == ("path_hang", 60.0)
    assert abs(row.measured.longest_wait_s - 60.0) < 0.0015
    hang = next(f for f in advice.findings if "stops answering" in f.title)
    assert hang.title == "Every map: a path that stops answering (no link event) stalls I/O for about 60 s, then it " \
                         "is retried on another path"
    assert "max_polling_interval 20 + checker_timeout 60 = 80 s" in hang.evidence


def test_show_timeouts_prints_the_hosts_disks_as_grep_does_and_import_reads_it_back(tmp_path: Path) -> None:
    from conftest import pathlab as cli

    imported = _imported(LISTING, SAMPLE)
    (tmp_path / "h.toml").write_text(imported.text)
    shown = cli("show", "timeouts", str(tmp_path / "h.toml"))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == SAMPLE.read_text().replace("[root@rocky10 ~]# ", "# ")
    (tmp_path / "back.txt").write_text(shown.stdout)
    again = _imported(LISTING, tmp_path / "back.txt")
    assert f'stack.io_timeout = "60s"  # {tmp_path / "back.txt"}, line 2: sdb\'s device/timeout' in again.text


def test_show_timeouts_prints_a_timeout_no_file_gave_as_not_read(tmp_path: Path) -> None:
    """The import of a listing alone writes no io_timeout: the run uses the kernel's 30 s, but `show`
    prints `?` (not read), and the import refuses that back rather than read a default as the host's."""
    from conftest import pathlab as cli

    (tmp_path / "h.toml").write_text(_imported(LISTING).text)
    shown = cli("show", "timeouts", str(tmp_path / "h.toml"))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == "# grep . /sys/block/sd*/device/timeout" and len(lines) > 1
    assert all(line.endswith("/device/timeout:?") for line in lines[1:])
    (tmp_path / "back.txt").write_text(shown.stdout)
    back = cli("import", str(LISTING), str(tmp_path / "back.txt"))
    assert back.returncode == 2
    assert back.stderr.strip() == f"pathlab: error: {tmp_path / 'back.txt'}: line 2: timeout '?': the kernel prints " \
                                  "a whole number of seconds here"


def test_show_timeouts_of_a_scenario_without_a_linux_dm_device_is_refused_in_one_line() -> None:
    from conftest import pathlab as cli

    shown = cli("show", "timeouts", str(ROOT / "scenarios/c1-vmax-1lun.toml"))
    assert shown.returncode == 2
    assert "devices: the scenario has no device of a Linux dm-multipath host: /sys/block/sdX/device/timeout is a " \
           "Linux SCSI disk's" in shown.stderr
