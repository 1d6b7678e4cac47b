"""What every capture's text passes (its size, no NUL byte), and its lines one at a time for the
readers of counters sampled over time (memory bounded by what they keep, not the file); a
listing's whole text is `pasted.read_text`'s."""

from __future__ import annotations

import os
from collections.abc import Iterator
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


def whole_without_nul(name: str, text: str) -> str:
    """A whole file's text, refused at the line of its first NUL byte (`without_nul`)."""
    if "\x00" in text:
        at = text.index("\x00")
        start = text.rfind("\n", 0, at) + 1
        without_nul(name, text.count("\n", 0, at) + 1, text[start:text.find("\n", at) % (len(text) + 1)])
    return text


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
            yield without_nul(str(path), number, raw.rstrip("\n").rstrip("\r"))
