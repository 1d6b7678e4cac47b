"""An esxcli listing file that is the command's output alone, as esxcli prints it (a host's
`esxcli storage nmp path list > paths.txt`), read from one split of its text.

The pasted-output machinery (`pasted`, `rejoin`, `pasted.between_lines`) reads a listing in four
passes, unwrapping and matching each line, for what a paste may carry around and inside the
output. A file that provably carries none of it is read here instead, into the same blocks and
the same lines (`tests/test_plain_listing.py` checks both ways against that machinery):

- printable ASCII, tabs and LF or CRLF line ends only (no stray bytes to replace, no byte-order
  mark, NUL, terminal colour or lone CR);
- none of `#$%>]` (every prompt has one, so no line is a command line or a prompt: one section,
  no command's output left out), nor `[` (`[stdout]`), `<`, `&` or `*` (markup and bold), nor a
  word starting with `_` (italics);
- blocks, each a name line (one word, starting with a lower-case letter or a digit, not a
  command's name), then one or more lines of a known key (`known`, each a listing's line),
  indented, a colon and blanks (or nothing) after it, each key once; blank lines (empty) between
  the blocks, before the first and after the last.

Then no line carries a mail quote, comment mark or log prefix (none starts with one, none holds
`[stdout]`), no line is an elision, markup or a fence, no line continues the one before (a key
line never does; a name line follows a blank one), and the listing runs from the first name line
to the last key line with only blank lines around it: nothing said on stderr, and the blocks are
the lines as given. Any other file (None here) is read by the full machinery."""

from __future__ import annotations

import re
from collections.abc import Callable, Container
from pathlib import Path

from pathlab.readers._file import checked_lines

#: What a plain listing is made of: printable ASCII and tab, but for a prompt's mark (`#$%>]`),
#: `[` (a test harness's `[stdout]`), markup (`<`, `&`) and bold (`*`). (Checked by deleting
#: them: a regular expression's search of a 4 MB file takes ten times as long.)
_PLAIN_BYTES = bytes(c for c in b"\t\n" + bytes(range(0x20, 0x7F)) if c not in b"#$%>][<&*")
#: An italic word's start (`pasted._ITALIC`: `_` after a blank or at a line's start).
_ITALIC_STARTS = (b" _", b"\t_", b"\n_")
#: The file's start as a plain listing starts: blank lines, a name line, an indented key line.
_STARTS = re.compile(rb"\n*[a-z0-9][^\s]*\n[ \t]+[A-Z][^:\n]*:(?:[ \t]|\n|$)")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")

#: A block as read: its name, the name's line, its last line, each key's value and line.
Stanza = tuple[str, int, int, dict[str, tuple[str, int]]]


def read(path: str | Path, known: Container[str], command: Callable[[str], object]) -> tuple[list[str], list[Stanza]] | None:
    """The file's lines (as an editor numbers them, from 1) and its blocks where it is a plain
    listing of `known` keys (a name line `command` matches is a command pasted without its prompt:
    not plain); None for any other file. The caller has checked its size (`listing_size`)."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None  # the full machinery says why, in its words
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
    if not _STARTS.match(data) or data.translate(None, _PLAIN_BYTES) or any(s in data for s in _ITALIC_STARTS):
        return None
    lines = data.decode("ascii").split("\n")
    del data
    checked_lines(str(path), lines)  # a number longer than Python reads: refused as the full machinery would
    stanzas = _stanzas(lines, known, command)
    return (lines, stanzas) if stanzas else None


def _stanzas(lines: list[str], known: Container[str], command: Callable[[str], object]) -> list[Stanza] | None:
    out: list[Stanza] = []
    fields: dict[str, tuple[str, int]] | None = None  # the block being read (None after a blank line)
    name, first, last = "", 0, 0
    for number, line in enumerate(lines, start=1):
        if not line:
            if fields is not None:
                if not fields:
                    return None  # a name without keys
                out.append((name, first, last, fields))
                fields = None
            continue
        if line[0] in " \t":
            key, colon, rest = line.partition(":")
            key = key.lstrip(" \t")
            if fields is None or not colon or key not in known or key in fields or (rest and rest[0] not in " \t"):
                return None
            fields[key] = (rest.strip(), number)
            last = number
            continue
        if fields is not None or line[0] not in _NAME_START or " " in line or "\t" in line or command(line):
            return None
        name, first, last, fields = line.rstrip(":"), number, number, {}
    if fields is not None:
        if not fields:
            return None
        out.append((name, first, last, fields))
    return out
