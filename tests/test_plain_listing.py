"""`readers/_plain_listing.py`: an esxcli listing that is the command's output alone is read from
one split of its text into the lines and blocks the full pasted-output machinery gives, with the
same words on stderr (none); a file that is not plain goes to the machinery. Checked against the
machinery itself on the samples, on edits of a plain listing at each of the grammar's edges, and
on random edits."""

from __future__ import annotations

import random
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from pathlab.api import ScenarioError
from pathlab.readers import _esxcli_text as t
from pathlab.readers import esxcli_devices, esxcli_paths

DATA = Path(__file__).parent / "data"
COMMANDS = ("esxcli storage nmp path list", "esxcli storage nmp device list")

PATHS = """\
fc.20000024ff3dc47c:21000024ff3dc47c-fc.500a098088f9aa6a:500a098288f9aa6a-naa.600a098038303053453f463045727168
   Runtime Name: vmhba2:C0:T1:L4
   Device: naa.600a098038303053453f463045727168
   Device Display Name: NETAPP Fibre Channel Disk (naa.600a098038303053453f463045727168)
   Group State: active
   Array Priority: 0
   Storage Array Type Path Config: {TPG_id=1,TPG_state=AO,RTP_id=29,RTP_health=UP}
   Path Selection Policy Path Config: PSP VMW_PSP_RR does not support path configuration.

fc.20000024ff3dc47d:21000024ff3dc47d-fc.500a098088f9aa6a:500a098188f9aa6a-naa.600a098038303053453f463045727168
   Runtime Name: vmhba3:C0:T0:L4
   Device: naa.600a098038303053453f463045727168
   Device Display Name: NETAPP Fibre Channel Disk (naa.600a098038303053453f463045727168)
   Group State: active unoptimized
   Array Priority: 0
   Storage Array Type Path Config: {TPG_id=2,TPG_state=ANO,RTP_id=30,RTP_health=UP}
   Path Selection Policy Path Config: PSP VMW_PSP_RR does not support path configuration.
"""

DEVICES = """\
naa.600a098038303053453f463045727168
   Device Display Name: NETAPP Fibre Channel Disk (naa.600a098038303053453f463045727168)
   Storage Array Type: VMW_SATP_ALUA
   Storage Array Type Device Config: {implicit_support=on; explicit_support=off; {TPG_id=1,TPG_state=AO}}
   Path Selection Policy: VMW_PSP_RR
   Path Selection Policy Device Config: {policy=rr,iops=1000,bytes=10485760,useANO=0; lastPathIndex=0: NumIOsPending=0,numBytesPending=0}
   Path Selection Policy Device Custom Config:
   Working Paths: vmhba2:C0:T1:L4, vmhba3:C0:T1:L4,
   Is USB: false
""".replace("Custom Config:\n", "Custom Config: \n")  # (ESXi prints a blank after an empty value's colon)


def _read(path: Path, command: str, plain: bool) -> tuple[Any, list[str], bool]:
    """What a reader gets of the file (its lines and blocks, or the error), the words said on
    stderr, and whether it was read as a plain listing; with `plain` False, by the machinery alone."""
    given = t._plain_listing.read
    with _reading(plain) as said:
        try:
            reader = t.Reader(path, command)
            got: Any = (list(reader.lines), t.blocks(reader))
            read_plain = reader.plain is not None
        except ScenarioError as e:
            got, read_plain = ("refused", e.args), False
    assert t._plain_listing.read is given
    return got, [str(w.message) for w in said], read_plain


@contextmanager
def _reading(plain: bool) -> Iterator[list[warnings.WarningMessage]]:
    """The words said on stderr while a reader reads (every warning kept); with `plain` False, the
    plain listing's reading switched off: the machinery alone reads the file, a line at a time."""
    with pytest.MonkeyPatch.context() as patch:
        if not plain:
            patch.setattr(t._plain_listing, "read", lambda *_: None)
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            yield said


def _same(path: Path) -> list[bool]:
    """For each command: the plain reading is the machinery's (and whether it was plain)."""
    out = []
    for command in COMMANDS:
        full, plain = _read(path, command, False), _read(path, command, True)
        assert plain[:2] == full[:2], (path, command)
        out.append(plain[2])
    return out


def test_the_samples_read_plain_as_the_machinery_reads_them() -> None:
    samples = sorted(p for p in DATA.rglob("*") if p.is_file() and p.stat().st_size < 1 << 20)
    plain = [p for p in samples if any(_same(p))]
    # Listings saved as the command printed them are read plain (and only listings are); one pasted
    # after its prompt (`nmp-path-list-svc-iscsi-rr.txt`) is not.
    assert {p.name for p in plain} >= {"core-path-list-sas-fujitsu.txt", "nmp-device-list-alua.txt", "bare.txt"}
    assert all(p.suffix == ".txt" for p in plain)


def test_the_known_keys_are_what_a_key_line_can_name() -> None:
    """Every key the plain reading takes is one `KEY` reads whole (a key line of it is a key line
    to the machinery, its key the same)."""
    for key in t._KNOWN_KEYS:
        found = t.KEY.match(f"   {key}: value")
        assert found is not None and found.group(1) == key, key


@pytest.mark.parametrize("text", [PATHS, DEVICES, "\n\n" + PATHS + "\n\n", PATHS.rstrip("\n"),
                                  PATHS.replace("\n", "\r\n"), PATHS.replace("   ", "\t")])
def test_a_plain_listing_is_read_plain(tmp_path: Path, text: str) -> None:
    path = tmp_path / "listing.txt"
    path.write_bytes(text.encode())
    assert _same(path) == [True, True]
    blocks = t.blocks(t.Reader(path, COMMANDS[0]))
    assert [b.header[:18] for b in blocks] == (["naa.600a0980383030"] if text is DEVICES else
                                                ["fc.20000024ff3dc47", "fc.20000024ff3dc47"])


def test_a_value_with_dots_or_underscores_inside_words_stays_plain(tmp_path: Path) -> None:
    path = tmp_path / "listing.txt"
    path.write_text(PATHS.replace("   Array Priority: 0\n", "   Array Priority: 0 ... x_y_\n", 1))
    assert _same(path) == [True, True]
    assert t.blocks(t.Reader(path, COMMANDS[0]))[0].fields["Array Priority"] == ("0 ... x_y_", 6)


#: Edits at the grammar's edges: each makes the file one the machinery reads otherwise (a prompt,
#: a quote, markup, a wrap, a block without a name, ...) or refuses; each is read by the machinery.
EDITS = [
    ("   Group State: active\n", "   Group State: active\n[root@esx01:~] esxcli storage nmp path list\n"),
    ("   Group State: active\n", "   Group State: active\n# a remark\n"),
    ("fc.20000024ff3dc47c", "> fc.20000024ff3dc47c"),
    ("   Array Priority: 0\n", "   Array Priority: 0\n   Array Priority: 1\n"),
    ("   Array Priority: 0\n", "   Array Priority: 0\n   Unknown Key: 1\n"),
    ("   Array Priority: 0\n", "   Array Priority:0\n"),
    ("   Array Priority: 0\n", "   Array Priority : 0\n"),
    ("   Array Priority: 0\n", "   array priority: 0\n"),
    ("   Array Priority: 0\n", "   Array Priority: <b>0</b>\n"),
    ("   Array Priority: 0\n", "   Array Priority: &lt;0\n"),
    ("   Array Priority: 0\n", "   Array Priority: *0*\n"),
    ("   Array Priority: 0\n", "   Array Priority: _0_\n"),
    ("   Array Priority: 0\n", "   Array Priority: 0\n...\n"),
    ("   Array Priority: 0\n", "   Array Priority: 0\n\x1b[0m"),
    ("   Array Priority: 0\n", "   Array Priority: 0\x00\n"),
    ("   Array Priority: 0\n", "   Array Priority: 0\r"),
    ("   Array Priority: 0\n", "   Array Priority: 0 \u2013\n"),
    ("   Array Priority: 0\n", "   Array Priority: 0\n   \n"),
    ("   Array Priority: 0\n", "   Array Priority: 0\n--\n"),
    ("   Storage Array Type Path Config: {TPG_id=1,", "   Storage Array Type Path Config: {TPG_id=1,\n"),
    ("Path Config: PSP VMW_PSP_RR does not support path configuration.\n\nfc.",
     "Path Config: PSP VMW_PSP_RR does not support path configuration.\nfc."),
    ("Path Config: PSP VMW_PSP_RR does not support path configuration.\n\nfc.",
     "Path Config: PSP VMW_PSP_RR does not support\npath configuration.\n\nfc."),
    ("\n\nfc.", "\n\nesxcli.x\n\nfc."),
    ("\n\nfc.", "\n\nfor.x\n\nfc."),
    ("\n\nfc.", "\n\nnaa.lonely\n\nfc."),
    ("\n\nfc.", "\n\nA remark\nfc."),
    ("\n\nfc.", "\n\nName  Device  Vendor\nfc."),
    ("\n\nfc.", "\n\n   Group State: active\n\nfc."),
    ("\n\nfc.", "\n\nFc."),
    ("fc.20000024ff3dc47c:", "2026-01-01T00:00:00 fc.20000024ff3dc47c:"),
    ("fc.20000024ff3dc47c:", "\ufefffc.20000024ff3dc47c:"),
]


@pytest.mark.parametrize(("old", "new"), EDITS)
def test_an_edited_listing_is_read_as_the_machinery_reads_it(tmp_path: Path, old: str, new: str) -> None:
    assert old in PATHS
    path = tmp_path / "listing.txt"
    path.write_bytes(PATHS.replace(old, new, 1).encode())
    assert _same(path) == [False, False]


def test_random_edits_are_read_as_the_machinery_reads_them(tmp_path: Path) -> None:
    """Lines and characters put in, taken out or doubled at random (a seeded 300): the plain
    reading is the machinery's whichever way each file goes."""
    rng = random.Random(20261129)
    pieces = ["", " ", "\t", ":", "\n", "\n\n", "_", "-", "#", "$ ", ">", "]", "(naa.6)", "{", ",", "...",
              "   Device: naa.6", "   Runtime Name: vmhba1:C0:T0:L0", "naa.7", "esxcli", "Name", "\r\n", "é"]
    plain = 0
    for i in range(300):
        text = PATHS + "\n" + DEVICES if i % 3 == 0 else PATHS
        for _ in range(rng.randint(0, 2)):
            at = rng.randrange(len(text) + 1)
            cut = rng.choice([0, 0, 1, 2, 5])
            text = text[:at] + rng.choice(pieces) + text[at + cut:]
        path = tmp_path / f"edited-{i}.txt"
        path.write_bytes(text.encode())
        plain += any(_same(path))
    assert 0 < plain < 300  # some edits leave it plain, and some do not


CORE = (DATA / "esxcli" / "core-path-list-sas-fujitsu.txt").read_text()
SECOND_HOST = PATHS.replace("fc.20000024ff3dc47", "fc.20000024ff3dc57")  # another host's initiators, the same runtime names


def _frames(path: Path, plain: bool) -> tuple[Any, list[str]]:
    """What the path and device readers give of the file (each frame's columns and attrs, or the
    refusal), and the words said on stderr; with `plain` False, by the machinery alone."""
    got: list[Any] = []
    with pytest.MonkeyPatch.context() as patch:
        if not plain:
            patch.setattr(t._plain_listing, "read", lambda *_: None)
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            for read in (esxcli_paths.read, esxcli_paths.read_nmp, esxcli_paths.read_core, esxcli_devices.read):
                try:
                    frame = read(path)
                    got.append((frame.to_dict("list"), frame.attrs))
                except ScenarioError as e:
                    got.append(("refused", e.args))
    return got, [str(w.message) for w in said]


#: Listings as people paste them: (text, whether it is read plain). Each is read by the readers
#: exactly as the machinery reads it.
PASTED = {
    "prompt line first": ("[root@esx01:~] esxcli storage nmp path list\n" + PATHS, False),
    "prompt line first, CRLF": (("[root@esx01:~] esxcli storage nmp path list\n" + PATHS).replace("\n", "\r\n"), False),
    "core, prompt line first": ("[root@esx01:~] esxcli storage core path list\n" + CORE, False),
    "CRLF, no final line end": (PATHS.rstrip("\n").replace("\n", "\r\n"), True),
    "core, CRLF": (CORE.replace("\n", "\r\n"), True),
    "lone CR line ends": (PATHS.replace("\n", "\r"), False),
    "indentation lost": ("".join(line.lstrip() + "\n" for line in PATHS.splitlines()), False),
    "devices, indentation lost": ("".join(line.lstrip() + "\n" for line in DEVICES.splitlines()), False),
    "two tabs": (PATHS.replace("   ", "\t\t"), True),
    "trailing blank lines": (PATHS + "\n\n\n", True),
    "trailing blank lines of blanks": (PATHS + "   \n\t\n", False),
    "trailing blanks on each line": (PATHS.replace("\n", "  \n"), False),
    "byte-order mark": ("\ufeff" + PATHS, False),
    "byte-order mark, CRLF": ("\ufeff" + PATHS.replace("\n", "\r\n"), False),
    "a dead path": (PATHS.replace("Group State: active unoptimized", "Group State: dead"), True),
    "core, a dead path": (CORE.replace("   State: active", "   State: dead"), True),
    "two hosts' lists": (PATHS + "\n" + SECOND_HOST, True),
    "two hosts' lists, no blank between": (PATHS + SECOND_HOST, False),
    "two hosts' lists after their prompts": ("[root@esx01:~] esxcli storage nmp path list\n" + PATHS
                                             + "[root@esx02:~] esxcli storage nmp path list\n" + SECOND_HOST, False),
    "last stanza cut at a line": (PATHS[: PATHS.rindex("   Storage Array Type Path Config")], True),
    "last stanza cut in a value": (PATHS[: PATHS.rindex("path configuration.")], True),
    "last stanza cut in a key": (PATHS[: PATHS.rindex("Selection Policy Path Config")], False),
    "last stanza only its name": (PATHS + "\n" + PATHS.split("\n")[0] + "\n", False),
    "devices, last stanza cut at a line": (DEVICES[: DEVICES.rindex("   Working Paths")], True),
}


@pytest.mark.parametrize("case", PASTED)
def test_pasted_listings_are_read_by_the_readers_as_the_machinery_reads_them(tmp_path: Path, case: str) -> None:
    text, plain = PASTED[case]
    path = tmp_path / "listing.txt"
    path.write_bytes(text.encode())
    assert any(_same(path)) is plain
    assert _frames(path, True) == _frames(path, False)


def test_a_cut_listing_read_plain_is_refused_in_one_line(tmp_path: Path) -> None:
    from conftest import pathlab

    path = tmp_path / "paths.txt"
    path.write_text(PASTED["last stanza cut at a line"][0])
    devices = tmp_path / "devices.txt"
    devices.write_text(DEVICES)
    assert any(_same(path))
    done = pathlab("import", str(devices), str(path))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "paths.txt: line 10:" in done.stderr
    assert "has no `Storage Array Type Path Config`, `Path Selection Policy Path Config`" in done.stderr


def test_a_runtime_name_listed_twice_differently_is_refused_in_one_line(tmp_path: Path) -> None:
    """Two hosts' path lists in one file, read plain as the machinery reads them, list each runtime
    name twice with other values: refused naming both lines (issue 33: two captures of one host, or
    files that disagree, are refused), where the import wrote a scenario of two paths under one
    TOML key (not valid TOML) and exited 0."""
    from conftest import pathlab

    path = tmp_path / "paths.txt"
    path.write_text(PATHS + "\n" + SECOND_HOST)
    devices = tmp_path / "devices.txt"
    devices.write_text(DEVICES)
    assert any(_same(path))
    done = pathlab("import", str(devices), str(path))
    assert done.returncode == 2, done.stdout[-300:]
    assert done.stderr.count("\n") == 1 and ("paths.txt: line 19: vmhba2:C0:T1:L4 is listed a second time, differently "
                                             "from line 1 (path)") in done.stderr


def test_a_path_list_pasted_twice_the_same_is_read_once_and_said(tmp_path: Path) -> None:
    """The same output pasted twice says nothing new of the host: read once, with a warning
    naming both lines (it was refused, as two listings that disagree are)."""
    from conftest import pathlab

    once, twice, devices = tmp_path / "once.txt", tmp_path / "paths.txt", tmp_path / "devices.txt"
    once.write_text(PATHS)
    twice.write_text(PATHS + "\n" + PATHS)
    devices.write_text(DEVICES)
    assert any(_same(twice))
    single, done = pathlab("import", str(devices), str(once)), pathlab("import", str(devices), str(twice))
    assert done.returncode == 0, done.stderr
    assert done.stdout == single.stdout.replace(str(once), str(twice))
    assert ("paths.txt: line 19: vmhba2:C0:T1:L4 is listed again, the same as at line 1: read once (the `esxcli "
            "storage nmp path list` output pasted twice?)") in done.stderr


@pytest.mark.parametrize("cut", ["   Is USB", "   Is US"])
def test_a_device_list_cut_in_its_last_key_is_refused_not_joined_to_the_working_paths(tmp_path: Path, cut: str) -> None:
    """The last line cut before its colon is no key line: not read plain, the machinery joined it
    to a long `Working Paths` line as a wrap's rest, and the device's last working path became
    `vmhba2:C0:T3:L49 Is USB`. A runtime name has no blank: refused in one line."""
    working = ", ".join(f"vmhba{a}:C0:T{t}:L49" for a in (1, 2) for t in range(4))
    text = DEVICES.replace("Working Paths: vmhba2:C0:T1:L4, vmhba3:C0:T1:L4,", f"Working Paths: {working}")
    path = tmp_path / "devices.txt"
    path.write_text(text[: text.rindex("   Is USB")] + cut)
    assert _frames(path, True) == _frames(path, False)
    with pytest.raises(ScenarioError) as refused:
        esxcli_devices.read(path)
    assert refused.value.args[1:] == ("line 8", f"`Working Paths`: 'vmhba2:C0:T3:L49{cut[2:]}' is not a runtime name "
                                                "(a blank inside it: the next line joined to the list, or the file cut short?)")


def _device_frame(path: Path, plain: bool) -> tuple[Any, list[str]]:
    """What `esxcli_devices.read` gives of the file (its rows, or the refusal) and the words said
    on stderr; with `plain` False, read a line at a time by the machinery alone."""
    with _reading(plain) as said:
        try:
            frame = esxcli_devices.read(path)
            got: Any = repr((frame.to_dict("list"), frame.dtypes.to_dict()))  # (a NaN's repr is equal, not the NaN)
        except ScenarioError as e:
            got = ("refused", e.args)
    return got, [str(w.message) for w in said]


def test_the_device_reader_reads_a_plain_listing_s_blocks_as_it_reads_its_lines(tmp_path: Path) -> None:
    """The device list's rows from a plain listing's blocks (`esxcli_devices._plain_rows`) are
    those its lines give (`_rows`), or the same refusal: on every sample read plain, and on
    devices' blocks edited at random (names that are no device's, keys of other listings, keys
    left out, a device listed twice)."""
    samples = sorted(p for p in DATA.rglob("*") if p.is_file() and p.stat().st_size < 1 << 20)
    plain = [p for p in samples if _same(p)[1]]
    assert len(plain) > 5
    for path in plain:
        assert _device_frame(path, True) == _device_frame(path, False), path
    rng = random.Random(20261130)
    second = DEVICES.replace("naa.600a098038303053453f463045727168", "naa.600a098038303053453f463045727169", 1)
    pieces = ["", "naa.7", "eui.8:", "t10.x", "mpx.vmhba32:C0:T0:L0", "vmhba1", "x", "   Runtime Name: vmhba1:C0:T0:L0",
              "   Is USB: true", "   Working Paths: ", "   Storage Array Type: VMW_SATP_CX", "\n", "\n\n"]
    read_plain = 0
    for i in range(200):
        text = DEVICES + "\n" + (second if i % 2 else DEVICES)
        for _ in range(rng.randint(1, 3)):
            lines = text.split("\n")
            at = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(at, rng.choice(pieces))
            else:
                del lines[at]
            text = "\n".join(lines)
        path = tmp_path / f"devices-{i}.txt"
        path.write_bytes(text.encode())
        read_plain += _same(path)[1]
        assert _device_frame(path, True) == _device_frame(path, False), text
    assert 20 < read_plain < 200  # some edits leave it plain, and some do not
