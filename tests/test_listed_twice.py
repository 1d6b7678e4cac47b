"""A listing given twice (`readers/_listed_once.py`): what the two say of the host's settings and
topology is compared, each listing's named next to its columns with its source. The review's
five inputs (an admin's ordinary paste: two runs of a command on a busy host) are read, the later
listing taken and said; a setting or the topology that differs, in each listing, is refused naming
both lines and the fields. (The inputs are built here from the shipped samples, not added under
tests/data: every file there is one of `scripts/import_outputs.py`'s input sets.)"""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from conftest import pathlab
from pathlab.api import PathlabWarning, ScenarioError
from pathlab.readers import esxcli_devices, esxcli_hpp, esxcli_paths, powermt

DATA = Path(__file__).parent / "data"
SYMMETRIX = DATA / "powerpath" / "004-symmetrix-linux-docstring-tabs.bare.txt"
CLARIION_FIXED_PATHS = DATA / "esxcli" / "nmp-path-list-esx40-clariion-fixed.txt"
DEVICE = "naa.60000970000197900123533030303031"
NMP_DEVICES = "esxcli storage nmp device list"


def _device(psp: str, config: str, working: str) -> str:
    """One `esxcli storage nmp device list` block (the shipped vmax-iops1000 capture's device)."""
    return (f"{DEVICE}\n   Device Display Name: EMC Fibre Channel Disk ({DEVICE})\n"
            "   Storage Array Type: VMW_SATP_SYMM\n"
            "   Storage Array Type Device Config: SATP VMW_SATP_SYMM does not support device configuration.\n"
            f"   Path Selection Policy: {psp}\n   Path Selection Policy Device Config: {config}\n"
            f"   Path Selection Policy Device Custom Config: \n   Working Paths: {working}\n   Is USB: false\n")


#: Latency round robin as ESXi prints it (and pathlab's own `crates/pathlab-policy/src/status.rs`).
LATENCY = ("{policy=latency,latencyEvalTime=180000,samplingCycles=16,curSamplingCycle=16,useANO=0; "
           "CurrentPath=vmhba1:C0:T0:L1: NumIOsPending=0,latency=0}")
TWO = "vmhba1:C0:T0:L1, vmhba2:C0:T0:L1"
RR_EIGHT = ", ".join(f"vmhba{a}:C0:T{t}:L1" for a in (1, 2) for t in range(4))
RR_A = "{policy=iops,iops=1000,bytes=10485760,useANO=0; lastPathIndex=3: NumIOsPending=64,numBytesPending=524288}"
RR_B = "{policy=iops,iops=1000,bytes=10485760,useANO=0; lastPathIndex=0: NumIOsPending=2,numBytesPending=16384}"


def _read(reader, path: Path):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        read = reader(path)
    return read, [str(w.message) for w in said if issubclass(w.category, PathlabWarning)]


def _taken(name: Path, line: int, what: str, kept: int, moved: str, command: str) -> str:
    return (f"{name}: line {line}: {what} is listed again, with the settings and topology of line {kept} and another "
            f"moment's {moved}: the later listing is taken (`{command}` run again a moment later?)")


@pytest.mark.parametrize(("psp", "first", "later", "working"), [
    # Latency round robin: the sampling cycle, the current path, its pending I/Os and latency moved.
    ("VMW_PSP_RR", LATENCY, LATENCY.replace("CurrentPath=vmhba1:C0:T0:L1: NumIOsPending=0,latency=0",
                                            "CurrentPath=vmhba2:C0:T0:L1: NumIOsPending=3,latency=412"), TWO),
    # Nimble's PSP: its count of I/Os since the last inquiry moved.
    ("NIMBLE_PSP_DIRECTED", "{numIOsForIssueInq=10000 numIOsSinceLastInq=9289 lastPathIndex=0 NumIOsPending=0 "
     "numBytesPending=0}", "{numIOsForIssueInq=10000 numIOsSinceLastInq=412 lastPathIndex=0 NumIOsPending=0 "
     "numBytesPending=0}", TWO),
], ids=["latency", "nimble"])
def test_a_device_listed_again_a_moment_later_by_any_psp_is_the_later_listing(
        tmp_path: Path, psp: str, first: str, later: str, working: str) -> None:
    twice = tmp_path / "devices.txt"
    twice.write_text(_device(psp, first, working) + "\n" + _device(psp, later, working))
    devices, said = _read(esxcli_devices.read, twice)
    assert said == [_taken(twice, 11, DEVICE, 1, "psp_config", NMP_DEVICES)]
    assert (devices["line"].tolist(), devices["psp_config"].tolist()) == ([11], [later])


def test_a_fixed_device_after_a_failover_is_the_later_listing(tmp_path: Path) -> None:
    """FIXED's current path and its working path moved to vmhba2 (a failover, the corpus's
    `006-…fixed-ap`); the preferred path, the setting, is the same: the later listing is taken."""
    twice = tmp_path / "devices.txt"
    twice.write_text(_device("VMW_PSP_FIXED", "{preferred=vmhba1:C0:T0:L1;current=vmhba1:C0:T0:L1}", "vmhba1:C0:T0:L1")
                     + "\n" + _device("VMW_PSP_FIXED", "{preferred=vmhba1:C0:T0:L1;current=vmhba2:C0:T0:L1}",
                                      "vmhba2:C0:T0:L1"))
    devices, said = _read(esxcli_devices.read, twice)
    assert said == [_taken(twice, 11, DEVICE, 1, "psp_config, working_paths", NMP_DEVICES)]
    assert devices["working_paths"].tolist() == [["vmhba2:C0:T0:L1"]]


def test_three_runs_keep_the_last_each_compared_with_the_one_kept(tmp_path: Path) -> None:
    """Runs A, B, A': B is compared with A and taken, A' with B (not with A, whose values it has)
    and taken: the last printed is the one kept, as the message says (it kept B, saying A' was)."""
    three = tmp_path / "devices.txt"
    three.write_text("\n".join(_device("VMW_PSP_RR", config, RR_EIGHT) for config in (RR_A, RR_B, RR_A)))
    devices, said = _read(esxcli_devices.read, three)
    assert said == [_taken(three, 11, DEVICE, 1, "psp_config", NMP_DEVICES),
                    _taken(three, 21, DEVICE, 11, "psp_config", NMP_DEVICES)]
    assert (devices["line"].tolist(), devices["psp_config"].tolist()) == ([21], [RR_A])


@pytest.mark.parametrize(("change", "differ"), [
    (("latencyEvalTime=180000", "latencyEvalTime=30000"), "psp_config"),
    (("samplingCycles=16,", "samplingCycles=32,"), "psp_config"),
    (("useANO=0", "useANO=1"), "psp_config, use_ano"),
    (("policy=latency", "policy=iops"), "psp_config, rr_type"),
], ids=["eval-time", "sampling-cycles", "use-ano", "type"])
def test_a_device_whose_round_robin_setting_differs_is_refused(tmp_path: Path, change: tuple[str, str],
                                                                differ: str) -> None:
    """`esxcli storage nmp psp roundrobin deviceconfig set`'s options, the latency type's own
    among them, are settings: one that differs is a change between the runs."""
    twice = tmp_path / "devices.txt"
    twice.write_text(_device("VMW_PSP_RR", LATENCY, TWO) + "\n" + _device("VMW_PSP_RR", LATENCY.replace(*change), TWO))
    with pytest.raises(ScenarioError) as e:
        esxcli_devices.read(twice)
    assert e.value.args[:2] == (str(twice), "line 11")
    assert e.value.args[2].startswith(f"{DEVICE} is listed a second time, differently from line 1 ({differ}): "), e.value


def test_a_device_whose_satp_option_differs_is_refused_and_whose_group_state_moved_is_not(tmp_path: Path) -> None:
    """The ALUA SATP's device config: its options (`action_OnRetryErrors`) and target port groups
    are settings and topology; a group's state moves on a failover."""
    alua = ("{implicit_support=on; explicit_support=off; explicit_allow=on; alua_followover=on; action_OnRetryErrors=off;"
            " {TPG_id=1,TPG_state=AO}{TPG_id=2,TPG_state=ANO}}")
    block = _device("VMW_PSP_RR", RR_A, TWO).replace(
        "SATP VMW_SATP_SYMM does not support device configuration.", alua).replace("VMW_SATP_SYMM", "VMW_SATP_ALUA")
    twice = tmp_path / "devices.txt"
    twice.write_text(block + "\n" + block.replace("TPG_state=AO}{TPG_id=2,TPG_state=ANO", "TPG_state=ANO}{TPG_id=2,"
                                                                                          "TPG_state=AO"))
    assert _read(esxcli_devices.read, twice)[1] == [_taken(twice, 11, DEVICE, 1, "satp_config", NMP_DEVICES)]
    twice.write_text(block + "\n" + block.replace("action_OnRetryErrors=off", "action_OnRetryErrors=on"))
    with pytest.raises(ScenarioError) as e:
        esxcli_devices.read(twice)
    assert e.value.args[1] == "line 11" and "differently from line 1 (satp_config)" in e.value.args[2]


def test_an_nmp_path_whose_port_group_differs_is_refused_and_whose_state_moved_is_not(tmp_path: Path) -> None:
    """A path's target port group (`TPG_id`) is the topology; its group's state and the path's
    group state are of the moment (a failover)."""
    text = CLARIION_FIXED_PATHS.read_text().rstrip("\n") + "\n\n"
    second = text.count("\n") + 1
    twice = tmp_path / "paths.txt"
    twice.write_text(text + text.replace("Group State: active\n", "Group State: standby\n", 1).replace(
        "TPG_state=AO,", "TPG_state=STBY,", 1))
    rows, said = _read(esxcli_paths.read, twice)
    assert said == [_taken(twice, second, "vmhba2:C0:T1:L1", 1, "group_state, satp_config, tpg_state",
                           "esxcli storage nmp path list"),
                    f"{twice}: line {second + 8}: vmhba2:C0:T0:L1 is listed again, the same as at line 9: read once "
                    "(the `esxcli storage nmp path list` output pasted twice?)"]
    assert rows.set_index("runtime_name")["tpg_state"]["vmhba2:C0:T1:L1"] == "STBY"
    twice.write_text(text + text.replace("TPG_id=2,", "TPG_id=3,", 1))
    with pytest.raises(ScenarioError) as e:
        esxcli_paths.read(twice)
    assert e.value.args[1] == f"line {second}" and "differently from line 1 (satp_config, tpg_id)" in e.value.args[2]


HPP_DEVICE = """naa.6b083fe0db93e50001e28f403bef72df
   Device Display Name: Local DELL Disk (naa.6b083fe0db93e50001e28f403bef72df)
   Path Selection Scheme: FIXED
   Path Selection Scheme Config: {preferred=none;}
   Current Path: vmhba0:C2:T0:L0
   Working Path Set: vmhba0:C2:T0:L0
   Is SSD: false
   Is Local: true
   Paths: vmhba0:C2:T0:L0, vmhba1:C2:T0:L0
   Use ANO: false
"""
HPP_PATHS = "".join(f"""vmhba{a}:C2:T0:L0
   Runtime Name: vmhba{a}:C2:T0:L0
   Device: naa.6b083fe0db93e50001e28f403bef72df
   Device Display Name: Local DELL Disk (naa.6b083fe0db93e50001e28f403bef72df)
   Path State: active

""" for a in (0, 1))


def test_an_hpp_device_list_pasted_twice_is_read_once_and_imported_as_once(tmp_path: Path) -> None:
    """It was not handled: the import failed on the scenario's `devices.1.name … is defined twice`,
    naming no line of the file."""
    once, twice, paths = tmp_path / "once.txt", tmp_path / "devices.txt", tmp_path / "paths.txt"
    once.write_text(HPP_DEVICE)
    twice.write_text(HPP_DEVICE + "\n" + HPP_DEVICE)
    paths.write_text(HPP_PATHS)
    devices, said = _read(esxcli_hpp.read_devices, twice)
    assert said == [f"{twice}: line 12: naa.6b083fe0db93e50001e28f403bef72df is listed again, the same as at line 1: "
                    "read once (the `esxcli storage hpp device list` output pasted twice?)"]
    assert devices["line"].tolist() == [1]
    single, done = pathlab("import", str(once), str(paths)), pathlab("import", str(twice), str(paths))
    assert (single.returncode, done.returncode) == (0, 0), done.stderr
    assert done.stdout == single.stdout.replace(str(once), str(twice))


def test_an_hpp_device_whose_current_path_moved_is_the_later_and_whose_scheme_differs_refused(tmp_path: Path) -> None:
    """HPP prints `Current Path` and `Working Path Set` too (the moment's); what `esxcli storage hpp
    device set` sets (the scheme, its config) and the paths are not."""
    twice = tmp_path / "devices.txt"
    later = HPP_DEVICE.replace("Current Path: vmhba0", "Current Path: vmhba1").replace("Working Path Set: vmhba0",
                                                                                        "Working Path Set: vmhba1")
    twice.write_text(HPP_DEVICE + "\n" + later)
    devices, said = _read(esxcli_hpp.read_devices, twice)
    assert said == [_taken(twice, 12, "naa.6b083fe0db93e50001e28f403bef72df", 1, "current_path, working_paths",
                           "esxcli storage hpp device list")]
    assert (devices["line"].tolist(), devices["current_path"].tolist()) == ([12], ["vmhba1:C2:T0:L0"])
    for change, differ in ((("{preferred=none;}", "{preferred=vmhba1:C2:T0:L0;}"), "preferred, scheme_config"),
                           (("Paths: vmhba0:C2:T0:L0, vmhba1:C2:T0:L0", "Paths: vmhba0:C2:T0:L0"), "paths"),
                           (("Use ANO: false", "Use ANO: true"), "use_ano")):
        twice.write_text(HPP_DEVICE + "\n" + HPP_DEVICE.replace(*change))
        with pytest.raises(ScenarioError) as e:
            esxcli_hpp.read_devices(twice)
        assert e.value.args[1] == "line 12" and f"differently from line 1 ({differ}): " in e.value.args[2], e.value


def test_powermt_run_twice_on_a_busy_host_is_the_later_listing(tmp_path: Path) -> None:
    """The review's `powermt display dev=all` run twice: the device's queued I/Os and its paths'
    `Q-IOs` moved (the `-- Stats --` columns count): the later listing is taken, not refused."""
    text = SYMMETRIX.read_text()
    later = text.replace("queued-IOs=0", "queued-IOs=3").replace("alive      0      0\n\t   1", "alive      2      0\n\t   1",
                                                                  1).replace("8dB   active  alive      0", "8dB   active  alive      1")
    assert later.count("alive      0      0") == 0
    twice = tmp_path / "powermt.txt"
    twice.write_text(text + "\n" + later)
    (device,), said = _read(powermt.read, twice)
    assert said == [_taken(twice, 12, "emcpowerh", 1, "paths, queued", "powermt display dev=all")]
    assert (device.line, device.queued, [(p.line, p.queued) for p in device.paths]) == (12, 3, [(20, 2), (21, 1)])
    twice.write_text(text + "\n" + text.replace("sds       FA  8dB   active", "sds       FA  8dB   standby"))
    with pytest.raises(ScenarioError) as e:
        powermt.read(twice)
    assert e.value.args[1:] == ("line 12", "emcpowerh is listed a second time, differently from line 1 (paths): a host "
                                "lists each once (two runs of `powermt display dev=all` with a change between them, or "
                                "two hosts' listings, in one file?); give one")


def test_an_hpp_path_list_run_again_after_a_group_failover_names_its_group_by_the_later_states(tmp_path: Path) -> None:
    """A group whose paths are all AO in the first run and all ANO in the later one: the later
    listing's group is one state (`1`), not a group the two runs' states split (`1-ANO`)."""
    def paths(state: str) -> str:
        return "".join(f"vmhba{a}:C0:T0:L1\n   Runtime Name: vmhba{a}:C0:T0:L1\n   Device: eui.0001\n"
                       f"   Device Display Name: NVMe TCP Disk (eui.0001)\n   Path State: active\n"
                       f"   Path Config: {{ANA_GRP_id=1,ANA_GRP_state={state},health=UP}}\n\n" for a in (1, 2))
    twice = tmp_path / "paths.txt"
    twice.write_text(paths("AO") + paths("ANO"))
    rows, said = _read(esxcli_hpp.read_paths, twice)
    assert len(said) == 2 and all("another moment's path_config, tpg_state: the later listing is taken" in w
                                  for w in said), said
    assert (rows["line"].tolist(), rows["port_group"].tolist()) == ([15, 22], ["1", "1"])
    twice.write_text(paths("AO") + paths("AO").replace("ANA_GRP_id=1", "ANA_GRP_id=2"))
    with pytest.raises(ScenarioError) as e:
        esxcli_hpp.read_paths(twice)
    assert e.value.args[1] == "line 15" and "differently from line 1 (path_config, tpg_id)" in e.value.args[2]


def test_an_hpp_path_that_died_between_two_runs_is_the_later_listing(tmp_path: Path) -> None:
    """As in the nmp and core lists: the later run names the dead path's target with ESXi's
    placeholder (`…-unknown.0:0-…`), which names no other target; a path naming another target is
    still refused."""
    def path(target: str, state: str) -> str:
        name = f"fc.20000000c9000001:10000000c9000001-{target}-naa.624a9370000000000000000000000001"
        return (f"{name}\n   Runtime Name: vmhba1:C0:T0:L1\n   Device: naa.624a9370000000000000000000000001\n"
                "   Device Display Name: PURE Fibre Channel Disk (naa.624a9370000000000000000000000001)\n"
                f"   Path State: {state}\n   Path Config: {{TPG_id=1,TPG_state=AO,RTP_id=1,health=UP}}\n\n")
    twice = tmp_path / "paths.txt"
    twice.write_text(path("fc.524a937000000001:524a937000000001", "active") + path("unknown.0:0", "dead"))
    rows, said = _read(esxcli_hpp.read_paths, twice)
    assert rows["path_state"].tolist() == ["dead"] and len(said) == 1, said
    twice.write_text(path("fc.524a937000000001:524a937000000001", "active")
                     + path("fc.524a937000000002:524a937000000002", "active"))
    with pytest.raises(ScenarioError, match=r"differently from line 1 \(path, target_identifier\)"):
        esxcli_hpp.read_paths(twice)
