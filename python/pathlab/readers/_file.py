"""What every capture's text passes (its size, no NUL byte, no number longer than Python reads),
and its lines one at a time for the readers of counters sampled over time (memory bounded by
what they keep, not the file); a listing's whole text is `pasted.read_text`'s."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from pathlab.api import ScenarioError, regular_file

#: The largest listing read. The most ESXi has (4,096 paths, 1,024 devices) print about 5 MiB in
#: `esxcli storage core path list`, its longest listing; `multipath -ll` of 4,096 maps of 4 paths
#: about 2 MiB. A listing is read whole (its sections and blocks are found across the file), at
#: about 25 times its size in memory: a file beyond this is refused before it is read.
MAX_LISTING_BYTES = 16 << 20


def listing_size(path: str | Path) -> None:
    """Refuses a listing larger than `MAX_LISTING_BYTES` in one line (a 200 MB file read whole
    took 3-4 GB)."""
    regular_file(path)
    size = os.stat(path).st_size
    if size > MAX_LISTING_BYTES:
        raise ScenarioError(str(path), "", f"{size / (1 << 20):.0f} MiB is larger than any host's listing: at most "
                                           f"{MAX_LISTING_BYTES >> 20} MiB (ESXi's most paths print about 5 MiB); "
                                           "give the command's output alone")


def without_nul(name: str, number: int, line: str) -> str:
    """The line, refused in one line where it holds a NUL byte: no tool prints one in a listing
    (a binary file, UTF-16 without its byte order mark, or a paste gone wrong), and a NUL read
    into a name ends up in a scenario no TOML reader parses."""
    if "\x00" in line:
        raise ScenarioError(name, f"line {number}", f"a NUL byte at character {line.index(chr(0)) + 1}: no listing "
                                                    "prints one (a binary file, UTF-16 without its byte order mark, "
                                                    "or a paste gone wrong): give the command's output as text")
    return line


def checked_text(name: str, text: str) -> str:
    """A whole file's text, refused at the line of its first NUL byte (`without_nul`) or of its
    first number longer than Python reads (`checked_lines`)."""
    if "\x00" in text:
        at = text.index("\x00")
        start = text.rfind("\n", 0, at) + 1
        without_nul(name, text.count("\n", 0, at) + 1, text[start:text.find("\n", at) % (len(text) + 1)])
    if len(text) > sys.get_int_max_str_digits() > 0:
        checked_lines(name, text.split("\n"))
    return text


def checked_lines(name: str, lines: list[str]) -> None:
    """Refuses the first of a file's lines (numbered from 1) that holds a number longer than Python
    reads (`without_overlong_number`). Only a line longer than that number can: their lengths are
    looked at first (3 ms for a 2 MB listing, where a search of the text took 60)."""
    longest = sys.get_int_max_str_digits()
    if longest and max(map(len, lines), default=0) > longest:
        for number, line in enumerate(lines, start=1):
            without_overlong_number(name, number, line)


def without_overlong_number(name: str, number: int, line: str) -> str:
    """The line, refused in one line where it holds a run of more digits than Python turns into a
    number (`sys.get_int_max_str_digits()`, 4,300 unless set otherwise): no tool prints a number
    that long (a 64-bit counter has 20 digits, a 128-bit identifier 39), and a reader's `int`
    would refuse it with a traceback rather than a line naming the file."""
    if (longest := sys.get_int_max_str_digits()) and len(line) > longest and (m := _overlong(longest).search(line)):
        raise ScenarioError(name, f"line {number}", f"a number of more than {longest:,} digits at character "
                                                    f"{m.start() + 1}: no tool prints one (a 64-bit counter has 20); "
                                                    "give the command's output as it printed it")
    return line


@cache
def _overlong(longest: int) -> re.Pattern[str]:
    """More than `longest` digits in a row, tried once at the start of each run of digits (the
    look-behind): a scan as long as the text, whatever the runs."""
    return re.compile(rf"(?<!\d)\d{{{longest + 1}}}")


def lines_of(path: str | Path) -> Iterator[str]:
    """The file's lines without their ends (LF or CRLF), read one at a time, or a ScenarioError
    naming the file and why it cannot be read."""
    regular_file(path)
    try:
        f = open(path, encoding="utf-8", errors="replace", newline="\n")  # noqa: SIM115
    except OSError as e:
        raise ScenarioError(str(path), "", e.strerror or "cannot be read") from None
    with f:
        for number, raw in enumerate(f, start=1):
            yield without_overlong_number(str(path), number, without_nul(str(path), number, raw.rstrip("\n").rstrip("\r")))
