"""Importing a cluster (issue 33 item 1): several hosts' captures as one scenario, a device the
same LUN where its NAA or WWID is, an array port the same port where its WWN is, each host with
its own adapters, paths and load. The captures are pathlab's own views of each host of a
scenario (`show devices|paths --host`, `run --esxtop-csv`/`--diskstats`, as
scripts/make_shipped_captures.py makes the shipped ones), so what the import should find is known:
tests/data/cluster/three-esxi-hosts.toml and linux-pair.toml."""

from __future__ import annotations

import csv
import json
import re
import tarfile
import tomllib
import warnings
from pathlib import Path

import pytest

import pathlab
from conftest import ROOT
from conftest import pathlab as command
from pathlab import Scenario, ScenarioError
from pathlab.advisor.candidates import OWN_POLICY
from pathlab.advisor.capture_check import fit_to_capture
from pathlab.advisor.cluster_pipeline import captured_of
from pathlab.importer.provenance import Given, Read

DATA = ROOT / "tests" / "data" / "cluster"
NAA1, NAA2, NAA3 = (f"naa.6000097000019790012353303030303{i}" for i in (1, 2, 3))
WWID1, WWID2 = "360000000000000000000000000000101", "360000000000000000000000000000102"
#: A target port's WWN in an nmp path name: `fc.<adapter>-fc.<target WWNN:WWPN>-naa…`.
TARGET = re.compile(r"^fc\.[0-9a-f:]+-(fc\.[0-9a-f:]+)-", re.M)


def _ran(*args: str) -> str:
    done = command(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _captures(folder: Path, scenario: str, views: dict[str, list[str]], counters: str, hosts: tuple[str, ...]) -> dict[
        str, list[str]]:
    """Each host's listings (`show`, by file name: its arguments) and the counters `run` writes
    for it (`--esxtop-csv` or `--diskstats`, one file per host), by host."""
    scenario = str(DATA / scenario)  # (a path given whole stays itself)
    option, file = counters.split("=")
    _ran("run", scenario, option, str(folder / file))
    out = {}
    for host in hosts:
        for name, args in views.items():
            (folder / f"{name}-{host}.txt").write_text(_ran("show", *args, scenario, "--host", host))
        stem, suffix = file.split(".")
        out[host] = [str(folder / f"{name}-{host}.txt") for name in views] + [str(folder / f"{stem}-{host}.{suffix}")]
    return out


@pytest.fixture(scope="module")
def esxi(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Each ESXi host's device list, path list and esxtop capture, by host."""
    return _captures(tmp_path_factory.mktemp("three-esxi-hosts"), "three-esxi-hosts.toml",
                     {"devices": ["devices"], "paths": ["paths"]}, "--esxtop-csv=esxtop.csv", ("esx-a", "esx-b", "esx-c"))


@pytest.fixture(scope="module")
def linux(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Each Linux host's `multipath -ll` and /proc/diskstats samples, by host."""
    return _captures(tmp_path_factory.mktemp("linux-pair"), "linux-pair.toml",
                     {"multipath": ["paths", "--style", "linux"]}, "--diskstats=diskstats.txt", ("lin-a", "lin-b"))


def _targets(path_list: str) -> set[str]:
    """The target WWNs a host's path list reaches."""
    return set(TARGET.findall(Path(path_list).read_text()))


def test_two_esxi_hosts_share_both_luns_and_all_four_ports(esxi: dict[str, list[str]]) -> None:
    # Host names from the esxtop captures' counter paths (\\esx-a\...): none given.
    cluster = pathlab.import_cluster([esxi["esx-a"], esxi["esx-b"]])
    assert list(cluster.hosts) == ["esx-a", "esx-b"]
    assert cluster.shared_devices == {NAA1: ("esx-a", "esx-b"), NAA2: ("esx-a", "esx-b")}
    assert list(cluster.ports.values()) == [("esx-a", "esx-b")] * 4
    assert {i for i in cluster.port_identities.values()} == {f"FC target {t}" for t in _targets(esxi["esx-a"][1])}
    described = cluster.scenario.describe()
    assert sorted((d["host"], d["name"]) for d in described["devices"]) == [
        ("esx-a", NAA1), ("esx-a", NAA2), ("esx-b", NAA1), ("esx-b", NAA2)]
    # Each host keeps its own paths: two adapters to four ports, two LUNs.
    assert {h: sum(p["host"] == h for p in described["paths"]) for h in ("esx-a", "esx-b")} == {"esx-a": 16, "esx-b": 16}
    assert "esx-a" in cluster.named_from["esx-a"] and cluster.named_from["esx-a"].endswith("line 1: counter paths \\\\esx-a\\")
    # Each host's name read where its esxtop capture prints it, its first line's counter paths.
    (first, second) = cluster.tables.of("host") + cluster.tables.of("hosts")
    assert first.source("name") == Read(esxi["esx-a"][2], 1, "counter paths \\\\esx-a\\")
    assert second.source("name") == Read(esxi["esx-b"][2], 1, "counter paths \\\\esx-b\\")


def test_a_callers_own_frozen_objects_stay_frozen(esxi: dict[str, list[str]]) -> None:
    """The import freezes the hosts it reads and unfreezes them at its end; `gc.unfreeze` has no
    partial form, so where the caller had frozen objects of its own the import leaves the
    collector as it found it (it released the caller's freeze)."""
    import gc

    def frozen(obj: object) -> bool:  # tracked, and in no generation the collector walks
        return gc.is_tracked(obj) and not any(o is obj for o in gc.get_objects())

    mine: list[list[int]] = [[]]
    gc.freeze()
    try:
        pathlab.import_cluster([esxi["esx-a"], esxi["esx-b"]])
        assert frozen(mine)
    finally:
        gc.unfreeze()
    pathlab.import_cluster([esxi["esx-a"], esxi["esx-b"]])
    assert gc.get_freeze_count() == 0 and not frozen(mine)


@pytest.mark.parametrize("on", [True, False])
def test_the_collector_is_as_the_caller_had_it_after_an_import_on_workers(esxi: dict[str, list[str]], on: bool) -> None:
    """The import turns the collector off while worker processes' hosts arrive and are merged,
    and gives it back as it found it, on or off, whether the import succeeds or is refused."""
    import gc

    from pathlab.importer.cluster import cluster_of

    given = [(None, tuple(esxi["esx-a"])), (None, tuple(esxi["esx-b"]))]
    (gc.enable if on else gc.disable)()
    try:
        assert list(cluster_of(given, 2).hosts) == ["esx-a", "esx-b"]
        assert gc.isenabled() == on
        with pytest.raises(ScenarioError, match="given twice"):
            cluster_of([given[0], given[0]], 2)
        assert gc.isenabled() == on
    finally:
        gc.enable()


def _collector_on_after_a_host(files: list[str]) -> bool:
    import gc

    from pathlab.importer.cluster_hosts import read_host

    read_host(tuple(files))
    return gc.isenabled()


def test_the_collector_is_off_in_the_imports_own_workers_only(esxi: dict[str, list[str]]) -> None:
    """The import's workers read their hosts without the collector's passes; a process that is not
    one of them keeps its collector as it was, whoever started it (a caller's multiprocessing
    worker reading a host: session 21's first version asked only whether a parent process existed)."""
    import gc
    import multiprocessing

    from pathlab.processes import in_order

    assert list(in_order(_collector_on_after_a_host, [esxi["esx-a"], esxi["esx-b"]], 2)) == [False, False]
    assert _collector_on_after_a_host(esxi["esx-a"]) and gc.isenabled()
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply(_collector_on_after_a_host, (esxi["esx-a"],)) is True


def test_three_esxi_hosts_share_a_port_where_its_wwn_matches_whatever_the_target_number(
        esxi: dict[str, list[str]]) -> None:
    cluster = pathlab.import_cluster([esxi["esx-a"], esxi["esx-b"], esxi["esx-c"]])
    assert cluster.shared_devices == {NAA1: ("esx-a", "esx-b", "esx-c"), NAA2: ("esx-a", "esx-b")}
    # esx-c is zoned to the two 2D ports: its targets 0 and 1 are the second and fourth port of
    # the others, reached by WWN.
    reached_by_c = {cluster.port_identities[p] for p, hosts in cluster.ports.items() if "esx-c" in hosts}
    assert reached_by_c == {f"FC target {t}" for t in _targets(esxi["esx-c"][1])}
    assert len(reached_by_c) == 2 and sorted(len(h) for h in cluster.ports.values()) == [2, 2, 3, 3]
    assert all({"esx-a", "esx-b"} <= set(hosts) for hosts in cluster.ports.values())
    described = cluster.scenario.describe()
    own = [p for p in described["paths"] if p["host"] == "esx-c"]
    assert sorted({(p["device"], p["name"].rsplit(":", 1)[1]) for p in own}) == [(NAA1, "L1"), (NAA3, "L3")]
    assert len(own) == 4 and {cluster.port_identities[p["target"]] for p in own} == reached_by_c
    # Each host's own measured load: one workload per device of each host, 16 outstanding as captured.
    assert "outstanding = 16  # " in cluster.text and cluster.text.count("[[workloads]]") == 6


def test_the_cluster_runs_shows_per_host_and_is_advised_whole(esxi: dict[str, list[str]], tmp_path: Path) -> None:
    out = tmp_path / "cluster.toml"
    hosts = [f"--host={h}={','.join(files)}" for h, files in esxi.items()]
    done = command("import", *hosts, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "pathlab import: hosts esx-a, esx-b, esx-c; 2 device(s) on several hosts, 4 of 4 array port(s) reached by " \
           "several" in done.stderr
    shown = _ran("show", "paths", str(out), "--host", "esx-c")
    assert _targets_shown(shown) == 2 and shown.count("Runtime Name: vmhba1:C0:T") == 4
    ran = command("run", str(out), "--set", "run.duration=1s", "--set", "run.warmup=0.5s", "--set", "run.interval=0.5s")
    assert ran.returncode == 0 and "==> host esx-c <==" in ran.stdout, ran.stderr
    # advise takes the scenario the import wrote and simulates its hosts together; esx-c reaches two
    # of the four ports the others reach NAA1 through (the fixture's masking).
    advised = command("advise", str(out), "--duration", "1s", "--warmup", "0.5s", "--seeds", "2", "--format", "json")
    assert advised.returncode == 0, advised.stderr
    document = json.loads(advised.stdout)
    assert document["hosts"] == ["esx-a", "esx-b", "esx-c"]
    skipped = [f["title"] for f in document["findings"] if f["title"].startswith(f"esx-c: its paths to {NAA1} skip")]
    assert len(skipped) == 1 and skipped[0].endswith("which esx-a, esx-b use"), skipped


def test_a_clusters_captured_load_is_reproduced_and_its_gains_are_ranges_over_its_assumptions() -> None:
    # The shipped three hosts (30 s captured at iops=1000, 16.6 µs ports): the fit gives the ports
    # a service near the scenario's they were captured from (16.4 µs, measured after the turns have
    # spread, `turn_spread`; 15.9 µs when the climb was measured), every device within the tolerance; the
    # array's zero-load time, which no capture shows, is spanned as for one host (0 to 0.3 ms).
    with pytest.warns(pathlab.PathlabWarning):
        cluster = pathlab.import_cluster([f"vmax-cluster-esx-{h}" for h in "abc"])
    advice = pathlab.advise(cluster, duration="0.5s", warmup="0.25s", seeds=2)
    check = advice.capture_check
    assert check is not None and check.agrees, check and check.why
    assert [d.device for d in check.devices] == [
        f"esx-a/{NAA1}", f"esx-a/{NAA2}", f"esx-b/{NAA1}", f"esx-b/{NAA2}", f"esx-c/{NAA1}", f"esx-c/{NAA3}"]
    assert [round(d.captured_rate) for d in check.devices] == [34860, 34868, 34817, 34859, 23869, 23865]
    (service,) = [f for f in check.fitted if f.field == "arrays.EMC.service"]
    assert service.value.startswith("16.4 µs per command (was 20.0)"), service
    assert advice.gain_range_over == ("the array's zero-load time 0-0.3 ms beyond its port's service, where no capture "
                                      "showed it (EMC)",)
    in_force = advice.in_force
    assert in_force is not None
    assert any(c.label == OWN_POLICY for c in advice.candidates)
    for c in advice.candidates:
        if c.label == OWN_POLICY:  # never recommended: not simulated at the ends (`rank._spanned`)
            assert c.gain_range is None and not c.host_gain_ranges, c.label
            continue
        assert c.gain_range is not None and c.gain_range[0] <= c.gain <= c.gain_range[1], (c.label, c.gain, c.gain_range)
        for h in advice.hosts:  # each host's gain too, against its own rate in force at each end
            gain, (low, high) = c.hosts[h]["iops"].mean / in_force.hosts[h]["iops"].mean, c.host_gain_ranges[h]
            assert low <= gain <= high, (c.label, h, gain, low, high)
    iops1 = next(c for c in advice.candidates if c.label == "round robin, iops=1")
    assert iops1.host_gain_ranges["esx-a"][0] < iops1.host_gain_ranges["esx-a"][1]
    assert advice.to_dict()["host_gain_ranges"]["round robin, iops=1"]["esx-c"] == list(iops1.host_gain_ranges["esx-c"])
    assert advice.recommendation is not None and advice.recommendation.to == "round robin, iops=1"
    text = advice.to_text()
    assert "  The load it assumes: the captured one (187,138 I/O per s in force over 6 device(s))" in text
    assert "  Gains are ranges: each candidate a recommendation may choose simulated at both ends of each assumption's" in text
    if any(c.label == "a setting per host group" for c in advice.candidates):  # esx-c's own figures told latency apart
        assert "    Each group given its own (a setting per host group, simulated with the others) does not beat one " \
               "setting for every host (round robin, iops=1)" in text


def test_a_cluster_its_setting_in_force_cannot_reproduce_is_not_ranked(esxi: dict[str, list[str]]) -> None:
    # Ports set (by the user) ten times slower than the captures' rates allow: the fit may not
    # change them, so the figures disagree and nothing is predicted, as for one host.
    with pytest.warns(pathlab.PathlabWarning):
        cluster = pathlab.import_cluster(esxi)
    advice = pathlab.advise(cluster, duration="1s", warmup="0.5s", seeds=2, set=['arrays.*.service.fixed="200us"'])
    assert advice.unreproduced and advice.candidates == () and advice.recommendation is None
    assert advice.capture_check is not None and "its ports' service is set with --set" in (advice.capture_check.why or "")
    # Every host's captured load, the hosts together, each device as `HOST/NAME`.
    assert [d.device for d in advice.capture_check.devices] == [
        f"esx-a/{NAA1}", f"esx-a/{NAA2}", f"esx-b/{NAA1}", f"esx-b/{NAA2}", f"esx-c/{NAA1}", f"esx-c/{NAA3}"]
    text = advice.to_text()
    assert "No prediction: the setting in force, simulated, does not reproduce what the captures measured" in text
    assert "The load it assumes" not in text


def test_a_clusters_short_captures_are_judged_per_array_where_devices_cannot_go_round(
        esxi: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    # The fixture's 4 s captures at iops=1000: a device of esx-a (8 paths, 32,600 I/O/s) goes round
    # its paths 20 times in 4.9 s, a host's two devices together in 2.5 s, both longer than the fit's
    # 2 s runs; the array's six devices in 0.5 s, but six devices on four ports leave one without a
    # turn 18% of the time. So the array is judged, short of the rule: the fit aims at 5% on its
    # rate, and each unit is allowed what its run allows (session 15: per device, 8-17% off, refused).
    with pytest.warns(pathlab.PathlabWarning):
        cluster = pathlab.import_cluster(esxi)
    scenario = Scenario.from_values(cluster.tables.values(), cluster.text, cluster.scenario.file)
    from pathlab.advisor import capture_check

    lengths = []
    run = capture_check._run
    monkeypatch.setattr(capture_check, "_run", lambda s, sets, p: lengths.append(
        (sets["run.duration"], sets["run.warmup"])) or run(s, sets, p))
    check = fit_to_capture(scenario, cluster.tables, captured_of(cluster.hosts))
    assert check is not None and check.agrees, check and check.why
    assert check.judged == "array" and check.duration_s == 2.0
    # A pilot of 10,000 I/Os at the captured 177,960 I/O/s gives the level; then every fitting run
    # is of its length (none run again), warmed up for the turns to spread (40 × 1,000 / 32,580 s).
    assert lengths[0] == ("56192us", "0us")
    assert lengths[1:] == [("2000000us", "1227747us")] * check.runs and check.runs == 4
    assert check.judged_why.startswith("judged per array, short of the rotations rule: 20 rotations of the policy in force "
                                       "and 1,600 I/Os take 0.503 s per array (devices 4.91 s and port groups 2.45 s, "
                                       "longer than the 2 s the fit runs)")
    assert "arrays leave a port without a turn with chance 18%" in check.judged_why
    assert [(g.level, g.device) for g in check.together] == [
        ("port group", "esx-a's devices on EMC through P0, P1, P2, P3"),
        ("port group", "esx-b's devices on EMC through P0, P1, P2, P3"),
        ("port group", "esx-c's devices on EMC through P1, P3"), ("array", "array EMC")]
    (array,) = [g for g in check.together if g.level == "array"]
    assert array.rate_tolerance == pytest.approx(0.75 ** 6) and abs(array.rate_off) <= 0.05  # aimed at, and reached
    (service,) = [f for f in check.fitted if f.field == "arrays.EMC.service"]
    # The captures' scenario: 16.6. Measured after the turns have spread (`turn_spread`: 40 dwells of
    # the slowest device whose turn loads its port to half, 1,000 I/Os at 32,580 I/O/s: 1.23 s of
    # warm-up; esx-c's devices, 23,400 I/O/s, load the assumed 20 µs port to 0.47); 17.2 when a
    # quarter of the run was the warm-up and the climb was measured.
    assert service.value.startswith("16.8 µs per command (was 20.0)"), service


def test_a_host_whose_captured_load_the_shared_ports_cannot_give_is_named(tmp_path: Path) -> None:
    # A generated cluster (3 hosts x 12 LUNs x 4 paths, iops=1000, as bench --advise makes it) whose
    # esx02 capture says four times the responses it measured (1.49 ms, its rate kept), where the
    # other hosts on the same two ports answer in 0.37 ms: 4 I/Os in flight on each of its devices by
    # Little's law, which the shared ports cannot carry at its captured rate with the others at
    # theirs. Each host's devices go round together 20 times in 2.5 s, longer than the 2 s runs, but a
    # host's 12 devices keep both ports at work: each host is checked to 1/its 16 rotations.
    from pathlab.cli.cluster_bench import cluster_captures

    options = cluster_captures(tmp_path, 3, 12, 4)
    hosts = {o.split("=")[1]: o.split("=", 2)[2].split(",") for o in options}
    with Path(hosts["esx02"][2]).open() as captured:
        rows = list(csv.reader(captured))
    columns = [i for i, h in enumerate(rows[0]) if "SCSI Device(" in h and "MilliSec" in h]
    for row in rows[1:]:
        for i in columns:
            row[i] = f"{float(row[i]) * 4:.3f}"
    with (tmp_path / "edited.csv").open("w", newline="") as out:
        csv.writer(out, quoting=csv.QUOTE_ALL).writerows(rows)
    with pytest.warns(pathlab.PathlabWarning):
        as_captured = pathlab.import_cluster(hosts)
        edited = pathlab.import_cluster({**hosts, "esx02": [*hosts["esx02"][:2], str(tmp_path / "edited.csv")]})
    scenario = Scenario.from_values(as_captured.tables.values(), as_captured.text, as_captured.scenario.file)
    check = fit_to_capture(scenario, as_captured.tables, captured_of(as_captured.hosts))
    assert check is not None and check.agrees and check.judged == "array", check and check.why
    advice = pathlab.advise(edited, seeds=2)
    assert advice.unreproduced and advice.candidates == () and advice.recommendation is None
    why = advice.capture_check.why if advice.capture_check else ""
    assert why is not None and why.startswith("esx02's devices on EMC through P0, P1 was captured at 32,292 I/O/s in "
                                              "1.488 ms"), why
    assert why.endswith("furthest from the others: esx02's devices on EMC through P0, P1, captured at 1.488 ms against "
                        "the median of the array's port groups, 0.367 ms"), why
    assert "No prediction" in advice.to_text()


def _targets_shown(path_list: str) -> int:
    return len(set(TARGET.findall(path_list)))


def test_a_linux_pair_shares_its_wwids_and_keeps_its_ports_apart(linux: dict[str, list[str]]) -> None:
    # multipath -ll names no host and no target WWN: the names are the ones given, and which
    # array ports the hosts share is not known, so each keeps its own (and that is warned about).
    with pytest.warns(pathlab.PathlabWarning, match="neither its captures nor theirs name the array ports"):
        cluster = pathlab.import_cluster(hosts={"lin-a": linux["lin-a"], "lin-b": linux["lin-b"]})
    assert cluster.shared_devices == {WWID1: ("lin-a", "lin-b"), WWID2: ("lin-a", "lin-b")}
    assert list(cluster.ports.values()) == [("lin-a",), ("lin-a",), ("lin-b",), ("lin-b",)]
    assert set(cluster.port_identities.values()) == {None}
    assert cluster.named_from == {"lin-a": "given: no capture names the host", "lin-b": "given: no capture names the host"}
    assert cluster.tables.of("host")[0].source("name") == Given("no capture names the host")
    paths = cluster.scenario.describe()["paths"]
    assert sorted({(p["host"], p["device"], p["name"].rsplit(":", 1)[1]) for p in paths}) == [
        ("lin-a", WWID1, "L1"), ("lin-a", WWID2, "L2"), ("lin-b", WWID1, "L1"), ("lin-b", WWID2, "L2")]
    # Each host's paths go to its own ports: two HBAs, one target each.
    assert {h: sorted({p["target"] for p in paths if p["host"] == h}) for h in ("lin-a", "lin-b")} == {
        "lin-a": ["PATHLAB/H0T0", "PATHLAB/H1T0"], "lin-b": ["PATHLAB/lin-b-H0T0", "PATHLAB/lin-b-H1T0"]}
    # Each host's load from its own diskstats.
    assert all(f"diskstats-{h}.txt: dm-0's average queue" in cluster.text for h in ("lin-a", "lin-b"))


def test_a_sosreport_pair_is_named_by_each_reports_hostname(linux: dict[str, list[str]], tmp_path: Path) -> None:
    trees = []
    for host, (multipath, diskstats) in linux.items():
        tree = tmp_path / f"sosreport-{host}-2026-11-28-abcdef"
        (tree / "sos_commands" / "multipath").mkdir(parents=True)
        (tree / "proc").mkdir()
        (tree / "sos_commands" / "multipath" / "multipath_-v4_-ll").write_text(Path(multipath).read_text())
        (tree / "proc" / "diskstats").write_text(Path(diskstats).read_text())
        (tree / "hostname").write_text(f"{host}.lab.local\n")
        trees.append(str(tree))
    with pytest.warns(pathlab.PathlabWarning):
        cluster = pathlab.import_cluster(trees)
    assert list(cluster.hosts) == ["lin-a.lab.local", "lin-b.lab.local"]
    assert cluster.named_from["lin-b.lab.local"] == f"{trees[1]}/hostname, line 1"
    assert cluster.tables.of("hosts")[0].source("name") == Read(f"{trees[1]}/hostname", 1)
    assert cluster.shared_devices == {WWID1: ("lin-a.lab.local", "lin-b.lab.local"),
                                      WWID2: ("lin-a.lab.local", "lin-b.lab.local")}


def test_an_nvme_pair_shares_its_subsystems_and_the_target_addresses(tmp_path: Path) -> None:
    hosts = _captures(tmp_path, "nvme-pair.toml", {"nvme": ["paths", "--style", "nvme"]}, "--diskstats=diskstats.txt",
                      ("nv-a", "nv-b"))
    cluster = pathlab.import_cluster(hosts=hosts)
    subsystems = [f"nqn.2014-08.com.example:sub{i}" for i in (1, 2)]
    assert cluster.shared_devices == {s: ("nv-a", "nv-b") for s in subsystems}
    # The traddr pathlab's view prints for a port (array/port) on the subsystems' array.
    assert cluster.port_identities == {"EXAMPLE/aa/P0": "NVMe EXAMPLE traddr aa/P0",
                                       "EXAMPLE/aa/P1": "NVMe EXAMPLE traddr aa/P1"}
    assert list(cluster.ports.values()) == [("nv-a", "nv-b")] * 2
    assert len(cluster.scenario.describe()["paths"]) == 8


@pytest.mark.parametrize(("stack", "port", "comment", "identity"), [
    ("esxi", "P0", "paths.txt: target fc.5006016000000001:5006016100000001", "FC target fc.5006016000000001:5006016100000001"),
    ("esxi", "P1", "paths.txt: target 00023d000001,iqn.1992-04.com.emc:cx.apm00,t,1", None),  # an iSCSI session: the host's ISID
    ("esxi", "P2", "paths.txt: target vmhba33:C0:T1", None),
    ("linux", "10.37.120.10:3260", "sessions.txt, line 4: portal", "iSCSI portal 10.37.120.10:3260"),
    ("linux", "H3T0", "multipath.txt: SCSI host 3, target 0", None),
    ("nvme", "192.168.1.5:4420", "nvme.txt: traddr 192.168.1.5:4420", "NVMe NETAPP traddr 192.168.1.5:4420"),
])  # fmt: skip
def test_a_port_is_known_across_hosts_by_its_wwn_portal_or_nvme_address_only(stack: str, port: str, comment: str,
                                                                             identity: str | None) -> None:
    from pathlab.importer.port_identity import port_identity

    assert port_identity(stack, "NETAPP", port, comment) == identity


def _refused(*args: str) -> str:
    done = command("import", *args)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = [line for line in done.stderr.splitlines() if line.startswith("pathlab: error:")]
    return line


def _edited(file: str, old: str, new: str, tmp_path: Path, count: int = -1) -> str:
    text = Path(file).read_text()
    assert old in text
    out = tmp_path / f"edited-{Path(file).name}"
    out.write_text(text.replace(old, new, count))
    return str(out)


def test_one_naa_on_arrays_of_two_vendors_is_refused_naming_both_listings(esxi: dict[str, list[str]],
                                                                          tmp_path: Path) -> None:
    devices_b = _edited(esxi["esx-b"][0], "EMC Fibre Channel Disk", "DGC Fibre Channel Disk", tmp_path)
    line = _refused("--host", ",".join(esxi["esx-a"]), "--host", ",".join([devices_b, *esxi["esx-b"][1:]]))
    assert line.startswith(f"pathlab: error: {devices_b}: {NAA1}: esx-b has it on array DGC ({devices_b}: Device "
                           f"Display Name), esx-a on EMC ({esxi['esx-a'][0]}: Device Display Name): one NAA, WWID or NQN "
                           "on two arrays is not one LUN"), line


def test_hosts_claiming_one_vendor_with_two_satps_are_warned_about(esxi: dict[str, list[str]], tmp_path: Path) -> None:
    devices_b = _edited(esxi["esx-b"][0], "VMW_SATP_SYMM", "VMW_SATP_ALUA", tmp_path)
    with pytest.warns(pathlab.PathlabWarning, match="esxcli: esx-b claims vendor EMC with `esxcli storage nmp satp rule add "
                                                    "-s VMW_SATP_ALUA -V EMC -c tpgs_on`, esx-a with `esxcli storage nmp "
                                                    "satp rule add -s VMW_SATP_SYMM -V EMC`: the hosts disagree"):
        cluster = pathlab.import_cluster([esxi["esx-a"], [devices_b, *esxi["esx-b"][1:]]])
    assert cluster.assumptions[0].field == "esxcli"


ESXI_SETTLES = ("the TPG states of `esxcli storage nmp device list` (Storage Array Type Device Config: every target "
                "port group the array reports, reached or not) and `nmp path list` (`hpp path list` under HPP)")


@pytest.mark.parametrize("order", ["os", "so"])
def test_hosts_reading_one_array_symmetric_and_owned_are_refused_naming_both_whichever_comes_first(
        tmp_path: Path, order: str) -> None:
    """Two ESXi hosts reach the CX4's four ports (one WWN each, so every port has a controller):
    o reads its LUNs' other target port group ANO (owned), s reads every path and every device's
    every TPG AO (symmetric). The scenario holds one reading of an array, so either kept simulates
    the other host against what it printed; o first kept o's and warned, s first was refused: now
    refused whichever comes first, naming what settles each ESXi host's reading."""
    cx4 = str(ROOT / "scenarios" / "cx4-alua-path-failure.toml")
    files = {}
    for host in "os":
        devices, paths = _ran("show", "devices", cx4), _ran("show", "paths", cx4)
        assert "TPG_state=ANO" in paths and "TPG_state=ANO" in devices
        for name, text in (("devices", devices), ("paths", paths)):
            (tmp_path / f"{name}-{host}.txt").write_text(text if host == "o" else text.replace("TPG_state=ANO",
                                                                                                  "TPG_state=AO"))
        files[host] = f"{host}={tmp_path / f'devices-{host}.txt'},{tmp_path / f'paths-{host}.txt'}"
    line = _refused(*(arg for host in order for arg in ("--host", files[host])))
    assert line == (f"pathlab: error: {tmp_path / 'paths-s.txt'}: symmetric: s reads array DGC as symmetric "
                    f"({tmp_path / 'paths-s.txt'}: every path active-optimized), o as owned by its controllers "
                    f"({tmp_path / 'paths-o.txt'}: paths active-optimized and not, by TPG): the scenario has one reading "
                    f"of an array, so the hosts cannot be simulated together as each shows it; give s's {ESXI_SETTLES}, "
                    f"o's {ESXI_SETTLES}, or, where the array answers the hosts apart (a mode set per host), import "
                    "each host alone")


@pytest.mark.parametrize("order", ["do", "od"])
def test_an_esxi_host_reaching_the_owners_ports_alone_reads_the_array_owned_by_its_device_lists_tpg_states(
        tmp_path: Path, order: str) -> None:
    """Host d is zoned to each LUN's active-optimized ports alone: its path list shows every path
    AO (it read "symmetric"), but its device list prints the array's TPG states,
    `{TPG_id=1,TPG_state=AO}{TPG_id=2,TPG_state=ANO}`: the array reports a non-optimized group, so
    it owns LUNs by controller (`esxi_tpg_config`). With o, which reaches both groups, the cluster
    is consistent in either order (it was refused in both), each LUN owned by its AO group."""
    cx4 = str(ROOT / "scenarios" / "cx4-alua-path-failure.toml")
    devices, paths = _ran("show", "devices", cx4), _ran("show", "paths", cx4)
    optimized = [block for block in paths.split("\n\n") if "TPG_state=ANO" not in block]
    assert len(optimized) < len(paths.split("\n\n"))
    files = {}
    for host, listed in (("o", paths), ("d", "\n\n".join(optimized))):
        (tmp_path / f"devices-{host}.txt").write_text(devices)
        (tmp_path / f"paths-{host}.txt").write_text(listed)
        files[host] = [str(tmp_path / f"devices-{host}.txt"), str(tmp_path / f"paths-{host}.txt")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        alone = tomllib.loads(pathlab.import_host(*files["d"]).to_toml())
        cluster = tomllib.loads(pathlab.import_cluster({h: files[h] for h in order}).text)
    (array,) = alone["arrays"]
    assert array["symmetric"] is False and [c["name"] for c in array["controllers"]] == ["TPG1", "TPG2"]
    owners = {d["name"]: d["owner"] for d in alone["devices"]}
    shown = dict(re.findall(r"^(naa\.\w+)\n(?:   .*\n)*?   Storage Array Type Device Config: .*?\{TPG_id=(\d),TPG_state=AO\}",
                            devices, re.M))
    assert owners == {name: f"TPG{tpg}" for name, tpg in shown.items()} and len(set(owners.values())) == 2
    (merged,) = cluster["arrays"]
    assert merged["symmetric"] is False


def test_hosts_showing_one_lun_owned_by_two_controllers_are_warned_about(tmp_path: Path) -> None:
    # The pair on an ALUA array (P0 on SPA, P1 on SPB); lin-b's listing of the first LUN has its
    # priorities swapped. A Linux host names the controllers A and B after its first map's groups,
    # so its names flip and the second LUN's owner is the one that reads otherwise.
    alua = (DATA / "linux-pair.toml").read_text().replace(
        "symmetric = true", 'symmetric = false\ntpgs = true\ncontrollers = [{ name = "SPA" }, { name = "SPB" }]').replace(
        'ports = [{ name = "P0" }, { name = "P1" }]', 'ports = [{ name = "P0", controller = "SPA" }, '
                                                      '{ name = "P1", controller = "SPB" }]')
    (tmp_path / "alua.toml").write_text(alua)
    hosts = _captures(tmp_path, str(tmp_path / "alua.toml"), {"multipath": ["paths", "--style", "linux"]},
                      "--diskstats=diskstats.txt", ("lin-a", "lin-b"))
    first, rest = Path(hosts["lin-b"][0]).read_text().split("mpathb", 1)
    assert first.count("prio=50") == first.count("prio=10") == 1
    swapped = first.replace("prio=50", "prio=X").replace("prio=10", "prio=50").replace("prio=X", "prio=10")
    Path(hosts["lin-b"][0]).write_text(swapped + "mpathb" + rest)
    with pytest.warns(pathlab.PathlabWarning, match=f"devices.lin-b/{WWID2}.owner: lin-b shows controller B owning it "
                                                    r"\(.*multipath-lin-b.txt: the controller of its best group's paths\), "
                                                    "lin-a A: one LUN has one owner"):
        pathlab.import_cluster(hosts=hosts)


def test_one_wwid_at_two_sizes_or_of_two_models_is_refused_naming_both(linux: dict[str, list[str]],
                                                                       tmp_path: Path) -> None:
    resized = _edited(linux["lin-b"][0], "size=100G", "size=200G", tmp_path, 1)
    line = _refused("--host", f"lin-a={','.join(linux['lin-a'])}", "--host", f"lin-b={resized},{linux['lin-b'][1]}")
    assert line == (f"pathlab: error: {resized}: line 1: {WWID1} is 200G on lin-b, 100G on lin-a ({linux['lin-a'][0]}, "
                    "line 1): one WWID at two sizes is not one LUN; rescan the host that shows the old size")
    other = _edited(linux["lin-b"][0], "PATHLAB,SYMMETRIC", "PATHLAB,OTHER", tmp_path)
    line = _refused("--host", f"lin-a={','.join(linux['lin-a'])}", "--host", f"lin-b={other},{linux['lin-b'][1]}")
    assert line == (f"pathlab: error: {other}: model: lin-b reads array PATHLAB's model as 'OTHER', {linux['lin-a'][0]} "
                    "as 'SYMMETRIC', though they share its devices or ports: not one array; give the captures of hosts "
                    "of one cluster")


def test_a_lun_numbered_otherwise_on_one_host_takes_the_first_hosts_number_and_says_so(
        esxi: dict[str, list[str]], tmp_path: Path) -> None:
    # esx-b's path list shows LUN 1 as L7 (its esxtop capture names paths by runtime name too).
    paths_b = _edited(esxi["esx-b"][1], ":L1\n", ":L7\n", tmp_path)
    esxtop_b = _edited(esxi["esx-b"][2], ":L1)", ":L7)", tmp_path)
    with pytest.warns(pathlab.PathlabWarning, match=r"esx-b numbers the LUN 7, esx-a 1: the scenario's number is the "
                                                    r"array's, 1 taken \(its paths on esx-b are named L1\)"):
        cluster = pathlab.import_cluster([esxi["esx-a"], [esxi["esx-b"][0], paths_b, esxtop_b]])
    assert cluster.shared_devices[NAA1] == ("esx-a", "esx-b")
    assert f"lun = 1  # esx-a's number of the LUN; esx-b shows 7 ({paths_b}: runtime names)" in cluster.text
    assert any(a.field == f"devices.esx-b/{NAA1}.lun" for a in cluster.assumptions)
    # Its listed paths are named as the scenario names them (L1): `show` finds each path's listing.
    listed = next(t.values()["listed"]["paths"] for t in cluster.tables.of("devices")
                  if t.get("name") == NAA1 and t.get("host") == "esx-b")
    assert len(listed) == 8 and all(name.endswith(":L1") for name in listed)
    written = tmp_path / "cluster.toml"
    written.write_text(cluster.text)
    shown = command("show", "paths", str(written), "--host", "esx-b")
    assert shown.returncode == 0 and "is no path of the device" not in shown.stderr, shown.stderr


def test_hosts_imported_on_several_cores_give_the_one_process_import_byte_for_byte(
        esxi: dict[str, list[str]], tmp_path: Path) -> None:
    """Each host is imported in a process of its own (its `Host` pickled back, its scenario as
    its tables): the cluster, every host and the warnings, in order, are those of one process;
    a host refused in a worker is refused in the words of its own import."""
    from pathlab.importer.cluster import cluster_of

    given = [(None, tuple(esxi[h])) for h in ("esx-a", "esx-b", "esx-c")]
    runs = []
    for workers in (1, 3):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always", pathlab.PathlabWarning)
            runs.append((cluster_of(given, workers), [str(w.message) for w in said]))
    (alone, said_alone), (pooled, said_pooled) = runs
    assert pooled.text == alone.text and pooled.tables.render() == alone.tables.render()
    assert said_pooled == said_alone and len(said_alone) == 18
    assert (pooled.shared_devices, pooled.ports, pooled.port_identities, pooled.named_from, pooled.assumptions) == (
        alone.shared_devices, alone.ports, alone.port_identities, alone.named_from, alone.assumptions)
    for name, host in alone.hosts.items():
        other = pooled.hosts[name]
        assert (other.text, other.findings, other.assumptions, other.captured, other.timers, other.stack) == (
            host.text, host.findings, host.assumptions, host.captured, host.timers, host.stack)
        assert other.scenario.describe() == host.scenario.describe() and other.scenario.tables == host.scenario.tables
    # esx-c's capture with a sample out of order: refused by its worker as by its import alone.
    late = _edited(esxi["esx-c"][2], "01/01/2026 00:00:01", "01/01/2026 00:00:00", tmp_path, 1)
    with pytest.raises(ScenarioError) as alone_refused:
        pathlab.import_host(*esxi["esx-c"][:2], late)
    with pytest.raises(ScenarioError) as pooled_refused:
        cluster_of([*given[:2], (None, (*esxi["esx-c"][:2], late))], 3)
    assert str(pooled_refused.value) == str(alone_refused.value) and "out of time order" in str(alone_refused.value)


def test_a_scenario_pickles_as_what_it_was_built_from() -> None:
    import pickle

    scenario = Scenario.load(str(ROOT / "scenarios" / "c1-vmax-1lun.toml"), "iops1", {"run.duration": "2s"}, 7)
    again = pickle.loads(pickle.dumps(scenario))
    assert (again.text, again.variant, again.overrides, again.seed) == (scenario.text, "iops1",
                                                                        (("run.duration", '"2s"'),), 7)
    assert again.describe() == scenario.describe()


def test_two_captures_of_one_host_are_refused_naming_both(esxi: dict[str, list[str]]) -> None:
    a = esxi["esx-a"]
    # The same esxtop capture for two hosts: both name host esx-a.
    line = _refused("--host", ",".join(a), "--host", ",".join([*esxi["esx-b"][:2], a[2]]))
    assert "host esx-a" in line and "given twice" in line and a[2] in line and esxi["esx-b"][0] in line, line
    # The same path list under two names: the adapters' WWNs are one host's.
    line = _refused("--host", f"one={','.join(a[:2])}", "--host", f"two={esxi['esx-b'][0]},{a[1]}")
    assert line == (f"pathlab: error: {a[1]}: the same capture as {a[1]} (host one), given for host two: one host's "
                    "captures given twice; give each host's own")


def test_files_of_one_host_naming_two_hosts_are_refused(esxi: dict[str, list[str]], tmp_path: Path) -> None:
    # A vm-support tree of host esx-z given with esx-a's esxtop capture.
    tree = _vm_support(tmp_path / "bundle", "esx-z", esxi["esx-a"])
    line = _refused("--host", f"{tree},{esxi['esx-a'][2]}", "--host", ",".join(esxi["esx-b"]))
    hostname = next(tree.rglob("localcli_system-hostname-get.txt"))
    assert line == (f"pathlab: error: {esxi['esx-a'][2]}, line 1: counter paths \\\\esx-a\\: names host esx-a, "
                    f"{hostname}, line 3 names esx-z: the captures of one host are given together; give each host's "
                    "apart")


def _vm_support(root: Path, host: str, files: list[str]) -> Path:
    """A vm-support tree of a host: its listings under commands/, its hostname, no esxtop."""
    commands = root / f"esx-{host}-2026-11-28--10.00-1234" / "commands"
    commands.mkdir(parents=True)
    (commands / "localcli_storage-nmp-device-list.txt").write_text(Path(files[0]).read_text())
    (commands / "localcli_storage-nmp-path-list.txt").write_text(Path(files[1]).read_text())
    (commands / "localcli_system-hostname-get.txt").write_text(
        f"   Domain Name: lab.local\n   Fully Qualified Domain Name: {host}.lab.local\n   Host Name: {host}\n")
    return root


def test_vm_support_bundles_extracted_and_as_tarballs_import_as_hosts_named_by_their_hostname(
        esxi: dict[str, list[str]], tmp_path: Path) -> None:
    trees = [_vm_support(tmp_path / h, h, esxi[h]) for h in ("esx-a", "esx-b")]
    cluster = pathlab.import_cluster([str(trees[0]), str(trees[1])])
    assert list(cluster.hosts) == ["esx-a", "esx-b"] and cluster.shared_devices[NAA1] == ("esx-a", "esx-b")
    assert cluster.named_from["esx-b"].endswith("commands/localcli_system-hostname-get.txt, line 3")
    hostname_get = next(trees[1].rglob("localcli_system-hostname-get.txt"))
    assert cluster.tables.of("hosts")[0].source("name") == Read(str(hostname_get), 3)
    tarball = tmp_path / "esx-b.tgz"
    log = trees[1] / "esx-esx-b-2026-11-28--10.00-1234" / "var" / "log" / "vmkernel.log"
    log.parent.mkdir(parents=True)
    log.write_text("2026-11-28T10:00:00Z cpu1: a log line no import reads\n" * 1000)
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(trees[1], arcname=".")
        link = tarfile.TarInfo("./hostname")  # as a sosreport's top-level files lead into sos_commands/
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/hostname"
        tar.addfile(link)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", pathlab.PathlabWarning)
        from_tarball = pathlab.import_cluster([str(trees[0]), str(tarball)])
    said_of_tarball = [str(w.message) for w in said if str(w.message).startswith(f"{tarball}: ")]
    # Read as a stream: its captures and hostname written out, its log left in it, and both said.
    assert said_of_tarball[:2] == [f"{tarball}: links: 1 link(s) or special file(s) not unpacked (only folders and regular "
                                   "files are read), e.g. ./hostname",
                                   f"{tarball}: files: 1 file(s) left in the archive: none is a capture pathlab reads"]
    assert from_tarball.shared_devices == cluster.shared_devices
    assert from_tarball.named_from["esx-b"] == \
        f"{tarball}!esx-esx-b-2026-11-28--10.00-1234/commands/localcli_system-hostname-get.txt, line 3"
    # Its values name the tarball's members, not where it was unpacked.
    assert f"{tarball}!esx-esx-b-2026-11-28--10.00-1234/commands/localcli_storage-nmp-path-list.txt: runtime names" \
           in from_tarball.text and "pathlab-bundles-" not in from_tarball.text


def test_a_hostname_linked_out_of_its_tree_names_no_host(esxi: dict[str, list[str]], tmp_path: Path) -> None:
    # Read, a link to /etc/hostname would name the machine pathlab runs on.
    tree = _vm_support(tmp_path / "bundle", "esx-a", esxi["esx-a"])
    (hostname_get,) = tree.rglob("localcli_system-hostname-get.txt")
    hostname_get.unlink()
    (hostname_get.parent.parent / "hostname").symlink_to("/etc/hostname")
    line = _refused("--host", str(tree), "--host", ",".join(esxi["esx-b"]))
    assert "no capture names its host" in line, line


def test_a_tarball_member_outside_its_folder_is_refused(esxi: dict[str, list[str]], tmp_path: Path) -> None:
    tarball = tmp_path / "bad.tgz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(esxi["esx-b"][0], arcname="../escaped.txt")
    line = _refused("--host", ",".join(esxi["esx-a"]), "--host", f"b={tarball}")
    assert line == f"pathlab: error: {tarball}: ../escaped.txt: a member outside the archive's folder: not unpacked"
    # A name that would forge a line of pathlab's own is printed with its control characters escaped.
    forged = tmp_path / "forged.tgz"
    with tarfile.open(forged, "w:gz") as tar:
        tar.add(esxi["esx-b"][0], arcname="x\npathlab: fine/../../y")
    line = _refused("--host", ",".join(esxi["esx-a"]), "--host", f"b={forged}")
    assert line == f"pathlab: error: {forged}: x\\npathlab: fine/../../y: a member outside the archive's folder: not unpacked"


def test_one_tarball_given_twice_is_unpacked_once_and_a_pasted_list_of_files_is_read(
        esxi: dict[str, list[str]], tmp_path: Path) -> None:
    """The same tarball twice for one host is one bundle (it was a FileExistsError traceback);
    `NAME=a, b` as pasted names the files a and b; `NAME=` alone says no file follows."""
    tarball = tmp_path / "esx-b.tgz"
    with tarfile.open(tarball, "w:gz") as tar:
        for f in esxi["esx-b"]:
            tar.add(f, arcname=f"esx-b/{Path(f).name}")
    # Given twice, it reads as given once (here a folder of files that is no vm-support tree: one line).
    once = _refused("--host", ",".join(esxi["esx-a"]), "--host", f"b={tarball}")
    assert _refused("--host", ",".join(esxi["esx-a"]), "--host", f"b={tarball},{tarball}") == once
    assert "no file after the host's name" in _refused("--host", ",".join(esxi["esx-a"]), "--host", "b=")


def test_a_cluster_is_two_hosts_or_more_and_files_go_with_a_host(esxi: dict[str, list[str]]) -> None:
    with pytest.raises(ScenarioError, match="a cluster is two hosts or more"):
        pathlab.import_cluster([esxi["esx-a"]])
    line = _refused(esxi["esx-a"][0], "--host", ",".join(esxi["esx-b"]))
    assert "give FILES for one host, or --host for each host of a cluster, not both" in line
    # Listings alone name no host: the name must be given.
    line = _refused("--host", ",".join(esxi["esx-a"][:2]), "--host", ",".join(esxi["esx-b"]))
    assert "no capture names its host" in line and "--host NAME=FILES" in line


def test_the_cluster_scenario_is_what_the_cli_writes(esxi: dict[str, list[str]]) -> None:
    cluster = pathlab.import_cluster({"esx-a": esxi["esx-a"], "esx-b": esxi["esx-b"]})
    assert cluster.to_toml() == _ran("import", "--host", ",".join(esxi["esx-a"]), "--host", ",".join(esxi["esx-b"]))
    assert repr(cluster) == "<pathlab.Cluster esx-a, esx-b: 2 shared devices, 4 of 4 ports shared>"
    assert Scenario.from_text(cluster.text, "cluster.toml").describe()["devices"]
    # A name given where the captures hold another: theirs, and that is said.
    with pytest.warns(pathlab.PathlabWarning, match="host: given as b, named esx-b by .*esxtop-esx-b.csv, line 1: "
                                                    r"counter paths \\\\esx-b\\: esx-b used"):
        assert list(pathlab.import_cluster({"a": esxi["esx-a"][:2], "b": esxi["esx-b"]}).hosts) == ["a", "esx-b"]
    with pytest.raises(ScenarioError, match="host name 'a/b': a host's name is letters, digits"):
        pathlab.import_cluster({"a/b": esxi["esx-a"][:2], "b": esxi["esx-b"]})


def test_an_imported_tables_values_are_set_with_their_provenance_kept() -> None:
    from host_text import host_tables, split_comment
    from pathlab.importer.host_tables import Element, Elements
    from pathlab.importer.provenance import Assumed, Noted

    text = ('name = "x"\n\n[[arrays]]\nname = "A#1"  # dev.txt: vendor\nservice = { fixed = "20.0us" }  # default\n'
            'ports = [{ name = "P0" }]  # p.txt: T0\n')
    host = host_tables(text)
    assert host.render() == text and host.values() == tomllib.loads(text)
    top, array = host.tables
    assert (top.kind, array.kind, array.array) == (None, "arrays", True)
    assert split_comment('name = "A#1"  # dev.txt: vendor') == ('name = "A#1"', "dev.txt: vendor")
    assert array.source("name") == Noted("dev.txt: vendor") and host.assumed("arrays", "service") == [0]
    array.set("name", "B")
    array.set("host", "esx-a", Read("given"), after="name")
    array.items[-1] = Elements("ports", [Element({"name": "P0"}, Read("p.txt", 3, "T0")),
                                         Element({"name": "P1"}, None, {"controller": Assumed("no owner shown")})])
    assert "\n".join(array.lines()) == (
        '[[arrays]]\nname = "B"  # dev.txt: vendor\nhost = "esx-a"  # given\nservice = { fixed = "20.0us" }  # default\n'
        'ports = [\n  { name = "P0" },  # p.txt, line 3: T0\n  { name = "P1" },  # controller default: no owner shown\n]')


def test_an_esxtop_capture_opening_with_a_byte_order_mark_names_its_host(esxi: dict[str, list[str]],
                                                                         tmp_path: Path) -> None:
    """A capture re-saved with a UTF-8 byte-order mark (as Windows editors save it) names its host
    as the same capture without one does, and its counters are read the same after the header the
    naming kept."""
    marked = tmp_path / "esxtop-esx-a.csv"
    marked.write_bytes(b"\xef\xbb\xbf" + Path(esxi["esx-a"][2]).read_bytes())
    cluster = pathlab.import_cluster([[*esxi["esx-a"][:2], str(marked)], esxi["esx-b"]])
    assert list(cluster.hosts) == ["esx-a", "esx-b"]
    assert cluster.named_from["esx-a"] == f"{marked}, line 1: counter paths \\\\esx-a\\"
    plain = pathlab.import_cluster([esxi["esx-a"], esxi["esx-b"]])
    assert cluster.text.replace(str(marked), esxi["esx-a"][2]) == plain.text


def test_a_hosts_short_name_and_its_fqdn_in_any_case_are_one_host_and_two_domains_are_not() -> None:
    """A real esxtop capture names its host by its FQDN (`\\\\localhost.home\\`, the corpus's
    rach-sharp sample) where vm-support's `hostname-get` gives `Host Name: localhost`."""
    from pathlab.importer.host_names import same_host

    assert same_host("localhost.home", "localhost") and same_host("ESX-B", "esx-b")
    assert same_host("esx-b.lab.example", "ESX-B.lab.example")
    assert not same_host("esx-b.site1", "esx-b.site2") and not same_host("esx-a", "esx-b")


def test_the_clusters_and_hosts_scenarios_are_built_when_asked_for(esxi: dict[str, list[str]]) -> None:
    """The import checks each scenario and lets it go (a 32 × 500 × 8 cluster's were 0.75 GiB
    held under advise's own); asked for, each is built from its tables, as before."""
    cluster = pathlab.import_cluster([esxi["esx-a"], esxi["esx-b"]])
    host = cluster.hosts["esx-a"]
    assert "scenario" not in vars(cluster) and "scenario" not in vars(host)
    assert cluster.scenario.file == cluster.file and host.scenario.file == host.file
    assert sorted(d.host for d in cluster.scenario.devices) == ["esx-a", "esx-a", "esx-b", "esx-b"]
    assert cluster.scenario is cluster.scenario  # built once


@pytest.mark.parametrize("shown", ["ANO", "STBY"])
def test_an_esxi_host_reaching_the_owners_ports_alone_reads_the_other_groups_state_in_its_device_list(
        tmp_path: Path, shown: str) -> None:
    """Host d reaches each LUN's active-optimized ports alone: no path shows the other group's
    state, but its device list's SATP configs do (`{TPG_id=2,TPG_state=ANO}`, or STBY): that is
    its non_owner_state, read by the path list's rule, where the cluster said d showed none, "which
    no capture of its own settles", and ran o's."""
    cx4 = str(ROOT / "scenarios" / "cx4-alua-path-failure.toml")
    devices, paths = _ran("show", "devices", cx4), _ran("show", "paths", cx4)
    optimized = "\n\n".join(block for block in paths.split("\n\n") if "TPG_state=ANO" not in block)
    files = {}
    for host, listed, devs in (("o", paths, devices), ("d", optimized, devices.replace("TPG_state=ANO", f"TPG_state={shown}"))):
        (tmp_path / f"devices-{host}.txt").write_text(devs)
        (tmp_path / f"paths-{host}.txt").write_text(listed)
        files[host] = [str(tmp_path / f"devices-{host}.txt"), str(tmp_path / f"paths-{host}.txt")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)
        alone = pathlab.import_host(*files["d"]).to_toml()
        cluster = pathlab.import_cluster(files)
    state = {"ANO": "active_non_optimized", "STBY": "standby"}[shown]
    assert tomllib.loads(alone)["arrays"][0]["non_owner_state"] == state
    assert (f'non_owner_state = "{state}"  # {files["d"][0]}: the target port groups (Storage Array Type Device '
            f"Config) beside the active-optimized group report TPG_state={shown} (lines 4, ") in alone
    said = [a.assumed for a in cluster.assumptions if a.field == "arrays.DGC.non_owner_state"]
    assert not [m for m in said if "d shows no non_owner_state" in m], said
    if shown == "ANO":  # both hosts read ANO: the cluster has one reading and assumes nothing of it
        assert said == [], said
    if shown == "STBY":  # o reads ANO: the array answers the hosts apart, each host's devices keep their own
        assert [m for m in said if "the array answers the hosts apart" in m], said
