"""`nvme id-ctrl` read as nvme-cli prints it (text and JSON), each controller's ANATT tied to its
subsystem and controller in the host's `nvme list-subsys`, and what does not match refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

import pathlab
from conftest import ROOT
from pathlab.api import ScenarioError
from pathlab.importer.kinds import kind_of
from pathlab.readers import nvme_id_ctrl

LISTING = str(ROOT / "tests/data/corpus/nvme-list-subsys/009-netapp-rocky10-tcp-two-subnets/bare.txt")
TWO = str(ROOT / "tests/data/nvme-id-ctrl/two-controllers.txt")
JSON = str(ROOT / "tests/data/nvme-id-ctrl/one-controller.json")
NQN = "nqn.1992-08.com.netapp:sn.64e65e6caae711ef9668d039ea951c46:subsystem.nvme4"


def test_text_and_json_are_read_with_each_fields_line() -> None:
    first, second = nvme_id_ctrl.read(TWO)
    assert (first.controller, first.command_line, second.controller, second.command_line) == ("nvme53", 1, "nvme4", 90)
    assert (first.anatt.value, first.anatt.line, first.kas.value if first.kas else None) == (10, 56, 100)
    assert (first.cntlid.value if first.cntlid else None, second.cntlid.value if second.cntlid else None) == (1, 2)
    assert (first.subnqn.value, first.subnqn.line) == (NQN, 81)
    (one,) = nvme_id_ctrl.read(JSON)
    assert (one.controller, one.anatt.value, one.anatt.line, one.cntlid.value if one.cntlid else None) == \
        ("nvme151", 20, 15, 3)
    assert one.reports_change() and kind_of(TWO).name == kind_of(JSON).name == "nvme-id-ctrl"


def test_ctratt_is_read_in_hex_and_json_and_its_tbkas_bit_told(tmp_path: Path) -> None:
    """nvme-cli prints `ctratt    : %#x` (`0` for zero, 1.7 to 2.x) and JSON's `"ctratt"` as a
    decimal; bit 6 is TBKAS (traffic-based keep-alive). Linux's own target sets 0x41."""
    first, second = nvme_id_ctrl.read(TWO)
    assert (first.ctratt, first.traffic_based_keep_alive()) == (nvme_id_ctrl.Field(0, 17), False)
    assert second.ctratt == nvme_id_ctrl.Field(0, 106)
    text = tmp_path / "nvmet.txt"
    text.write_text(f"ctratt    : 0x41\nanatt     : 10\nsubnqn    : {NQN}\n")
    (one,) = nvme_id_ctrl.read(text)
    assert (one.ctratt, one.traffic_based_keep_alive()) == (nvme_id_ctrl.Field(0x41, 1), True)
    (json_one,) = nvme_id_ctrl.read(JSON)
    assert json_one.ctratt is None and json_one.traffic_based_keep_alive() is None  # not printed: not known
    data = tmp_path / "id.json"
    data.write_text('{\n  "ctratt": 64,\n  "anatt": 10,\n  "subnqn": "' + NQN + '"\n}\n')
    (from_json,) = nvme_id_ctrl.read(data)
    assert (from_json.ctratt, from_json.traffic_based_keep_alive()) == (nvme_id_ctrl.Field(64, 2), True)
    text.write_text(f"ctratt    : 41h\nanatt     : 10\nsubnqn    : {NQN}\n")
    with pytest.raises(ScenarioError, match=r"ctratt '41h': nvme-cli prints a hexadecimal number \(0x1\) here") as e:
        nvme_id_ctrl.read(text)
    assert e.value.args[1] == "line 1"


def test_nvme_cli_1x_hex_without_0x_and_an_indented_paste_are_read(tmp_path: Path) -> None:
    """nvme-cli 1.7-1.8 print `cntlid    : 1f` (`%x`); a page may indent the whole output."""
    file = tmp_path / "old.txt"
    file.write_text(f"  cntlid    : 1f\n  kas       : 0\n  anatt     : 30\n  anacap    : 7\n  subnqn    : {NQN}\n")
    (one,) = nvme_id_ctrl.read(file)
    assert (one.controller, one.cntlid.value if one.cntlid else None, one.anatt.value) == (None, 31, 30)
    assert not one.reports_change()  # ANACAP 7: optimized, non-optimized, inaccessible; no change state


def test_the_anatt_is_tied_to_the_listings_subsystem_and_read_with_file_and_line() -> None:
    host = pathlab.import_host(LISTING, TWO)
    assert [(t.setting, t.value, t.scope) for t in host.timers if t.setting in ("anatt", "anacap", "ctratt")] == [
        ("anatt", "10", "nvme53"), ("anacap", "31", "nvme53"), ("anatt", "10", "nvme4"), ("anacap", "31", "nvme4"),
        ("ctratt", "0x0", "nvme53"), ("ctratt", "0x0", "nvme4")]
    assert host.timers[0].where == f"{TWO}, line 56 (nvme53; anacap 31 at line 57)"
    assert host.timers[4].where == f"{TWO}, line 17 (nvme53)"
    assert host.scenario.tables is not None
    (array,) = host.scenario.tables["arrays"]
    assert (array["anatt"], array["traffic_based_keep_alive"]) == ("10s", False)
    assert "traffic_based_keep_alive = false" in host.to_toml()


@pytest.mark.parametrize(("text", "says"), [
    ("# nvme id-ctrl /dev/nvme7\nanatt     : 10\nsubnqn    : {nqn}\n",
     "line 1: nvme7 is not a controller of {nqn} in {listing} (its controllers: nvme102, nvme151, nvme4, nvme53)"),
    ("# nvme id-ctrl /dev/nvme4\nanatt     : 10\nsubnqn    : nqn.2014-08.org.example:other\n",
     "line 1: subnqn nqn.2014-08.org.example:other (line 3) is no subsystem of {listing} (nvme4 is in {nqn}): give "
     "id-ctrl outputs of the same host's controllers"),
])
def test_an_output_of_another_subsystem_or_controller_is_refused_in_one_line(tmp_path: Path, text: str,
                                                                            says: str) -> None:
    file = tmp_path / "id-ctrl.txt"
    file.write_text(text.format(nqn=NQN))
    with pytest.raises(ScenarioError) as refused:
        pathlab.import_host(LISTING, str(file))
    assert refused.value.args == (str(file), says.format(nqn=NQN, listing=LISTING).split(": ", 1)[0],
                                  says.format(nqn=NQN, listing=LISTING).split(": ", 1)[1])


@pytest.mark.parametrize(("text", "field", "says"), [
    ("[root@host ~]# nvme id-ctrl /dev/nvme0n1\nanatt     : 10\n", "line 1", "nvme id-ctrl nvme0n1: a namespace's device names no "
     "controller (its admin command goes to a path the kernel picks); give /dev/nvmeN, the controller"),
    ("anatt     : 256\nsubnqn    : x\n", "line 1", "anatt 256: allowed 0 to 255"),
    ("anatt     : ten\n", "line 1", "anatt 'ten': nvme-cli prints a whole number here"),
    ("kas       : 0\nsubnqn    : x\n", "line 1", "no anatt in this nvme id-ctrl output (nvme-cli prints it from 1.7; "
     "an older one, or a cut output?)"),
    ("anatt     : 10\nsubnqn    :\n", "line 2", "no subnqn in this nvme id-ctrl output: the controller cannot be tied "
     "to a subsystem"),
    ("anatt     : 10\nanatt     : 10\n", "line 2", "a second anatt (first at line 1): one controller per `nvme id-ctrl` "
     "command line"),
    ('{"anatt": -1, "subnqn": "x"}\n', "line 1", "anatt -1: a whole number from 0 to 255"),
])
def test_what_nvme_cli_does_not_print_is_refused_with_its_line(tmp_path: Path, text: str, field: str, says: str) -> None:
    file = tmp_path / "id-ctrl.txt"
    file.write_text(text)
    with pytest.raises(ScenarioError) as refused:
        nvme_id_ctrl.read(file)
    assert refused.value.args == (str(file), field, says)


def test_one_controller_twice_with_another_anatt_is_refused(tmp_path: Path) -> None:
    """Two hosts' nvme53 pasted in one file were read as two controllers of one subsystem (`the
    longest of 10, 30 its controllers report`)."""
    text = Path(TWO).read_text()
    other = text.replace("rocky10", "rocky9").replace("anatt     : 10", "anatt     : 30")
    (tmp_path / "id.txt").write_text(text + other)
    with pytest.raises(ScenarioError, match=r"nvme53 a second time, with another subnqn or anatt \(anatt 30; 10 at line "
                                            r"56\): give one host's outputs per file") as refused:
        nvme_id_ctrl.read(tmp_path / "id.txt")
    assert refused.value.args[1] == "line 179"


def test_a_reply_after_the_json_object_is_said_and_a_json_error_names_its_own_line(tmp_path: Path) -> None:
    """A reply below `-o json` was refused as `Extra data`; with a blank line inside the object,
    a JSON error named a line above its own (the blank lines were not counted)."""
    text = Path(JSON).read_text()
    (tmp_path / "id.json").write_text(text + "\nThanks, any idea?\n")
    with pytest.warns(pathlab.PathlabWarning, match=r"id.json: line 24: skipped 1 line\(s\) after the `nvme id-ctrl -o "
                                                    r"json` object, from 'Thanks, any idea\?'"):
        (one,) = nvme_id_ctrl.read(tmp_path / "id.json")
    assert (one.anatt.value, one.anatt.line) == (20, 15)
    broken = text.replace('  "vid": 4725,\n', '  "vid": 4725,\n\n').replace('"anatt": 20,', '"anatt": 20')
    (tmp_path / "id.json").write_text(broken)
    with pytest.raises(ScenarioError, match="not nvme id-ctrl's JSON: Expecting ','") as refused:
        nvme_id_ctrl.read(tmp_path / "id.json")
    assert refused.value.args[1] == "line 17"  # `"anacap": 31,`, the line after anatt's missing comma


def test_two_json_objects_under_one_command_line_are_refused_as_two_text_outputs_are(tmp_path: Path) -> None:
    """The second controller's object was skipped as a remark after the first (a warning): it is
    refused naming its line, as a second `anatt` in text is."""
    text = Path(JSON).read_text()
    (tmp_path / "id.json").write_text(text + text.split("\n", 1)[1])  # the second object without its command line
    with pytest.raises(ScenarioError) as refused:
        nvme_id_ctrl.read(tmp_path / "id.json")
    assert refused.value.args == (str(tmp_path / "id.json"), "line 23", "a second JSON document (the first at line 2): "
                                  "one controller per `nvme id-ctrl` command line")


def test_a_controller_whose_id_ctrl_failed_is_said_not_dropped(tmp_path: Path) -> None:
    (tmp_path / "id.txt").write_text(Path(TWO).read_text() + "[root@rocky10 ~]# nvme id-ctrl /dev/nvme102\n"
                                     "NVMe status: Invalid Field in Command: A reserved coded value (0x2)\n")
    with pytest.warns(pathlab.PathlabWarning, match=r"id.txt: line 179: nvme id-ctrl of nvme102 printed none of its "
                                                    r"fields \('NVMe status: Invalid Field"):
        assert [o.controller for o in nvme_id_ctrl.read(tmp_path / "id.txt")] == ["nvme53", "nvme4"]


def test_id_ctrl_without_the_listing_is_refused_in_one_line() -> None:
    with pytest.raises(ScenarioError) as refused:
        pathlab.import_host(TWO)
    assert refused.value.args[2].startswith("give one `nvme list-subsys`")


def test_plain_advise_says_what_an_ana_change_would_hold_io_for_from_the_same_stall_rule() -> None:
    """Linux holds the I/O of a namespace with no other path while its controller is live, as
    long as the change lasts: up to ANATT (10 s); past it the 2 × ANATT reset fails nothing."""
    from pathlab.advisor.timer_findings import timer_findings

    host = pathlab.import_host(LISTING, TWO)
    (finding,) = [f for f in timer_findings(host.stack, host.timers, host.scenario.devices) if "ANA change" in f.title]
    assert finding.title == ("An ANA change with no other usable path (the owning controller reboots, its partner's "
                             "groups in the change state) holds I/O for up to 10 s (ANATT), then it continues on the new "
                             "state")
    # both give 10 s: the first in the controllers' order is named
    assert finding.evidence.startswith(f"nvme4: anatt 10 (read at {TWO}, line 145 (nvme4; anacap 31 at line 146)); the "
                                       "longest of the 2 controllers read; held until the change ends")
    assert "a change that outlasts ANATT: held until the change ends (the controller is live: nvme_available_path); " \
           "the controller is reset every 2 × ANATT = 20 s meanwhile, failing nothing" in finding.evidence


def test_no_ana_change_finding_where_the_change_state_is_not_reported(tmp_path: Path) -> None:
    """ANACAP 15 (bit 4 clear): the controllers never report the change state, so ANATT holds nothing."""
    text = Path(TWO).read_text().replace("anacap    : 31", "anacap    : 15")
    (tmp_path / "id.txt").write_text(text)
    from pathlab.advisor.timer_findings import timer_findings

    with pytest.warns(pathlab.PathlabWarning):
        host = pathlab.import_host(LISTING, str(tmp_path / "id.txt"))
    assert not [f for f in timer_findings(host.stack, host.timers, host.scenario.devices) if "ANA change" in f.title]


def test_an_output_without_anacap_says_the_change_state_is_assumed(tmp_path: Path) -> None:
    """No `anacap` line: nothing says whether the change state is reported; it is taken as reported
    (so ANATT is used) and the import says so, naming the line of the ANATT it rests on."""
    lines = Path(TWO).read_text().splitlines(keepends=True)
    (tmp_path / "id.txt").write_text("".join(line for line in lines if not line.lstrip().startswith("anacap")))
    with pytest.warns(pathlab.PathlabWarning) as said:
        host = pathlab.import_host(LISTING, str(tmp_path / "id.txt"))
    assert [t.setting for t in host.timers if t.setting in ("anatt", "ctratt")] == ["anatt", "anatt", "ctratt", "ctratt"]
    assumed = [str(w.message) for w in said if "no anacap printed" in str(w.message)]
    assert len(assumed) == 2 and all("the ANA change state is taken as reported" in m for m in assumed)
    assert any(f"{tmp_path / 'id.txt'}, line 56: nvme53: no anacap printed" in m for m in assumed)
