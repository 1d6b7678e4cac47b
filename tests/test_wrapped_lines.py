"""Issue 32: long lines a mail reader wrapped at its margin are joined back where the listing's
grammar says the next line is the rest of the one before (`readers/rejoin.py`), with the blank
the wrap took; where it cannot say, the paste is refused in one line naming the file and line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conftest import quiet
from pathlab.api import ScenarioError
from pathlab.readers import esxcli_devices, esxcli_hpp, multipath_ll, nvme_subsys, powermt

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "corpus"
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from paste_harness import wrapped  # noqa: E402  (the harness's wrap: a word wrapper at 76 columns)


def _pasted(folder: Path, sample: Path) -> Path:
    """`sample` as a mail reader wrapped it at 76 columns, in `folder`."""
    pasted = folder / sample.name
    pasted.write_text(wrapped(sample.read_text()))
    return pasted


def _quiet(read: Any, path: Path) -> Any:
    with quiet():
        return read(path)


def _values(read: Any) -> Any:
    """What a reader gave, lines aside (a joined line keeps its first part's number, the others move)."""
    if isinstance(read, dict):
        return {k: _values(v) for k, v in read.items()}
    if isinstance(read, pd.DataFrame):
        kept = read.drop(columns=[c for c in read.columns if c == "line" or c.endswith("_line")]).astype(object)
        return kept.where(kept.notna(), None).to_dict("records")
    if isinstance(read, list):  # powermt's devices
        return [(d.name, d.logical_id, d.policy, [(p.io_path, p.interface, p.mode, p.state, p.queued, p.errors)
                                                  for p in d.paths]) for d in read]
    return read


@pytest.mark.parametrize(("sample", "read", "wraps"), [
    # a display name's `(naa.…)`, a `{…}` config cut at its blanks, a key left alone with its value below
    (CORPUS / "esxcli-nmp-device-list" / "009-netapp-esxi6-rr-iops1-ao-ano" / "bare.txt", esxcli_devices.read,
     "   Device Display Name: NETAPP Fibre Channel Disk\n(naa.600a098038304731783f506670553355)\n"),
    # ESX 4.1's config without blanks, cut at the margin inside a word: joined without a blank
    (CORPUS / "esxcli-nmp-device-list" / "004-esx41-infortrend-alua-mru-one-path" / "bare.txt", esxcli_devices.read,
     "Storage Array Type Device Config:\n{implicit_support=on;explicit_support=of"),
    # runtime name lists ending in a comma
    (DATA / "esxcli" / "hpp-device-list-esxi7-ovh-sas.txt", esxcli_hpp.read_devices,
     "vmhba2:C0:T72:L0,\nvmhba2:C0:T175:L0\n"),
    # a map's size line cut inside its quoted hardware handler
    (CORPUS / "multipath-ll" / "002-netapp-aff-rocky10-alua-two-groups" / "bare.txt", multipath_ll.read,
     "hwhandler='1\nalua' wp=rw\n"),
    # a subsystem line cut at ` - `, its NQN cut at the margin, a controller's address and states
    (CORPUS / "nvme-list-subsys" / "017-netapp-rocky-tcp-wrapped-src-addr" / "bare.txt", nvme_subsys.read,
     "nvme-subsys5 -\nNQN=nqn.1992-08.com.netapp:sn.0f4ba1e74eb611ef9f50d039eab6cb6d:subsystem.nvm\ne_tcp_3"),
    # powermt's rule, banner, header and path rows past the margin
    (DATA / "powerpath" / "001-clariion-solaris-failover-mode-1.txt", powermt.read,
     "Q-IOs\nErrors\n"),
], ids=["esxcli-display-name", "esxcli-config-cut-in-a-word", "hpp-path-lists", "multipath-size-line",
        "nvme-nqn-and-controllers", "powermt-table"])
def test_a_listing_wrapped_at_76_columns_reads_as_the_listing(tmp_path: Path, sample: Path, read: Any,
                                                               wraps: str) -> None:
    pasted = _pasted(tmp_path, sample)
    assert wraps in pasted.read_text()  # the wrap this case is about happened
    assert _values(_quiet(read, pasted)) == _values(_quiet(read, sample))


def test_a_joined_line_keeps_its_first_parts_number_and_the_next_lines_theirs(tmp_path: Path) -> None:
    sample = CORPUS / "multipath-ll" / "002-netapp-aff-rocky10-alua-two-groups" / "bare.txt"
    read = _quiet(multipath_ll.read, _pasted(tmp_path, sample))
    assert read["maps"]["props_line"].tolist() == [2]
    assert read["paths"]["line"].tolist()[:2] == [5, 6]  # one line later than in the sample: the size line's rest


def test_a_wrapped_table_the_grammar_cannot_rejoin_is_refused_at_its_line(tmp_path: Path) -> None:
    """`nvme list -v`'s tables are 130 columns wide: a wrap loses their padding, which its columns
    are read by, so no rule joins them."""
    sample = DATA / "linux" / "nvme-list-v_v2_handbuilt-from-nvme-cli-issue1529_powerstore.txt"
    pasted = _pasted(tmp_path, sample)
    with pytest.raises(ScenarioError) as refused:
        _quiet(nvme_subsys.read, pasted)
    file, where, message = refused.value.args
    assert (file, where) == (str(pasted), "line 11")
    assert message.startswith("expected `nvme list -v`'s first header")


def test_a_huge_group_id_in_an_hpp_path_config_is_refused_at_its_line(tmp_path: Path) -> None:
    sample = CORPUS / "esxcli-hpp-path-list" / "001-netapp-esxi7-nvme-fc-two-ao-two-ano" / "bare.txt"
    pasted = tmp_path / "paths.txt"
    pasted.write_text(sample.read_text().replace("TPG_id=0,", "TPG_id=" + "9" * 40 + ",", 1))
    with pytest.raises(ScenarioError) as refused:
        esxcli_hpp.read_paths(pasted)
    assert refused.value.args[1] == "line 6" and refused.value.args[2].startswith("`Path Config`: its group id: 9999")


@pytest.mark.parametrize(("kept", "key", "value"), [
    (-1, "working_paths", ["vmhba4:C0:T0:L82", "vmhba3:C0:T0:L82"]),  # the sample up to its `Working Paths:`
    (None, "others", {"Path Selection Policy Device Custom Config": "", "Is USB": "false"}),  # to its `Is USB:`
])
def test_a_sign_off_after_an_esxcli_listing_is_not_joined_to_its_last_value(tmp_path: Path, kept: int | None,
                                                                            key: str, value: Any) -> None:
    """Words after a short last line had room on it: no wrap moved them, so they are no value's rest."""
    sample = CORPUS / "esxcli-nmp-device-list" / "009-netapp-esxi6-rr-iops1-ao-ano" / "bare.txt"
    lines = sample.read_text().splitlines(keepends=True)
    pasted = tmp_path / "devices.txt"
    pasted.write_text("".join(lines[:kept]) + "Thanks Bob\n")
    assert _quiet(esxcli_devices.read, pasted).iloc[-1][key] == value
