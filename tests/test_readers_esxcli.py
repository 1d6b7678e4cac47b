"""`esxcli storage nmp device list`: the figures the text says, and one clear error otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

import pathlab
from conftest import SCENARIOS
from conftest import pathlab as run_pathlab
from pathlab.readers import esxcli_devices

DATA = Path(__file__).parent / "data" / "esxcli"


def test_alua_round_robin_and_mru_devices_read_as_printed() -> None:
    df = esxcli_devices.read(DATA / "nmp-device-list-alua.txt").set_index("device")
    pure = df.loc["naa.624a9370b5a8f1e44f0b4e5a00011c2d"]
    assert (pure.satp, pure.psp, pure.rr_type, pure.iops, pure.bytes, pure.use_ano) == \
        ("VMW_SATP_ALUA", "VMW_PSP_RR", "rr", 1000, 10485760, False)
    assert pure.working_paths == ["vmhba3:C0:T10:L2", "vmhba3:C0:T1:L2"]
    mru = df.loc["naa.6000eb3b4bb5a11a0000000000000056"]
    assert (mru.psp, mru.psp_config, mru.working_paths) == \
        ("VMW_PSP_MRU", "Current Path=vmhba37:C0:T1:L6", ["vmhba37:C0:T1:L6"])


def test_what_pathlab_shows_reads_back(tmp_path: Path) -> None:
    done = run_pathlab("show", "devices", str(SCENARIOS / "c1-vmax-1lun.toml"), "--set", "policy.iops=1000")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "devices.txt"
    out.write_text(done.stdout)
    (row,) = esxcli_devices.read(out).itertuples()
    assert (row.satp, row.rr_type, row.iops, len(row.working_paths)) == ("VMW_SATP_SYMM", "iops", 1000, 8)


@pytest.mark.parametrize(("text", "where", "message"), [
    ("Device Display Name: x\n", "line 1", "expected a device name"),
    ("   Storage Array Type: VMW_SATP_ALUA\n", "line 1", "a `Key: value` line before any device name"),
    ("naa.1\n   no colon here\n", "line 2", "expected `Key: value`"),
    ("naa.1\n   Storage Array Type: VMW_SATP_ALUA\n", "naa.1", "missing Device Display Name"),
    ("\n\n", "", "no device"),
])
def test_what_is_not_the_command_output_is_refused_with_its_line(tmp_path: Path, text: str, where: str,
                                                                   message: str) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text(text)
    with pytest.raises(pathlab.ScenarioError) as e:
        esxcli_devices.read(bad)
    assert e.value.args[1] == where and message in e.value.args[2]


@pytest.mark.parametrize("value", ["abc", "", "1e3", "-1"])
def test_a_round_robin_limit_that_is_no_number_is_refused_not_dropped(tmp_path: Path, value: str) -> None:
    """`iops=abc` was read as no iops: the device then ran ESXi's default 1000, silently."""
    bad = tmp_path / "devices.txt"
    bad.write_text((DATA / "nmp-device-list-alua.txt").read_text().replace("iops=1000,", f"iops={value},", 1))
    with pytest.raises(pathlab.ScenarioError) as e:
        esxcli_devices.read(bad)
    assert e.value.args == (str(bad), "line 6", "`Path Selection Policy Device Config`: iops should be a whole number, "
                                                f"found {value!r}")


VMAX_DEVICES = Path(pathlab.__file__).parent / "captures" / "vmax-iops1000" / "esxcli-storage-nmp-device-list.txt"


def _listed_twice(tmp_path: Path, later: str) -> tuple[Path, int]:
    """The VMAX device list, then `later` (the same command run again): the file and the line the
    second listing starts at."""
    listing = VMAX_DEVICES.read_text()
    twice = tmp_path / "devices.txt"
    twice.write_text(listing + "\n" + later)
    return twice, listing.count("\n") + 2


def test_a_device_list_pasted_twice_the_same_is_read_once_and_said(tmp_path: Path) -> None:
    """The output pasted twice: the host once, not an internal `devices.1.name … defined twice`."""
    twice, second = _listed_twice(tmp_path, VMAX_DEVICES.read_text())
    with pytest.warns(pathlab.PathlabWarning) as said:
        devices = esxcli_devices.read(twice)
    assert [str(w.message) for w in said] == [
        f"{twice}: line {second}: naa.60000970000197900123533030303031 is listed again, the same as at line 1: read "
        "once (the `esxcli storage nmp device list` output pasted twice?)"]
    assert (list(devices["device"]), devices["iops"].tolist(), devices["line"].tolist()) == (
        ["naa.60000970000197900123533030303031"], [1000], [1])


def test_a_device_listed_twice_differently_is_refused_naming_both_lines(tmp_path: Path) -> None:
    """The command run again (before and after a change) and both outputs pasted: which is the
    host now is not in the file (issue 33: files that disagree are refused naming both); the later
    listing was taken, and said only as a warning."""
    twice, second = _listed_twice(tmp_path, VMAX_DEVICES.read_text().replace("iops=1000", "iops=1"))
    with pytest.raises(pathlab.ScenarioError) as e:
        esxcli_devices.read(twice)
    assert e.value.args == (str(twice), f"line {second}", "naa.60000970000197900123533030303031 is listed a second "
                            "time, differently from line 1 (iops, psp_config): a host lists each once (two runs of "
                            "`esxcli storage nmp device list` with a change between them, or two hosts' listings, in one file?); give one")


def test_a_device_listed_again_a_moment_later_is_read_as_the_later_listing_and_said(tmp_path: Path) -> None:
    """Two runs of the listing with no change made between them: round robin's `lastPathIndex` and
    pending I/Os, printed after the `;`, are the moment's, not a setting; the later listing is
    taken (the host as it stood last), where a FIXED device's preferred path, a setting, is not."""
    listing = VMAX_DEVICES.read_text()
    later = listing.replace("lastPathIndex=3: NumIOsPending=64,numBytesPending=524288",
                            "lastPathIndex=0: NumIOsPending=2,numBytesPending=16384")
    assert later != listing
    twice, second = _listed_twice(tmp_path, later)
    with pytest.warns(pathlab.PathlabWarning) as said:
        devices = esxcli_devices.read(twice)
    assert [str(w.message) for w in said] == [
        f"{twice}: line {second}: naa.60000970000197900123533030303031 is listed again, with the settings and topology of line 1 "
        "and another moment's psp_config: the later listing is taken (`esxcli storage nmp device list` run again a moment later?)"]
    assert (devices["line"].tolist(), devices["iops"].tolist()) == ([second], [1000])
    assert "lastPathIndex=0" in devices["psp_config"].iloc[0]
    fixed = listing.replace("VMW_PSP_RR", "VMW_PSP_FIXED").replace(
        "{policy=iops,iops=1000,bytes=10485760,useANO=0; lastPathIndex=3: NumIOsPending=64,numBytesPending=524288}",
        "{preferred=vmhba2:C0:T1:L1;current=vmhba2:C0:T1:L1}")
    assert "VMW_PSP_FIXED" in fixed
    twice.write_text(fixed + "\n" + fixed.replace("current=vmhba2:C0:T1:L1", "current=vmhba3:C0:T1:L1"))
    with pytest.warns(pathlab.PathlabWarning, match="another moment's psp_config: the later listing is taken"):
        esxcli_devices.read(twice)
    twice.write_text(fixed + "\n" + fixed.replace("preferred=vmhba2", "preferred=vmhba3"))
    with pytest.raises(pathlab.ScenarioError, match=r"differently from line 1 \(psp_config\)"):
        esxcli_devices.read(twice)
