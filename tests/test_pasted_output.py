"""Readers find their command's output in a file as people paste it: with the prompt and the
command line, other commands' output around it, a question after it, CRLF ends, lost indentation
(a blog's), a log line before it. Each variant of every real sample reads to the same topology as
the bare sample, and what was skipped is said."""

from __future__ import annotations

import html
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import quiet
from pathlab.api import PathlabWarning, ScenarioError
from pathlab.readers import esxcli_devices, esxcli_hpp, esxcli_paths, esxcli_rr_config, esxcli_satp_rules, multipath_ll, nvme_subsys
from pathlab.readers.pasted import command_of

DATA = Path(__file__).parent / "data" / "linux"
MULTIPATH = sorted(p for p in DATA.glob("multipath*") if "conf" not in p.name)
NVME_TEXT = sorted(p for p in DATA.glob("nvme-*") if p.suffix == ".txt")

LSSCSI = "[0:0:0:0]    disk    ATA      VBOX HARDDISK    1.0   /dev/sda\n"
DISKSTATS = "   8       0 sda 5024 46400 6662 13324 0 0 0 0 0 100 13324\n"


def _without_own_command_line(text: str) -> str:
    """A sample without the command line it starts with, if it has one (the variant gives its own)."""
    first, _, rest = text.partition("\n")
    return rest if command_of(first) is not None else text


def _variants(command: str) -> dict[str, Callable[[str], str]]:
    return {
        "prompt and command": lambda t: f"[root@host01 ~]# {command}\n{t}\n[root@host01 ~]# \n",
        "hash command line": lambda t: f"# {command}\n{t}",
        "sudo at a user prompt": lambda t: f"admin@host01:~$ sudo {command}\n{t}\nadmin@host01:~$ exit\n",
        "CRLF": lambda t: t.replace("\n", "\r\n"),
        "other commands around": lambda t: (f"$ lsscsi\n{LSSCSI}$ sudo {command}\n{t}\n"
                                            f"$ cat /proc/diskstats\n{DISKSTATS}"),
        "prose around": lambda t: f"Here is what the host prints:\n\n{t}\n\nWhy is only one path used?\n",
        "log line before": lambda t: f"Jun 10 12:00:01 host01 multipathd[1234]: sdb: add path (uevent)\n{t}",
        "date run before it": lambda t: (f"[root@host01 ~]# date; {command}\nTue Jun 10 12:00:01 CEST 2025\n"
                                         f"{_without_own_command_line(t)}\n[root@host01 ~]# cat /proc/diskstats\n{DISKSTATS}"),
        "mail quoted": lambda t: "On Tue, Jun 10, 2025 at 12:00 PM Admin wrote:\n" + "\n".join(
            f"> {line}".rstrip() for line in f"{command}\n{t}".split("\n")),
        "quote of a quote": lambda t: "Admin wrote:\n> Another admin wrote:\n" + "\n".join(
            f"> > {line}" for line in f"# {command}\n{t}".split("\n")) + "\n>\n> Same here.\n",
        # a web page's <pre> block, the output's `<`, `>`, `&` and quotes escaped as a page does
        "web page": lambda t: f"<pre>[root@host01 ~]# {command}\n{html.escape(t)}\n[root@host01 ~]# </pre>\n",
        # a markdown list indents the listing and the prompt left after it
        "indented prompt after": lambda t: f"{t.rstrip()}\n  $\n",
    }


#: What each variant's warning must say about the text it added.
SAID = {
    "prompt and command": [],
    "hash command line": [],
    "sudo at a user prompt": ["`exit`"],
    "CRLF": [],
    "other commands around": ["`lsscsi` (line 1) and its output", "`cat /proc/diskstats`"],
    # A sample that starts with its own command line has the added text before that line.
    "prose around": [("from 'Here is what the host prints:'", "text before the first command line"),
                     "from 'Why is only one path used?'"],
    "log line before": [("from 'Jun 10 12:00:01 host01 multipathd[1234]", "text before the first command line")],
    "date run before it": [("skipped 1 line(s) before", "from 'Tue Jun 10 12:00:01 CEST 2025'"), "`cat /proc/diskstats`"],
    "mail quoted": ["read without mail quoting '> '; 1 line(s) without it skipped"],
    "quote of a quote": ["read without mail quoting '> '; 1 line(s) without it skipped", "from 'Same here.'"],
    "web page": [],
    "indented prompt after": ["from '$'"],
}


def _says(said: list[str], path: Path, fragment: str | tuple[str, ...]) -> bool:
    """Whether a warning about `path` says `fragment` (or one of them)."""
    either = (fragment,) if isinstance(fragment, str) else fragment
    return any(str(path) in w and any(f in w for f in either) for w in said)


def _read_all(reader: Callable[[Path], object], path: Path) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", PathlabWarning)
        tables = reader(path)
    return tables, [str(w.message) for w in seen if issubclass(w.category, PathlabWarning)]


def _without_lines(table):  # type: ignore[no-untyped-def]
    # `line`, and the `<value>_line` of readers that keep each value's line (the device list)
    return table.drop(columns=[c for c in table.columns if c == "line" or c.endswith("_line")]).reset_index(drop=True)


def _same(read: Any, bare: Any) -> bool:
    """Whether two readings hold the same tables (a reader's dict of tables, or one table),
    their line numbers aside."""
    if isinstance(bare, dict):
        return all(_without_lines(read[name]).equals(_without_lines(bare[name])) for name in bare)
    return bool(_without_lines(read).equals(_without_lines(bare)))


#: Each Linux listing sample with its reader and the command that prints it.
LINUX_CASES = [(sample, multipath_ll.read, "multipath -ll") for sample in MULTIPATH] + \
              [(sample, nvme_subsys.read, "nvme list -v" if sample.name.startswith("nvme-list-v_") else "nvme list-subsys")
               for sample in NVME_TEXT]


@pytest.mark.parametrize(("sample", "reader", "command"), LINUX_CASES, ids=lambda v: v.stem if isinstance(v, Path) else "")
@pytest.mark.parametrize("variant", list(SAID))
def test_linux_sample_reads_the_same_as_pasted(sample: Path, reader: Callable[[Path], Any], command: str, variant: str,
                                               tmp_path: Path) -> None:
    bare, _ = _read_all(reader, sample)
    pasted = tmp_path / "pasted.txt"
    pasted.write_bytes(_variants(command)[variant](sample.read_text()).encode())
    read, said = _read_all(reader, pasted)
    assert _same(read, bare)
    for fragment in SAID[variant]:
        assert _says(said, pasted, fragment), (fragment, said)


@pytest.mark.parametrize("sample", MULTIPATH, ids=lambda p: p.stem)
def test_multipath_sample_with_lost_indentation_reads_the_same(sample: Path, tmp_path: Path) -> None:
    bare, _ = _read_all(multipath_ll.read, sample)
    flat = tmp_path / "flat.txt"
    flat.write_text("\n".join(line.lstrip() for line in sample.read_text().split("\n")))
    read, _ = _read_all(multipath_ll.read, flat)
    assert _same(read, bare)


def test_two_runs_of_multipath_in_one_file_are_refused_by_line(tmp_path: Path) -> None:
    text = MULTIPATH[0].read_text()
    twice = tmp_path / "twice.txt"
    twice.write_text(f"# multipath -ll\n{text}\n# multipath -ll\n{text}\n")
    second = 2 + len(text.split("\n"))
    with pytest.raises(ScenarioError) as refused:
        multipath_ll.read(twice)
    assert str(twice) in str(refused.value)
    assert f"line {second}" in str(refused.value) and "second time (first at line 1)" in str(refused.value)


@pytest.mark.parametrize(("line", "command"), [
    ("[root@host01 ~]# multipath -ll", "multipath -ll"),
    ("[root@esx-01:~] esxcli storage nmp device list", "esxcli storage nmp device list"),
    ("root@ubuntu:~# sudo -E nvme list-subsys", "nvme list-subsys"),
    ("host01:~ # multipath -l", "multipath -l"),
    ("~ # esxcfg-mpath -b", "esxcfg-mpath -b"),
    ("# /sbin/multipath -ll", "/sbin/multipath -ll"),
    ("$ cat /proc/diskstats", "cat /proc/diskstats"),
    ("multipathd> show topology", "show topology"),
    ("sh-4.2# multipath -ll", "multipath -ll"),
    ("[root@host01 ~]#", ""),
])
def test_command_lines_are_recognised(line: str, command: str) -> None:
    assert command_of(line) == command


@pytest.mark.parametrize("line", [
    "# multipath.conf written by anaconda",  # a comment, not a command
    "mpatha (3600a098038303634722b4d59614a5a53) dm-0 NETAPP,LUN C-Mode",
    "size=10G features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 alua' wp=rw",
    "|-+- policy='service-time 0' prio=50 status=active",
    "   Device Display Name: DGC Fibre Channel Disk (naa.6006016015301d00167ce6e2ddb3de11)",
    "> 4 paths were found",
])
def test_output_lines_are_not_command_lines(line: str) -> None:
    assert command_of(line) is None


ESXCLI = Path(__file__).parent / "data" / "esxcli"
#: Each esxcli sample's reader and the command that prints it, by the sample's name.
ESXCLI_READERS = {
    "nmp-device-list": (esxcli_devices.read, "esxcli storage nmp device list"),
    "nmp-path-list": (esxcli_paths.read_nmp, "esxcli storage nmp path list"),
    "core-path-list": (esxcli_paths.read_core, "esxcli storage core path list"),
    "esxcfg-mpath-l": (esxcli_paths.read_core, "esxcfg-mpath -l"),
    "hpp-device-list": (esxcli_hpp.read_devices, "esxcli storage hpp device list"),
    "hpp-path-list": (esxcli_hpp.read_paths, "esxcli storage hpp path list"),
    "rr-deviceconfig-get": (esxcli_rr_config.read, "esxcli storage nmp psp roundrobin deviceconfig get -d naa.1"),
    "satp-rule-list": (esxcli_satp_rules.read, "esxcli storage nmp satp rule list"),
}
ESXCLI_SAMPLES = sorted((p, kind) for p in ESXCLI.glob("*.txt") for kind in ESXCLI_READERS if p.name.startswith(kind))


@pytest.mark.parametrize(("sample", "kind"), ESXCLI_SAMPLES, ids=lambda v: v.stem if isinstance(v, Path) else v)
@pytest.mark.parametrize("variant", [*_variants("x"), "lost indentation"])
def test_esxcli_sample_reads_the_same_as_pasted(sample: Path, kind: str, variant: str, tmp_path: Path) -> None:
    reader, command = ESXCLI_READERS[kind]
    try:
        bare, _ = _read_all(reader, sample)
    except ScenarioError as refused:
        bare = refused  # a sample refused bare is refused pasted, for the same reason
    text = sample.read_text()
    pasted = tmp_path / "pasted.txt"
    if variant == "lost indentation":
        pasted.write_text("\n".join(line.lstrip() for line in text.split("\n")))
    else:
        pasted.write_bytes(_variants(command)[variant](text).encode())
    if isinstance(bare, ScenarioError):
        with pytest.raises(ScenarioError) as again:
            reader(pasted)
        assert again.value.args[2] == bare.args[2]
        return
    table, said = _read_all(reader, pasted)
    assert _same(table, bare)
    for fragment in SAID.get(variant, []):
        assert _says(said, pasted, fragment), (fragment, said)


#: ESX 4.x's command names of the listings ESXi 5.0 moved under `storage` (vSphere CLI 4.1).
ESX4_COMMANDS = {
    "nmp-device-list": "esxcli nmp device list",
    "nmp-path-list": "esxcli nmp path list",
    "rr-deviceconfig-get": "esxcli nmp roundrobin getconfig --device naa.1",
    "satp-rule-list": "esxcli nmp satp listrules",
}


@pytest.mark.parametrize(("sample", "kind"), [(p, k) for p, k in ESXCLI_SAMPLES if k in ESX4_COMMANDS],
                         ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_an_esxcli_sample_pasted_under_its_esx4_command_name_reads_the_same(sample: Path, kind: str,
                                                                              tmp_path: Path) -> None:
    reader = ESXCLI_READERS[kind][0]
    try:
        bare, _ = _read_all(reader, sample)
    except ScenarioError:
        return  # refused bare: test_esxcli_sample_reads_the_same_as_pasted checks it is refused pasted alike
    pasted = tmp_path / "pasted.txt"
    pasted.write_text(f"~ # vmware -v\nVMware ESX 4.1.0 build-260247\n~ # {ESX4_COMMANDS[kind]}\n{sample.read_text()}\n~ # \n")
    table, said = _read_all(reader, pasted)
    assert _same(table, bare)
    assert not [w for w in said if "skipped" in w and "line 3" in w], said


def test_a_device_list_wrapped_by_a_forum_reads_whole(tmp_path: Path) -> None:
    """A forum wraps the long config and path lines; the values are joined again."""
    text = (ESXCLI / "nmp-device-list-alua.txt").read_text()
    wrapped = text.replace("useANO=0; lastPathIndex=", "useANO=0;\n   lastPathIndex=").replace(
        "vmhba3:C0:T10:L2, vmhba3:C0:T1:L2", "vmhba3:C0:T10:L2,\n   vmhba3:C0:T1:L2")
    assert wrapped != text
    path = tmp_path / "wrapped.txt"
    path.write_text(wrapped)
    df = esxcli_devices.read(path).set_index("device")
    pure = df.loc["naa.624a9370b5a8f1e44f0b4e5a00011c2d"]
    assert pure.working_paths == ["vmhba3:C0:T10:L2", "vmhba3:C0:T1:L2"]
    assert (pure.rr_type, pure.iops, pure.use_ano) == ("rr", 1000, False)


@pytest.mark.parametrize(("sample", "kind"), [
    ("powerpath/001-clariion-solaris-failover-mode-1.txt", "powermt"),
    ("mpio/003-msdsm-rr-symmetric-two-paths.txt", "mpclaim"),
])
@pytest.mark.parametrize("wrapped", ["mail-quoted", "utf-16"])
def test_a_mail_quoted_or_utf16_powermt_or_mpclaim_file_is_recognised_as_its_reader_reads_it(
        tmp_path: Path, sample: str, kind: str, wrapped: str) -> None:
    from pathlab.importer.kinds import kind_of

    text = (Path(__file__).parent / "data" / sample).read_text()
    file = tmp_path / "capture.txt"
    if wrapped == "mail-quoted":
        file.write_text("".join(f"> {line}\n" for line in text.splitlines()))
    else:
        file.write_bytes(text.encode("utf-16"))  # with its byte order mark, as PowerShell's `>` writes it
    found = kind_of(str(file))
    assert found.name == kind
    with quiet():
        assert found.read(str(file))  # and its reader reads it


def test_a_listing_commented_out_line_by_line_is_read_without_the_marks(tmp_path: Path) -> None:
    """A sample put in a script or a page as comments (`#` before each line, the indentation after
    it the listing's own), with the writer's elision mark after it, reads as the bare listing."""
    bare = ("mpatha (36000d31000d5f0000000000000000011) dm-3 COMPELNT,Compellent Vol\n"
            "size=20G features='1 queue_if_no_path' hwhandler='0' wp=rw\n"
            "`-+- policy='service-time 0' prio=1 status=active\n"
            "  |- 3:0:0:1 sdb 8:16 active ready running\n"
            "  `- 4:0:0:1 sdc 8:32 active ready running\n")
    commented = tmp_path / "commented.txt"
    commented.write_text("    # what the host shows\n" + "".join(f"    #{line}\n" for line in bare.splitlines())
                         + "    # ... the other maps\n")
    plain = tmp_path / "bare.txt"
    plain.write_text(bare)
    with pytest.warns(PathlabWarning, match="read without comment marks"):
        read = multipath_ll.read(commented)
    assert _same(read, multipath_ll.read(plain))
