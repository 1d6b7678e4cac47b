"""Where a value of an imported host comes from (issue 32): `Read` from a file (at a line, the
words there), `Derived` by a named rule from what it used, `Assumed` (the captures do not give
it: the value is a default, and why), `Given` by the user, `Unknown`, or `Own` (the scenario's own
name or reference, no value of the host). Each says itself as the comment `pathlab
import` writes beside the value; code asks the kind (`isinstance(source, Assumed)`), never the
words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Read:
    """Read from `file` (at `line` where the reader kept it, else `at`: another place in it, a
    copied /sys file's path, `map at line 4`): `text` names what the file shows there (a field, a
    counter, the words)."""

    file: str
    line: int | None = None
    text: str = ""
    at: str = ""

    def where(self) -> str:
        return self.file + (f", line {self.line}" if self.line is not None else f", {self.at}" if self.at else "")

    def comment(self) -> str:
        return f"{self.where()}: {self.text}" if self.text else self.where()


@dataclass(frozen=True)
class Listed(Read):
    """A listing's values word for word (the device's `listed` table), for `show` to print back."""

    def comment(self) -> str:
        return f"{self.where()}, as printed: `pathlab show` prints it back"


@dataclass(frozen=True)
class Derived:
    """Derived by a rule: `rule` says it as the scenario's comment does (the rule and what it
    used, in words), `used` the files it used."""

    rule: str
    used: tuple[str, ...] = ()

    def comment(self) -> str:
        return self.rule


@dataclass(frozen=True)
class Assumed:
    """Not in the captures: the value is a default; `why` says what the captures leave out (a
    warning says it too)."""

    why: str = ""

    def comment(self) -> str:
        return f"default: {self.why}" if self.why else "default"


@dataclass(frozen=True)
class Unknown:
    """Not in the captures, and no value assumed for the simulation's sake: `why` says which
    file would give it."""

    why: str

    def comment(self) -> str:
        return self.why


@dataclass(frozen=True)
class Own:
    """Not a value of the host but the scenario's own: a name pathlab gives a table that other
    tables refer to by it (an array, a workload), a reference to another table, the run's
    length. `why` says which; no comment is written beside it (it claims nothing of the host), and
    no output prints `why`: it is for the code's reader, and the library's (`Host.tables`'
    `source(key)`). A name pathlab makes up for the host itself is `Assumed`, said in the file."""

    why: str

    def comment(self) -> str:
        return ""


@dataclass(frozen=True)
class Given:
    """Given by the user, where no file holds it (a cluster's host name from `--host NAME=FILES`
    when no capture names the host): `why` says why the given value is used."""

    why: str

    def comment(self) -> str:
        return f"given: {self.why}"


@dataclass(frozen=True)
class Noted:
    """A source said in words only, read or derived, the words do not tell apart: a scenario's
    comment read back (`from_note`). Gone once it builds its provenance typed."""

    text: str

    def comment(self) -> str:
        return self.text


@dataclass(frozen=True)
class OfHost:
    """One host's provenance of a value a cluster took from it."""

    host: str
    source: Provenance

    def comment(self) -> str:
        said = self.source.comment()
        return f"{self.host}: {said}" if said else ""


Provenance = Read | Derived | Assumed | Unknown | Given | Noted | OfHost | Own


def from_note(note: str) -> Provenance:
    """A source said in words (`default: why`, `derived: …`, or anything else) as a provenance:
    `Assumed`, `Derived` or `Noted`; each says itself in the same words."""
    if note == "default" or note.startswith("default: "):
        return Assumed(note.removeprefix("default").removeprefix(": "))
    if note.startswith("derived: "):
        return Derived(note)
    return Noted(note)
