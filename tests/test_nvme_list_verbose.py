"""`nvme list -v` (nvme-cli 2.x and later) read as `nvme list-subsys` is: a row per namespace and
controller that serves it, each at its controller's line, with no state, ANA state or iopolicy
(the listing prints none, and the import says what it took instead); rows it cannot read are
refused with their line. Shapes from nvme-cli issue 1529 (PowerStore over TCP, 2.0), libnvme issue
995 (Cntlid and Slot columns, a serial with a blank, a made-up NQN) and libnvme pull request 108
(a drive's NQN with blanks)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pytest

from conftest import quiet
from pathlab.api import PathlabWarning, ScenarioError
from pathlab.importer import import_files
from pathlab.readers import nvme_subsys

LINUX = Path(__file__).parent / "data" / "linux"
POWERSTORE = LINUX / "nvme-list-v_v2_handbuilt-from-nvme-cli-issue1529_powerstore.txt"
NQN = "nqn.1988-11.com.dell:powerstore:00:f03028e73ef7D032D81E"


def _rows(path: Path) -> list[tuple]:
    with quiet():
        table = nvme_subsys.read(path)
    return [(r.subsystem, r.nqn, None if pd.isna(r.nsid) else r.nsid, r.controller, r.transport, r.address, r.line)
            for r in table.itertuples()]


def test_a_powerstore_over_tcp_gives_a_row_per_namespace_and_controller() -> None:
    assert _rows(POWERSTORE) == [
        ("nvme-subsys0", NQN, 1, "nvme0", "tcp", "traddr=10.162.198.42,trsvcid=4420", 9),
        ("nvme-subsys0", NQN, 1, "nvme1", "tcp", "traddr=10.162.198.45,trsvcid=4420", 8),
        ("nvme-subsys0", NQN, 2, "nvme0", "tcp", "traddr=10.162.198.42,trsvcid=4420", 9),
        ("nvme-subsys0", NQN, 2, "nvme1", "tcp", "traddr=10.162.198.45,trsvcid=4420", 8)]
    table = nvme_subsys.read(POWERSTORE)
    assert table[["state", "ana_state", "hostnqn", "iopolicy"]].isna().all().all()


def test_its_import_has_two_namespaces_on_two_paths_and_says_what_it_did_not_print() -> None:
    with quiet():
        done = import_files([str(POWERSTORE)])
    said = dict(done.warnings)
    assert said["faults"] == (f"{POWERSTORE} shows no controller state (`nvme list -v`, or nvme-cli's oldest "
                              "list-subsys): every controller taken as live; `nvme list-subsys` shows them")
    assert said["arrays.symmetric"].startswith(f"{POWERSTORE} shows no ANA state")
    assert [u.setting for u in done.undetermined] == ["iopolicy", "iopolicy"]
    devices = tomllib.loads(done.text)["devices"]
    assert [(d["name"], [p["controller"] for p in d["listed"]["paths"].values()]) for d in devices] == [
        (f"{NQN}/ns1", ["nvme0", "nvme1"]), (f"{NQN}/ns2", ["nvme0", "nvme1"])]


def _more_namespaces(tmp_path: Path, nsids: tuple[str, str], titled: bool) -> Path:
    """The PowerStore listing with namespaces 10 and 16 printed as `nsids`, with nvme-cli 1.x's
    table titles or without them (2.x)."""
    text = POWERSTORE.read_text()
    last = text.rstrip("\n").split("\n")[-1]
    rows = [last.replace("nvme0n2      ng0n2        2       ", f"nvme0n{n:<2}     ng0n{n:<2}       {shown:<8}")
            for n, shown in zip((10, 16), nsids)]
    if titled:
        for table in ("Device   SN", "Device       Generic"):
            text = text.replace(f"\n{table}", f"\nNVM Express {'Controllers' if 'SN' in table else 'Namespaces'}\n\n{table}")
    (tmp_path / "list-v.txt").write_text(text + "\n".join(rows) + "\n")
    return tmp_path / "list-v.txt"


def test_nvme_cli_2_0_to_2_3s_nsids_without_0x_are_hexadecimal_and_1xs_decimal(tmp_path: Path) -> None:
    """nvme-cli 2.0-2.3 print `%-8x` (`a`, `10` for 10 and 16): `a` was refused and `10` read as
    ten; 1.x printed `%-8d` under its tables' titles."""
    two = {(nsid, line) for _, _, nsid, _, _, _, line in _rows(_more_namespaces(tmp_path, ("a", "10"), titled=False))}
    assert sorted(two) == [(1, 8), (1, 9), (2, 8), (2, 9), (10, 8), (10, 9), (16, 8), (16, 9)]
    one = {(nsid, line) for _, _, nsid, _, _, _, line in _rows(_more_namespaces(tmp_path, ("10", "16"), titled=True))}
    assert sorted(one) == [(1, 10), (1, 11), (2, 10), (2, 11), (10, 10), (10, 11), (16, 10), (16, 11)]


# libnvme issue 995's shape: Cntlid and Slot columns, serials with a blank, /dev/ names and hex NSIDs.
CNTLID_SLOT = LINUX / "nvme-list-v_v2_handbuilt-from-libnvme-issue995_cntlid-slot.txt"


def test_cntlid_and_slot_columns_and_blanks_in_a_serial_are_read() -> None:
    listing = CNTLID_SLOT
    uuid = "nqn.2014-08.org.nvmexpress:uuid:52d06941-4112-18d7-77d4-36c91551f4f1"
    # nvme3 serves no namespace the listing shows: no row (a controller without a namespace has no path), and said
    with pytest.warns(PathlabWarning, match=f"{listing}: line 9: nvme3 serves no namespace the namespace table lists: "
                                            "no path of it imported"):
        nvme_subsys.read(listing)
    assert _rows(listing) == [("nvme-subsys0", uuid, 1, "nvme0", "pcie", "0000:04:00.0", 8),
                              ("nvme-subsys0", uuid, 2, "nvme0", "pcie", "0000:04:00.0", 8)]


def test_a_subsystem_nqn_with_blanks_is_kept_whole_and_a_listing_without_namespaces_gives_its_controllers() -> None:
    listing = LINUX / "nvme-list-v_v2_libnvme-pr108_toshiba-pcie.txt"
    assert _rows(listing) == [("nvme-subsys0", "nqn.2017-03.jp.co.toshiba:KXG60ZNV512G NVMe TOSHIBA 512GB:49MA23BZK03N",
                               None, "nvme0", "pcie", "0000:3d:00.0", 8)]


@pytest.mark.parametrize(("old", "new", "line", "said"), [
    ("tcp    traddr=10.162.198.45", "xyz    traddr=10.162.198.45", "line 8",
     "a controller row of `nvme list -v` is `nvmeN`, its serial, model and firmware, a transport (pcie, tcp, rdma, fc, "
     "loop, apple-nvme), its address, `nvme-subsysN` and its namespaces: nvme1"),
    ("198.42,trsvcid=4420 nvme-subsys0", "198.42,trsvcid=4420 nvme-subsys7", "line 9",
     "nvme0's subsystem nvme-subsys7 is not in the subsystem table (lines 2-4)"),
    ("512   B +  0 B   nvme0, nvme1\nnvme0n2", "512   B +  0 B   nvme0, nvme5\nnvme0n2", "line 13",
     "nvme0n1's controller nvme5 is not in the controller table (from line 6)"),
    # NSID is 32 bits: a larger number stopped in a traceback (pandas' Int64 overflow) before
    ("nvme0n1      ng0n1        1 ", "nvme0n1      ng0n1        1180591620717411303424 ", "line 13",
     "namespace ID 1180591620717411303424: allowed 0 to 0xffffffff (NSID is 32 bits)"),
], ids=["unknown-transport", "subsystem-not-listed", "controller-not-listed", "nsid-beyond-32-bits"])
def test_a_row_it_cannot_read_is_refused_with_its_line(tmp_path: Path, old: str, new: str, line: str, said: str) -> None:
    listing = tmp_path / "list.txt"
    text = POWERSTORE.read_text()
    assert old in text
    listing.write_text(text.replace(old, new, 1))
    with pytest.raises(ScenarioError) as refused:
        nvme_subsys.read(listing)
    assert refused.value.args[0] == str(listing) and refused.value.args[1] == line
    assert refused.value.args[2].startswith(said)


# nvme-cli 3.0's columns (`src/nvme-print-stdout.c` at v3.0-rc1): Orchestrator after the name, the
# name `%-16s`, the generic device `%-20s` and the usage in binary units after the usage; values
# in the forms of issue 1529's PowerStore and a Samsung drive (its NQN padded as Identify holds it).
V3 = LINUX / "nvme-list-v_v3.0_handbuilt-from-nvme-cli-v3.0-rc1-printf.txt"


def test_nvme_cli_3_columns_are_read_orchestrator_and_cntlid_too() -> None:
    drive = "nqn.2014.08.org.nvmexpress:144d144dS4EVNM0R123456      Samsung SSD 980 PRO 1TB"
    assert _rows(V3) == [
        ("nvme-subsys0", NQN, 1, "nvme0", "tcp", "traddr=10.162.198.42,trsvcid=4420", 8),
        ("nvme-subsys0", NQN, 1, "nvme1", "tcp", "traddr=10.162.198.45,trsvcid=4420", 9),
        ("nvme-subsys0", NQN, 2, "nvme0", "tcp", "traddr=10.162.198.42,trsvcid=4420", 8),
        ("nvme-subsys0", NQN, 2, "nvme1", "tcp", "traddr=10.162.198.45,trsvcid=4420", 9),
        ("nvme-subsys1", drive, 1, "nvme2", "pcie", "0000:04:00.0", 10)]
    with quiet():
        table = nvme_subsys.read(V3)
    drive_row = table.iloc[4]
    assert drive_row.model == "Samsung SSD 980 PRO 1TB"
    assert {k: drive_row.shown["path"][k] for k in ("orchestrator", "cntlid", "serial", "firmware", "slot")} == {
        "orchestrator": "kernel", "cntlid": "6", "serial": "S4EVNM0R123456", "firmware": "5B2QGXA7", "slot": "3"}
    assert [table.iloc[i].shown["path"]["orchestrator"] for i in (0, 1)] == ["-", "-"]
    assert table.iloc[2].shown["device"]["ns usage"] == "0.00  B / 107.37 GB (   0.00   B /  100.00 GiB)"
    assert drive_row.shown["device"]["columns"] == "Orchestrator,Cntlid,Slot"


def test_nvme_cli_3_listing_is_shown_back_byte_for_byte() -> None:
    from pathlab import Scenario
    from pathlab.output.configuration import configuration, text

    with quiet():
        scenario = Scenario.from_text(import_files([str(V3)]).text, "imported.toml")
    assert text(configuration(scenario, "paths", "nvme-list")) == V3.read_text()


def test_nvme_cli_2_16s_wide_name_column_gives_the_cntlid() -> None:
    """2.16 prints the name `%-16s` before the Cntlid (2.9 to 2.15 `%-8s`) under the same header."""
    from pathlab.readers.nvme_list_verbose import read_lines

    row = "%-16s %-6s %-20s %-40s %-8s %-6s %-14s %-6s %-12s " % (  # noqa: UP031 (nvme-cli's printf format)
        "nvme0", "12", "VMware NVME_0002", "VMware Virtual NVMe Disk", "1.3", "pcie", "0000:0b:00.0", "", "nvme-subsys0")
    text = CNTLID_SLOT.read_text()
    header_at = text.index("Device   ")
    listing = "\n".join([*text[:header_at].splitlines(), *text[header_at:].splitlines()[:2], row + "nvme0n1"]) + "\n"
    (read,) = {(r["controller"], r["shown"]["path"]["cntlid"], r["shown"]["path"]["serial"], r["model"])
               for r in read_lines("list-v.txt", listing)}
    assert read == ("nvme0", "12", "VMware NVME_0002", "VMware Virtual NVMe Disk")
