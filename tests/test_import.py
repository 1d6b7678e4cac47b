"""`pathlab import` and `pathlab advise` on what a host prints: the loop closed on pathlab's own
output (esxcli listings and an esxtop capture of a simulated host) and bad captures."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

import pathlab as pathlab_package
from conftest import RUNS_AT_ALL, SCENARIOS, pathlab
from pathlab import Scenario

SHORT = ("--set", "run.duration=20s", "--set", "run.warmup=5s")
#: Advice whose candidates' runs need only finish: the test asserts what is read from the capture.
CANDIDATES_ONLY_RUN = ("--seeds", "2", "--duration", "1s", "--warmup", "1s")


def capture(tmp_path: Path, scenario: str, variant: str | None = None) -> list[str]:
    """What an admin would collect on the host of `scenario`: the nmp device and path listings
    and an esxtop batch capture of a run."""
    chosen = ("--variant", variant) if variant else ()
    files = [tmp_path / "devices.txt", tmp_path / "paths.txt", tmp_path / "esxtop.csv"]
    for what, out in (("devices", files[0]), ("paths", files[1])):
        done = pathlab("show", what, str(SCENARIOS / f"{scenario}.toml"), *chosen)
        assert done.returncode == 0, done.stderr
        out.write_text(done.stdout)
    done = pathlab("run", str(SCENARIOS / f"{scenario}.toml"), *chosen, *SHORT, "--esxtop-csv", str(files[2]))
    assert done.returncode == 0, done.stderr
    return [str(f) for f in files]


@pytest.fixture(scope="module")
def vmax(tmp_path_factory) -> list[str]:
    return capture(tmp_path_factory.mktemp("vmax"), "c1-vmax-1lun", "iops1000")


def test_the_vmax_host_imports_with_its_policy_paths_workload_and_port_capacity(vmax, tmp_path) -> None:
    out = tmp_path / "host.toml"
    done = pathlab("import", *vmax, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "AQLEN is not in the captures" in done.stderr  # what to confirm is said
    assert "arrays.EMC.read_latency: the array's time beyond its ports' service at low load" in done.stderr
    imported = Scenario.load(out)
    spec = imported.handle  # loads and checks like any scenario
    assert spec.name == "imported-host"
    text = out.read_text()
    assert 'policy = { name = "VMW_PSP_RR", type = "iops", iops = 1000, bytes = 10485760 }' in text
    assert 'block_size = "8KiB"' in text and "read_pct = 50" in text
    # One path at a time under 128 outstanding: the device's rate is one port's capacity, and
    # the original's ports serve in 25.6 µs (c1-vmax-1lun.toml); the capture gives it back
    # within the run's noise and its host pauses.
    service_us = float(text.split('service = { fixed = "')[1].split("us")[0])
    assert 24.0 < service_us < 28.0, service_us
    # The same runtime names as the host's own.
    original = Scenario.load(SCENARIOS / "c1-vmax-1lun.toml", set={"run.duration": "1s", "run.warmup": "0s"})
    again = Scenario.load(out, set={"run.duration": "1s", "run.warmup": "0s"})
    assert sorted(again.run().paths["name"]) == sorted(original.run().paths["name"])


def test_advise_on_the_vmax_captures_says_set_iops_1_for_about_four_times_the_rate(vmax) -> None:
    done = pathlab("advise", *vmax, "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert any("iops=1000" in f["title"] for f in out["findings"])
    rr1 = next(c for c in out["candidates"] if c["label"] == "round robin, iops=1")
    # The field measured 3.96x (CALIBRATION.md C1): predicted from the captures alone.
    assert 3.2 < rr1["gain"] < 4.6, rr1["gain"]
    assert any("--iops=1" in c for c in rr1["commands"])


def test_an_alua_host_keeps_its_owners_and_target_port_groups(tmp_path) -> None:
    files = capture(tmp_path, "cx4-alua-path-failure")
    done = pathlab("import", *files)
    assert done.returncode == 0, done.stderr
    text = done.stdout
    assert "tpgs = true" in text and "symmetric = false" in text
    imported = Scenario.from_text(text, "imported.toml", set={"run.duration": "1s", "run.warmup": "0s"})
    original = Scenario.load(SCENARIOS / "cx4-alua-path-failure.toml", set={"run.duration": "1s", "run.warmup": "0s"})
    alua = lambda r: sorted(zip(r.paths["name"], r.paths["alua"]))  # noqa: E731
    assert alua(imported.run()) == alua(original.run())
    # 8 outstanding per device over several devices: the port's capacity is not inferred.
    assert "no capture shows a port at capacity" in done.stderr


@pytest.mark.parametrize(("content", "message"), [
    ("hello\n", "not one of the inputs pathlab reads (ESXi (`esxcli storage nmp device list`"),
    ("\n\nhello\n", "Windows MPIO (`mpclaim -s -d N`, `Get-MPIOSetting`)); its first line: 'hello'"),
    ("naa.6000\n   Display Name: EMC Fibre Channel Disk (naa.6000)\n   Has Settable Display Name: true\n",
     "; it looks like `esxcli storage core device list`"),
    ("NAME MAJ:MIN RM SIZE RO TYPE MOUNTPOINTS\nsda    8:0    0  20G  0 disk\n", "; it looks like `lsblk`"),
    ("(PDH-CSV 4.0) (UTC)(0)\n", "no Physical Disk Adapter, Path or SCSI Device counters"),
])
def test_what_is_not_a_capture_is_refused_in_one_line(tmp_path, content, message) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text(content)
    done = pathlab("import", str(bad))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and message in done.stderr and "bad.txt" in done.stderr


def test_without_the_device_list_import_says_what_is_missing(vmax) -> None:
    done = pathlab("import", vmax[1], vmax[2])
    assert done.returncode == 2
    assert "`esxcli storage nmp device list` (or `hpp device list`) is needed" in done.stderr


def test_the_shipped_vmax_capture_is_advised_from_any_directory(tmp_path) -> None:
    done = pathlab("advise", "vmax-iops1000", "--seeds", "2", "--duration", "10s", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Recommendation: round robin, iops=1" in done.stdout
    assert "--type=iops --iops=1" in done.stdout


def test_a_slow_path_in_the_capture_is_a_finding(tmp_path) -> None:
    files = capture(tmp_path, "four-paths-one-slow")
    # The finding is read from the capture (DAVG by path), not from the candidates' runs: they
    # need only finish (session 17: 5 s after the default 5 s before; this test and the flapping
    # one 30.6 -> 20.9 s of CPU with their captures, the findings the same).
    done = pathlab("advise", *files, *CANDIDATES_ONLY_RUN, "--format", "json")
    assert done.returncode == 0, done.stderr
    titles = [f["title"] for f in json.loads(done.stdout)["findings"]]
    assert any("answers far slower than its peers (captured)" in t for t in titles), titles


def test_the_activecluster_host_on_all_paths_is_told_to_use_the_latency_policy(tmp_path) -> None:
    # Only the captures: the remote paths' distance comes from their DAVG against the local ones.
    files = capture(tmp_path, "c2-activecluster-distance", "rr_all_paths")
    done = pathlab("advise", *files, "--seeds", "2", "--format", "json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert sum("answers far slower than its peers (captured)" in f["title"] for f in out["findings"]) == 10
    by_label = {c["label"]: c for c in out["candidates"]}
    in_force, latency = by_label["the setting in force"], by_label["round robin, latency"]
    # The published runs (CALIBRATION.md C2): the AO-only and latency settings about 13,500 I/O/s.
    assert abs(latency["figures"]["iops"][0] / 13_500 - 1) < 0.10, latency["figures"]
    # And the gain over all paths the published one: 13,500 / 8,500 = 1.59.
    assert abs(latency["gain"] / (13_500 / 8_500) - 1) < 0.10 and in_force["gain"] == 1.0, latency["gain"]
    assert any("--type=latency" in c for c in latency["commands"])


def test_errors_that_come_and_go_are_a_flapping_path(tmp_path) -> None:
    # Bursts of errors 200 ms long every 5 s on one path: with 1 s intervals, some have errors
    # and some not.
    files = [tmp_path / "devices.txt", tmp_path / "paths.txt", tmp_path / "esxtop.csv"]
    files[0].write_text(pathlab("show", "devices", "flaky-path").stdout)
    files[1].write_text(pathlab("show", "paths", "flaky-path").stdout)
    done = pathlab("run", "flaky-path", "--set", "run.duration=20s", "--set", "run.warmup=2s", "--set", "run.interval=1s",
                   "--esxtop-csv", str(files[2]))
    assert done.returncode == 0, done.stderr
    advised = pathlab("advise", *map(str, files), *CANDIDATES_ONLY_RUN, "--format", "json")
    titles = [f["title"] for f in json.loads(advised.stdout)["findings"]]
    assert any("the path flaps, erring on and off (captured)" in t for t in titles), titles


def test_alua_states_changing_again_and_again_are_thrashing() -> None:
    moves = ", ".join(f'{{ kind = "controller_failover", at = "{t}s", array = "cx4", owner = "{o}" }}'
                      for t, o in ((2, "SPB"), (4, "SPA"), (6, "SPB")))
    done = pathlab("advise", "cx4-alua-path-failure", "--set", f"faults=[{moves}]", "--seeds", "2", "--duration", "8s",
                   "--warmup", "1s", "--format", "json")
    assert done.returncode == 0, done.stderr
    titles = [f["title"] for f in json.loads(done.stdout)["findings"]]
    assert any("its paths' ALUA states thrash" in t for t in titles), titles


@pytest.mark.parametrize("capture", ["hpp-device-list-esxi7-dell-local.txt", "hpp-device-list-esxi7-ovh-sas.txt"])
def test_an_hpp_host_imports_from_its_device_list_alone(capture) -> None:
    listing = Path(__file__).parent / "data" / "esxcli" / capture
    done = pathlab("import", str(listing))
    assert done.returncode == 0, done.stderr
    assert 'policy = { name = "HPP", scheme = "FIXED" }' in done.stdout
    result = Scenario.from_text(done.stdout, capture, set=RUNS_AT_ALL).run()
    # Every path the listing names, with its target number (SAS T72, T175): the same runtime names
    # but for the channel, which pathlab numbers 0 everywhere.
    adapter_lun = lambda name: re.sub(r":C\d+:", ":", name.strip())  # noqa: E731
    named = sorted(adapter_lun(p) for line in listing.read_text().splitlines() if line.strip().startswith("Paths:")
                   for p in line.split(":", 1)[1].split(","))
    assert sorted(adapter_lun(n) for n in result.paths["name"]) == named


def test_ports_come_from_fc_target_names_and_iscsi_names_are_not_split_on_their_dashes() -> None:
    from types import SimpleNamespace

    from pathlab.importer.esxi import _target_of

    fc = SimpleNamespace(path="fc.20000000c9:10000000c9-fc.50060160:50060161-naa.600601", adapter="vmhba1", target=0)
    assert _target_of(fc) == "fc.50060160:50060161"
    # An IQN has dashes of its own: two targets must not collapse into one port.
    iscsi = [SimpleNamespace(path=f"iqn.1998-01.com.vmware:esx-1a2b-00023d000001,iqn.1992-04.com.emc:cx.apm-{t},t,1-naa.6006",
                             adapter="vmhba33", target=t) for t in (0, 1)]
    assert [_target_of(p) for p in iscsi] == ["00023d000001,iqn.1992-04.com.emc:cx.apm-0,t,1",
                                              "00023d000001,iqn.1992-04.com.emc:cx.apm-1,t,1"]


def test_an_esxi_device_list_alone_imports_its_working_paths_and_says_so(tmp_path: Path) -> None:
    """The issue's case: `esxcli storage nmp device list` alone names every working path."""
    import warnings

    from pathlab.api import PathlabWarning
    from pathlab.importer import import_files

    sample = Path(__file__).parent / "data" / "esxcli" / "nmp-device-list-alua.txt"
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", PathlabWarning)
        done = import_files([str(sample)])
    scenario = tomllib.loads(done.text)
    pure = next(d for d in scenario["devices"] if d["name"] == "naa.624a9370b5a8f1e44f0b4e5a00011c2d")
    assert pure["policy"]["iops"] == 1000
    runtime = {f"{f['adapters'][0]}:T{t}" for f in scenario["fabric"] for t in f["targets"]}
    assert {"vmhba3:T10", "vmhba3:T1"} <= runtime  # its Working Paths: vmhba3:C0:T10:L2, vmhba3:C0:T1:L2
    assert any("the devices' Working Paths" in str(w.message) for w in seen)


def test_a_device_idle_in_the_capture_stays_idle(tmp_path: Path) -> None:
    """C1's host with a second LUN nobody uses: esxtop shows it at 0 commands a second, and the
    imported host leaves it without a workload instead of giving it an assumed one."""
    text = (SCENARIOS / "c1-vmax-1lun.toml").read_text()
    second = '[[devices]]\nname = "naa.60000970000197900123533030303032"\narray = "vmax250f"\nlun = 2\nqueue_depth = 64\n\n'
    host = tmp_path / "two-luns.toml"
    host.write_text(text.replace("[[devices]]\n", second + "[[devices]]\n", 1))
    files = []
    for what in ("devices", "paths"):
        shown = pathlab("show", what, str(host))
        assert shown.returncode == 0, shown.stderr
        (tmp_path / f"{what}.txt").write_text(shown.stdout)
        files.append(str(tmp_path / f"{what}.txt"))
    ran = pathlab("run", str(host), *SHORT, "--esxtop-csv", str(tmp_path / "esxtop.csv"))
    assert ran.returncode == 0, ran.stderr
    done = pathlab("import", *files, str(tmp_path / "esxtop.csv"))
    assert done.returncode == 0, done.stderr
    workloads = tomllib.loads(done.stdout)["workloads"]
    assert [w["devices"] for w in workloads] == [["naa.60000970000197900123533030303031"]]
    assert (f"# naa.60000970000197900123533030303032: no workload: idle, {tmp_path / 'esxtop.csv'}: 0 Commands/sec"
            in done.stdout)


#: ESX 4.1 on a CLARiiON CX4 in ALUA mode, Fixed (corpus device list 003).
FIXED_ON_ALUA = Path(__file__).parent / "data" / "corpus" / "esxcli-nmp-device-list" / "003-esx41-clariion-alua-cx-fixed"


@pytest.mark.parametrize(("psp", "assumed"), [("VMW_PSP_FIXED", True), ("VMW_PSP_MRU", False)])
def test_a_device_lists_working_path_is_placed_in_its_optimized_tpg_and_fixed_says_it_is_assumed(
        tmp_path: Path, psp: str, assumed: bool) -> None:
    """ALUA_CX claims only an array that reports target port groups: the working path must be in
    one. MRU keeps to the AO group, so it is there; Fixed runs on its preferred path, which the
    device list does not place: taken as the AO group, and the import says so."""
    import warnings

    from pathlab.api import PathlabWarning
    from pathlab.importer import import_files

    listing = tmp_path / "devices.txt"
    listing.write_text((FIXED_ON_ALUA / "bare.txt").read_text().replace("VMW_PSP_FIXED", psp))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", PathlabWarning)
        done = import_files([str(listing)])
    array = tomllib.loads(done.text)["arrays"][0]
    assert array["tpgs"] is True
    said = [str(w.message) for w in seen if "which target port group vmhba2:C0:T1:L1 is in" in str(w.message)]
    assert bool(said) is assumed
    assert not said or "the active-optimized TPG 2" in said[0]
    shown = tmp_path / "host.toml"
    shown.write_text(done.text)
    out = pathlab("show", "devices", str(shown), "--style", "esxi")
    assert "Storage Array Type: VMW_SATP_ALUA_CX" in out.stdout, out.stderr


def test_a_capture_that_saw_no_io_is_refused_in_one_line(tmp_path) -> None:
    """esxtop's first sample alone counts nothing (0 Commands/sec on every device): no load to
    simulate, said in one line naming the capture (it ended in the engine's `missing field
    workloads`)."""
    shipped = Path(pathlab_package.__file__).parent / "captures" / "vmax-iops1000"
    one = tmp_path / "one-sample.csv"
    one.write_text("".join((shipped / "esxtop-batch.csv").read_text().splitlines(keepends=True)[:2]))
    done = pathlab("import", str(shipped / "esxcli-storage-nmp-device-list.txt"),
                   str(shipped / "esxcli-storage-nmp-path-list.txt"), str(one))
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (f"pathlab: error: {one}: Commands/sec: 0 for every device: the capture saw "
                                            "no I/O (a first sample alone counts none); capture while the host runs its load")


# A host's own disk as `esxcli storage nmp device list` and `nmp path list` print it (ESXi claims
# it with VMW_SATP_LOCAL and VMW_PSP_FIXED, one path over the local SAS controller).
LOCAL_DISK = """\
naa.600508b1001c4d5a1c2b3e4f5a6b7c8d
   Device Display Name: Local HP Serial Attached SCSI Disk (naa.600508b1001c4d5a1c2b3e4f5a6b7c8d)
   Storage Array Type: VMW_SATP_LOCAL
   Storage Array Type Device Config: SATP VMW_SATP_LOCAL does not support device configuration.
   Path Selection Policy: VMW_PSP_FIXED
   Path Selection Policy Device Config: {preferred=vmhba0:C0:T0:L0;current=vmhba0:C0:T0:L0}
   Path Selection Policy Device Custom Config:
   Working Paths: vmhba0:C0:T0:L0
   Is USB: false

"""
LOCAL_PATH = """
sas.5001438001234567-sas.1221000000000000-naa.600508b1001c4d5a1c2b3e4f5a6b7c8d
   Runtime Name: vmhba0:C0:T0:L0
   Device: naa.600508b1001c4d5a1c2b3e4f5a6b7c8d
   Device Display Name: Local HP Serial Attached SCSI Disk (naa.600508b1001c4d5a1c2b3e4f5a6b7c8d)
   Group State: active
   Array Priority: 0
   Storage Array Type Path Config: SATP VMW_SATP_LOCAL does not support path configuration.
   Path Selection Policy Path Config: {current: yes; preferred: yes}
"""


# A device claimed by a vendor's path selection plug-in under NMP, as `nmp device list` prints one
# (its Device Config is the plug-in's own words) and `nmp path list` its two paths.
VENDOR_PSP_DEVICE = """\
naa.6c9ce9000000000000000000000000a1
   Device Display Name: Nimble iSCSI Disk (naa.6c9ce9000000000000000000000000a1)
   Storage Array Type: VMW_SATP_ALUA
   Storage Array Type Device Config: {implicit_support=on; explicit_support=off; alua_followover=on; {TPG_id=1,TPG_state=AO}}
   Path Selection Policy: NIMBLE_PSP_DIRECTED
   Path Selection Policy Device Config: {policy=iops iops=4}
   Path Selection Policy Device Custom Config:
   Working Paths: vmhba33:C0:T4:L0, vmhba33:C1:T4:L0
   Is USB: false

"""


@pytest.mark.parametrize(("device", "path", "left_out", "alone"), [
    (LOCAL_DISK, LOCAL_PATH, "1 local disk(s) left out (VMW_SATP_LOCAL: naa.600508b1001c4d5a1c2b3e4f5a6b7c8d): "
                             "multipathing is about the SAN's devices",
     "Storage Array Type: every device is a local disk (VMW_SATP_LOCAL): no SAN device to advise on; list the host's "
     "SAN devices"),
    (VENDOR_PSP_DEVICE, "", "1 device(s) left out (naa.6c9ce9000000000000000000000000a1): claimed by NIMBLE_PSP_DIRECTED, "
                            "a path selection plug-in pathlab does not simulate",
     "naa.6c9ce9000000000000000000000000a1: Path Selection Policy: NIMBLE_PSP_DIRECTED is not a policy pathlab "
     "imports; supported: VMW_PSP_RR, VMW_PSP_FIXED, VMW_PSP_MRU, HPP"),
], ids=["local-disk", "vendor-psp"])
def test_a_device_pathlab_does_not_simulate_is_left_out_and_named_and_a_list_of_such_alone_is_one_line(
        tmp_path: Path, device: str, path: str, left_out: str, alone: str) -> None:
    captured = Path(pathlab_package.__file__).parent / "captures" / "vmax-iops1000"
    devices, paths = tmp_path / "devices.txt", tmp_path / "paths.txt"
    devices.write_text(device + (captured / "esxcli-storage-nmp-device-list.txt").read_text())
    paths.write_text((captured / "esxcli-storage-nmp-path-list.txt").read_text() + path)
    done = pathlab("import", str(devices), str(paths))
    assert done.returncode == 0, done.stderr
    assert f"{devices}, {paths}: devices: {left_out}" in done.stderr
    imported = tomllib.loads(done.stdout)
    assert [d["name"] for d in imported["devices"]] == ["naa.60000970000197900123533030303031"]
    assert [a["vendor"] for a in imported["arrays"]] == ["EMC"]
    devices.write_text(device)
    refused = pathlab("import", str(devices), str(paths))
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [f"pathlab: error: {devices}: {alone}"]


@pytest.mark.parametrize(("head", "said"), [
    ("Linux 6.1 (host)\n\nDevice             tps    kB_read/s    kB_wrtn/s\nsda  1.00  2.00  3.00\n", "it looks like `iostat` without -x"),
    ("Node                  SN                   Model\n/dev/nvme0n1  S4  Samsung\n",
     "it looks like `nvme list` (pathlab reads `nvme list-subsys`)"),
    ("mpatha: 0 2097152 multipath 1 queue_if_no_path 1 alua 2 1 service-time 0 1 2 8:16 1 1\n", "it looks like `dmsetup table`"),
    ("\x00\x01binary\n", "its first line: '??binary'"),
    ("x" * 100 + "\n", f"its first line: '{'x' * 80}' (cut)"),
])
def test_a_refused_file_is_said_what_it_looks_like(head, said) -> None:
    from pathlab.importer.lookalikes import looks_like

    assert looks_like(head) == said
