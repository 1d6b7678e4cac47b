"""For tests: a scenario text in the form `pathlab import` writes (`key = value  # where`, one key
a line, an array of inline tables one element a line) read into a host's typed tables, each
literal kept as written (`render()` gives the text back byte for byte) and each comment typed by
its words (`provenance.from_note`): fixtures written as text (a `# default` port service) stand for
an imported host. The importers build their tables typed; nothing in the package reads text back."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from pathlab.importer.host_tables import Element, Elements, Entry, HostTables, Table
from pathlab.importer.provenance import from_note

#: A table's header at the start of a line: `[run]`, `[[devices]]`.
HEADER = re.compile(r"^\[(\[?)([A-Za-z0-9_.-]+)\]\]?\s*$")
#: One part of a dotted key, quoted (dots and all) or bare, and what follows it (`.` or `=`).
KEY_PART = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*([.=])')


def host_tables(text: str) -> HostTables:
    """The text's tables in order; the first holds the keys before any header."""
    out = HostTables()
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        header = HEADER.match(line)
        if header:
            out.tables.append(Table(header.group(2), bool(header.group(1))))
        elif not line.strip() or line.lstrip().startswith("#"):
            out.tables[-1].line(line)
        else:
            value, note = split_comment(line)
            if value.rstrip().endswith("= ["):  # an array one element a line
                key = value.split("=", 1)[0].strip()
                elements = []
                while lines[i + 1].strip() != "]":
                    i += 1
                    element, said = split_comment(lines[i])
                    literal = element.strip().rstrip(",")
                    elements.append(Element(tomllib.loads(f"x = {literal}")["x"], from_note(said) if said else None, literal=literal))
                i += 1
                out.tables[-1].items.append(Elements(key, elements))
            else:
                path, literal = _key_and_literal(value)
                parsed: Any = tomllib.loads(value)
                for part in path:
                    parsed = parsed[part]
                out.tables[-1].items.append(Entry(path, parsed, from_note(note) if note else None, literal))
        i += 1
    return out


def _key_and_literal(line: str) -> tuple[tuple[str, ...], str]:
    """A key line's dotted key (`listed.paths."P1"`) as its parts, and its value as written."""
    parts, at = [], 0
    while True:
        part = KEY_PART.match(line, at)
        assert part is not None, line
        parts.append(json.loads(part.group(1)) if part.group(1).startswith('"') else part.group(1))
        at = part.end()
        if part.group(2) == "=":
            return tuple(parts), line[at:].strip()


def split_comment(line: str) -> tuple[str, str]:
    """(what is before the comment, the comment without `# `) of one line, a key's or an array
    element's: the comment starts at the first `#` before which the line reads as TOML."""
    for match in re.finditer(r"\s*#", line):
        value = line[:match.start()]
        if _reads(value) or _reads(f"x = {value.strip().rstrip(',') or '0'}"):
            return value, line[match.end():].strip()
    return line, ""


def _reads(text: str) -> bool:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    return True
