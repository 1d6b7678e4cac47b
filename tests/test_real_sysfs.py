"""The sysfs readers and advise's timer findings on real captures (issue 36, "advise's timer
findings on real multipath.conf and sysfs samples"): the values read with their file and line,
and the findings the stall rule gives from them. Neither post gives a listing of its host, so the
NVMe findings are those of the timers alone (`timer_findings` of an NVMe host reads no device)
and the SCSI timeout is read alone. The samples and their sources: tests/data/sysfs/README.md."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from pathlab.advisor.timer_findings import timer_findings
from pathlab.api import PathlabWarning, ScenarioError
from pathlab.importer.kinds import kind_of
from pathlab.importer.timer_values import nvme_timers
from pathlab.readers import nvme_sysfs, scsi_timeout

SYSFS = Path(__file__).parent / "data" / "sysfs"
GRANDI = SYSFS / "001-linux-raid-grandi-sda-nvme-core"
WAGNER = SYSFS / "002-linux-nvme-wagner-netapp-fc-nvme0" / "as-collected.txt"


def _quiet_read(path: Path):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return nvme_sysfs.read(path)


def _findings(path: Path) -> dict[str, str]:
    timers = nvme_timers(_quiet_read(path), str(path))
    return {f.title: f.evidence for f in timer_findings("nvme", timers, [])}


def test_a_dump_of_a_netapp_fc_controllers_folder_gives_its_timers_with_their_lines() -> None:
    """`find . -type f -exec grep -aH . {} \\;` in /sys/class/nvme/nvme0: `./kato:5` is nvme0's
    kato; the folder's 205 other files and grep's 7 unreadable ones are passed over and counted."""
    with pytest.warns(PathlabWarning, match=r"line 1: the dump of /sys/class/nvme/nvme0: 205 other file\(s\) passed "
                                            r"over, 7 grep could not read"):
        table = nvme_sysfs.read(WAGNER)
    assert table[["name", "attribute", "value", "line"]].values.tolist() == [
        ["nvme0c0n1", "ana_state", "inaccessible", 14], ["nvme0c0n1", "ana_grpid", "1", 26],
        ["nvme0", "transport", "fc", 103], ["nvme0", "reconnect_delay", "2", 114],
        ["nvme0", "model", "NetApp ONTAP Controller", 117], ["nvme0", "fast_io_fail_tmo", "off", 119],
        ["nvme0c0n2", "ana_state", "inaccessible", 136], ["nvme0c0n2", "ana_grpid", "2", 148],
        ["nvme0", "kato", "5", 221], ["nvme0", "ctrl_loss_tmo", "600", 223]]
    assert kind_of(str(WAGNER)).name == "nvme-sysfs"


def test_the_netapp_fc_controllers_timers_give_the_keep_alive_stall_and_the_600_s_hold() -> None:
    """KATO 5 read at line 221: a silent controller is found after 1.5 × KATO = 7.5 s (keep-alive
    every KATO/2); ctrl_loss_tmo 600 (line 223) with fast_io_fail_tmo off (line 119): with every
    path down, I/O is held 600 s and then fails; io_timeout, not in the dump, said as assumed."""
    found = _findings(WAGNER)
    silent = found["nvme0: a controller that stops answering stalls I/O for about 7.5 s, then it is retried on another "
                   "path"]
    assert silent.startswith(f"kato 5 (read at {WAGNER}, line 221); io_timeout 30 (assumed: the built-in default")
    assert "1.5 × KATO = 7.5 s" in silent
    held = found["Every path down: I/O is held for about 600 s, then it fails to the application (the controllers are "
                 "removed)"]
    assert held.startswith(f"nvme0: ctrl_loss_tmo 600 (read at {WAGNER}, line 223); fast_io_fail_tmo off (read at "
                           f"{WAGNER}, line 119)")
    assert "KATO 5 s and no CQT hold is shown: an I/O can be retried on another path while its first copy may still " \
           "land" in found
    assert found["Failure timers no capture gives: io_timeout"].endswith(
        "/sys/module/nvme_core/parameters/io_timeout would settle it")


def test_nvme_cores_parameters_are_read_and_its_others_passed_over_by_name() -> None:
    """`grep -H . /sys/module/nvme_core/parameters/*{timeout,retries,latency}*` prints three
    parameters pathlab does not use beside io_timeout and admin_timeout: named, not refused."""
    bare = GRANDI / "bare-nvme-sysfs.txt"
    with pytest.warns(PathlabWarning, match=r"nvme_core: shutdown_timeout \(line 3\), max_retries \(line 4\), "
                                            r"default_ps_max_latency_us \(line 5\): module parameters pathlab does "
                                            r"not use, passed over"):
        table = nvme_sysfs.read(bare)
    assert table[["name", "object", "attribute", "value", "line"]].values.tolist() == [
        ["nvme_core", "module", "admin_timeout", "60", 1], ["nvme_core", "module", "io_timeout", "30", 2]]
    assert kind_of(str(bare)).name == "nvme-sysfs"
    # as collected, the same values at the post's lines, the SCSI commands' output skipped
    collected = _quiet_read(GRANDI / "as-collected.txt")
    assert collected[["attribute", "value", "line"]].values.tolist() == [["admin_timeout", "60", 14],
                                                                         ["io_timeout", "30", 15]]


def test_io_timeout_alone_leaves_the_controller_timers_to_be_settled() -> None:
    """nvme_core's io_timeout read, no controller's: no stall is estimated (each rests on kato
    or ctrl_loss_tmo), and what would settle them is said with the built-in defaults."""
    bare = GRANDI / "bare-nvme-sysfs.txt"
    found = _findings(bare)
    assert list(found) == ["Failure timers no capture gives: kato, ctrl_loss_tmo"]
    assert found["Failure timers no capture gives: kato, ctrl_loss_tmo"].startswith(
        "kato: the built-in default would be 5 s (Linux drivers/nvme/host/nvme.h NVME_DEFAULT_KATO); ctrl_loss_tmo: "
        "the built-in default would be 600 s")


def test_a_scsi_disks_timeouts_from_a_grep_of_its_device_folder() -> None:
    """`grep -H . /sys/block/sda/device/*timeout*`: eh_timeout 10 and the command timeout 30,
    sd's default (SD_TIMEOUT)."""
    read = [(v.device, v.attribute, v.seconds, v.line) for v in scsi_timeout.read(GRANDI / "bare-scsi-timeout.txt")]
    assert read == [("sda", "eh_timeout", 10, 1), ("sda", "timeout", 30, 2)]
    assert kind_of(str(GRANDI / "bare-scsi-timeout.txt")).name == "scsi-timeout"


@pytest.mark.parametrize(("text", "where", "message"), [
    # a read attribute's value is held to what the kernel prints, in a dump too
    ("/sys/class/nvme/nvme0# find . -type f -exec grep -aH . {} \\;\n./cntlid:16065\n./kato:soon\n", "line 3",
     r"kato 'soon': the kernel prints a whole number of seconds here"),
    # a line that is neither `./FILE:VALUE` nor grep's unreadable file ends nothing silently
    ("/sys/class/nvme/nvme0# find . -type f -exec grep -aH . {} \\;\n./kato:5\nkato is 5\n", "line 3",
     r"expected `/sys/.../nvmeXcYnZ/ATTRIBUTE:VALUE`"),
    # only the dump's files: a folder with no attribute read here gives none
    ("/sys/class/nvme/nvme0# find . -type f -exec grep -aH . {} \\;\n./cntlid:16065\n", "",
     r"no NVMe sysfs attribute")])
def test_a_folders_dump_is_held_to_what_sysfs_prints(tmp_path: Path, text: str, where: str, message: str) -> None:
    dump = tmp_path / "dump.txt"
    dump.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ScenarioError, match=message) as refused:
            nvme_sysfs.read(dump)
    assert refused.value.args[:2] == (str(dump), where)


def test_a_folder_dump_under_debians_user_at_host_prompt_is_read_as_under_a_bare_folder(tmp_path: Path) -> None:
    """Debian's and Ubuntu's bash prompt is `\\u@\\h:\\w`: the folder follows `root@host:`."""
    (tmp_path / "d.txt").write_text("root@host:/sys/class/nvme/nvme0# find . -type f -exec grep -aH . {} \\;\n./kato:5\n")
    with pytest.warns(PathlabWarning, match=r"line 1: the dump of /sys/class/nvme/nvme0: 0 other file"):
        table = nvme_sysfs.read(tmp_path / "d.txt")
    assert table[["name", "attribute", "value", "line"]].values.tolist() == [["nvme0", "kato", "5", 2]]


def test_several_folder_dumps_in_one_file_are_read_each_from_its_own_folder(tmp_path: Path) -> None:
    """One dump per controller, each under its own prompt: the second's prompt was refused as a
    line that is no attribute, and its `./kato` would have been the first folder's."""
    one = WAGNER.read_text()
    second = "/sys/class/nvme/nvme1# find . -type f -exec grep -aH . {} \\;\n./kato:10\n./ctrl_loss_tmo:-1\n./cntlid:2\n"
    (tmp_path / "d.txt").write_text(one + second.replace("-1", "300"))
    with pytest.warns(PathlabWarning) as said:
        table = nvme_sysfs.read(tmp_path / "d.txt")
    at = one.count("\n") + 1
    assert table[["name", "attribute", "value", "line"]].values.tolist()[-4:] == [
        ["nvme0", "kato", "5", 221], ["nvme0", "ctrl_loss_tmo", "600", 223],
        ["nvme1", "kato", "10", at + 1], ["nvme1", "ctrl_loss_tmo", "300", at + 2]]
    assert [str(w.message).split(": ", 1)[1] for w in said if "the dump of" in str(w.message)] == [
        "line 1: the dump of /sys/class/nvme/nvme0: 205 other file(s) passed over, 7 grep could not read",
        f"line {at}: the dump of /sys/class/nvme/nvme1: 1 other file(s) passed over"]
