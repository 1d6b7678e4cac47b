"""`iscsiadm -m session -P 3` beside `multipath -ll` (issue 22): each portal (address:port) a
session runs to is one array port, sessions to one portal share it, ports are listed by target
portal group; a listing that disagrees with the paths, is of another host or names no SCSI host
(`-P 1`) is refused with one line naming it.

The multipath listing is real: HPE 3PAR, host m20c2, hpe-storage/csi-driver issue 269 (four
paths, SCSI hosts 2-5). The same comment's `-P3` survives only up to its first session's
parameters (corpus iscsiadm-session/003): its portal 10.37.120.10:3260, tag 1024, is that
session's; the listing below is written by hand in iscsiadm's layout (open-iscsi
`session_info_print_tree`: a session to the same portal as the one before prints a blank line
instead of the portal lines), with made-up host numbers for it and a second portal, tag 1025,
for the others. The refusals use the corpus' real samples."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import one_error_line, pathlab
from pathlab.api import Scenario

CORPUS = Path(__file__).parent / "data" / "corpus" / "iscsiadm-session"
MULTIPATH = """\
mpathh (360002ac000000000000000c700019d4a) dm-11 3PARdata,VV
size=5.0G features='1 queue_if_no_path' hwhandler='1 alua' wp=rw
`-+- policy='service-time 0' prio=50 status=active
  |- 3:0:0:0 sdf     8:80  active ready running
  |- 4:0:0:0 sdg     8:96  active ready running
  |- 5:0:0:0 sdh     8:112 active ready running
  `- 2:0:0:0 sde     8:64  active ready running
"""


def _session(sid: int, host: int, disk: str, iface: str, portal: str | None) -> str:
    head = (f"\tCurrent Portal: {portal}\n\tPersistent Portal: {portal}\n" if portal else "\n")
    return (head + "\t\t**********\n\t\tInterface:\n\t\t**********\n\t\tIface Name: " + iface + "\n"
            "\t\tIface Transport: tcp\n\t\tIface IPaddress: 10.37.131.151\n"
            f"\t\tSID: {sid}\n\t\tiSCSI Connection State: LOGGED IN\n\t\tiSCSI Session State: LOGGED_IN\n"
            "\t\t************************\n\t\tAttached SCSI devices:\n\t\t************************\n"
            f"\t\tHost Number: {host}\tState: running\n\t\tscsi{host} Channel 00 Id 0 Lun: 0\n"
            f"\t\t\tAttached scsi disk {disk}\t\tState: running\n")


def _sessions(disk_of_host_5: str = "sdh") -> str:
    return ("iSCSI Transport Class version 2.0-870\nversion 2.0-874\n"
            "Target: iqn.2000-05.com.3pardata:20220002ac019d4a (non-flash)\n"
            + _session(10, 2, "sde", "iface0", "10.37.120.10:3260,1024")
            + _session(11, 3, "sdf", "iface1", None)
            + _session(12, 4, "sdg", "iface0", "10.37.121.10:3260,1025")
            + _session(13, 5, disk_of_host_5, "iface1", None))


def _files(tmp_path: Path, sessions: str | Path) -> tuple[str, str]:
    (tmp_path / "multipath.txt").write_text(MULTIPATH)
    if isinstance(sessions, str):
        (tmp_path / "sessions.txt").write_text(sessions)
        sessions = tmp_path / "sessions.txt"
    return str(tmp_path / "multipath.txt"), str(sessions)


def _import(tmp_path: Path, *files: str) -> tuple[str, dict]:
    out = tmp_path / "host.toml"
    done = pathlab("import", *files, "-o", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    return text, Scenario.from_text(text, "imported").describe()


def test_each_portal_is_one_port_shared_by_its_sessions(tmp_path: Path) -> None:
    text, host = _import(tmp_path, *_files(tmp_path, _sessions()))
    target = {p["name"].split(":")[0]: p["target"].split("/", 1)[1] for p in host["paths"]}
    assert target == {"host2": "10.37.120.10:3260", "host3": "10.37.120.10:3260",
                      "host4": "10.37.121.10:3260", "host5": "10.37.121.10:3260"}
    arrays = text[text.index("[[arrays]]"):]  # the host's adapters are written one a line too
    ports = re.findall(r'^  \{ name = "([^"]+)" \},  # (.*)$', arrays, re.M)
    assert [name for name, _ in ports] == ["10.37.120.10:3260", "10.37.121.10:3260"]
    assert "portal of target portal group iqn.2000-05.com.3pardata:20220002ac019d4a,t,1024, sessions of SCSI host 2, 3" \
        in ports[0][1]
    assert ports[0][1].startswith(f"{tmp_path / 'sessions.txt'}, line 4:")


def test_without_the_sessions_each_scsi_host_is_a_port_of_its_own(tmp_path: Path) -> None:
    _, host = _import(tmp_path, _files(tmp_path, _sessions())[0])
    assert len({p["target"] for p in host["paths"]}) == 4


def test_a_disk_the_listings_disagree_on_is_refused_naming_the_line(tmp_path: Path) -> None:
    multipath, sessions = _files(tmp_path, _sessions(disk_of_host_5="sdz"))
    line = one_error_line(pathlab("import", multipath, sessions, "-o", str(tmp_path / "h.toml")))
    assert f"{sessions}: line 69:" in line and "5:0:0:0 is disk sdz here but sdh" in line, line


def test_another_hosts_sessions_are_refused(tmp_path: Path) -> None:
    flatcar = CORPUS / "001-flatcar-emc-p3-one-session-tabs" / "bare.txt"  # SCSI host 7 only
    multipath, sessions = _files(tmp_path, flatcar)
    line = one_error_line(pathlab("import", multipath, sessions, "-o", str(tmp_path / "h.toml")))
    assert str(flatcar) in line and "SCSI hosts (7) are none of the paths'" in line and "(2, 3, 4, 5)" in line, line


def test_a_listing_without_host_numbers_is_refused(tmp_path: Path) -> None:
    p1 = CORPUS / "002-open-iscsi-issue179-p1-redirected-portal" / "bare.txt"
    multipath, sessions = _files(tmp_path, p1)
    line = one_error_line(pathlab("import", multipath, sessions, "-o", str(tmp_path / "h.toml")))
    assert str(p1) in line and "give `-P 3`" in line, line


def test_sessions_alone_are_refused(tmp_path: Path) -> None:
    p3 = CORPUS / "001-flatcar-emc-p3-one-session-tabs" / "as-collected.txt"
    line = one_error_line(pathlab("import", str(p3), "-o", str(tmp_path / "h.toml")))
    assert str(p3) in line and "without `multipath -ll`" in line, line


def test_a_line_iscsiadm_does_not_print_is_refused_naming_it(tmp_path: Path) -> None:
    for wrong, at, says in (("\t\tscsi2 Channel 00 Id 0 Lun: 0\n", "\t\tscsi9 Channel 00 Id 0 Lun: 0\n",
                             "scsi9 under Host Number 2"),
                            ("\t\tSID: 11\n", "\t\tSID: eleven\n", "SID 'eleven'"),
                            ("\tCurrent Portal: 10.37.120.10:3260,1024\n", "\tCurrent Portal: 10.37.120.10 (tpgt 1024)\n",
                             "a session of iqn.2000-05.com.3pardata:20220002ac019d4a with no `Current Portal:`")):
        text = _sessions().replace(wrong, at, 1)
        number = text.splitlines().index(at.rstrip("\n")) + 1
        multipath, sessions = _files(tmp_path, text)
        line = one_error_line(pathlab("import", multipath, sessions, "-o", str(tmp_path / "h.toml")))
        assert says in line and str(sessions) in line, line
        if "Current Portal" not in wrong:
            assert f"line {number}:" in line, line


def test_two_runs_joined_in_one_file_are_refused_naming_the_second(tmp_path: Path) -> None:
    """iscsiadm prints its version lines once per run: a second pair in the middle of a file is a
    second run (another host's, or the same host's twice), not more sessions of the first."""
    first = (CORPUS / "001-flatcar-emc-p3-one-session-tabs" / "bare.txt").read_text()
    joined = _sessions() + first
    number = len(_sessions().splitlines()) + 1
    multipath, sessions = _files(tmp_path, joined)
    line = one_error_line(pathlab("import", multipath, sessions, "-o", str(tmp_path / "h.toml")))
    assert f"{sessions}: line {number}:" in line and "two runs of `iscsiadm" in line, line
