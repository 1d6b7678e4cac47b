"""multipath-tools' weightedpath prioritizer on crafted paths: the priorities
`libmultipath/prioritizers/weightedpath.c` (0.14.3) gives them, read from the C: the first
pattern that matches wins, matched unanchored (`regexec`), `atoi` of its priority; no match, no
arguments, or a first word other than hbtl, devname, serial and wwn: `DEFAULT_PRIORITY` 0; a
pattern glibc's `regcomp` refuses (multipath.conf(5)'s own `*:0:0:.`: REG_BADRPT) is skipped."""

from __future__ import annotations

import pytest

from pathlab.importer.weightedpath import Path, Unmatchable, python_pattern, weigh, words

SDA = Path("1:0:0:0", "sda")
SDE = Path("4:0:1:3", "sde")
SDK = Path("11:0:3:4", "sdk")


def priority(args: str, path: Path) -> int:
    return weigh(args, path).priority


def test_the_man_pages_hbtl_example() -> None:
    # multipath.conf(5) and weightedpath.c's header: prio "weightedpath hbtl 1:.:.:. 2 4:.:.:. 4"
    args = "hbtl 1:.:.:. 2 4:.:.:. 4"
    assert [priority(args, p) for p in (SDA, SDE, Path("2:0:0:0", "sdb"))] == [2, 4, 0]


def test_patterns_match_anywhere_in_the_address_and_the_first_match_wins() -> None:
    # regexec without anchors: host 11's 11:0:3:4 contains 1:0:3:4.
    assert priority("hbtl 1:0:.:. 7", SDK) == 7
    assert priority("hbtl ^1:0:.:. 7", SDK) == 0
    assert priority("devname sd[a-e] 10 sda 20", SDA) == 10
    assert weigh("devname sd[a-e] 10 sda 20", SDA).how == "sda 1:0:0:0: sda matches 'sd[a-e]' first: 10"


def test_a_pattern_regcomp_refuses_is_skipped() -> None:
    # The man page's own `*:0:0:.` starts with a repeat: regcomp fails with REG_BADRPT, so the pair is skipped.
    assert python_pattern("*:0:0:.") is None
    assert priority("hbtl *:0:0:. 5", SDA) == 0
    assert priority("hbtl *:0:0:. 5 .:0:0:0 3", SDA) == 3


def test_what_weightedpath_gives_0() -> None:
    assert priority("", SDA) == 0  # no prio_args
    assert priority("wwpn .* 9", SDA) == 0  # not hbtl, devname, serial or wwn: "Invalid arguments"
    assert priority("devname sda", SDA) == 0  # a pattern without its priority ends the list
    assert priority("devname sdb 5", SDA) == 0  # no match
    assert weigh("wwpn .* 9", SDA).how.startswith("'wwpn' is not hbtl, devname, serial or wwn")


def test_arguments_split_on_spaces_and_tabs_and_priorities_read_by_atoi() -> None:
    assert words("hbtl  1:.:.:. 2\t4:.:.:.\t\t4 ") == ["hbtl", "1:.:.:.", "2", "4:.:.:.", "4"]
    assert priority("devname sda 12abc", SDA) == 12
    assert priority("devname sda x", SDA) == 0
    assert priority("devname sda +7", SDA) == 7


def test_what_the_listing_cannot_settle_is_refused_saying_which_file_would() -> None:
    with pytest.raises(Unmatchable, match=r"SCSI serial, which the listing does not show; `multipathd show paths format"):
        weigh("serial .*J1FR.*324 10", SDA)
    with pytest.raises(Unmatchable, match=r"host and target WWNs.*fc_host"):
        weigh("wwn 0x200100e08ba0aea0:.* 10", SDA)
    with pytest.raises(Unmatchable, match=r"negative"):
        weigh("devname sda -3", SDA)
    # Without a pattern nothing is matched, so nothing needs the serial: every path 0.
    assert priority("serial", SDA) == 0


def test_patterns_glibc_and_python_read_differently_are_refused() -> None:
    for pattern in (r"\d", r"[\.]", "a**", "[[.a.]]"):
        with pytest.raises(Unmatchable):
            python_pattern(pattern)
    assert python_pattern("[[:digit:]]+") == "[0-9]+"
    assert priority("hbtl ^[[:digit:]]:0:0:[0-9]$ 6", SDA) == 6
