"""esxcli path, SATP rule, round robin and HPP listings: what the real files say, read back; and
every file that is not the listing refused with a ScenarioError naming the file and the line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pathlab
from conftest import SCENARIOS
from conftest import pathlab as run_pathlab
from pathlab.readers import esxcli_hpp, esxcli_paths, esxcli_rr_config, esxcli_satp_rules

DATA = Path(__file__).parent / "data" / "esxcli"

READERS: dict[str, Callable[[Path], pd.DataFrame]] = {
    "paths": esxcli_paths.read,
    "nmp": esxcli_paths.read_nmp,
    "core": esxcli_paths.read_core,
    "satp rules": esxcli_satp_rules.read,
    "rr config": esxcli_rr_config.read,
    "hpp devices": esxcli_hpp.read_devices,
    "hpp paths": esxcli_hpp.read_paths,
}


def refused(reader: Callable[[Path], pd.DataFrame], path: Path) -> tuple[str, str]:
    """(field, message) of the ScenarioError `reader` raises on `path`, which must name it."""
    with pytest.raises(pathlab.ScenarioError) as e:
        reader(path)
    file, where, message = e.value.args
    assert file == str(path)
    return where, message


def cut(tmp_path: Path, sample: str, lines: int) -> Path:
    """The first `lines` lines of a sample, as a file cut short would be."""
    out = tmp_path / f"cut-{sample}"
    out.write_text("".join((DATA / sample).read_text().splitlines(keepends=True)[:lines]))
    return out


# --- esxcli storage nmp path list ----------------------------------------------------------------

def test_esx40_fixed_alua_paths_give_their_target_port_groups_and_preferred_path() -> None:
    df = esxcli_paths.read_nmp(DATA / "nmp-path-list-esx40-clariion-fixed.txt").set_index("runtime_name")
    assert len(df) == 2 and df.attrs["listing"] == "esxcli storage nmp path list"
    ao, ano = df.loc["vmhba2:C0:T1:L1"], df.loc["vmhba2:C0:T0:L1"]
    assert (ao.group_state, ao.tpg_id, ao.tpg_state, ao.rtp_id, ao.rtp_health) == ("active", 2, "AO", 14, "UP")
    assert (ao.current, ao.preferred) == (True, True)
    assert (ano.group_state, ano.tpg_id, ano.tpg_state, ano.rtp_id) == ("active unoptimized", 1, "ANO", 5)
    assert (ano.current, ano.preferred) == (False, False)
    assert (ao.adapter, ao.channel, ao.target, ao.lun) == ("vmhba2", 0, 1, 1)
    assert df.array_priority.isna().all()  # ESX 4.0 did not print it


def test_esx41_iscsi_paths_give_the_array_priority_and_a_preferred_path_not_in_use() -> None:
    df = esxcli_paths.read(DATA / "nmp-path-list-esx41-vnx-iscsi.txt").set_index("runtime_name")
    assert df.attrs["listing"] == "esxcli storage nmp path list"
    ano = df.loc["vmhba39:C0:T4:L12"]
    assert (ano.tpg_state, ano.array_priority, ano.current, ano.preferred) == ("ANO", 1, False, True)
    ao = df.loc["vmhba39:C0:T2:L12"]
    assert (ao.tpg_state, ao.array_priority, ao.current, ao.preferred) == ("AO", 0, True, False)
    assert ao.path == "iqn.1998-01.com.vmware:host2,iqn.1992-04.com.emc:cx.xxx3301534.a5,t,1-naa.60060xxxx"


def test_an_satp_or_psp_without_path_configuration_leaves_its_columns_empty() -> None:
    (svc,) = esxcli_paths.read_nmp(DATA / "nmp-path-list-esx4-svc-fixed.txt").itertuples()
    assert svc.satp_config == "SATP VMW_SATP_SVC does not support path configuration."
    assert pd.isna(svc.tpg_state) and (svc.current, svc.preferred, svc.lun) == (False, False, 80)
    (rr,) = esxcli_paths.read_nmp(DATA / "nmp-path-list-svc-iscsi-rr.txt").itertuples()  # prompts pasted around it
    assert (rr.tpg_state, rr.rtp_id, rr.runtime_name) == ("ANO", 2432, "vmhba64:C0:T0:L0")
    assert pd.isna(rr.current) and pd.isna(rr.preferred)


def test_what_pathlab_shows_as_paths_reads_back(tmp_path: Path) -> None:
    done = run_pathlab("show", "paths", str(SCENARIOS / "cx4-alua-path-failure.toml"))
    assert done.returncode == 0, done.stderr
    out = tmp_path / "paths.txt"
    out.write_text(done.stdout)
    df = esxcli_paths.read(out)
    assert len(df) == done.stdout.count("Runtime Name:")
    assert set(df.group_state[df.tpg_state == "AO"]) == {"active"}
    assert set(df.group_state[df.tpg_state == "ANO"]) == {"active unoptimized"}


def test_windows_line_ends_and_a_powershell_utf16_capture_read_the_same(tmp_path: Path) -> None:
    sample = DATA / "nmp-path-list-esx41-vnx-iscsi.txt"
    crlf, utf16 = tmp_path / "crlf.txt", tmp_path / "utf16.txt"
    crlf.write_bytes(sample.read_bytes().replace(b"\n", b"\r\n"))
    utf16.write_bytes(sample.read_text().encode("utf-16"))
    expected = esxcli_paths.read_nmp(sample)
    pd.testing.assert_frame_equal(esxcli_paths.read_nmp(crlf), expected)
    pd.testing.assert_frame_equal(esxcli_paths.read_nmp(utf16), expected)


# --- esxcli storage core path list ---------------------------------------------------------------

def test_core_path_list_of_a_sas_disk() -> None:
    (row,) = esxcli_paths.read_core(DATA / "core-path-list-sas-fujitsu.txt").itertuples()
    assert row.uid == "sas.5000000000000000-sas.500000e01947e132-naa.500000e01947e130"
    assert (row.runtime_name, row.device, row.adapter, row.channel, row.target, row.lun) == \
        ("vmhba2:C0:T0:L0", "naa.500000e01947e130", "vmhba2", 0, 0, 0)
    assert (row.plugin, row.state, row.transport, row.max_io_size) == ("NMP", "active", "sas", 4194304)
    assert (row.adapter_identifier, row.target_identifier) == ("sas.5000000000000000", "sas.500000e01947e132")


def test_localcli_output_with_a_colon_after_the_path_name() -> None:
    df = esxcli_paths.read(DATA / "core-path-list-localcli-compellent-iscsi.txt")
    assert df.attrs["listing"] == "esxcli storage core path list"
    (row,) = df.itertuples()
    assert (row.target, row.lun, row.transport, row.max_io_size) == (1, 1, "iscsi", 131072)
    assert row.target_identifier == "00023d000001,iqn.2002-03.com.compellent:5000d3100077102b,t,0"


def test_esxcfg_mpath_puts_adapter_channel_target_and_lun_on_one_line() -> None:
    df = esxcli_paths.read_core(DATA / "esxcfg-mpath-l-esxi5-iscsi.txt")
    assert list(df.runtime_name) == ["vmhba37:C1:T0:L0", "vmhba37:C0:T0:L0"]
    assert list(df.channel) == [1, 0] and set(df.adapter) == {"vmhba37"} and set(df.lun) == {0}
    assert df.uid[0].startswith("iqn.1998-01.com.vmware:esxi2-35bac89b-00023d000002,")
    assert df.max_io_size.isna().all()


# --- esxcli storage nmp satp rule list -----------------------------------------------------------

def test_satp_rules_are_placed_by_the_dashes_under_the_header() -> None:
    df = esxcli_satp_rules.read(DATA / "satp-rule-list-esxi6-handmade.txt")
    assert len(df) == 4 and set(df.rule_group) == {"user"} and set(df.name) == {"VMW_SATP_ALUA"}
    three_par = df[df.vendor == "3PARdata"].iloc[0]
    assert (three_par.model, three_par.claim_options, three_par.default_psp, three_par.psp_options, three_par.iops) \
        == ("VV", "tpgs_on", "VMW_PSP_RR", "iops=1", 1)
    assert three_par.description == "HP3PAR Custom iSCSI/FC/FCoE ALUA Rule"
    petasan = df[df.vendor == "PETASAN"].iloc[0]
    assert (petasan.model, petasan.options) == ("RBD", "enable_action_OnRetryErrors")
    assert df.device.isna().all() and df.driver.isna().all()


def test_esx41_listrules_without_rule_group_or_dashes_is_placed_by_the_header() -> None:
    df = esxcli_satp_rules.read(DATA / "satp-listrules-esx41-handmade.txt").set_index("line")
    assert len(df) == 4 and df.rule_group.isna().all()
    assert (df.loc[2, "vendor"], df.loc[2, "default_psp"], df.loc[2, "claim_options"]) == ("NETAPP", "VMW_PSP_RR", "tpgs_on")
    assert pd.isna(df.loc[2, "model"]) and df.loc[3, "model"] == "2810XIV"
    assert (df.loc[5, "name"], df.loc[5, "model"], df.loc[5, "options"]) == ("VMW_SATP_DEFAULT_AA", "S16E-G1240", "tpgs_on")
    assert pd.isna(df.loc[5, "claim_options"]) and df.loc[4, "description"] == "Any array with ALUA support"


def test_a_table_pasted_with_tabs_is_refused_at_the_line_with_the_tab() -> None:
    path = DATA / "satp-rule-list-grep-tabs.txt"
    assert refused(esxcli_satp_rules.read, path) == \
        ("line 3", "a tab in a table row: the columns cannot be placed (paste the output as esxcli prints it, with spaces)")


def test_a_row_out_of_line_with_the_header_is_refused(tmp_path: Path) -> None:
    lines = (DATA / "satp-rule-list-esxi6-handmade.txt").read_text().splitlines()
    bad = tmp_path / "shifted.txt"
    bad.write_text("\n".join([*lines[:3], "     " + lines[3], *lines[4:]]) + "\n")
    where, message = refused(esxcli_satp_rules.read, bad)
    assert where == "line 4" and "does not line up with the header on line 1" in message


def test_the_satp_list_is_not_the_rule_list() -> None:
    where, message = refused(esxcli_satp_rules.read, DATA / "satp-list-esxi6.txt")
    assert where == "line 2" and "esxcli storage nmp satp list" in message


# --- esxcli storage nmp psp roundrobin deviceconfig get ------------------------------------------

def test_round_robin_config_of_four_devices_from_a_loop() -> None:
    df = esxcli_rr_config.read(DATA / "rr-deviceconfig-get-esxi6-four-devices.txt")
    assert len(df) == 4 and list(df.iops) == [1, 1, 1, 1] and set(df.bytes) == {10485760}
    assert list(df.limit_type) == ["Iops", "Default", "Default", "Iops"]
    assert df.device[3] == "naa.600144f009d4d236000056918f920002" and list(df.line) == [1, 7, 13, 19]
    assert df.latency_eval_ms.isna().all() and df.sampling_ios.isna().all() and not df.use_ano.any()


def test_round_robin_config_of_esxi_67_and_later_has_the_latency_keys() -> None:
    (row,) = esxcli_rr_config.read(DATA / "rr-deviceconfig-get-esxi7-blockbridge.txt").itertuples()
    assert (row.device, row.limit_type, row.iops, row.bytes) == \
        ("naa.60a010a03ff1bb511962194c40626cd1", "Iops", 8, 10485760)
    assert (row.latency_eval_ms, row.sampling_ios, row.use_ano) == (0, 0, False)


# --- esxcli storage hpp device list / path list --------------------------------------------------

def test_hpp_device_with_four_paths() -> None:
    (row,) = esxcli_hpp.read_devices(DATA / "hpp-device-list-esxi7-ovh-sas.txt").itertuples()
    assert (row.device, row.scheme, row.scheme_config, row.current_path) == \
        ("naa.5000cca259203a00", "FIXED", "{preferred=none;}", "vmhba3:C0:T72:L0")
    assert pd.isna(row.preferred)
    assert row.paths == row.working_paths == \
        ["vmhba3:C0:T72:L0", "vmhba3:C0:T175:L0", "vmhba2:C0:T72:L0", "vmhba2:C0:T175:L0"]
    assert (row.is_ssd, row.is_local, row.use_ano) == (False, True, False)


def test_hpp_local_device_with_one_path() -> None:
    (row,) = esxcli_hpp.read_devices(DATA / "hpp-device-list-esxi7-dell-local.txt").itertuples()
    assert (row.device, row.paths, row.working_paths, row.line) == \
        ("naa.6b083fe0db93e50001e28f403bef72df", ["vmhba0:C2:T0:L0"], ["vmhba0:C2:T0:L0"], 2)


def test_hpp_paths() -> None:
    df = esxcli_hpp.read_paths(DATA / "hpp-path-list-handmade.txt")
    assert list(df.target) == [72, 175, 72, 175] and set(df.path_state) == {"active"}
    assert set(df.device) == {"naa.5000cca259203a00"} and list(df.adapter) == ["vmhba3", "vmhba3", "vmhba2", "vmhba2"]


def test_a_device_list_pasted_as_the_path_list_is_refused_where_it_shows() -> None:
    # OVHcloud's guide labels this block `esxcli storage hpp path list`; its keys are the device list's.
    where, message = refused(esxcli_hpp.read_paths, DATA / "hpp-device-list-esxi7-ovh-sas.txt")
    assert where == "line 5" and "`Path Selection Scheme` is printed by `esxcli storage hpp device list`" in message


# --- what is not the listing ---------------------------------------------------------------------

@pytest.mark.parametrize(("reader", "sample", "lines", "where", "missing"), [
    ("nmp", "nmp-path-list-esx40-clariion-fixed.txt", 13, "line 9", "`Storage Array Type Path Config`"),
    ("paths", "nmp-path-list-esx41-vnx-iscsi.txt", 5, "line 1", "`Storage Array Type Path Config`"),
    ("core", "core-path-list-sas-fujitsu.txt", 9, "line 1", "`Plugin`"),
    ("rr config", "rr-deviceconfig-get-esxi7-blockbridge.txt", 3, "line 1", "`Limit Type`"),
    ("rr config", "rr-deviceconfig-get-esxi6-four-devices.txt", 21, "line 19", "`Limit Type`"),
    ("hpp devices", "hpp-device-list-esxi7-dell-local.txt", 5, "line 2", "`Current Path`"),
    ("hpp paths", "hpp-path-list-handmade.txt", 4, "line 1", "`Path State`"),
])
def test_a_block_cut_short_is_refused_at_its_line(tmp_path: Path, reader: str, sample: str, lines: int,
                                                  where: str, missing: str) -> None:
    got_where, message = refused(READERS[reader], cut(tmp_path, sample, lines))
    assert got_where == where and f"has no {missing}" in message and "cut short" in message


def test_a_satp_table_cut_after_its_header_is_refused(tmp_path: Path) -> None:
    assert refused(esxcli_satp_rules.read, cut(tmp_path, "satp-rule-list-esxi6-handmade.txt", 2)) == \
        ("line 1", "a table header but no rule under it")


@pytest.mark.parametrize(("reader", "sample", "where", "listing"), [
    ("nmp", "core-path-list-sas-fujitsu.txt", "line 2", "esxcli storage core path list"),
    ("core", "nmp-path-list-esx40-clariion-fixed.txt", "line 5", "esxcli storage nmp path list"),
    ("paths", "nmp-device-list-alua.txt", "line 3", "esxcli storage nmp device list"),
    ("paths", "rr-deviceconfig-get-esxi6-four-devices.txt", "line 1", "esxcli storage nmp psp roundrobin"),
    ("rr config", "nmp-path-list-esx41-vnx-iscsi.txt", "line 5", "esxcli storage nmp path list"),
    ("hpp devices", "nmp-device-list-alua.txt", "line 3", "esxcli storage nmp device list"),
    ("hpp paths", "hpp-device-list-esxi7-dell-local.txt", "line 4", "esxcli storage hpp device list"),
    ("nmp", "hpp-path-list-handmade.txt", "line 5", "esxcli storage hpp path list"),
    ("satp rules", "nmp-path-list-esx4-svc-fixed.txt", "line 1", "esxcli storage nmp satp rule list"),
    ("satp rules", "rr-deviceconfig-get-esxi7-blockbridge.txt", "line 1", "esxcli storage nmp satp rule list"),
    ("core", "satp-rule-list-esxi6-handmade.txt", "line 1", "esxcli storage nmp satp rule list"),
])
def test_another_listing_is_refused_naming_what_it_is(reader: str, sample: str, where: str, listing: str) -> None:
    got_where, message = refused(READERS[reader], DATA / sample)
    assert got_where == where and listing in message


@pytest.mark.parametrize("reader", READERS)
def test_an_empty_file_is_refused(tmp_path: Path, reader: str) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n")
    where, message = refused(READERS[reader], empty)
    assert where == "line 1" and "empty" in message


@pytest.mark.parametrize(("reader", "where"), [
    ("paths", "line 2"), ("nmp", "line 2"), ("core", "line 2"), ("satp rules", "line 1"),
    ("rr config", "line 2"), ("hpp devices", "line 2"), ("hpp paths", "line 2"),
])
def test_garbage_is_refused_at_its_line(tmp_path: Path, reader: str, where: str) -> None:
    garbage = tmp_path / "garbage.bin"
    garbage.write_bytes(b"\x01\x9f\xff PK\x03\x04 not text\nlorem ipsum dolor sit amet\n\x1b[0m\n")
    assert refused(READERS[reader], garbage)[0] == where
    garbage.write_bytes(b"lorem ipsum\n\x00\x9f\xff PK\x03\x04 not text\n")  # a NUL: at its line, whatever the reader
    assert refused(READERS[reader], garbage) == ("line 2", "a NUL byte at character 1: no listing prints one (a binary "
                                                           "file, UTF-16 without its byte order mark, or a paste gone "
                                                           "wrong): give the command's output as text")


@pytest.mark.parametrize("reader", READERS)
def test_a_missing_file_or_a_folder_is_refused(tmp_path: Path, reader: str) -> None:
    assert refused(READERS[reader], tmp_path / "nope.txt") == ("", "no such file")
    assert refused(READERS[reader], tmp_path)[1] == "is a directory, not a file"


def test_a_wrong_value_is_refused_at_its_line(tmp_path: Path) -> None:
    text = (DATA / "rr-deviceconfig-get-esxi7-blockbridge.txt").read_text().replace("IOOperation Limit: 8",
                                                                                   "IOOperation Limit: eight")
    bad = tmp_path / "rr.txt"
    bad.write_text(text)
    assert refused(esxcli_rr_config.read, bad) == ("line 3", "`IOOperation Limit`: expected a whole number, found 'eight'")
    text = (DATA / "nmp-path-list-esx40-clariion-fixed.txt").read_text().replace("vmhba2:C0:T0:L1", "vmhba2:CO:T0:L1")
    bad.write_text(text)
    where, message = refused(esxcli_paths.read_nmp, bad)
    assert where == "line 10" and "expected a runtime name like vmhba2:C0:T1:L4, found 'vmhba2:CO:T0:L1'" in message


# --- nothing but ScenarioError, whatever the input -----------------------------------------------

SAMPLE_LINES = sorted({line for f in DATA.glob("*.txt") for line in f.read_text().splitlines()})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(
    st.binary(max_size=2000),
    st.text().map(lambda text: text.encode("utf-8", errors="surrogatepass")),
    st.lists(st.sampled_from(SAMPLE_LINES) | st.text(max_size=30), max_size=40)
    .map(lambda lines: "\n".join(lines).encode("utf-8", errors="surrogatepass")),
))
def test_any_text_is_read_or_refused_with_a_scenario_error(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "fuzz.txt"
    path.write_bytes(data)
    for reader in READERS.values():
        try:
            df = reader(path)
        except pathlab.ScenarioError as e:
            file, where, message = e.args
            assert file == str(path) and where.startswith("line ") and message
        else:
            assert len(df) > 0


# --- numbers as pastes mangle them (scripts/paste_harness.py) ------------------------------------

CORPUS = Path(__file__).parent / "data" / "corpus"
HUGE = "9" * 40


def test_a_number_past_64_bits_is_refused_at_its_line_not_a_traceback(tmp_path: Path) -> None:
    """A path's `Array Priority` or TPG id, a device's round robin iops past any 64-bit column
    (the paste harness's huge numbers: pandas' OverflowError, and a TypeError building the
    scenario, each a traceback), and a digit that is no ASCII digit (`²`: `int` refuses it)."""
    from pathlab.readers import esxcli_devices

    paths = (CORPUS / "esxcli-nmp-path-list/002-netapp-fc-two-ao-two-ano/bare.txt").read_text()
    bad = tmp_path / "paths.txt"
    bad.write_text(paths.replace("Array Priority: 0", f"Array Priority: {HUGE}", 1))
    assert refused(esxcli_paths.read, bad) == (
        "line 6", f"`Array Priority`: {HUGE[:24]}… is past the largest whole number read (9,223,372,036,854,775,807): "
                  "not a value the tool prints")
    bad.write_text(paths.replace("TPG_id=1001", f"TPG_id={HUGE}", 1))
    assert refused(esxcli_paths.read, bad)[1].startswith(f"`Storage Array Type Path Config`: TPG_id: {HUGE[:24]}… is past")
    bad.write_text(paths.replace("Array Priority: 0", "Array Priority: ²", 1))
    assert refused(esxcli_paths.read, bad) == ("line 6", "`Array Priority`: expected a whole number, found '²'")
    devices = (CORPUS / "esxcli-nmp-device-list/009-netapp-esxi6-rr-iops1-ao-ano/bare.txt").read_text()
    bad.write_text(devices.replace("iops=1,", f"iops={HUGE},", 1))
    where, message = refused(esxcli_devices.read, bad)
    assert where == "line 6" and message.startswith(f"`Path Selection Policy Device Config`: iops: {HUGE[:24]}… is past")


def test_a_number_past_64_bits_is_refused_naming_its_field_and_past_the_digits_int_reads_at_its_line(tmp_path: Path) -> None:
    """A number of 30 digits (past 64 bits) in a path's `Array Priority`, its runtime name and TPG
    id, and a device's iops, refused naming its field; one of 5,000 digits (past the 4,300 `int`
    reads: its ValueError was a traceback) refused at its line before any field is read
    (`readers/_file.py`, every reader's rule); a run of leading zeros is still its number."""
    from pathlab.readers import esxcli_devices

    paths = (CORPUS / "esxcli-nmp-path-list/002-netapp-fc-two-ao-two-ano/bare.txt").read_text()
    bad = tmp_path / "paths.txt"
    for digits, longest in ((30, "9" * 30), (5_000, "9" * 5_000)):
        for old, new, said in [("Array Priority: 0", f"Array Priority: {longest}", "`Array Priority`: "),
                               ("TPG_id=1001", f"TPG_id={longest}", "`Storage Array Type Path Config`: TPG_id: "),
                               (":T2:", f":T{longest}:", "`Runtime Name`: T: ")]:
            bad.write_text(paths.replace(old, new, 1))
            where, message = refused(esxcli_paths.read, bad)
            if digits == 30:
                assert message.startswith(f"{said}{longest[:24]}… is past the largest whole number"), message
            else:
                line = paths[:paths.index(old)].count("\n") + 1
                assert (where, message[:37]) == (f"line {line}", "a number of more than 4,300 digits at"), message
    bad.write_text(paths.replace("Array Priority: 0", f"Array Priority: {'0' * 4_000}7", 1))
    assert esxcli_paths.read(bad)["array_priority"].iloc[0] == 7
    devices = (CORPUS / "esxcli-nmp-device-list/009-netapp-esxi6-rr-iops1-ao-ano/bare.txt").read_text()
    bad.write_text(devices.replace("iops=1,", f"iops={'9' * 30},", 1))
    assert refused(esxcli_devices.read, bad)[1].startswith(f"`Path Selection Policy Device Config`: iops: {'9' * 24}…")


def test_a_whole_number_no_toml_holds_is_refused_naming_its_field(tmp_path: Path) -> None:
    """The net under every reader: a value past 64 bits reaching the scenario's tables is one line
    naming the field (was the bindings' TypeError, a traceback)."""
    with pytest.raises(pathlab.ScenarioError) as e:
        pathlab.Scenario.from_values({"run": {"duration": "1s"}, "devices": [{"lun": 10**30}]}, "", "host.txt")
    assert e.value.args == ("host.txt", "devices.0.lun",
                            f"{10**30} is beyond a TOML integer (at most 9,223,372,036,854,775,807)")


@pytest.mark.parametrize("listing", ["core-path-list-localcli-compellent-iscsi.txt", "hpp-path-list-handmade.txt"])
def test_a_path_list_pasted_twice_is_read_once_and_one_that_disagrees_refused(tmp_path: Path, listing: str) -> None:
    """As `nmp path list` (tests/test_plain_listing.py) and the device list: a core or hpp path list
    pasted twice the same is read once, said; a path listed again in another state (a moment
    later: a path goes dead with no setting changed) is read as the later listing, said; a path
    listed again on another device (the topology) is refused naming both lines (issue 33)."""
    text = (DATA / listing).read_text().rstrip("\n") + "\n\n"
    once, twice = tmp_path / "once.txt", tmp_path / "paths.txt"
    once.write_text(text)
    twice.write_text(text + text)
    second = text.count("\n") + 1
    with pytest.warns(pathlab.PathlabWarning, match=rf"line {second}: vmhba\S+ is listed again, the same as at line 1"):
        rows = esxcli_paths.read(twice)
    assert rows.drop(columns="line").equals(esxcli_paths.read(once).drop(columns="line"))
    state = "   State: active" if "core" in listing else "   Path State: active"
    twice.write_text(text + text.replace(state, state.replace("active", "dead"), 1))
    moved = "state" if "core" in listing else "group_state, path_state"
    with pytest.warns(pathlab.PathlabWarning, match=rf"line {second}: vmhba\S+ is listed again, with the settings and "
                                                     rf"topology of line 1 and another moment's {moved}: the later"):
        rows = esxcli_paths.read(twice)
    state_column = "state" if "core" in listing else "path_state"
    assert (rows["line"].iloc[0], rows[state_column].iloc[0]) == (second, "dead")
    device = "   Device: naa."
    twice.write_text(text + text.replace(device, "   Device: naa.0", 1))
    with pytest.raises(pathlab.ScenarioError) as e:
        esxcli_paths.read(twice)
    assert e.value.args[1] == f"line {second}"
    assert "is listed a second time, differently from line 1 (device)" in e.value.args[2], e.value.args


def test_an_nmp_path_listed_again_a_moment_later_is_read_as_the_later_listing(tmp_path: Path) -> None:
    """FIXED's `current: yes` is which path carries the I/O at the listing's moment (it moves on a
    failover with no setting changed); `preferred` is the setting. The same path list run twice:
    the later listing taken where only the current path moved, refused where the preferred did."""
    text = (DATA / "nmp-path-list-esx40-clariion-fixed.txt").read_text().rstrip("\n") + "\n\n"
    moved = text.replace("{current: yes; preferred: yes}", "{current: no; preferred: yes}").replace(
        "{current: no; preferred: no}", "{current: yes; preferred: no}", 1)
    twice = tmp_path / "paths.txt"
    twice.write_text(text + moved)
    second = text.count("\n") + 1
    with pytest.warns(pathlab.PathlabWarning, match=rf"line {second}: vmhba2:C0:T1:L1 is listed again, with the "
                                                     r"settings and topology of line 1 and another moment's current, "
                                                     r"psp_config"):
        rows = esxcli_paths.read(twice)
    assert rows.set_index("runtime_name")["current"].to_dict() == {"vmhba2:C0:T1:L1": False, "vmhba2:C0:T0:L1": True}
    twice.write_text(text + text.replace("{current: yes; preferred: yes}", "{current: yes; preferred: no}"))
    with pytest.raises(pathlab.ScenarioError, match=r"differently from line 1 \(preferred, psp_config\)"):
        esxcli_paths.read(twice)
