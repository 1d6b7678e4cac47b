"""`multipath.conf`, multipath-tools' configuration (research/formats.md §3.2; the syntax of
multipath.conf(5) and the tokenizer of multipath-tools `libmpathutil/parser.c` `alloc_strvec`).

Lines are `section {`, `keyword value` and `}`. A value is one word or one string in double
quotes (`""` in a string is a quote; `#` and `!` in a string are text); outside a string `#` and
`!` start a comment, `{` and `}` are tokens of their own and characters outside ASCII separate
words. Sections: `defaults`, `blacklist` and `blacklist_exceptions` (`devnode`, `wwid`,
`property`, `protocol`, `device { vendor product }`), `devices` (`device { … }`), `multipaths`
(`multipath { … }`) and `overrides` (with `protocol { … }`).

What multipath-tools takes but only warns about is refused here with the file and line, since
the setting it meant is lost: a `{` not on its section's line, data after a `{`, a `}` or a
value (an unquoted value with spaces), an unclosed string, a `}` with nothing open, a section
not closed at the end of the file, an unknown section or subsection, a keyword outside any
section, an attribute where only subsections go, and values outside the grammar of the
attributes this reader types (`failback soon`, `rr_min_io many`, `no_path_retry -1`). Keywords
unknown in their section are kept (old files carry `udev_dir`, `prio_callout` and the like):
`settings` says whether today's multipath-tools knows them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pathlab.api import ScenarioError
from pathlab.readers.pasted import read_text

if TYPE_CHECKING:
    import pandas as pd

SECTIONS = ("defaults", "blacklist", "blacklist_exceptions", "devices", "multipaths", "overrides")
#: The subsections each section holds.
SUBSECTIONS = {"blacklist": ("device",), "blacklist_exceptions": ("device",), "devices": ("device",),
               "multipaths": ("multipath",), "overrides": ("protocol",)}

_SHARED = {
    "path_grouping_policy", "uid_attribute", "getuid_callout", "path_selector", "path_checker", "checker",
    "alias_prefix", "features", "prio", "prio_args", "failback", "rr_weight", "no_path_retry", "rr_min_io",
    "rr_min_io_rq", "flush_on_last_del", "fast_io_fail_tmo", "dev_loss_tmo", "eh_deadline", "user_friendly_names",
    "retain_attached_hw_handler", "detect_prio", "detect_checker", "detect_pgpolicy", "detect_pgpolicy_use_tpg",
    "deferred_remove", "delay_watch_checks", "delay_wait_checks", "san_path_err_threshold",
    "san_path_err_forget_rate", "san_path_err_recovery_time", "marginal_path_err_sample_time",
    "marginal_path_err_rate_threshold", "marginal_path_err_recheck_gap_time", "marginal_path_double_failed_time",
    "skip_kpartx", "purge_disconnected", "max_sectors_kb", "ghost_delay", "all_tg_pt", "recheck_wwid",
}
#: The keywords multipath-tools 0.14 knows in each place (libmultipath/dict.c `init_keywords`).
KEYWORDS: dict[str, frozenset[str]] = {
    "defaults": frozenset(_SHARED | {
        "verbosity", "polling_interval", "max_polling_interval", "reassign_maps", "multipath_dir", "uid_attrs",
        "max_fds", "queue_without_daemon", "checker_timeout", "allow_usb_devices", "pg_timeout", "mode", "uid",
        "gid", "max_retries", "bindings_file", "wwids_file", "prkeys_file", "log_checker_err", "reservation_key",
        "force_sync", "strict_timing", "partition_delimiter", "config_dir", "find_multipaths", "uxsock_timeout",
        "retrigger_tries", "retrigger_delay", "missing_uev_wait_timeout", "disable_changed_wwids", "remove_retries",
        "find_multipaths_timeout", "enable_foreign", "marginal_pathgroups", "auto_resize"}),
    "blacklist": frozenset({"devnode", "wwid", "property", "protocol"}),
    "blacklist_exceptions": frozenset({"devnode", "wwid", "property", "protocol"}),
    "blacklist.device": frozenset({"vendor", "product"}),
    "blacklist_exceptions.device": frozenset({"vendor", "product"}),
    "devices": frozenset(),
    "devices.device": frozenset(_SHARED | {"vendor", "product", "revision", "product_blacklist", "hardware_handler",
                                           "pg_timeout", "vpd_vendor"}),
    "multipaths": frozenset(),
    "multipaths.multipath": frozenset({
        "wwid", "alias", "path_grouping_policy", "path_selector", "prio", "prio_args", "failback", "rr_weight",
        "no_path_retry", "rr_min_io", "rr_min_io_rq", "pg_timeout", "flush_on_last_del", "features", "mode", "uid",
        "gid", "reservation_key", "user_friendly_names", "deferred_remove", "delay_watch_checks",
        "delay_wait_checks", "san_path_err_threshold", "san_path_err_forget_rate", "san_path_err_recovery_time",
        "marginal_path_err_sample_time", "marginal_path_err_rate_threshold", "marginal_path_err_recheck_gap_time",
        "marginal_path_double_failed_time", "skip_kpartx", "purge_disconnected", "max_sectors_kb",
        "ghost_delay"}),
    "overrides": frozenset(_SHARED),
    "overrides.protocol": frozenset({"type", "fast_io_fail_tmo", "dev_loss_tmo", "eh_deadline"}),
}
#: Where only the keywords above may go (multipath-tools ignores the others: the setting is lost).
_CLOSED = {"blacklist", "blacklist_exceptions", "blacklist.device", "blacklist_exceptions.device", "devices",
           "multipaths", "overrides.protocol"}

#: The typed columns of `defaults`, `devices`, `multipaths` and `overrides`, by pandas dtype.
TEXT_COLUMNS = ["path_grouping_policy", "path_selector", "path_checker", "prio", "prio_args", "features",
                "hardware_handler", "failback", "no_path_retry", "rr_weight", "fast_io_fail_tmo", "dev_loss_tmo",
                "eh_deadline", "find_multipaths", "uid_attribute", "getuid_callout", "alias_prefix"]
INT_COLUMNS = ["rr_min_io", "rr_min_io_rq", "polling_interval", "max_polling_interval", "checker_timeout"]
BOOL_COLUMNS = ["user_friendly_names", "detect_prio", "detect_checker", "detect_pgpolicy",
                "retain_attached_hw_handler", "queue_without_daemon", "skip_kpartx", "deferred_remove"]
IDENTITY = {"defaults": [], "devices": ["vendor", "product", "revision", "product_blacklist"],
            "multipaths": ["wwid", "alias"], "overrides": []}
BLACKLIST_COLUMNS = ["kind", "value", "vendor", "product", "line"]
SETTINGS_COLUMNS = ["section", "subsection", "entry", "keyword", "value", "quoted", "known", "line"]

PATH_GROUPING = ("failover", "multibus", "group_by_serial", "group_by_prio", "group_by_node_name", "group_by_tpg")
SELECTORS = ("round-robin", "queue-length", "service-time", "historical-service-time", "io-affinity")
FIND_MULTIPATHS = ("yes", "no", "1", "0", "on", "off", "strict", "greedy", "smart")
_SPACE = " \t\n\r\v\f"
_UINT = re.compile(r"[0-9]{1,10}")


@dataclass
class Token:
    text: str
    quoted: bool


class _Refused(Exception):
    """A line that is not multipath.conf: what was expected."""


def tokens(line: str) -> list[Token]:
    """One line's tokens as `alloc_strvec` cuts them: words, `{`, `}` and quoted strings; a
    comment ends the line."""
    out: list[Token] = []
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in _SPACE or ord(c) > 127:
            i += 1
        elif c in "#!":
            break
        elif c in "{}":
            out.append(Token(c, False))
            i += 1
        elif c == '"':
            text, i = [], i + 1
            while True:
                if i >= n:
                    raise _Refused("a quoted value is not closed: expected a closing `\"` on the same line")
                if line[i] == '"':
                    if line[i + 1:i + 2] == '"':
                        text.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                text.append(line[i])
                i += 1
            out.append(Token("".join(text), True))
        else:
            start = i
            while i < n and line[i] not in _SPACE and ord(line[i]) <= 127 and line[i] not in '#!{}"':
                i += 1
            out.append(Token(line[start:i], False))
    return out


def _count_words(value: str, what: str) -> None:
    """`features` and `hardware_handler`: a count, then that many words (`1 queue_if_no_path`)."""
    words = value.split()
    if not words or not _UINT.fullmatch(words[0]) or int(words[0]) != len(words) - 1:
        raise _Refused(f"{what} {value!r}: expected the number of words that follow, then the words "
                       f"(`0`, `1 queue_if_no_path`, `1 alua`)")


def _check(keyword: str, value: str) -> Any:
    """The typed value of `keyword`, or the text as written; refuses what the grammar excludes."""
    def whole(low: int = 0, words: str = "") -> int:
        if not _UINT.fullmatch(value) or int(value) < low:
            number = f"a whole number of at least {low}" if low else "a whole number"
            raise _Refused(f"{keyword} {value!r}: expected {words + ' or ' if words else ''}{number}")
        return int(value)

    if keyword in INT_COLUMNS:
        return whole(1 if keyword in ("polling_interval", "max_polling_interval", "checker_timeout") else 0)
    if keyword in BOOL_COLUMNS:
        if value not in ("yes", "no", "1", "0"):
            raise _Refused(f"{keyword} {value!r}: expected yes or no")
        return value in ("yes", "1")
    if keyword == "path_grouping_policy" and value not in PATH_GROUPING:
        raise _Refused(f"path_grouping_policy {value!r}: expected one of {', '.join(PATH_GROUPING)}")
    if keyword == "path_selector":
        words = value.split()
        if (len(words) < 2 or words[0] not in SELECTORS or not _UINT.fullmatch(words[1])
                or int(words[1]) != len(words) - 2):
            raise _Refused(f"path_selector {value!r}: expected a selector and its argument count "
                           f"(\"service-time 0\"; selectors: {', '.join(SELECTORS)})")
    if keyword == "failback" and value not in ("manual", "immediate", "followover"):
        whole(words="manual, immediate, followover")
    if keyword == "no_path_retry" and value not in ("fail", "queue"):
        whole(words="fail, queue")
    if keyword == "rr_weight" and value not in ("uniform", "priorities"):
        raise _Refused(f"rr_weight {value!r}: expected uniform or priorities")
    if keyword in ("fast_io_fail_tmo", "eh_deadline") and value != "off":
        whole(words="off")
    if keyword == "dev_loss_tmo" and value != "infinity":
        whole(words="infinity")
    if keyword == "find_multipaths" and value not in FIND_MULTIPATHS:
        raise _Refused(f"find_multipaths {value!r}: expected one of {', '.join(FIND_MULTIPATHS)}")
    if keyword in ("features", "hardware_handler"):
        _count_words(value, keyword)
    return value


@dataclass
class _Block:
    name: str  # `devices`, or `devices.device` for a subsection
    line: int
    row: dict[str, Any] | None  # the table row its attributes fill
    entry: int | None


def _lines(text: str) -> list[str]:
    return [line.split("\0", 1)[0] for line in re.split(r"\r\n|\r|\n", text)]


def read(path: str | Path) -> dict[str, pd.DataFrame]:
    """The file's settings as tables: `defaults` and `overrides` (one row when the section is
    there), `devices` and `multipaths` (one row per subsection), each with the typed attribute
    columns (TEXT_COLUMNS as written, INT_COLUMNS whole numbers, BOOL_COLUMNS yes/no) and the
    line the (sub)section starts on; `blacklist` and `blacklist_exceptions` (one row per entry:
    kind, regex value or device vendor and product, line); and `settings`, every attribute as
    written (section, subsection, entry: the row of its table, keyword, value, quoted, known:
    today's multipath-tools takes the keyword there, line)."""
    import pandas as pd

    name = str(path)
    text = read_text(path)
    rows: dict[str, list[dict[str, Any]]] = {s: [] for s in SECTIONS}
    settings: list[dict[str, Any]] = []
    stack: list[_Block] = []
    for number, line in enumerate(_lines(text), start=1):
        try:
            toks = tokens(line)
            if toks:
                _line(toks, number, stack, rows, settings)
        except _Refused as e:
            raise ScenarioError(name, f"line {number}", str(e)) from None
    if stack:
        block = stack[-1]
        opened = block.name.rsplit(".", 1)[-1]
        raise ScenarioError(name, f"line {block.line}", f"`{opened} {{` is not closed: expected `}}` before the end "
                                                         "of the file (truncated?)")
    _check_patterns(name, settings)
    return _tables(pd, rows, settings)


#: Keywords whose values multipath-tools matches as regular expressions (vendor and product of a
#: `device`, `devnode`, and a blacklist's `wwid`).
PATTERN_KEYWORDS = frozenset({"vendor", "product", "devnode"})


def _check_patterns(name: str, settings: list[dict[str, Any]]) -> None:
    """Refuses a value matched as a regular expression that is not one, naming its line (the
    importer and the findings match them against the host's arrays)."""
    for s in settings:
        patterned = s["keyword"] in PATTERN_KEYWORDS or (s["keyword"] == "wwid" and s["section"].startswith("blacklist"))
        if patterned:
            try:
                re.compile(s["value"])
            except re.error as e:
                raise ScenarioError(name, f"line {s['line']}", f"{s['keyword']} {s['value']!r} is not a regular "
                                                                 f"expression ({e}): multipath-tools matches it as one") from None


def _line(toks: list[Token], number: int, stack: list[_Block], rows: dict[str, list[dict[str, Any]]],
          settings: list[dict[str, Any]]) -> None:
    first = toks[0]
    where = stack[-1].name if stack else ""
    if not first.quoted and first.text == "}":
        if len(toks) > 1:
            raise _Refused(f"expected `}}` alone on its line, found {_shown(toks[1])} after it")
        if not stack:
            raise _Refused("a `}` with no section open")
        stack.pop()
        return
    if first.quoted or first.text == "{":
        raise _Refused(f"expected a keyword at the start of the line, found {_shown(first)}")
    keyword = first.text
    opens = len(toks) > 1 and not toks[1].quoted and toks[1].text == "{"
    allowed = SECTIONS if not stack else SUBSECTIONS.get(where, ())
    if opens or (len(toks) == 1 and keyword in allowed):
        if not opens:
            raise _Refused(f"expected `{{` after `{keyword}` on the same line")
        if len(toks) > 2:
            raise _Refused(f"expected the end of the line after `{keyword} {{`, found {_shown(toks[2])} "
                           "(one attribute per line)")
        if keyword not in allowed:
            raise _Refused(_not_here(keyword, where, allowed))
        stack.append(_open(keyword, where, number, rows))
        return
    if not stack:
        raise _Refused(f"`{keyword}` outside any section: expected a section ({', '.join(SECTIONS)}) "
                       f"and `{{`")
    if where in _CLOSED and keyword not in KEYWORDS[where]:
        raise _Refused(_not_here(keyword, where, tuple(sorted(KEYWORDS[where])) + SUBSECTIONS.get(where, ())))
    if len(toks) == 1:
        raise _Refused(f"`{keyword}` has no value: expected `{keyword} VALUE` on one line")
    value = toks[1]
    if len(toks) > 2:
        hint = "" if value.quoted else f": quote a value with spaces, {keyword} \"{value.text} {toks[2].text}\""
        raise _Refused(f"expected one value after `{keyword}`, found {_shown(toks[2])} after {_shown(value)}{hint}")
    if value.text in ("{", "}") and not value.quoted:
        raise _Refused(f"`{keyword}` takes a value, not `{value.text}`")
    block = stack[-1]
    column = "path_checker" if keyword == "checker" else keyword
    typed = _check(column, value.text)
    section, _, subsection = block.name.partition(".")
    settings.append({"section": section, "subsection": subsection or None, "entry": block.entry,
                     "keyword": keyword, "value": value.text, "quoted": value.quoted,
                     "known": keyword in KEYWORDS[block.name], "line": number})
    if section in ("blacklist", "blacklist_exceptions") and not subsection:
        rows[section].append({"kind": keyword, "value": value.text, "vendor": None, "product": None, "line": number})
    elif block.row is not None and column in block.row:
        block.row[column] = typed


def _open(keyword: str, where: str, number: int, rows: dict[str, list[dict[str, Any]]]) -> _Block:
    if not where:
        if keyword in ("defaults", "overrides"):
            if not rows[keyword]:
                rows[keyword].append(_row(keyword, number))
            return _Block(keyword, number, rows[keyword][0], None)
        return _Block(keyword, number, None, None)
    name = f"{where}.{keyword}"
    if where in ("blacklist", "blacklist_exceptions"):
        row = {"kind": "device", "value": None, "vendor": None, "product": None, "line": number}
        rows[where].append(row)
        return _Block(name, number, row, len(rows[where]) - 1)
    if where == "overrides":  # protocol subsections: in `settings` only
        return _Block(name, number, None, None)
    rows[where].append(_row(where, number))
    return _Block(name, number, rows[where][-1], len(rows[where]) - 1)


def _row(section: str, number: int) -> dict[str, Any]:
    return {c: None for c in IDENTITY[section] + TEXT_COLUMNS + INT_COLUMNS + BOOL_COLUMNS} | {"line": number}


def _not_here(keyword: str, where: str, allowed: tuple[str, ...]) -> str:
    place = f"in `{where.replace('.', ' ')}`" if where else "at the top level"
    if not allowed:
        return f"`{keyword} {{` is not allowed {place}: no subsection goes there"
    return f"`{keyword}` is not allowed {place}: expected {', '.join(allowed)}"


def _shown(token: Token) -> str:
    return f'"{token.text}"' if token.quoted else f"`{token.text}`"


def _tables(pd: Any, rows: dict[str, list[dict[str, Any]]],
            settings: list[dict[str, Any]]) -> dict[str, pd.DataFrame]:
    out = {}
    for section in ("defaults", "devices", "multipaths", "overrides"):
        columns = IDENTITY[section] + TEXT_COLUMNS + INT_COLUMNS + BOOL_COLUMNS + ["line"]
        dtypes = ({c: "string" for c in IDENTITY[section] + TEXT_COLUMNS} | {c: "Int64" for c in INT_COLUMNS}
                  | {c: "boolean" for c in BOOL_COLUMNS} | {"line": "Int64"})
        out[section] = pd.DataFrame(rows[section], columns=columns).astype(dtypes)
    for section in ("blacklist", "blacklist_exceptions"):
        out[section] = pd.DataFrame(rows[section], columns=BLACKLIST_COLUMNS).astype(
            {c: "string" for c in BLACKLIST_COLUMNS[:-1]} | {"line": "Int64"})
    out["settings"] = pd.DataFrame(settings, columns=SETTINGS_COLUMNS).astype(
        {"section": "string", "subsection": "string", "entry": "Int64", "keyword": "string", "value": "string",
         "quoted": "boolean", "known": "boolean", "line": "Int64"})
    return out
