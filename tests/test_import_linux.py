"""`pathlab import` of Linux hosts: real `multipath -ll` captures become scenarios that load, with
the maps, groups and selectors the captures show; the workload comes from diskstats."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from conftest import RUNS_AT_ALL, SCENARIOS, one_error_line, pathlab
from pathlab import Scenario, import_host
from pathlab.advisor.candidates import Candidate, candidates
from pathlab.importer.host_tables import Idle
from pathlab.importer.provenance import Derived

DATA = Path(__file__).parent / "data" / "linux"
NETAPP = DATA / "multipath_check-multipath-20_netapp-debian-squeeze.txt"


@pytest.mark.parametrize("capture", sorted(p.name for p in DATA.glob("multipath*.txt") if "conf" not in p.name))
def test_every_real_multipath_capture_imports_or_says_why_not(capture) -> None:
    done = pathlab("import", str(DATA / capture))
    if done.returncode != 0:
        # NVMe-only maps, maps without paths, paths of unknown address: refused in one line.
        assert done.returncode == 2 and "no map with SCSI paths" in done.stderr, done.stderr
        return
    scenario = Scenario.from_text(done.stdout, capture, set=RUNS_AT_ALL)
    assert scenario.run().data["accounting"]["issued"] > 0


def test_the_netapp_host_keeps_its_maps_groups_and_features() -> None:
    done = pathlab("import", str(NETAPP))
    assert done.returncode == 0, done.stderr
    text = done.stdout
    maps = NETAPP.read_text().count(" dm-")
    assert text.count("[[devices]]") == maps
    # Two groups per map by priority (8 and 2): group_by_prio, round-robin, queue_if_no_path; the
    # listing's features without queue_if_no_path and its handler win over the NetApp table's
    # `2 pg_init_retries 50` and the kernel's.
    assert text.count('policy = { name = "dm-multipath", selector = "round-robin", path_grouping_policy = "group_by_prio", '
                      'no_path_retry = "queue", features = "0", hardware_handler = "0" }') == maps
    result = Scenario.from_text(text, "netapp.toml", set=RUNS_AT_ALL).run()
    # Each map's paths: the runtime names carry the SCSI host and LUN of the capture.
    assert any(name.startswith("host0:C0:T0:L0") for name in result.paths["name"])
    assert "the disks' queue_depth is not in the captures" in done.stderr
    # No capture gives the array's time at low load: the prediction's assumption is said.
    assert "read_latency: the array's time beyond its ports' service at low load is not in the captures: none assumed" \
        in done.stderr


def test_a_workload_comes_from_diskstats_of_the_dm_device(tmp_path) -> None:
    capture = tmp_path / "mp.txt"
    # A map on dm-1, which the pt-diskstats sample also measures.
    capture.write_text(NETAPP.read_text().split("foobar_postgresql_lun0")[0])
    done = pathlab("import", str(capture), str(DATA / "diskstats_pt-diskstats-small.txt"))
    assert done.returncode == 0, done.stderr
    assert "dm-1's average queue" in done.stdout and "dm-1's reads over reads and writes" in done.stdout
    # The sample's dm-1 writes 4 KiB pages, with a read now and then: 1.4% over its samples.
    assert 'block_size = "4KiB"' in done.stdout and "read_pct = 1.4" in done.stdout


def _iostat(path: Path, devices: list[str]) -> Path:
    """Two `iostat -x` reports (the one since boot, one interval) of `devices`, each busy alike."""
    report = "Device            r/s     w/s     rkB/s     wkB/s   aqu-sz\n" + "".join(
        f"{d:<12} 70.00   30.00    560.00    240.00     2.00\n" for d in devices)
    path.write_text("Linux 5.4.0 (db02) \t06/01/20 \t_x86_64_\t(8 CPU)\n\n" + report + "\n" + report)
    return path


def _diskstats(path: Path, devices: list[str]) -> Path:
    """Two /proc/diskstats samples a second apart of `devices`, each busy alike."""
    def sample(reads: int) -> str:
        return "".join(f" 253 {i} {d} {reads} 0 {8 * reads} 10 0 0 0 0 0 {reads} {reads}\n" for i, d in enumerate(devices))
    path.write_text("TS 1600000000.0\n" + sample(100) + "TS 1600000001.0\n" + sample(200))
    return path


@pytest.mark.parametrize("verb", ["import", "advise"])
@pytest.mark.parametrize("capture", [_iostat, _diskstats])
def test_a_capture_of_another_host_is_one_line(tmp_path, capture, verb) -> None:
    # None of its devices is one of the listing's (dm-1, dm-2, their maps and paths sda-sdh): it
    # was imported with every map's load assumed and a warning per map.
    rates = capture(tmp_path / "rates.txt", ["vda", "vdb", "vdc", "vdd", "vde", "dm-10"])
    line = one_error_line(pathlab(verb, str(NETAPP), str(rates)))
    assert line.startswith(f"pathlab: error: {rates}: its devices (dm-10, vda, vdb, vdc and 2 more) are none of the "
                           f"devices of {NETAPP} (dm-1, dm-2, "), line
    assert line.endswith(": a capture of another host: give the listing and the capture of one host"), line


@pytest.mark.parametrize("capture", [_iostat, _diskstats])
def test_a_capture_sharing_some_devices_measures_those_and_says_which_it_lacks(tmp_path, capture) -> None:
    rates = capture(tmp_path / "rates.txt", ["vda", "dm-1"])
    done = pathlab("import", str(NETAPP), str(rates))
    assert done.returncode == 0, done.stderr
    assert "dm-1's average queue" in done.stdout and "no I/O statistics of dm-2" in done.stderr, done.stderr


def test_an_iostat_capture_of_another_nvme_host_is_one_line(tmp_path) -> None:
    listing = DATA / "nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt"
    rates = _iostat(tmp_path / "iostat.txt", ["nvme1n1", "nvme1n2"])
    line = one_error_line(pathlab("import", str(listing), str(rates)))
    assert line == (f"pathlab: error: {rates}: its devices (nvme1n1, nvme1n2) are none of the namespace heads of "
                    f"{listing} (nvme0n1): a capture of another host: give the listing and the capture of one host")


#: `iostat -xz 5 4` of sysstat 12 (banner, CPU block, the extended columns), a device a line:
#: `-z` leaves a device out of a report in which it did no I/O.
Z_HEADER = ("Device            r/s     rkB/s   rrqm/s  %rrqm r_await rareq-sz     w/s     wkB/s   wrqm/s  %wrqm w_await "
            "wareq-sz     d/s     dkB/s   drqm/s  %drqm d_await dareq-sz     f/s f_await  aqu-sz  %util\n")
Z_LINES = {
    "sda": "sda              0.40      9.60     0.00   0.00    0.51    24.00    2.20     35.20     0.60  21.43    0.82    "
           "16.00    0.00      0.00     0.00   0.00    0.00     0.00    0.40    0.50    0.00   0.16\n",
    "dm-1": "dm-1           120.00    960.00     0.00   0.00    0.48     8.00   30.00    240.00     0.00   0.00    0.61    "
            "8.00    0.00      0.00     0.00   0.00    0.00     0.00    0.00    0.00    0.08   6.10\n",
    "vda": "vda              1.20     19.20     0.00   0.00    0.35    16.00    4.80     76.80     1.20  20.00    0.90    "
           "16.00    0.00      0.00     0.00   0.00    0.00     0.00    0.80    0.40    0.01   0.52\n",
    "sdc": "sdc             60.00    480.00     0.00   0.00    0.47     8.00   15.00    120.00     0.00   0.00    0.60    "
           "8.00    0.00      0.00     0.00   0.00    0.00     0.00    0.00    0.00    0.04   3.05\n",
}


def _iostat_z(path: Path, reports: list[list[str]]) -> Path:
    cpu = "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n           2.31    0.00    1.02    0.35    0.00   96.32\n\n"
    path.write_text("Linux 6.1.0-18-amd64 (db01) \t11/25/2026 \t_x86_64_\t(8 CPU)\n\n" + "".join(
        cpu + Z_HEADER + "".join(Z_LINES[d] for d in report) + "\n\n" for report in reports))
    return path


def _error(done) -> str:
    """The refusal's line (exit 2, no traceback), after the reader's warning of the devices `-z`
    left out of some reports."""
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (error,) = [line for line in done.stderr.splitlines() if line.startswith("pathlab: error:")]
    return error


def test_a_map_in_no_report_of_an_iostat_z_capture_is_idle_not_assumed(tmp_path) -> None:
    # dm-2 (foobar_postgresql_lun0) did no I/O in any report, so `-z` never printed it: it was
    # imported as unmeasured, 32 outstanding I/Os assumed. sda missing from the third report shows
    # the capture leaves idle devices out; no line is all zeros (iostat prints those without -z).
    rates = _iostat_z(tmp_path / "iostat.txt", [["sda", "dm-1", "sdc"], ["sda", "dm-1", "sdc"], ["dm-1", "sdc"],
                                                ["sda", "dm-1", "sdc"]])
    done = pathlab("import", str(NETAPP), str(rates))
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("[[workloads]]") == 1 and "dm-1's average queue" in done.stdout
    assert (f"# foobar_postgresql_lun0 (dm-2): no workload: idle, {rates}, which leaves idle devices out (iostat -z), "
            "names dm-2 in no report") in done.stdout
    # The host says it typed: which device is idle, and by which rule over which file.
    (idle,) = import_host(NETAPP, rates).tables.idle()
    assert idle == Idle("foobar_postgresql_lun0 (dm-2)", Derived(
        f"{rates}, which leaves idle devices out (iostat -z), names dm-2 in no report", (str(rates),)))
    assert (f"workloads.foobar_postgresql_lun0: dm-2 is in no report of {rates}, which leaves idle devices out "
            "(iostat -z): taken as idle in every report") in done.stderr
    assert "no I/O statistics" not in done.stderr


def test_a_z_capture_naming_none_of_the_listings_devices_says_they_may_all_have_been_idle(tmp_path) -> None:
    # Only the boot disk did I/O: another host's capture, or one where -z left every map out.
    rates = _iostat_z(tmp_path / "iostat.txt", [["vda"], ["vda"], [], ["vda"]])
    line = _error(pathlab("import", str(NETAPP), str(rates)))
    assert line.endswith("(dm-1, dm-2, foobar_backup_lun0, foobar_postgresql_lun0 and 8 more): a capture of another "
                         "host: give the listing and the capture of one host; or every one of them was idle and iostat "
                         "-z left it out: capture without -z"), line


@pytest.mark.parametrize("verb", ["import", "advise"])
def test_a_capture_in_which_every_map_is_idle_is_one_line(tmp_path, verb) -> None:
    # dm-1 did I/O before the capture (the report since boot) and none in it, dm-2 none at all:
    # the scenario had no workload, and the engine refused it as "missing field `workloads`".
    rates = _iostat_z(tmp_path / "iostat.txt", [["sda", "dm-1"], ["sda"], ["sda"]])
    line = _error(pathlab(verb, str(NETAPP), str(rates)))
    assert line == (f"pathlab: error: {rates}: every map's device is idle in it (no reads or writes, or left out by "
                    "iostat -z): the capture saw no I/O; capture while the host runs its load"), line


def test_an_nvme_host_idle_in_its_capture_is_one_line(tmp_path) -> None:
    listing = DATA / "nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt"
    rates = tmp_path / "iostat.txt"
    rates.write_text("Device: r/s w/s rkB/s wkB/s aqu-sz\nnvme0n1 5 1 20 4 1\n\n"
                     "Device: r/s w/s rkB/s wkB/s aqu-sz\nnvme0n1 0 0 0 0 0\n")
    line = one_error_line(pathlab("import", str(listing), str(rates)))
    assert line == (f"pathlab: error: {rates}: every namespace head is idle in it (no reads or writes, no I/O in "
                    "flight, or left out by iostat -z): the capture saw no I/O; capture while the host runs its load")


@pytest.mark.parametrize(("reports", "where"), [
    ("Device: r/s w/s rkB/s wkB/s aqu-sz\n\nDevice: r/s w/s rkB/s wkB/s aqu-sz\n", "line 3"),  # headers alone
    ("Device: r/s w/s rMB/s wMB/s aqu-sz\ndm-1 1 2 3 4 1\n\nDevice: r/s w/s rkB/s wkB/s aqu-sz\ndm-1 1 2 3 4 1\n",
     "line 6"),  # an iostat -xm run and an iostat -xk run joined
])  # fmt: skip
def test_an_iostat_capture_that_measures_nothing_or_joins_two_runs_is_one_line(tmp_path, reports, where) -> None:
    # Before, headers alone imported as if measured (every map's load assumed) and the joined runs
    # averaged MB/s and kB/s reports apart (the kB/s column of the MB/s reports missing).
    rates = tmp_path / "iostat.txt"
    rates.write_text("Linux 5.4.0 (h) \t06/01/20 \t_x86_64_\t(8 CPU)\n\n" + reports)
    done = pathlab("import", str(NETAPP), str(rates))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (error,) = [line for line in done.stderr.splitlines() if line.startswith("pathlab: error:")]
    assert error.startswith(f"pathlab: error: {rates}: {where}: "), error


def test_diskstats_of_one_sample_measure_no_load(tmp_path) -> None:
    # One snapshot has no interval: every map's load is assumed, so advise simulates no gain (it
    # counted as a measured load before).
    rates = tmp_path / "diskstats.txt"
    rates.write_text(" 253       1 dm-1 5 0 40 3 7 0 56 9 0 12 12\n 253       2 dm-2 5 0 40 3 7 0 56 9 0 12 12\n")
    done = pathlab("advise", str(NETAPP), str(rates), "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["candidates"] == [] and "iostat -xt 5 61 > iostat.txt" in " ".join(out["capture_needed"])


def test_an_esxi_capture_with_a_linux_one_is_refused(tmp_path) -> None:
    devices = tmp_path / "devices.txt"
    devices.write_text(pathlab("show", "devices", "c1-vmax-1lun").stdout)
    done = pathlab("import", str(NETAPP), str(devices))
    assert done.returncode == 2 and "import one host at a time" in done.stderr


def test_a_failed_path_is_a_finding_and_stays_failed_in_the_imported_host() -> None:
    capture = DATA / "multipath_check-multipath-24_iscsi-failed-path.txt"
    done = pathlab("advise", str(capture), "--seeds", "2", "--duration", "2s", "--warmup", "1s", "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert any(f["title"].startswith("sdd (10:0:0:1)") and "failed/faulty" in f["title"] for f in out["findings"])
    imported = pathlab("import", str(capture)).stdout
    assert 'kind = "path_down"' in imported and 'path = "host10:C0:T0:L1"' in imported
    # A listing has no performance counters: no candidate is simulated, a capture is asked for.
    assert out["candidates"] == [] and "iostat -xt 5 61 > iostat.txt" in " ".join(out["capture_needed"])
    # Linux candidates: each kernel selector not in force, with its multipath.conf stanza.
    labels = {c.label: c for c in _candidates(imported)}
    assert {"dm service-time", "dm queue-length"} <= set(labels)
    assert '        path_selector "queue-length 0"' in labels["dm queue-length"].commands
    assert "multipathd reconfigure" in labels["dm queue-length"].commands


@pytest.mark.parametrize("capture", sorted(p.name for p in DATA.glob("nvme-*")))
def test_every_nvme_capture_imports_into_a_host_that_runs(capture) -> None:
    done = pathlab("import", str(DATA / capture))
    assert done.returncode == 0, done.stderr
    result = Scenario.from_text(done.stdout, capture, set=RUNS_AT_ALL).run()
    assert result.data["accounting"]["issued"] > 0
    assert all(d["policy"] == "nvme" for d in result.data["devices"])


def test_the_netapp_nvme_host_keeps_its_ana_groups_and_gets_iopolicy_candidates() -> None:
    capture = DATA / "nvme-list-subsys_v2_netapp-ubuntu2404-tcp.txt"
    done = pathlab("import", str(capture))
    assert done.returncode == 0, done.stderr
    assert 'policy = { name = "nvme", iopolicy = "round-robin" }' in done.stdout
    result = Scenario.from_text(done.stdout, "n.toml", set=RUNS_AT_ALL).run()
    # Two paths optimized, two not, as the capture shows (nvme0, nvme1 against nvme2, nvme3).
    assert sorted(result.paths["alua"]) == ["ANO", "ANO", "AO", "AO"]
    labels = {c.label: c for c in _candidates(done.stdout)}
    assert {"nvme numa", "nvme queue-depth"} <= set(labels)
    assert any('ATTR{iopolicy}="queue-depth"' in c for c in labels["nvme queue-depth"].commands)


def _candidates(imported: str) -> list[Candidate]:
    """The settings the advisor would simulate on an imported host, from a short run of it."""
    scenario = Scenario.from_text(imported, "imported.toml", set={"run.duration": "0.2s", "run.warmup": "0s"})
    return candidates(scenario, scenario.run())


def test_multipath_ll_of_an_alua_host_imports_back_to_the_same_paths_and_states(tmp_path) -> None:
    # The loop closed on Linux: pathlab's own `multipath -ll` of the CX4 host, imported.
    capture = tmp_path / "multipath-ll.txt"
    capture.write_text(pathlab("show", "devices", "cx4-alua-path-failure", "--style", "linux").stdout)
    done = pathlab("import", str(capture))
    assert done.returncode == 0, done.stderr
    run = lambda s: s.run().paths  # noqa: E731
    imported = run(Scenario.from_text(done.stdout, "imported.toml", set=RUNS_AT_ALL))
    original = run(Scenario.load(SCENARIOS / "cx4-alua-path-failure.toml", set={"run.duration": "0.5s", "run.warmup": "0s"}))
    key = lambda paths: sorted((n.split(":", 1)[1], a) for n, a in zip(paths["name"], paths["alua"]))  # noqa: E731
    assert key(imported) == key(original)  # C:T:L and AO/ANO of every path


def test_multipath_conf_adds_what_multipath_ll_does_not_show_by_precedence(tmp_path) -> None:
    conf = tmp_path / "multipath.conf"
    conf.write_text('defaults {\n    failback manual\n    no_path_retry 12\n}\n'
                    'devices {\n    device {\n        vendor "NETA.*"\n        product "LUN"\n        failback immediate\n    }\n}\n')
    done = pathlab("import", str(NETAPP), str(conf))
    assert done.returncode == 0, done.stderr
    policies = [line for line in done.stdout.splitlines() if line.startswith("policy = ")]
    # The device entry (vendor and product as regular expressions) wins over defaults for
    # failback. The defaults section's no_path_retry 12 does not apply: multipath-tools' own
    # hwtable entry for NETAPP LUN (`.no_path_retry = NO_PATH_RETRY_QUEUE`) comes before
    # multipath.conf's defaults (propsel.c: mp_set_hwe before mp_set_conf), so the map queues
    # as its features show.
    assert policies and all('failback = "immediate"' in p and 'no_path_retry = "queue"' in p for p in policies), \
        policies[0]
    assert "#   failback: " + str(conf) + ", line 9: failback immediate (devices entry NETA.*/LUN)" in done.stdout
    assert "(defaults)" not in done.stdout


def test_rr_min_io_and_rr_weight_in_multipath_conf_are_said_to_do_nothing(tmp_path) -> None:
    """multipath-tools 0.15.0 deprecates rr_min_io, rr_min_io_rq and rr_weight: the kernel clamps a
    path's repeat count to 1 since Linux 4.6. Each is a finding naming its lines, and none is a run
    length (test_advise_speed)."""
    conf = tmp_path / "multipath.conf"
    conf.write_text('defaults {\n    rr_min_io 100\n}\ndevices {\n    device {\n        vendor "NETAPP"\n'
                    '        product "LUN"\n        rr_min_io_rq 4\n        rr_weight priorities\n    }\n}\n'
                    'multipaths {\n    multipath {\n        wwid 360a98aaaa72d444e423464685a786175\n'
                    '        rr_min_io_rq 16\n    }\n}\n')
    done = pathlab("advise", str(NETAPP), str(conf))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    said = {line.strip() for n, line in enumerate(lines) if n and "which does nothing" in lines[n - 1]}
    assert said == {
        f"{conf}, line 2: rr_min_io 100: it meant I/Os down a path before the next (bio-based maps); the kernel clamps "
        "a path's repeat count to 1, so remove it",
        f"{conf}, line 8: rr_min_io_rq 4; line 15: rr_min_io_rq 16: it meant requests down a path before the next; the "
        "kernel clamps a path's repeat count to 1, so remove it",
        f"{conf}, line 9: rr_weight priorities: it meant the repeat count scaled by the path group's priority; the "
        "kernel clamps a path's repeat count to 1, so remove it",
    }
    pathlab_ = pathlab("advise", str(NETAPP))
    assert "which does nothing" not in pathlab_.stdout


def test_a_map_the_listing_ends_inside_is_imported_from_its_listed_paths_and_said_so(tmp_path) -> None:
    import tomllib

    from test_listing_findings import GROUP, PROPS, TWO_MAPS

    listing = tmp_path / "mp.txt"
    listing.write_text(TWO_MAPS.format(tail=PROPS + GROUP + "| |- 1:0:0:1 sde 8:64 active ready running\n| `- 2:0:0:1 sdf 8:"))
    done = pathlab("import", str(listing))
    assert done.returncode == 0, done.stderr
    assert (f"maps.mpathb: {listing}, line 13: the listing ends inside map mpathb: imported from the paths listed "
            "before that; its other paths are not known") in done.stderr
    scenario = tomllib.loads(done.stdout)
    assert [d["name"] for d in scenario["devices"]] == ["3600a098038314962485d543078486c7a", "3600a098038314962485d543078486c7b"]
    assert "the listing ends inside it (line 13)" in done.stdout
    assert "path_down" not in done.stdout  # no path is taken as failed for what the paste left out
    # Only a header: nothing of the map to import, and it is left out, not said to wait for a path.
    listing.write_text(TWO_MAPS.format(tail=""))
    done = pathlab("import", str(listing))
    assert done.returncode == 0, done.stderr
    assert (f"maps.mpathb: {listing}, line 9: the listing ends inside map mpathb: no path listed, left out of the "
            "scenario") in done.stderr
    assert [d["name"] for d in tomllib.loads(done.stdout)["devices"]] == ["3600a098038314962485d543078486c7a"]


# Map headers as print.c's `%n (%w) %d %s` and `size=%S features='%f' hwhandler='%h' wp=%r` write
# them, one with no group under it (the paste stops there) and one whose one path multipathd knows no
# device of (`snprint_hcil`'s `#:#:#:#`, `snprint_dev`'s `-`, `snprint_dev_t`'s `#:#`).
_NO_PATHS = """\
mpathe (36005076300810df6c000000000000a10) dm-7 IBM,2145
size=8.0G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw

mpathf (36005076300810df6c000000000000a11) dm-8 IBM,2145
size=8.0G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw
`-+- policy='service-time 0' prio=0 status=enabled
  `- #:#:#:# -   #:#   active faulty running
"""


def test_a_listing_of_no_map_with_a_scsi_address_says_what_each_map_shows_instead(tmp_path) -> None:
    listing = tmp_path / "mp.txt"
    listing.write_text(_NO_PATHS)
    assert one_error_line(pathlab("import", str(listing))) == (
        f"pathlab: error: {listing}: no map with SCSI paths (H:C:T:L) to import: mpathe (line 1): no path group or "
        "path listed under it; mpathf (line 4): its paths show no SCSI address (#:#:#:#: multipath knows no device "
        "for them)")


_WEB_MAP = """<pre>[root@host ~]# multipath -ll
mpatha (<span class="wwid">360000970000297800000533030303344</span>) dm-0 EMC,SYMMETRIX
size=20G features=&#39;0&#39; hwhandler=&#39;0&#39; wp=rw
`-+- policy=&#39;service-time 0&#39; prio=1 status=active
  |- 1:0:0:1 sdb 8:16 active ready running
  `- 2:0:0:1 sdc 8:32 active ready running
[root@host ~]# </pre>
"""


def test_a_listing_copied_from_a_web_page_imports_without_its_markup(tmp_path) -> None:
    # The page's <pre>, the <span> around the WWID and its escaped quotes are the page's, not the listing's.
    page = tmp_path / "page.txt"
    page.write_text(_WEB_MAP)
    done = pathlab("import", str(page), "-o", str(tmp_path / "host.toml"))
    assert done.returncode == 0, done.stderr
    devices = tomllib.loads((tmp_path / "host.toml").read_text())["devices"]
    assert [d["name"] for d in devices] == ["360000970000297800000533030303344"]


def test_a_map_header_holding_markup_pathlab_does_not_know_is_one_line(tmp_path) -> None:
    # `<blink>` is no tag a page puts around a listing's field: the WWID would hold it, and no WWID can.
    page = tmp_path / "page.txt"
    page.write_text(_WEB_MAP.replace('<span class="wwid">', "<blink>").replace("</span>", ""))
    line = one_error_line(pathlab("import", str(page)))
    assert line == (f"pathlab: error: {page}: line 2: the map's WWID '<blink>360000970000297800000533030303344' holds "
                     "'<': a WWID is letters, digits and # + - . : = @ _ as udev gives it (3600…, naa.…, eui.…), an "
                     "alias has no blanks; markup or another tool's text left in?")


def test_an_nvme_controller_still_connecting_imports_as_a_path_that_is_down(tmp_path) -> None:
    listing = tmp_path / "subsys.txt"
    listing.write_text("nvme-subsys0 - NQN=nqn.1992-08.com.example:sn.1234:subsystem.host01\n\\\n"
                       " +- nvme0 tcp traddr=192.168.10.11,trsvcid=4420,src_addr=192.168.10.1 live optimized\n"
                       " +- (null) tcp traddr=192.168.20.11,trsvcid=4420,src_addr=192.168.20.1 connecting\n")
    done = pathlab("import", str(listing), "-o", str(tmp_path / "host.toml"))
    assert done.returncode == 0, done.stderr
    assert f"{listing}: line 4: a controller without a name ((null))" in done.stderr
    faults = tomllib.loads((tmp_path / "host.toml").read_text())["faults"]
    assert [(f["kind"], f["at"]) for f in faults] == [("path_down", "0s")]
    assert "(null) is connecting" in (tmp_path / "host.toml").read_text()


def test_an_nvme_controller_without_name_or_state_is_not_live_by_assumption_and_without_address_left_out(
        tmp_path) -> None:
    """nvme-cli prints `(null)` for what it could not read: a state `(null)` is kept as printed (shown
    back so) and the path taken as not live, said as assumed; a controller with no name and no
    address has no port or host side known: left out and said, nothing made up for it."""
    head = ("nvme-subsys0 - NQN=nqn.1992-08.com.example:sn.1234:subsystem.host01\n\\\n"
            " +- nvme0 tcp traddr=192.168.10.11,trsvcid=4420,src_addr=192.168.10.1 live optimized\n")
    listing = tmp_path / "subsys.txt"
    listing.write_text(head + " +- (null) tcp traddr=192.168.20.11,trsvcid=4420,src_addr=192.168.20.1 (null)\n")
    done = pathlab("import", str(listing), "-o", str(tmp_path / "host.toml"))
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "host.toml").read_text()
    assert ('path = "tcp1,src_addr=192.168.20.1:C0:T0:L1"  # default: '
            f"{listing}, line 4: a controller printed without a name or state ((null)): taken as not live") in text
    assert tomllib.loads(text)["devices"][0]["listed"]["paths"]["tcp1,src_addr=192.168.20.1:C0:T0:L1"]["state"] == "(null)"
    listing.write_text(head + " +- (null) tcp (null) (null)\n")
    done = pathlab("import", str(listing), "-o", str(tmp_path / "host2.toml"))
    assert done.returncode == 0, done.stderr
    assert f"{listing}, line 4: a controller without a name or address ((null)): nothing of its path is known, left " \
           "out" in done.stderr
    host = tomllib.loads((tmp_path / "host2.toml").read_text())
    assert list(host["devices"][0]["listed"]["paths"]) == ["tcp0,src_addr=192.168.10.1:C0:T0:L1"]
    assert "faults" not in host and [a["name"] for a in host["host"]["adapters"]] == ["tcp0,src_addr=192.168.10.1"]


def test_nvme_controllers_whose_addresses_are_masked_are_paths_of_their_own(tmp_path) -> None:
    """An address a page masked (`10.0.x.x`) is no address the kernel prints: two controllers
    showing the same one may reach two ports, so each is its own (and that is said)."""
    listing = tmp_path / "subsys.txt"
    listing.write_text("nvme-subsys0 - NQN=nqn.1992-08.com.example:sn.1234:subsystem.host01\n\\\n"
                       " +- nvme0 tcp traddr=10.0.x.x,trsvcid=4420 live\n"
                       " +- nvme1 tcp traddr=10.0.x.x,trsvcid=4420 live\n")
    done = pathlab("import", str(listing), "-o", str(tmp_path / "host.toml"))
    assert done.returncode == 0, done.stderr
    assert f"{listing}, line 3: traddr 10.0.x.x is no address (masked): each controller showing one taken as its own " \
           "port" in done.stderr
    host = tomllib.loads((tmp_path / "host.toml").read_text())
    assert [p["name"] for p in host["arrays"][0]["ports"]] == ["nvme0", "nvme1"]
    assert len(host["devices"][0]["listed"]["paths"]) == 2
