"""multipath-tools' `weightedpath` prioritizer, evaluated on what a listing shows of each path:
the priority multipathd gives a path from the admin's `prio_args`
(`"<hbtl|devname|serial|wwn> <regex1> <prio1> <regex2> <prio2> ..."`, multipath.conf(5)).

As 0.14.3 `libmultipath/prioritizers/weightedpath.c` (`prio_path_weight`) does it:

* the arguments are split on spaces and tabs (`get_next_string`: empty words skipped);
* the first word names what is matched: `hbtl` the path's `H:C:T:L` as `%d:%d:%d:%lu` prints
  it, `devname` its device (`sdb`), `serial` its SCSI serial, `wwn`
  `host_wwnn:host_wwpn:target_wwnn:target_wwpn`; any other word: multipathd logs "Invalid
  arguments" and every path gets `DEFAULT_PRIORITY` 0 (as it does with no arguments);
* then pairs of a POSIX extended regular expression and a priority, tried in order: the first
  whose expression matches (`regexec`, unanchored: `1:0:.:.` matches `11:0:3:4` too) gives
  `atoi` of its priority, and no later one is tried; a pattern `regcomp` refuses is skipped; a
  last pattern without a priority ends the list; no match gives 0.
* A negative priority is a prioritizer error (`discovery.c` `get_prio`: PRIO_UNDEF).

`hbtl` and `devname` are read in `multipath -ll`; a serial and the WWNs are not, so they are
refused with the file that would give them. The expressions are matched with Python's `re`
where POSIX ERE means the same; the constructs where glibc and Python part (a backslash before a
letter, a bracket holding a backslash, collating elements, a repeat after a repeat) are refused,
naming the pattern, rather than matched differently."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: `weightedpath.h` `DEFAULT_PRIORITY`.
DEFAULT_PRIORITY = 0
#: The largest priority the simulation takes (`crates/pathlab-policy/src/dm/weightedpath.rs`
#: `MAX_PRIORITY`: a group's sum of priorities stays within an int).
MAX_PRIORITY = 1_000_000
#: What each first word matches, as weightedpath.c builds it.
SUBJECTS = {"hbtl": "H:C:T:L", "devname": "device name", "serial": "SCSI serial", "wwn": "host and target WWNs"}
#: Where what a listing does not show would be read.
SETTLE = {
    "serial": "`multipathd show paths format \"%d %z\"` (or each path's /sys/block/sdX/device/vpd_pg80)",
    "wwn": "`multipathd show paths format \"%d %N:%R:%n:%r\"` (or /sys/class/fc_host/hostH/{node,port}_name and "
           "/sys/class/fc_transport/targetH:C:T/{node,port}_name)",
}
#: POSIX bracket classes as Python character ranges.
_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "a-zA-Z0-9", "upper": "A-Z", "lower": "a-z",
            "space": r" \t\n\r\f\v", "blank": r" \t", "xdigit": "0-9A-Fa-f", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")}
_REPEATS = "*+?{"


class Unmatchable(ValueError):
    """A pattern or argument weightedpath's C would read in a way Python's `re` does not: the
    message says what and why."""


@dataclass(frozen=True)
class Path:
    """What the listing shows of one path: its H:C:T:L and device name as printed."""

    hctl: str
    devname: str


@dataclass(frozen=True)
class Weight:
    """A path's priority and how weightedpath gave it, in words (`sdb 1:0:0:0 ~ 1:.:.:. → 2`)."""

    priority: int
    how: str


def words(args: str) -> list[str]:
    """`get_next_string` over `prio_args`: split on spaces and tabs, empty words skipped."""
    return [w for w in re.split(r"[ \t]", args) if w]


def atoi(text: str) -> int:
    """C's `atoi`: leading blanks, a sign, the digits that follow; 0 where none do."""
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def weigh(args: str, path: Path) -> Weight:
    """The priority weightedpath gives `path` with these `prio_args` (see the module's note).
    Raises `Unmatchable` where the listing does not give what is matched or the pattern cannot be
    matched as glibc would."""
    given = words(args)
    if not given:
        return Weight(DEFAULT_PRIORITY, "no prio_args: 0")
    kind, rest = given[0], given[1:]
    if kind not in SUBJECTS:
        return Weight(DEFAULT_PRIORITY, f"'{kind}' is not hbtl, devname, serial or wwn: multipathd logs "
                                        "\"Invalid arguments\" and gives 0")
    pairs = [(rest[i], rest[i + 1]) for i in range(0, len(rest) - 1, 2)]
    if not pairs:
        return Weight(DEFAULT_PRIORITY, "no pattern and priority: 0")
    if kind in SETTLE:
        raise Unmatchable(f"weightedpath matches the paths' {SUBJECTS[kind]}, which the listing does not show; "
                          f"{SETTLE[kind]} would give them")
    subject = path.hctl if kind == "hbtl" else path.devname
    skipped = []
    for pattern, prio in pairs:
        python = python_pattern(pattern)
        if python is None:
            skipped.append(pattern)
            continue
        if re.search(python, subject):
            value = atoi(prio)
            if value < 0:
                raise Unmatchable(f"{subject} matches '{pattern}' first, whose priority {prio} is negative: a "
                                  "prioritizer error (discovery.c get_prio), not simulated")
            if value > MAX_PRIORITY:
                raise Unmatchable(f"{subject} matches '{pattern}' first, whose priority {prio} is over the "
                                  f"{MAX_PRIORITY:,} pathlab simulates")
            return Weight(value, f"{path.devname} {path.hctl}: {subject} matches '{pattern}' first: {value}"
                          + _skipped(skipped))
    return Weight(DEFAULT_PRIORITY, f"{path.devname} {path.hctl}: no pattern matches {subject}: 0" + _skipped(skipped))


def _skipped(patterns: list[str]) -> str:
    return f" ('{', '.join(patterns)}' skipped: regcomp refuses a repeat with nothing before it)" if patterns else ""


def python_pattern(ere: str) -> str | None:
    """A POSIX extended regular expression as a Python one that matches the same strings; None
    where glibc's `regcomp` refuses it (a repeat with nothing before it: REG_BADRPT), so that
    weightedpath skips it. Raises `Unmatchable` where the two would part."""
    out: list[str] = []
    i, after_atom, after_repeat = 0, False, False
    while i < len(ere):
        c = ere[i]
        if c in _REPEATS:
            if not after_atom:
                return None
            if after_repeat:
                raise Unmatchable(f"'{ere}': a repeat after a repeat, which glibc and Python read differently")
            if c == "{":
                m = re.match(r"\{(\d+)(,(\d*))?\}", ere[i:])
                if m is None:
                    raise Unmatchable(f"'{ere}': a '{{' that is not a count {{m}}, {{m,}} or {{m,n}}")
                out.append(m.group(0))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
            after_repeat = True
            continue
        after_repeat = False
        if c == "\\":
            if i + 1 == len(ere) or ere[i + 1].isalnum() or ere[i + 1] in "<>`'":
                raise Unmatchable(f"'{ere}': '{ere[i:i + 2]}' means one thing to glibc and another to Python")
            out.append(re.escape(ere[i + 1]))
            i += 2
            after_atom = True
        elif c == "[":
            text, i = _bracket(ere, i)
            out.append(text)
            after_atom = True
        elif c in "(|^":
            out.append(c)
            i += 1
            after_atom = False
        else:
            out.append(c if c in ".)$" else re.escape(c))
            i += 1
            after_atom = True
    python = "".join(out)
    try:
        re.compile(python)
    except re.error as e:
        raise Unmatchable(f"'{ere}' is not an expression pathlab can match as glibc would ({e})") from None
    return python


def _bracket(ere: str, start: int) -> tuple[str, int]:
    """The bracket expression at `start` as a Python set, and where it ends."""
    i = start + 1
    out = ["["]
    if i < len(ere) and ere[i] == "^":
        out.append("^")
        i += 1
    first = True
    while i < len(ere):
        c = ere[i]
        if c == "]" and not first:
            out.append("]")
            return "".join(out), i + 1
        first = False
        if ere.startswith("[:", i):
            end = ere.find(":]", i + 2)
            name = ere[i + 2:end] if end > 0 else ""
            if name not in _CLASSES:
                raise Unmatchable(f"'{ere}': the class '[:{name}:]' is not one pathlab reads")
            out.append(_CLASSES[name])
            i = end + 2
            continue
        if ere.startswith(("[.", "[="), i) or c == "\\":
            raise Unmatchable(f"'{ere}': a bracket holding '{c if c == chr(92) else ere[i:i + 2]}', which glibc and "
                              "Python read differently")
        out.append("\\" + c if c in "[]&~|" else c)
        i += 1
    raise Unmatchable(f"'{ere}': a '[' without its ']'")
