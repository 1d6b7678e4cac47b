"""The `multipath.conf` reader: the real files of tests/data/linux (sources in its README) read
as they say; broken variants are refused in one line naming the file and the line; random text
never raises anything but ScenarioError."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pathlab
from pathlab.readers import multipath_conf

DATA = Path(__file__).parent / "data" / "linux"
PURE = DATA / "multipath-conf_pure-cbs-ubuntu-post-migration.txt"
NETAPP = DATA / "multipath-conf_netapp-customize-parameters.txt"
NETAPP_BLACKLIST = DATA / "multipath-conf_netapp-exclude-device.txt"
SYNTHETIC = DATA / "multipath-conf_multipath-tools-synthetic.txt"
SYNTHETIC_ON = DATA / "multipath-conf_multipath-tools-synthetic-uncommented.txt"
DEFAULTS = DATA / "multipath-conf_multipath-tools-defaults-uncommented.txt"
SAMPLES = sorted(DATA.glob("multipath-conf_*.txt"))


def row(table: pd.DataFrame, **match: str) -> pd.Series:
    rows = table
    for column, value in match.items():
        rows = rows[rows[column] == value]
    assert len(rows) == 1, (match, len(rows))
    return rows.iloc[0]


def given_values(series: pd.Series) -> dict:
    """The cells the file gave (the others are <NA>)."""
    return {k: v for k, v in series.items() if not pd.isna(v)}


def refused(path: Path) -> pathlab.ScenarioError:
    with pytest.raises(pathlab.ScenarioError) as e:
        multipath_conf.read(path)
    assert e.value.args[0] == str(path), e.value.args
    assert "\n" not in e.value.args[2], "one line"
    return e.value


def write(tmp_path: Path, text: str, name: str = "multipath.conf") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


def test_pure_storage_settings_read_as_the_file_says() -> None:
    t = multipath_conf.read(PURE)
    assert given_values(t["defaults"].iloc[0]) == {"polling_interval": 10, "line": 1}
    assert given_values(t["devices"].iloc[0]) == {
        "vendor": "PURE", "product": "FlashArray", "path_selector": "queue-length 0",
        "path_grouping_policy": "group_by_prio", "path_checker": "tur", "fast_io_fail_tmo": "10",
        "dev_loss_tmo": "60", "no_path_retry": "queue", "hardware_handler": "1 alua", "prio": "alua",
        "failback": "immediate", "line": 5,
    }
    assert len(t["multipaths"]) == len(t["overrides"]) == len(t["blacklist"]) == 0
    s = t["settings"]
    assert list(s["keyword"]) == ["polling_interval", "vendor", "product", "path_selector", "path_grouping_policy",
                                  "path_checker", "fast_io_fail_tmo", "dev_loss_tmo", "no_path_retry",
                                  "hardware_handler", "prio", "failback"]
    assert list(s["quoted"]) == [False, True, True, True] + [False] * 5 + [True, False, False]
    assert list(s["line"]) == [2] + list(range(6, 17)) and s["known"].all()
    assert list(s["entry"].astype("object").fillna(-1)) == [-1] + [0] * 11
    assert t["devices"].dtypes["polling_interval"] == "Int64" and t["devices"].dtypes["detect_prio"] == "boolean"


def test_netapp_overrides_and_blacklist_read_as_the_files_say() -> None:
    t = multipath_conf.read(NETAPP)
    assert given_values(t["defaults"].iloc[0]) == {"path_checker": "readsector0", "no_path_retry": "fail", "line": 1}
    assert given_values(t["devices"].iloc[0]) == {"vendor": "NETAPP", "product": "LUN", "no_path_retry": "queue",
                                                  "path_checker": "tur", "line": 7}
    b = multipath_conf.read(NETAPP_BLACKLIST)["blacklist"]
    assert list(zip(b["kind"], b["value"], b["line"])) == [
        ("wwid", "360030057024d0730239134810c0cb833", 2),
        ("devnode", "^(ram|raw|loop|fd|md|dm-|sr|scd|st)[0-9]*", 3),
        ("devnode", "^hd[a-z]", 4), ("devnode", "^cciss.*", 5),
    ]


def test_the_commented_template_is_empty_and_uncommented_it_has_every_section() -> None:
    assert all(len(table) == 0 for table in multipath_conf.read(SYNTHETIC).values())
    t = multipath_conf.read(SYNTHETIC_ON)
    d = t["defaults"].iloc[0]
    assert (d["polling_interval"], d["path_selector"], d["path_grouping_policy"], d["prio"], d["rr_min_io"],
            d["failback"], d["no_path_retry"], d["user_friendly_names"], d["queue_without_daemon"]) == (
        10, "round-robin 0", "multibus", "const", 100, "immediate", "fail", False, False)
    assert d["getuid_callout"] == "/lib/udev/scsi_id --whitelisted --device=/dev/%n"
    b = t["blacklist"]
    assert list(b["kind"]) == ["wwid", "devnode", "devnode", "device"]
    assert (b.iloc[2]["value"], b.iloc[3]["vendor"], b.iloc[3]["product"]) == ("^hd[a-z][[0-9]*]", "DEC.*", "MSA[15]00")
    assert list(t["blacklist_exceptions"]["value"]) == ["^dasd[c-d]+[0-9]*", "IBM.75000000092461.4d00.34"]
    m = t["multipaths"]
    assert list(m["alias"]) == ["yellow", "red"] and list(m["wwid"]) == ["3600508b4000156d700012000000b0000",
                                                                        "1DEC_____321816758474"]
    assert (m.iloc[0]["no_path_retry"], m.iloc[0]["rr_weight"], m.iloc[0]["failback"]) == ("5", "priorities", "manual")
    dev = t["devices"]
    assert list(dev["vendor"]) == ["COMPAQ  ", "COMPAQ  "], "quoted values keep their spaces"
    assert list(dev["product"]) == ["HSV110 (C)COMPAQ", "MSA1000         "]
    assert (dev.iloc[0]["failback"], dev.iloc[0]["hardware_handler"], dev.iloc[0]["product_blacklist"]) == (
        "15", "0", "LUNZ")
    assert t["overrides"].iloc[0]["no_path_retry"] == "fail"
    unknown = t["settings"][~t["settings"]["known"]]
    assert list(unknown["keyword"]) == ["udev_dir"] and list(unknown["line"]) == [6]


def test_the_built_in_hardware_table_reads_every_array() -> None:
    t = multipath_conf.read(DEFAULTS)
    dev = t["devices"]
    assert len(dev) == 73 and t["settings"]["known"].all()
    d = t["defaults"].iloc[0]
    assert (d["path_selector"], d["path_grouping_policy"], d["uid_attribute"], d["prio_args"], d["rr_min_io_rq"],
            d["fast_io_fail_tmo"], d["detect_prio"]) == ("service-time 0", "failover", "ID_SERIAL", "", 1, "5", False)
    dgc = row(dev, vendor="DGC")
    assert given_values(dgc) == {
        "vendor": "DGC", "product": ".*", "product_blacklist": "LUNZ", "path_grouping_policy": "group_by_prio",
        "path_checker": "emc_clariion", "features": "1 queue_if_no_path", "hardware_handler": "1 emc",
        "prio": "emc", "failback": "immediate", "rr_weight": "uniform", "no_path_retry": "60",
        "retain_attached_hw_handler": True, "detect_prio": True, "line": 255,
    }
    netapp = row(dev, vendor="NETAPP")
    assert (netapp["features"], netapp["prio"], netapp["rr_min_io"], netapp["dev_loss_tmo"]) == (
        "3 queue_if_no_path pg_init_retries 50", "ontap", 128, "infinity")
    pure = row(dev, vendor="PURE")
    assert pd.isna(pure["product"]) and (pure["features"], pure["no_path_retry"], pure["path_selector"]) == (
        "0", "0", "queue-length 0")
    assert row(dev, vendor="EMC", product="SYMMETRIX")["path_grouping_policy"] == "multibus"
    dell = dev[dev["vendor"] == "DELL"]
    assert list(dell["product"]) == ["MD3000", "MD3000i", "MD32xx", "MD32xxi", "MD36xxi", "MD36xxf"]
    assert set(dell["hardware_handler"]) == {"1 rdac"} and set(dell["features"]) == {"2 pg_init_retries 50"}
    assert list(t["blacklist"]["kind"]) == ["devnode"] * 4 + ["device"] * 9
    assert list(t["blacklist_exceptions"]["value"]) == ["(SCSI_IDENT_.*|ID_WWN)"]
    assert len(t["multipaths"]) == 0 and len(t["overrides"]) == 1 and t["overrides"]["line"].iloc[0] == 958


def test_quotes_comments_and_spacing_as_multipath_tools_reads_them(tmp_path: Path) -> None:
    text = (
        "# comment\r\n"
        "  ! another comment\r\n"
        "defaults{\r\n"
        '\tuser_friendly_names yes # inline\r\n'
        '\tprio_args "a#b!c ""quoted""" ! trailing\r\n'
        "\tcheckér_timeout\u00a060\r\n"  # a non-ASCII character separates words (checkér: `check`, `r_timeout`)
        "}\r\n"
        "multipaths {\n"
        "  multipath {\n"
        "    wwid 3600a0980\n"
        '    alias ""\n'
        "  }\n"
        "}\n"
        "overrides {\n"
        "  protocol {\n"
        '    type "scsi:fcp"\n'
        "    fast_io_fail_tmo off\n"
        "  }\n"
        "  checker tur\n"
        "}\n"
    )
    path = write(tmp_path, text)
    e = refused(path)  # `check r_timeout 60`: one value too many
    assert e.args[1] == "line 6"
    t = multipath_conf.read(write(tmp_path, text.replace("checkér_timeout", "checker_timeout")))
    d = t["defaults"].iloc[0]
    assert (d["user_friendly_names"], d["prio_args"], d["checker_timeout"]) == (True, 'a#b!c "quoted"', 60)
    assert t["multipaths"].iloc[0]["alias"] == "" and t["multipaths"].iloc[0]["wwid"] == "3600a0980"
    assert t["overrides"].iloc[0]["path_checker"] == "tur"
    protocol = t["settings"][t["settings"]["subsection"] == "protocol"]
    assert list(zip(protocol["keyword"], protocol["value"])) == [("type", "scsi:fcp"), ("fast_io_fail_tmo", "off")]


BROKEN = [
    ("devices {\n  device {\n    vendor NETAPP\n", "line 2", "`device {` is not closed"),
    ("defaults {\n}\n}\n", "line 3", "a `}` with no section open"),
    ("defaults\n{\n}\n", "line 1", "expected `{` after `defaults` on the same line"),
    ("device {\n}\n", "line 1", "`device` is not allowed at the top level: expected defaults, blacklist"),
    ("default {\n}\n", "line 1", "`default` is not allowed at the top level"),
    ("devices {\n  multipath {\n  }\n}\n", "line 2", "`multipath` is not allowed in `devices`: expected device"),
    ("defaults {\n  device {\n", "line 2", "`device {` is not allowed in `defaults`: no subsection goes there"),
    ("polling_interval 5\n", "line 1", "`polling_interval` outside any section"),
    ('devices {\n  device {\n    vendor "NETAPP\n', "line 3", "a quoted value is not closed"),
    ("defaults {\n  path_selector round-robin 0\n}\n", "line 2",
     'expected one value after `path_selector`, found `0` after `round-robin`: quote a value with spaces, '
     'path_selector "round-robin 0"'),
    ("devices { device {\n}\n}\n", "line 1", "expected the end of the line after `devices {`"),
    ('devices {\n  device { vendor "X" }\n}\n', "line 2", "expected the end of the line after `device {`"),
    ("defaults {\n} }\n", "line 2", "expected `}` alone on its line"),
    ("defaults {\n  failback soon\n}\n", "line 2", "failback 'soon': expected manual, immediate, followover or a whole number"),
    ("defaults {\n  no_path_retry -1\n}\n", "line 2", "no_path_retry '-1': expected fail, queue or a whole number"),
    ("defaults {\n  rr_min_io many\n}\n", "line 2", "rr_min_io 'many': expected a whole number"),
    ("defaults {\n  polling_interval 0\n}\n", "line 2", "polling_interval '0': expected a whole number of at least 1"),
    ("defaults {\n  user_friendly_names maybe\n}\n", "line 2", "user_friendly_names 'maybe': expected yes or no"),
    ("defaults {\n  path_grouping_policy group_by_magic\n}\n", "line 2", "expected one of failover, multibus"),
    ('defaults {\n  path_selector "service-time"\n}\n', "line 2", "expected a selector and its argument count"),
    ('defaults {\n  path_selector "fastest 0"\n}\n', "line 2", "expected a selector and its argument count"),
    ('defaults {\n  features "2 queue_if_no_path"\n}\n', "line 2", "expected the number of words that follow"),
    ('devices {\n  device {\n    hardware_handler "alua"\n', "line 3", "hardware_handler 'alua'"),
    ("defaults {\n  dev_loss_tmo forever\n}\n", "line 2", "dev_loss_tmo 'forever': expected infinity or a whole number"),
    ("defaults {\n  find_multipaths sometimes\n}\n", "line 2", "find_multipaths 'sometimes'"),
    ("defaults {\n  rr_weight heavy\n}\n", "line 2", "rr_weight 'heavy'"),
    ("devices {\n  device {\n    vendor\n", "line 3", "`vendor` has no value"),
    ("devices {\n  device {\n    vendor }\n", "line 3", "`vendor` takes a value, not `}`"),
    ('blacklist {\n  vendor "X"\n}\n', "line 2", "`vendor` is not allowed in `blacklist`: expected devnode"),
    ('blacklist_exceptions {\n  device {\n    revision "1"\n', "line 3",
     "`revision` is not allowed in `blacklist_exceptions device`: expected product, vendor"),
    ("devices {\n  vendor NETAPP\n}\n", "line 2", "`vendor` is not allowed in `devices`: expected device"),
    ("overrides {\n  protocol {\n    no_path_retry 5\n", "line 3", "`no_path_retry` is not allowed"),
    ('defaults {\n  "verbosity" 2\n}\n', "line 2", 'expected a keyword at the start of the line, found "verbosity"'),
    ("defaults {\n  { 2\n}\n", "line 2", "expected a keyword at the start of the line, found `{`"),
    ('devices {\n  device {\n    vendor "*NETAPP"\n  }\n}\n', "line 3", "vendor '*NETAPP' is not a regular expression"),
    ('blacklist {\n  devnode "^(ram|loop"\n}\n', "line 2", "devnode '^(ram|loop' is not a regular expression"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "where", "message"), BROKEN)
def test_broken_files_are_refused_in_one_line_with_the_file_and_line(tmp_path: Path, text: str, where: str,
                                                                     message: str) -> None:
    e = refused(write(tmp_path, text))
    assert e.args[1] == where and message in e.args[2], e.args


def test_a_truncated_sample_is_refused_at_the_section_left_open(tmp_path: Path) -> None:
    lines = PURE.read_text().split("\n")
    e = refused(write(tmp_path, "\n".join(lines[:10]) + "\n"))
    assert e.args[1] == "line 5" and "`device {` is not closed" in e.args[2]
    e = refused(write(tmp_path, "\n".join(lines[:17]) + "\n"))
    assert e.args[1] == "line 4" and "`devices {` is not closed" in e.args[2]


def test_a_missing_file_or_a_directory_is_refused(tmp_path: Path) -> None:
    for path in (tmp_path / "nothing.conf", tmp_path):
        e = refused(path)
        assert e.args[1] == ""


def test_a_byte_order_mark_is_read_as_every_listing_reads_it(tmp_path: Path) -> None:
    """multipath.conf is read by the one function every listing is read with (`pasted.read_text`;
    its own copy read UTF-16 as a NUL byte and kept a UTF-8 byte order mark in its first line)."""
    text = PURE.read_text()
    plain = multipath_conf.read(PURE)["settings"]
    for encoded in (text.encode("utf-16"), b"\xef\xbb\xbf" + text.encode()):
        (tmp_path / "multipath.conf").write_bytes(encoded)
        assert multipath_conf.read(tmp_path / "multipath.conf")["settings"].equals(plain)


def test_an_empty_file_is_an_empty_configuration(tmp_path: Path) -> None:
    t = multipath_conf.read(write(tmp_path, ""))
    assert set(t) == {"defaults", "blacklist", "blacklist_exceptions", "devices", "multipaths", "overrides", "settings"}
    assert all(len(table) == 0 for table in t.values())


# ---------------------------------------------------------------------------------------------
# Random text: read or refused with a ScenarioError, nothing else.

TEXT = st.text(alphabet=st.sampled_from(list('{}"#! \t\n\r\\abcdefgilnoprstuvwy0123456789_-é\x00')), max_size=300)
SAMPLE_LINES = st.sampled_from([line for path in SAMPLES for line in path.read_text().split("\n")])


def read_or_refuse(text: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "multipath.conf"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            tables = multipath_conf.read(path)
        except pathlab.ScenarioError as e:
            assert e.args[0] == str(path) and e.args[1].startswith("line ") and "\n" not in e.args[2]
            return
        assert all(isinstance(t, pd.DataFrame) for t in tables.values())


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(max_size=300), TEXT))
def test_random_text_is_read_or_refused_with_a_scenario_error(text: str) -> None:
    read_or_refuse(text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(SAMPLE_LINES, max_size=30))
def test_shuffled_and_cut_sample_lines_are_read_or_refused(lines: list[str]) -> None:
    read_or_refuse("\n".join(lines))
