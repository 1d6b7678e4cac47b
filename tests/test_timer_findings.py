"""advise's findings on a host's failure timers (issue 36, item 4): the values read with their
file and line from real multipath.conf samples, the stall rule's values exact from the timers,
and a timer no capture gives said with the built-in default and what would settle it."""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import pytest

import pathlab
from pathlab import import_host
from pathlab.advisor import stall_rule as rule
from pathlab.advisor.timer_findings import timer_findings
from pathlab.api import ScenarioError
from pathlab.finding import Finding
from pathlab.importer.host import Host
from pathlab.readers import nvme_sysfs

DATA = Path(__file__).parent / "data"
NETAPP_LISTING = DATA / "corpus/multipath-ll/002-netapp-aff-rocky10-alua-two-groups/bare.txt"
NETAPP_CONF = DATA / "corpus/multipath-conf/001-ibm-sap-netapp-rhel7-iscsi/bare.txt"
POWERSTORE_CONF = DATA / "corpus/multipath-conf/004-dell-powerstore-host-guide-issue/bare.txt"
PURE_CONF = DATA / "linux/multipath-conf_pure-cbs-ubuntu-post-migration.txt"
NVME_LISTING = DATA / "linux/nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt"

#: A map of the array the conf is for, in multipath -ll's layout (written here: no public listing
#: of these arrays was found; the conf files are the real samples under test).
MAP = """\
{wwid} dm-0 {vendor},{product}
size=100G features='{features}' hwhandler='1 alua' wp=rw
|-+- policy='service-time 0' prio=50 status=active
| `- 1:0:0:1 sdb 8:16 active ready running
`-+- policy='service-time 0' prio=10 status=enabled
  `- 2:0:0:1 sdc 8:32 active ready running
"""


def _host(*files: Path | str) -> Host:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return import_host(*files)


def _found(host: Host) -> list[Finding]:
    return timer_findings(host.stack, host.timers, host.scenario.devices)


def _listing(tmp_path: Path, vendor: str, product: str, features: str = "0") -> Path:
    path = tmp_path / "multipath-ll.txt"
    path.write_text(MAP.format(wwid="3600000000000000000000000000000a1", vendor=vendor, product=product,
                               features=features))
    return path


# The rule, from the timers alone (theory)

def test_no_path_retry_holds_io_n_polling_intervals_then_fails() -> None:
    assert rule.dm_all_paths_down("3", 5).seconds == 15
    assert rule.dm_all_paths_down("30", 10).seconds == 300
    assert rule.dm_all_paths_down("queue", 5).seconds is None
    assert rule.dm_all_paths_down("fail", 5).seconds == 0


def test_an_fc_link_down_fails_over_after_fast_io_fail_tmo_or_the_earlier_dev_loss_tmo() -> None:
    assert rule.dm_link_down(5, 10).seconds == 5
    assert rule.dm_link_down(5, None).seconds == 5
    assert rule.dm_link_down(20, 10).seconds == 10
    assert rule.dm_link_down(5, math.inf).seconds == 5
    assert rule.dm_link_down(None, 60).seconds == 60
    # Without fast_io_fail_tmo multipathd caps dev_loss_tmo at 600 s, unless no_path_retry is queue.
    assert rule.dm_link_down(None, math.inf).seconds == 600
    assert rule.dm_link_down(None, 1000).seconds == 600
    assert rule.dm_link_down(None, 1000, queue=True).seconds == 1000
    assert rule.dm_link_down(None, math.inf, queue=True).seconds is None
    assert rule.dm_link_down(None, None).seconds == 600  # the HBA driver's own, which the kernel limits so


def test_an_iscsi_connection_loss_is_found_by_the_nop_out_then_held_fast_io_fail_tmo() -> None:
    assert rule.dm_iscsi_connection_lost(5, 5, 5).seconds == 15
    assert rule.dm_iscsi_connection_lost(10, 15, 15).seconds == 40


def test_a_hung_path_stalls_the_command_timeout_and_the_checker_bounds_new_io() -> None:
    stall = rule.dm_path_hang(30, 20, 15)
    assert stall.seconds == 30
    assert "max_polling_interval 20 + checker_timeout 15 = 35 s" in stall.rule


def test_a_silent_nvme_controller_is_found_by_the_keep_alive_or_the_io_timeout() -> None:
    assert rule.nvme_controller_silent(5, 30).seconds == 7.5
    assert rule.nvme_controller_silent(30, 30).seconds == 30
    assert rule.nvme_all_paths_down(600, None).seconds == 600
    assert rule.nvme_all_paths_down(600, 5).seconds == 5
    assert rule.nvme_all_paths_down(None, None).seconds is None
    assert rule.nvme_all_paths_down(None, 20).seconds == 20


# Real multipath.conf samples

def test_netapp_conf_queue_feature_and_fast_io_fail_are_read_with_their_lines() -> None:
    host = _host(NETAPP_LISTING, NETAPP_CONF)
    read = {(t.setting, t.value, t.where.removeprefix(f"{NETAPP_CONF}, ")) for t in host.timers}
    assert ("no_path_retry", "queue", "line 20 (devices entry NETAPP/LUN: features with queue_if_no_path, read as "
                                      "no_path_retry queue)") in read
    assert ("fast_io_fail_tmo", "5", "line 7 (defaults)") in read
    assert ("failback", "immediate", "line 23 (devices entry NETAPP/LUN)") in read
    # `dev_loss_tmo infinity` in defaults (line 6) is not in force: the hwtable's NETAPP entry sets it.
    assert not any(t.setting == "dev_loss_tmo" for t in host.timers)
    titles = [f.title for f in _found(host)]
    wwid = "3600a0980383149764b5d567257516273 (NETAPP,LUN C-Mode)"
    assert f"{wwid}: every path down hangs I/O until a path returns: no_path_retry queue" in titles
    assert f"{wwid}: an FC link down fails I/O over after about 5 s (fast_io_fail_tmo 5 s)" in titles


def test_a_dump_of_the_compiled_in_configuration_is_read_as_show_config_prints_it() -> None:
    """`multipathd show config` prints the configuration in force in multipath.conf's syntax, the
    hardware table as `devices` entries: multipath-tools' own dump of it is read so."""
    dump = DATA / "linux/multipath-conf_multipath-tools-defaults-uncommented.txt"
    host = _host(NETAPP_LISTING, dump)
    read = {(t.setting, t.value, t.where.removeprefix(f"{dump}, ")) for t in host.timers}
    assert {("polling_interval", "5", "line 6 (defaults)"), ("fast_io_fail_tmo", "5", "line 23 (defaults)"),
            ("dev_loss_tmo", "infinity", "line 700 (devices entry NETAPP/LUN.*)"),
            ("no_path_retry", "queue", "line 693 (devices entry NETAPP/LUN.*: features with queue_if_no_path, read as "
                                       "no_path_retry queue)")} <= read


def test_powerstore_conf_gives_each_stall_and_dells_guide_value(tmp_path: Path) -> None:
    host = _host(_listing(tmp_path, "DellEMC", "PowerStore"), POWERSTORE_CONF)
    found = {f.title: f.evidence for f in _found(host)}
    scope = "3600000000000000000000000000000a1 (DellEMC,PowerStore)"
    hang = "Every map: a path that stops answering (no link event) stalls I/O for about 30 s, then it is retried on " \
           "another path"
    assert "max_polling_interval 20 + checker_timeout 15 = 35 s" in found[hang]
    assert "max_polling_interval 20 (assumed: 4 × polling_interval" in found[hang]
    assert f"checker_timeout 15 (read at {POWERSTORE_CONF}, line 3 (defaults))" in found[hang]
    down = f"{scope}: every path down holds I/O for about 15 s, then it fails to the application: no_path_retry 3"
    assert f"no_path_retry 3 (read at {POWERSTORE_CONF}, line 17 (devices entry DellEMC/PowerStore))" in found[down]
    assert f"{scope}: an FC link down fails I/O over after about 5 s (fast_io_fail_tmo 5 s)" in found
    practice = f"{scope}: fast_io_fail_tmo 5 where Dell says 15: with it an FC link down would fail I/O over after " \
               "about 15 s"
    assert found[practice].startswith("Dell EMC Host Connectivity Guide for Linux (docu5128)")
    assert not any("not above" in t for t in found)  # dev_loss_tmo 10 > fast_io_fail_tmo 5


def test_pure_conf_queues_forever_and_fails_over_after_ten_seconds(tmp_path: Path) -> None:
    host = _host(_listing(tmp_path, "PURE", "FlashArray"), PURE_CONF)
    titles = [f.title for f in _found(host)]
    scope = "3600000000000000000000000000000a1 (PURE,FlashArray)"
    assert f"{scope}: every path down hangs I/O until a path returns: no_path_retry queue" in titles
    assert f"{scope}: an FC link down fails I/O over after about 10 s (fast_io_fail_tmo 10 s)" in titles
    assert any(t.startswith("Every map: a path that stops answering") for t in titles)  # polling_interval 10 read


def test_dev_loss_below_fast_io_fail_is_said(tmp_path: Path) -> None:
    conf = tmp_path / "multipath.conf"
    conf.write_text("defaults {\n    fast_io_fail_tmo 20\n    dev_loss_tmo 10\n}\n")
    found = {f.title: f.evidence for f in _found(_host(_listing(tmp_path, "ACME", "DISK"), conf))}
    scope = "3600000000000000000000000000000a1 (ACME,DISK)"
    assert f"{scope}: dev_loss_tmo 10 is not above fast_io_fail_tmo 20: the path is removed before its I/O fails over" \
        in found
    assert f"{scope}: an FC link down fails I/O over after about 10 s (dev_loss_tmo 10 s comes before " \
           "fast_io_fail_tmo 20 s: the port is removed and its I/O fails over)" in found


# A value no capture gives: no stall, but what would settle it

def test_without_a_conf_no_stall_is_estimated_and_what_would_settle_it_is_said() -> None:
    host = _host(NETAPP_LISTING)
    found = {f.title: f.evidence for f in _found(host)}
    assert not any("link down" in t or "stops answering" in t for t in found)
    assert found["Failure timers no capture gives: polling_interval, fast_io_fail_tmo, dev_loss_tmo"] == (
        "polling_interval: the built-in default would be 5 (opensvc/multipath-tools 0.14.3 (c2fcdaf1) "
        "libmultipath/defaults.h:66 DEFAULT_CHECKINT); fast_io_fail_tmo: the built-in default would be 5 "
        "(opensvc/multipath-tools 0.14.3 (c2fcdaf1) libmultipath/defaults.h:28 DEFAULT_FAST_IO_FAIL); dev_loss_tmo: the "
        "built-in hardware table would set infinity (multipath-tools 0.14.3 libmultipath/hwtable.c:822 (NETAPP,LUN)); "
        "multipath.conf or `multipathd show config` would settle it")
    queue = ("3600a0980383149764b5d567257516273 (NETAPP,LUN C-Mode): every path down holds I/O, until a path returns "
             "(no_path_retry queue) or for no_path_retry × polling_interval: not determined")
    assert found[queue].startswith(f"queue_if_no_path yes (read at {NETAPP_LISTING}, line 1")
    assert found[queue].endswith("the built-in hardware table would set queue (multipath-tools 0.14.3 "
                                 "libmultipath/hwtable.c); multipath.conf or `multipathd show config` would settle it")


def test_the_hwtable_timer_is_the_one_said_for_its_array(tmp_path: Path) -> None:
    found = {f.title: f.evidence for f in _found(_host(_listing(tmp_path, "PURE", "FlashArray")))}
    assert "; fast_io_fail_tmo: the built-in hardware table would set 10 (multipath-tools 0.14.3 " \
           "libmultipath/hwtable.c:1092 (PURE,FlashArray)); dev_loss_tmo: multipathd leaves the HBA driver's own " \
           "(multipath.conf(5): hardware dependent);" in found[
               "Failure timers no capture gives: polling_interval, fast_io_fail_tmo, dev_loss_tmo"]


# NVMe sysfs

#: nvme0's values are those a NetApp ONTAP NVMe/FC controller printed (Daniel Wagner's `find . -type f
#: -exec grep -aH . {} \;` in /sys/class/nvme/nvme0, linux-kernel list, 2021-07-06, "Re: [PATCH 2/2]
#: nvme-fc: Wait with a timeout for queue to freeze"), in `grep -r`'s absolute form; nvme1 reconnects
#: for ever, as nvme-cli's udev rule sets NetApp's NVMe/TCP controllers.
SYSFS = """\
/sys/class/nvme/nvme0/reconnect_delay:2
/sys/class/nvme/nvme0/fast_io_fail_tmo:off
/sys/class/nvme/nvme0/kato:5
/sys/class/nvme/nvme0/ctrl_loss_tmo:600
/sys/class/nvme/nvme1/ctrl_loss_tmo:off
/sys/class/nvme/nvme1/kato:5
"""


def test_nvme_controller_timers_give_the_keep_alive_stall_and_an_endless_hold(tmp_path: Path) -> None:
    sysfs = tmp_path / "sysfs.txt"
    sysfs.write_text(SYSFS)
    found = {f.title: f.evidence for f in _found(_host(NVME_LISTING, sysfs))}
    silent = "nvme0, nvme1: a controller that stops answering stalls I/O for about 7.5 s, then it is retried on " \
             "another path"
    assert found[silent].startswith(f"kato 5 (read at {sysfs}, line 3); io_timeout 30 (assumed: the built-in default")
    endless = "Every path down: a controller that never returns is retried forever: I/O hangs until a path returns"
    assert found[endless].startswith(f"nvme1: ctrl_loss_tmo off (read at {sysfs}, line 5); fast_io_fail_tmo off "
                                     "(assumed: the built-in default")
    assert "KATO 5 s and no CQT hold is shown: an I/O can be retried on another path while its first copy may " \
           "still land" in found
    assert found["Failure timers no capture gives: io_timeout"].endswith(
        "/sys/module/nvme_core/parameters/io_timeout would settle it")


def test_a_controller_that_advertises_traffic_based_keep_alive_is_found_as_the_kernel_checks_it(tmp_path: Path) -> None:
    """`nvme id-ctrl` of nvme0 prints ctratt 0x41 (TBKAS, bit 6, as Linux's own target sets it),
    nvme1's 0: nvme0's keep-alive is checked every KATO/4 and skipped while completions arrive,
    still 1.5 × KATO at worst; each finding says what it read."""
    sysfs, id_ctrl = tmp_path / "sysfs.txt", tmp_path / "id-ctrl.txt"
    sysfs.write_text(SYSFS)
    nqn = "nqn.1992-08.com.netapp:sn.9b7d42b764ff11efb8fed039eabac370:subsystem.ubuntu_24.04_tcp_211"
    id_ctrl.write_text(f"# nvme id-ctrl /dev/nvme0\nctratt    : 0x41\nanatt     : 10\nsubnqn    : {nqn}\n"
                       f"# nvme id-ctrl /dev/nvme1\nctratt    : 0\nanatt     : 10\nsubnqn    : {nqn}\n")
    host = _host(NVME_LISTING, sysfs, id_ctrl)
    found = {f.title: f.evidence for f in _found(host)}
    tbkas = found["nvme0: a controller that stops answering stalls I/O for about 7.5 s, then it is retried on another path"]
    assert tbkas.startswith(f"kato 5 (read at {sysfs}, line 3); ctratt 0x41 (read at {id_ctrl}, line 2 (nvme0))")
    assert "checked every KATO/4 and sent at the first check that saw no completion" in tbkas
    plain = found["nvme1: a controller that stops answering stalls I/O for about 7.5 s, then it is retried on another path"]
    assert "keep-alive every KATO/2" in plain
    assert host.scenario.tables is not None
    (array,) = host.scenario.tables["arrays"]
    assert array["traffic_based_keep_alive"] is True


def test_nvme_timers_and_io_timeout_are_read_and_a_bad_one_refused(tmp_path: Path) -> None:
    sysfs = tmp_path / "sysfs.txt"
    sysfs.write_text(SYSFS + "/sys/module/nvme_core/parameters/io_timeout:45\n")
    table = nvme_sysfs.read(sysfs)
    assert table[table["attribute"] == "io_timeout"][["name", "object", "value", "line"]].values.tolist() == [
        ["nvme_core", "module", "45", 7]]
    sysfs.write_text("/sys/class/nvme/nvme0/ctrl_loss_tmo:soon\n")
    with pytest.raises(ScenarioError) as e:
        nvme_sysfs.read(sysfs)
    assert e.value.args == (str(sysfs), "line 1", "ctrl_loss_tmo 'soon': the kernel prints a whole number of seconds "
                                                  "or off here")


def test_advise_carries_the_timer_findings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        advice = pathlab.advise([NETAPP_LISTING, NETAPP_CONF])
    assert any(f.title.endswith("an FC link down fails I/O over after about 5 s (fast_io_fail_tmo 5 s)")
               for f in advice.findings)


def test_an_nvme_controller_given_up_after_ctrl_loss_tmo_fails_io_after_it(tmp_path: Path) -> None:
    sysfs = tmp_path / "sysfs.txt"
    sysfs.write_text("".join(line + "\n" for line in SYSFS.splitlines() if "/nvme0/" in line))
    found = {f.title: f.evidence for f in _found(_host(NVME_LISTING, sysfs))}
    held = "Every path down: I/O is held for about 600 s, then it fails to the application (the controllers are removed)"
    assert found[held].startswith(f"nvme0: ctrl_loss_tmo 600 (read at {sysfs}, line 4); fast_io_fail_tmo off (read at "
                                  f"{sysfs}, line 2)")


def test_a_listing_with_a_cat_of_kato_after_it_stays_a_listing() -> None:
    """nvme-cli issue 1520's paste shows `cat /sys/class/nvme-subsystem/nvme-subsys0/nvme0/kato`
    after `nvme list-subsys`: a path named in a command is not grep's `FILE:VALUE`."""
    from pathlab.importer.kinds import kind_of

    sample = DATA / "corpus/nvme-list-subsys/020-nvme-cli-issue1520-one-tcp-path-prompt/as-collected.txt"
    assert kind_of(str(sample)).name == "nvme"


def test_the_three_readers_of_multipath_conf_agree_on_which_devices_entry_wins(tmp_path) -> None:
    """multipath-tools matches `devices` entries unanchored (regexec) and lets a later matching
    entry win: the scenario's policy, the ALUA findings and the timers read one conf alike (they
    gave 5, fail and fail for one map before, and `re.match` missed an unanchored vendor)."""
    from types import SimpleNamespace

    from pathlab.importer.conf_precedence import ConfPrecedence
    from pathlab.importer.listing_findings import configured
    from pathlab.importer.map_policy import conf_settings
    from pathlab.importer.timer_values import _in_force
    from pathlab.readers import multipath_conf

    file = tmp_path / "multipath.conf"
    file.write_text('defaults {\n    no_path_retry 12\n}\ndevices {\n    device {\n        vendor "DGC"\n'
                    '        product ".*"\n        no_path_retry 5\n    }\n    device {\n        vendor "DGC"\n'
                    '        product "VRAID"\n        no_path_retry fail\n    }\n}\n')
    conf = multipath_conf.read(str(file))
    placed = ConfPrecedence(conf)
    for vendor in ("DGC", "XDGC"):  # XDGC: "DGC" found inside it, as regexec finds it
        m = SimpleNamespace(vendor=vendor, product="VRAID", wwid="3600")
        found_in = conf_settings(placed, "3600", vendor, "VRAID")["no_path_retry"]
        assert (found_in.value, found_in.section, found_in.line) == ("fail", "devices", 13)
        assert configured(placed, m, "no_path_retry") == ("fail", 13)
        found = _in_force(placed, str(file), "no_path_retry", "3600", vendor, "VRAID", lambda vendor, product, tpgs: {})
        assert found is not None and found[0] == "fail" and "line 13" in found[1], found


def test_no_path_retry_0_is_fail_alike_for_the_scenario_and_the_timers(tmp_path) -> None:
    """multipathd reads `no_path_retry 0` as `fail` (0.14.3 dict.c `set_no_path_retry`): the
    import simulates fail (it refused the host, 0 being no count of retries) and the timers say fail."""
    import tomllib

    conf = tmp_path / "multipath.conf"
    conf.write_text("overrides {\n    no_path_retry 0\n}\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        host = import_host(str(DATA / "linux/multipath_check-multipath-24_iscsi-failed-path.txt"), str(conf))
    assert [d["policy"]["no_path_retry"] for d in tomllib.loads(host.scenario.text)["devices"]] == ["fail"]
    assert [(t.value, t.where) for t in host.timers if t.setting == "no_path_retry"] == [
        ("fail", f"{conf}, line 2 (overrides)")]


def test_a_defaults_line_the_hardware_table_overrules_is_no_alua_finding(tmp_path) -> None:
    """propsel.c: the built-in table's entry for PURE FlashArray (`prio alua`, detect_prio off)
    comes before `defaults`, so a `defaults` `prio const` is not what its maps have: the ALUA
    findings read the conf by the same precedence as the import and the timers."""
    from types import SimpleNamespace

    from pathlab.importer.conf_precedence import ConfPrecedence
    from pathlab.importer.listing_findings import configured
    from pathlab.readers import multipath_conf

    conf = tmp_path / "multipath.conf"
    conf.write_text("defaults {\n    prio const\n}\n")
    placed = ConfPrecedence(multipath_conf.read(str(conf)))
    assert configured(placed, SimpleNamespace(vendor="PURE", product="FlashArray", wwid="3624a"), "prio") is None
    assert configured(placed, SimpleNamespace(vendor="IET", product="VIRTUAL-DISK", wwid="1IET"), "prio") == \
        ("const", 2)


def test_an_fc_link_down_under_the_hardware_tables_no_path_retry_queue_is_not_capped(tmp_path) -> None:
    """NETAPP LUN's hwtable entry sets `no_path_retry queue` and `dev_loss_tmo infinity`: with
    `fast_io_fail_tmo off` and no conf line for no_path_retry, multipathd does not cap dev_loss_tmo
    at 600 s, so an FC link down holds I/O until a path returns (it said 600 s)."""
    conf = tmp_path / "multipath.conf"
    conf.write_text("defaults {\n    fast_io_fail_tmo off\n}\n")
    found = {f.title: f.evidence for f in _found(_host(NETAPP_LISTING, conf))}
    title = ("3600a0980383149764b5d567257516273 (NETAPP,LUN C-Mode): an FC link down fails I/O over only when a "
             "path returns (fast_io_fail_tmo off: held until dev_loss_tmo)")
    assert title in found, list(found)
    assert "no_path_retry queue (assumed: the built-in hardware table, multipath-tools 0.14.3 " \
           "libmultipath/hwtable.c (NETAPP,LUN C-Mode))" in found[title]
