"""Fuzzing the Python side with hypothesis: whatever a user passes as overrides, seeds or a
capture file, the answer is a result or a ScenarioError, never another exception."""

from __future__ import annotations

import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pathlab
from conftest import ROOT, SCENARIOS
from pathlab.importer import import_files
from pathlab.readers import (
    diskstats,
    esxcli_advanced,
    esxcli_devices,
    esxcli_iscsi_params,
    esxtop,
    iostat,
    iscsi_sessions,
    mpclaim,
    mpio_settings,
    nvme_id_ctrl,
    nvme_sysfs,
    pasted,
    powermt,
    scsi_timeout,
    sg_rtpg,
)

BASE = str(SCENARIOS / "bench-minimal.toml")
KEYS = st.sampled_from([
    "run.duration", "run.interval", "run.seed", "policy", "policy.iops", "policy.name", "devices.0.queue_depth",
    "devices.0.lun", "host.adapters.0.name", "host.cpus", "workloads.0.outstanding", "workloads.0.block_size",
    "workloads.0.read_pct", "arrays.0.service.fixed", "fabric.0.latency", "faults", "x.y", "devices.9.lun",
])  # fmt: skip
VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.sampled_from(["name", "iops", "kind", "at"]), st.integers(), max_size=3),
    st.none(),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=KEYS, value=VALUES, seed=st.one_of(st.none(), st.integers(min_value=-(2**65), max_value=2**65)))
def test_any_override_and_seed_loads_or_says_what_is_wrong(key: str, value: object, seed: int | None) -> None:
    try:
        scenario = pathlab.Scenario.load(BASE, set={key: value}, seed=seed)
    except pathlab.ScenarioError as e:
        assert len(e.args) == 3 and e.args[2]
        return
    # Loading checks everything a run needs: a scenario that loads is one the engine builds.
    assert [d["name"] for d in scenario.describe()["devices"]] == ["naa.600000000000000000000000000000b1"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=2000))
def test_any_bytes_as_an_esxtop_capture_read_or_refused(tmp_path_factory, data: bytes) -> None:
    path = Path(tmp_path_factory.mktemp("capture")) / "c.csv"
    path.write_bytes(data)
    try:
        tables = esxtop.read(path)
    except pathlab.ScenarioError as e:
        assert e.args[0] == str(path)
        # The summary reads the same way: the same refusal.
        try:
            esxtop.summary(path)
        except pathlab.ScenarioError as again:
            assert again.args == e.args
            return
        raise AssertionError(f"the summary read what read refused: {e}") from None
    # Read: the disk objects' tables, each sample and instance with its time and name.
    assert sorted(tables) == ["adapters", "devices", "paths"]
    for table in tables.values():
        assert list(table.columns[:2]) == ["time", "name"] and table["name"].notna().all()
    summary = esxtop.summary(path)
    for name, table in tables.items():
        assert summary[name].empty == table.empty and summary[name].counters == list(table.columns[2:])
        if not table.empty:
            assert list(summary[name].means().index) == sorted(set(table["name"]))


# Every reader of a capture, listing or pasted text, and `import` over them: a result or a
# ScenarioError, whatever the bytes. Lines of the real samples reach deeper than random text.
SAMPLE_FILES = sorted(f for folder in ("linux", "esxcli", "corpus", "powerpath", "mpio")
                      for f in (ROOT / "tests" / "data" / folder).rglob("*") if f.is_file() and f.suffix != ".md")
#: NVMe's per-path sysfs attributes as `grep -r .` prints them (no corpus sample has them yet).
NVME_SYSFS_LINES = ["/sys/block/nvme4c4n1/queue_depth:3", "/sys/block/nvme4c53n1/ana_state:optimized",
                    "/sys/block/nvme4c151n1/diag/command_retry_count:9", "/sys/class/nvme/nvme53/diag/reset_count:1",
                    "/sys/block/nvme4c151n1/diag/multipath_failover_count: 4",
                    # and a SCSI disk's timeouts as `grep .` and a loop print them
                    "/sys/block/sdb/device/timeout:60", "/sys/class/scsi_device/10:0:1:0/device/eh_timeout: 10",
                    "# for d in sdb sdc; do echo $d $(cat /sys/block/$d/device/timeout); done", "sdc 30",
                    "# cat /sys/block/sdb/device/timeout", "30"]
SAMPLE_LINES = sorted({line for f in SAMPLE_FILES for line in f.read_text(errors="replace").splitlines()}
                      | set(NVME_SYSFS_LINES))
CAPTURE_BYTES = st.one_of(
    st.binary(max_size=2000),
    st.lists(st.sampled_from(SAMPLE_LINES) | st.text(max_size=30), max_size=40)
    .map(lambda lines: "\n".join(lines).encode("utf-8", errors="surrogatepass")),
)
MULTIPATH = ROOT / "tests" / "data" / "linux" / "multipath_check-multipath-20_netapp-debian-squeeze.txt"
NVME_SUBSYS = ROOT / "tests" / "data" / "corpus" / "nvme-list-subsys" / "009-netapp-rocky10-tcp-two-subnets" / "bare.txt"
#: Each reader (module.function, found by `_readers`) and the test that fuzzes it.
FUZZED = {
    "esxtop.read": "test_any_bytes_as_an_esxtop_capture_read_or_refused",
    "esxtop.summary": "test_any_bytes_as_an_esxtop_capture_read_or_refused",
    **{f"{reader}": "test_readers_linux.py::test_shuffled_and_cut_sample_lines_are_read_or_refused" for reader in (
        "multipath_ll.read", "nvme_subsys.read", "diskstats.read", "iostat.read")},
    **{f"esxcli_{reader}": "test_readers_esxcli_listings.py::test_any_text_is_read_or_refused_with_a_scenario_error"
       for reader in ("paths.read", "paths.read_nmp", "paths.read_core", "satp_rules.read", "rr_config.read",
                      "hpp.read_devices", "hpp.read_paths")},
    "multipath_conf.read": "test_readers_multipath_conf.py::test_random_text_is_read_or_refused_with_a_scenario_error",
    **{reader: "test_any_bytes_through_every_other_reader_and_import" for reader in (
        "esxcli_devices.read", "pasted.read_text", "pasted.file_lines", "diskstats.lines", "diskstats.rates", "diskstats.device_means",
        "iostat.rows", "iostat.device_means", "bundle.files_in", "nvme_sysfs.read", "nvme_sysfs.attribute_files",
        "iscsi_sessions.read", "powermt.read", "mpclaim.read", "mpio_settings.read", "esxcli_iscsi_params.read",
        "esxcli_advanced.read", "nvme_id_ctrl.read", "sg_rtpg.read", "scsi_timeout.read")},
}


def _readers() -> set[str]:
    """Every public function of `pathlab.readers` that reads a file or folder it is given."""
    import importlib
    import inspect
    import pkgutil

    import pathlab.readers

    found = set()
    for module in pkgutil.iter_modules(pathlab.readers.__path__):
        if module.name.startswith("_"):
            continue
        loaded = importlib.import_module(f"pathlab.readers.{module.name}")
        for name, function in inspect.getmembers(loaded, inspect.isfunction):
            parameters = list(inspect.signature(function).parameters)
            if function.__module__ == loaded.__name__ and not name.startswith("_") and parameters[:1] in (["path"], ["folder"]):
                found.add(f"{module.name}.{name}")
    return found


def test_every_reader_is_fuzzed() -> None:
    assert _readers() == set(FUZZED)
    # and every test named is there, in the file named (this one where none is)
    here = Path(__file__)
    for where in set(FUZZED.values()):
        file, _, test = where.rpartition("::")
        assert f"def {test}(" in (here.with_name(file) if file else here).read_text(), where


def _read_or_refused(read, *args) -> None:
    try:
        result = read(*args)
        if hasattr(result, "__next__"):
            list(result)
    except pathlab.ScenarioError as e:
        assert len(e.args) == 3 and "\n" not in e.args[2]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=CAPTURE_BYTES)
def test_any_bytes_through_every_other_reader_and_import(tmp_path_factory, data: bytes) -> None:
    folder = Path(tmp_path_factory.mktemp("capture"))
    path = folder / "c.txt"
    path.write_bytes(data)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pathlab.PathlabWarning)  # what a reader skips, said on stderr
        for read in (esxcli_devices.read, pasted.read_text, lambda p: pasted.file_lines(p)(), diskstats.lines,
                     diskstats.rates, diskstats.device_means, iostat.rows, iostat.device_means, nvme_sysfs.read,
                     iscsi_sessions.read, powermt.read, mpclaim.read, mpio_settings.read, esxcli_iscsi_params.read,
                     esxcli_advanced.read, nvme_id_ctrl.read, sg_rtpg.read, scsi_timeout.read):
            _read_or_refused(read, path)
        # `import` of the file alone, beside a multipath -ll, and as a sosreport's diskstats.
        _read_or_refused(import_files, [str(path)])
        _read_or_refused(import_files, [str(MULTIPATH), str(path)])
        (folder / "sos" / "proc").mkdir(parents=True)
        (folder / "sos" / "proc" / "diskstats").write_bytes(data)
        _read_or_refused(import_files, [str(folder / "sos")])
        # As an NVMe path's attribute in a sosreport's copy of /sys, beside a real list-subsys.
        attribute = folder / "sos-nvme" / "sys" / "block" / "nvme4c4n1" / "queue_depth"
        attribute.parent.mkdir(parents=True)
        attribute.write_bytes(data)
        (folder / "sos-nvme" / "sos_commands").mkdir()
        (folder / "sos-nvme" / "sos_commands" / "nvme_list-subsys").write_bytes(NVME_SUBSYS.read_bytes())
        _read_or_refused(nvme_sysfs.read, folder / "sos-nvme" / "sys")
        _read_or_refused(import_files, [str(folder / "sos-nvme")])
