"""PowerPath's `powermt display dev=all`: read on published samples and as pasted (prompt, CRLF,
mail quoting), refused in one line naming file and line, imported with the policy, owner SP,
failover mode, dead paths, errors and queued I/Os as read, and advised with PowerPath's own
policies and `powermt set` commands."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from conftest import one_error_line, pathlab, quiet
from pathlab.advisor.powerpath_candidates import powerpath_candidates
from pathlab.api import PathlabWarning, Scenario, ScenarioError
from pathlab.importer import import_files
from pathlab.readers import powermt

DATA = Path(__file__).parent / "data" / "powerpath"
CLARIION = DATA / "001-clariion-solaris-failover-mode-1.txt"
SYMMETRIX = DATA / "004-symmetrix-linux-docstring-tabs.bare.txt"


def _read(path: Path) -> list[powermt.Device]:
    with quiet():
        return powermt.read(path)


def _imported(path: Path) -> tuple[dict[str, Any], Any]:
    with quiet():
        done = import_files([str(path)])
    return tomllib.loads(done.text), done


def test_a_clariion_listing_gives_each_device_its_policy_owner_and_paths() -> None:
    devices = _read(CLARIION)
    assert [d.name for d in devices] == ["emcpower23a", "emcpower75a", "emcpower37a", "emcpower43a"]
    d = devices[3]
    assert (d.array_class, d.array_id, d.array_label) == ("CLARiiON", "HK190074900068", "PLADWS002SM")
    assert (d.logical_id, d.logical_label) == ("6006016082E71E00198721BE5B5ADD11", "LUN 290 - redo")
    assert (d.state, d.policy, d.queued) == ("alive", "CLAROpt", 7)
    assert (d.owner_default, d.owner_current, d.failover_mode) == ("SP A", "SP A", 1)
    assert [(p.hba, p.io_path, p.interface, p.mode, p.state, p.queued, p.errors) for p in d.paths] == [
        (3082, "c14t0d73s0", "SP A2", "active", "alive", 3, 0),
        (3083, "c15t0d73s0", "SP B2", "active", "alive", 0, 2),
        (3084, "c16t0d73s0", "SP B0", "active", "alive", 0, 2),
        (3085, "c17t0d73s0", "SP A0", "active", "alive", 4, 0),
    ]


def test_tab_indented_lines_of_a_docstring_are_read() -> None:
    (d,) = _read(SYMMETRIX)
    assert (d.name, d.array_class, d.array_id, d.logical_id, d.policy) == ("emcpowerh", "Symmetrix", "000290101523",
                                                                          "17C6", "SymmOpt")
    assert [(p.hw_path, p.io_path, p.interface) for p in d.paths] == [("qla2xxx", "sdi", "FA 9dB"),
                                                                      ("qla2xxx", "sds", "FA 8dB")]


@pytest.mark.parametrize("form", ["prompt", "crlf", "mail"])
def test_pasted_forms_read_as_the_bare_listing(tmp_path: Path, form: str) -> None:
    text = CLARIION.read_text()
    if form == "prompt":
        text = "[root@sol01 ~]# powermt display dev=all\n" + text + "[root@sol01 ~]# uptime\n 10:01  up 3 days\n"
    elif form == "crlf":
        text = text.replace("\n", "\r\n")
    else:
        text = "On Monday, Ann wrote:\n" + "".join(f"> {line}\n" for line in text.splitlines())
    pasted = tmp_path / "pasted.txt"
    pasted.write_bytes(text.encode())
    read = _read(pasted)
    assert _shape(read) == _shape(_read(CLARIION))
    assert read[0].line == 2 + (form != "crlf")  # lines named as the user's file numbers them


def _shape(devices: list[powermt.Device]) -> list[tuple[Any, ...]]:
    return [(d.name, d.array_id, d.logical_id, d.policy, d.queued, d.owner_current, d.failover_mode,
             [(p.hba, p.io_path, p.interface, p.mode, p.state, p.queued, p.errors) for p in d.paths]) for d in devices]


@pytest.mark.parametrize(("name", "where", "says"), [
    ("002-symmetrix-linux-dead-path-cut.txt", "line 13", "a path row of emcpoweri before its table's"),
    ("003-vnx-linux-alua-dev-emcpowera.txt", "line 1", "before the first `Pseudo name=` line"),
    ("005-vnx-solaris-notes-elided-rows.txt", "line 11", "not a line `powermt display dev=all` prints"),
])
def test_published_listings_that_cannot_be_read_are_refused_at_their_line(name: str, where: str, says: str) -> None:
    with pytest.raises(ScenarioError) as refused:
        _read(DATA / name)
    assert refused.value.args[1] == where and says in refused.value.args[2]


@pytest.mark.parametrize(("change", "where", "says"), [
    (("policy=CLAROpt", "policy=FastPath"), "line 5", "policy=FastPath: not a PowerPath policy"),
    (("active  alive      0      0\n3083", "active  gone       0      0\n3083"), "line 11", "path state 'gone'"),
    (("SP A2     active", "SP A2     passive"), "line 11", "path mode 'passive'"),
    (("Owner: default=SP A, current=SP A       Array failover mode: 1\n", "Owner: SP A\n"), "line 6",
     "not a line `powermt display dev=all` prints"),
])
def test_what_the_format_does_not_hold_is_refused(tmp_path: Path, change: tuple[str, str], where: str,
                                                   says: str) -> None:
    bad = tmp_path / "powermt.txt"
    bad.write_text(CLARIION.read_text().replace(*change, 1))
    with pytest.raises(ScenarioError) as refused:
        _read(bad)
    assert refused.value.args[1] == where and says in refused.value.args[2]


def test_import_keeps_the_owner_sp_the_failover_mode_and_the_queued_ios() -> None:
    scenario, done = _imported(CLARIION)
    (array,) = scenario["arrays"]
    assert (array["vendor"], array["model"], array["symmetric"], array["tpgs"]) == ("DGC", "VRAID", False, False)
    assert array["non_owner_state"] == "standby"  # failover mode 1: PNR, the other SP's paths are passive
    assert {p["name"]: p["controller"] for p in array["ports"]} == {"SP-A2": "SPA", "SP-B2": "SPB", "SP-B0": "SPB",
                                                                    "SP-A0": "SPA"}
    assert [(d["name"], d["lun"], d["owner"], d["policy"]) for d in scenario["devices"]][3] == (
        "emcpower43a", 290, "SPA", {"name": "powerpath", "policy": "adaptive"})
    assert [(w["devices"], w["outstanding"]) for w in scenario["workloads"]] == [(["emcpower43a"], 7)]
    # queued-IOs is one snapshot, no rate: simulated as the load, but no gain is predicted from it.
    assert not done.measured_load and done.stack == "powerpath"
    said = dict(done.warnings)
    assert "policy=CLAROpt: simulated as adaptive" in said["devices.emcpower23a.policy"]
    assert "queued-IOs=0: no I/O queued, taken as idle" in said["workloads.emcpower23a"]
    errors = [f for f in done.findings if "error(s)" in f.title]
    assert len(errors) == 8 and errors[0].evidence.endswith("line 12: Errors 2")
    devices = Scenario.from_text(done.text, "imported").devices
    assert {d.stack for d in devices} == {"esxi"} and {d.policy["policy"] for d in devices} == {"adaptive"}


def test_a_dead_path_is_down_from_the_start_and_said(tmp_path: Path) -> None:
    one = tmp_path / "powermt.txt"
    one.write_text("".join((DATA / "002-symmetrix-linux-dead-path-cut.txt").read_text().splitlines(True)[:10]))
    scenario, done = _imported(one)
    assert scenario["faults"] == [{"kind": "path_down", "at": "0s", "path": "hba1:C0:T0:L1"}]
    assert scenario["arrays"][0]["symmetric"] is True  # no Owner: line
    assert [f.title for f in done.findings] == [
        "emcpowerh: path sds (qla2xxx, FA 8dB) is dead (captured)",
        "emcpowerh: PowerPath counted 1 error(s) on path sds (FA 8dB) (captured)",
        "emcpowerh: one live path: no redundancy left (captured)",
    ]
    assert not done.measured_load  # queued-IOs=0 everywhere: no load shown, an assumed one said
    assert "shows no load" in dict(done.warnings)["workloads"]


def test_policies_pathlab_does_not_simulate_are_refused_naming_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "powermt.txt"
    bad.write_text(SYMMETRIX.read_text().replace("policy=SymmOpt", "policy=StreamIo"))
    done = pathlab("import", str(bad))
    assert one_error_line(done) == (f"pathlab: error: {bad}: line 4: policy=StreamIo: pathlab does not simulate "
                                    "PowerPath's StreamIo policy (it simulates ADaptive, LeastIos, LeastBlocks, "
                                    "RoundRobin, BasicFailover, SymmOpt, CLAROpt, XtremIO)")


def test_an_esxi_listing_names_its_paths_as_esxi_does(tmp_path: Path) -> None:
    """rpowermt's rows as the CLI reference prints them for PowerPath/VE: the vmhba and C:T:L."""
    listing = tmp_path / "rpowermt.txt"
    listing.write_text(
        "Pseudo name=emcpower0\nSymmetrix ID=000195700123\nStandard UID=naa.60000970000195700123533030314146\n"
        "type=Conventional; state=alive; policy=SymmOpt; queued-IOs=2\n" + "=" * 78 + "\n"
        "--------------- Host ---------------   - Stor -  -- I/O Path --   -- Stats ---\n"
        "###  HW Path               I/O Paths    Interf.  Mode     State   Q-IOs Errors\n" + "=" * 78 + "\n"
        "   2 vmhba2                C0:T1:L5     FA 7eA   active   alive       1      0\n"
        "   3 vmhba3                C0:T2:L5     FA 8eA   asb:prox alive       1      0\n")
    scenario, done = _imported(listing)
    assert [a["name"] for a in scenario["host"]["adapters"]] == ["vmhba2", "vmhba3"]
    assert [(f["adapters"], f["targets"]) for f in scenario["fabric"]] == [(["vmhba2"], [1]), (["vmhba3"], [2])]
    (device,) = scenario["devices"]
    assert (device["lun"], device["policy"]) == (5, {"name": "powerpath", "policy": "adaptive", "autostandby": "prox"})
    assert any("asb:prox" in f.title and f.normal for f in done.findings)
    names = [p["path"] for p in Scenario.from_text(done.text, "x").devices[0].status["paths"]]
    assert names == ["vmhba2:C0:T1:L5", "vmhba3:C0:T2:L5"]


def test_advise_offers_powerpaths_own_policies_with_powermt_commands() -> None:
    _, done = _imported(CLARIION)
    devices = Scenario.from_text(done.text, "imported").devices
    offered = {c.label: c for c in powerpath_candidates(devices)}
    # ADaptive is what CLAROpt simulates as; BasicFailover balances nothing
    assert set(offered) == {"powerpath LeastIos", "powerpath LeastBlocks", "powerpath RoundRobin"}
    assert offered["powerpath LeastIos"].commands == ["powermt set policy=li dev=all", "powermt save"]
    assert offered["powerpath LeastBlocks"].overrides["devices.0.policy"] == {"name": "powerpath",
                                                                              "policy": "least_blocks"}


def test_advise_on_an_esxi_host_gives_rpowermt_commands(tmp_path: Path) -> None:
    text = SYMMETRIX.read_text().replace("qla2xxx                   sdi", "vmhba2                 C0:T0:L1")
    listing = tmp_path / "rpowermt.txt"
    listing.write_text(text.replace("qla2xxx                   sds", "vmhba3                 C0:T0:L1"))
    _, done = _imported(listing)
    offered = {c.label: c for c in powerpath_candidates(Scenario.from_text(done.text, "x").devices)}
    assert offered["powerpath LeastIos"].commands == ["rpowermt set policy=li dev=all host=<esxi-host>",
                                                      "rpowermt save host=<esxi-host>"]


def test_an_aix_listing_names_its_adapters_after_their_fscsi_and_keeps_each_lun_on_its_sp() -> None:
    scenario, _ = _imported(DATA / "006-clariion-aix-alua-note.bare.txt")
    assert [a["name"] for a in scenario["host"]["adapters"]] == ["fscsi0", "fscsi2"]
    (array,) = scenario["arrays"]
    assert (array["tpgs"], array.get("non_owner_state")) == (True, None)  # failover mode 4: ALUA, non-optimized
    assert [(f["adapters"], f["ports"]) for f in scenario["fabric"]] == [
        (["fscsi0"], ["CLARiiON-CKM00130902402/SP-B0", "CLARiiON-CKM00130902402/SP-A0"]),
        (["fscsi2"], ["CLARiiON-CKM00130902402/SP-A1", "CLARiiON-CKM00130902402/SP-B1"])]
    assert [(d["name"], d["lun"], d["owner"]) for d in scenario["devices"]] == [("hdiskpower0", 0, "SPA"),
                                                                               ("hdiskpower4", 4, "SPB")]


def test_prose_after_a_fenced_listing_is_left_and_said() -> None:
    """Issue 32: text after the listing's last line is not the tool's: the listing is read as
    the bare one is, and the rest said with its line (as every other reader leaves it)."""
    note = DATA / "006-clariion-aix-alua-note.txt"
    with pytest.warns(PathlabWarning, match=f"{note}: line 32: skipped 1 line\\(s\\) after the `powermt display "
                                            "dev=all` output, from 'To be continued'"):
        read = powermt.read(note)
    assert _shape(read) == _shape(_read(DATA / "006-clariion-aix-alua-note.bare.txt"))
    assert [(d.name, len(d.paths)) for d in read] == [("hdiskpower0", 4), ("hdiskpower4", 4)]


def test_basic_failover_with_unlicensed_paths_is_read_and_imported_as_basic_failover() -> None:
    (d,) = _read(DATA / "007-clariion-solaris-basicfailover-unlic.txt")
    assert (d.policy, d.queued, d.owner_default, d.owner_current, d.failover_mode) == ("BasicFailover", 1, "SP B",
                                                                                       "SP B", None)
    assert [p.mode for p in d.paths] == ["active", "active", "unlic", "unlic"]
    scenario, done = _imported(DATA / "007-clariion-solaris-basicfailover-unlic.txt")
    assert scenario["devices"][0]["policy"] == {"name": "powerpath", "policy": "basic_failover"}
    said = dict(done.warnings)
    assert "no `Array failover mode`" in said["arrays.CLARiiON-C10023500010.non_owner_state"]
    assert "c3t1d0s0 is in mode unlic: simulated as active" in said["devices.emcpower0a.paths"]
    assert [(w["devices"], w["outstanding"]) for w in scenario["workloads"]] == [(["emcpower0a"], 1)]


def test_a_listing_pasted_twice_the_same_is_read_once_and_said(tmp_path: Path) -> None:
    twice = tmp_path / "powermt.txt"
    twice.write_text(SYMMETRIX.read_text() + "\n" + SYMMETRIX.read_text())
    with pytest.warns(PathlabWarning, match=r"line 12: emcpowerh is listed again, the same as at line 1: read once"):
        (d,) = powermt.read(twice)
    assert (d.line, d.policy, [p.line for p in d.paths]) == (1, "SymmOpt", [9, 10])


def test_a_device_listed_twice_differently_is_refused_naming_both_lines(tmp_path: Path) -> None:
    """Two runs pasted together, the policy changed between them: the later listing was kept (a
    warning); which is the host now is not in the file, so it is refused (issue 33's rule)."""
    twice = tmp_path / "powermt.txt"
    later = SYMMETRIX.read_text().replace("policy=SymmOpt", "policy=LeastIos")
    twice.write_text(SYMMETRIX.read_text() + "\n" + later)
    with pytest.raises(ScenarioError) as e:
        powermt.read(twice)
    assert e.value.args[:2] == (str(twice), "line 12")
    assert e.value.args[2].startswith("emcpowerh is listed a second time, differently from line 1 (policy): ")


def test_pathlabs_own_lun_numbers_skip_those_the_listing_gives_the_arrays_other_luns(tmp_path: Path) -> None:
    """The first LUN labelled `[LUN 2]`, the second with no label: pathlab's number for the second
    (its place, 2) was the first's, and the scenario had one LUN where the array has two."""
    listing = tmp_path / "powermt.txt"
    listing.write_text(CLARIION.read_text().replace("[LUN 113]", "[LUN 2]", 1).replace(" [LUN 146]", "", 1))
    scenario, done = _imported(listing)
    assert [(d["name"], d["lun"]) for d in scenario["devices"]] == [
        ("emcpower23a", 2), ("emcpower75a", 3), ("emcpower37a", 280), ("emcpower43a", 290)]
    assert "lun = 3  # pathlab's numbering: the listing gives no LUN number" in done.text


def test_words_a_page_added_after_a_fields_value_are_said_not_read(tmp_path: Path) -> None:
    """A value is read by its own form (a device name, a hexadecimal ID, a number); what follows it
    on the line is no field of powermt's: said on stderr, never read."""
    text = CLARIION.read_text()
    for field, note in (("Pseudo name=emcpower23a", " ? the pseudo device"),
                        ("Logical device ID=6006016082E71E0009B10334FA67DD11 [LUN 113]", "? the LUN's unique ID"),
                        ("queued-IOs=0", "? the device's state")):
        text = text.replace(field, field + note, 1)
    noted = tmp_path / "noted.txt"
    noted.write_text(text)
    with pytest.warns(PathlabWarning) as said:
        read = powermt.read(noted)
    assert _shape(read) == _shape(_read(CLARIION)) and read[0].logical_label == "LUN 113"
    assert [str(w.message).removeprefix(f"{noted}: ") for w in said if "as a note" in str(w.message)] == [
        "line 2: '? the pseudo device' after the value is not `powermt display dev=all`'s: left out as a note",
        "line 4: \"? the LUN's unique ID\" after the value is not `powermt display dev=all`'s: left out as a note",
        "line 5: \"? the device's state\" after the value is not `powermt display dev=all`'s: left out as a note"]


def test_a_hw_path_with_blanks_is_read_by_the_headers_columns(tmp_path: Path) -> None:
    """Linux's powermt prints the HBA's name as its HW path, blanks and all (`QLogic Fibre Channel
    2300`), overflowing its column: the interface starts under the header's `Interf.`."""
    header = "###  HW Path                I/O Paths    Interf.   Mode    State  Q-IOs Errors"
    at = header.index("Interf.")
    rows = ["   2 QLogic Fibre Channel 2300 sdc".ljust(at) + "SP A1     active  alive      0      0",
            "   3 QLogic Fibre Channel 2300 sdg".ljust(at) + "SP B1     active  alive      0      3"]
    listing = tmp_path / "powermt.txt"
    listing.write_text("Pseudo name=emcpowerb\nCLARiiON ID=APM00023500472 [host01]\n"
                       "Logical device ID=600601F0310A00006F80C3D32D69D711 [LUN 12]\n"
                       "state=alive; policy=CLAROpt; priority=0; queued-IOs=0\n"
                       "Owner: default=SP A, current=SP A       Array failover mode: 1\n" + "=" * 78 + "\n"
                       "---------------- Host ---------------   - Stor -   -- I/O Path -  -- Stats ---\n"
                       f"{header}\n" + "=" * 78 + "\n" + "\n".join(rows) + "\n")
    (d,) = _read(listing)
    assert [(p.hba, p.hw_path, p.io_path, p.interface, p.errors) for p in d.paths] == [
        (2, "QLogic Fibre Channel 2300", "sdc", "SP A1", 0), (3, "QLogic Fibre Channel 2300", "sdg", "SP B1", 3)]
