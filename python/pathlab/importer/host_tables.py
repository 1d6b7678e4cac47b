"""An imported host as typed tables: the scenario's tables in order (`[run]`, `[host]`,
`[[arrays]]`, `[[fabric]]`, `[[devices]]`, `[[workloads]]`, …), each key a Python value with its
provenance (`provenance.py`). One type for every stack: `render()` is what `pathlab import`
writes (each value's comment said by its provenance), `values()` the tables as Python values the
scenario loader takes without text (`Scenario.from_values`), `assumed()` what the captures did not
give; a cluster (`cluster_merge.py`) edits the hosts' tables key by key."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pathlab.importer.provenance import Assumed, Provenance
from pathlab.toml_values import _key, to_toml


@dataclass
class Entry:
    """One key of a table on its line: its dotted key, its value, where the value comes from
    (None: the line carries no comment), and the literal as written where it is not the value's
    own TOML form (a host read back from text keeps its literals byte for byte). A table value
    (a device's `policy`) has a provenance per key in `fields` where its keys come from different
    places, each said on a comment line of its own under the key's line."""

    key: tuple[str, ...]
    value: Any
    source: Provenance | None = None
    literal: str | None = None
    fields: dict[str, Provenance] = field(default_factory=dict)
    #: The line once rendered, kept: an entry is never edited in place (`Table`), so a cluster's
    #: text takes the lines its hosts' imports rendered of the entries the merge left as they are.
    rendered: str | None = field(default=None, init=False, repr=False, compare=False)

    def line(self) -> str:
        if self.rendered is None:
            text = f"{_dotted(self.key)} = {self.literal or to_toml(self.value)}"
            said = self.source.comment() if self.source is not None else ""
            self.rendered = text + (f"  # {said}" if said else "")
        return self.rendered

    def lines(self) -> list[str]:
        return [self.line(), *(f"#   {k}: {p.comment()}" for k, p in self.fields.items())]

    def source_of(self, key: str) -> Provenance | None:
        """Where one key of the value comes from: its own provenance, else the value's; None for
        a key the value does not hold."""
        if not isinstance(self.value, dict) or key not in self.value:
            return None
        return self.fields.get(key, self.source)


def _dotted(key: tuple[str, ...]) -> str:
    """A dotted key as TOML writes it, the parts before its last said once (`listed.paths.` is
    the start of 4,000 keys a host)."""
    head = _HEADS.get(key[:-1])
    if head is None:
        head = _HEADS[key[:-1]] = "".join(f"{_key(k)}." for k in key[:-1])
    return head + _key(key[-1])


#: Each dotted key's parts before its last, as `_dotted` writes them (a few dozen kinds of key).
_HEADS: dict[tuple[str, ...], str] = {}


@dataclass
class Idle:
    """A device the captures show idle, for which no workload is written: the line the scenario
    carries instead, and why (the capture that measured it idle, or the rule that takes a device
    a capture leaves out as idle)."""

    device: str
    source: Provenance

    def line(self) -> str:
        return f"# {self.device}: no workload: idle, {self.source.comment()}"


@dataclass
class Element:
    """One element of an array written one element a line: its value, where it comes from, and
    where each of its fields comes from where that is not the element's own source (a default
    queue depth in an adapter the listing names)."""

    value: Any
    source: Provenance | None
    fields: dict[str, Provenance] = field(default_factory=dict)
    literal: str | None = None

    def comment(self) -> str:
        said = [c for c in [self.source.comment() if self.source is not None else ""] if c]
        return "; ".join(said + [f"{k} {p.comment()}" for k, p in self.fields.items()])


@dataclass
class Elements:
    """An array of the table written one element a line (`ports = [` … `]`)."""

    key: str
    elements: list[Element]

    @property
    def value(self) -> list[Any]:
        return [e.value for e in self.elements]

    def lines(self) -> list[str]:
        out = [f"{self.key} = ["]
        for e in self.elements:
            note = e.comment()
            out.append(f"  {e.literal or to_toml(e.value)}," + (f"  # {note}" if note else ""))
        return out + ["]"]


#: A line of a table that holds no value: a comment or a blank line, as written, or an idle device.
Item = Entry | Elements | Idle | str


class _Kept:
    """`Table.set`'s default: the key's provenance is kept."""


KEPT = _Kept()


@dataclass
class Table:
    """One table: its kind (`arrays`; None for the keys before the first table), whether it is an
    array of tables (`[[arrays]]`), and its items in order, comments and blank lines included. An
    item is never edited in place (`set` puts a new entry in the old one's place): a copy of the
    tables shares their items (`HostTables.copy`)."""

    kind: str | None
    array: bool = False
    items: list[Item] = field(default_factory=list)

    # Building, a line at a time.
    def key(self, key: str, value: Any, source: Provenance, fields: dict[str, Provenance] | None = None) -> None:
        """Adds `key` with where its value comes from: every value an importer gives says it
        (`Own` for the scenario's own names and references)."""
        self.items.append(Entry(tuple(key.split(".")), value, source, fields=fields or {}))

    def elements(self, key: str, elements: list[Element]) -> None:
        self.items.append(Elements(key, elements))

    def line(self, text: str = "") -> None:
        """A comment (`# …`) or a blank line."""
        self.items.append(text)

    # Reading and editing, a key at a time.
    def idle(self, device: str, source: Provenance) -> None:
        """A device idle in the captures, after a blank line: no workload for it."""
        self.items += ["", Idle(device, source)]

    def entries(self) -> Iterator[Entry | Elements]:
        return (i for i in self.items if isinstance(i, (Entry, Elements)))

    def find(self, key: str) -> Entry | Elements | None:
        if "." not in key:  # a key of one part (`name`, `lun`): the entry's key is that part alone
            alone = (key,)
            return next((i for i in self.items if isinstance(i, Entry) and i.key == alone
                         or isinstance(i, Elements) and i.key == key), None)
        return next((i for i in self.entries() if _name(i) == key), None)

    def get(self, key: str, default: Any = None) -> Any:
        found = self.find(key)
        return default if found is None else found.value

    def source(self, key: str) -> Provenance | None:
        """Where `key`'s value comes from; a dotted key past a table value (`policy.selector`)
        names one of its keys."""
        found = self.find(key)
        if found is None and "." in key:
            head, _, rest = key.partition(".")
            value = self.find(head)
            return value.source_of(rest) if isinstance(value, Entry) else None
        return found.source if isinstance(found, Entry) else None

    def set(self, key: str, value: Any, source: Provenance | _Kept = KEPT, after: str | None = None,
            literal: str | None = None) -> None:
        """Sets `key` to `value` (written `literal` where given), its provenance kept (or replaced
        by `source`); a key not there is added, with its `source` (required), after the key
        `after` (else after the table's last value)."""
        found = self.find(key)
        if isinstance(found, Entry):  # a new entry in its place (`HostTables.copy` shares entries)
            self.replace(found, dataclasses.replace(found, value=value, literal=literal,
                                                    source=found.source if isinstance(source, _Kept) else source))
            return
        if isinstance(source, _Kept):
            raise ValueError(f"{key}: a key added needs its provenance")
        entry = Entry(tuple(key.split(".")), value, source, literal)
        anchor = self.find(after) if after else None
        at = self.items.index(anchor) if anchor is not None else max(
            (j for j, i in enumerate(self.items) if isinstance(i, (Entry, Elements))), default=-1)
        self.items.insert(at + 1, entry)

    def replace(self, old: Item, new: Item) -> None:
        """`new` in the place of the item `old` (that very item, not one equal to it)."""
        self.items[next(j for j, i in enumerate(self.items) if i is old)] = new

    def values(self, listed: bool = True) -> dict[str, Any]:
        """The table as Python values; without its `listed` keys where `listed` is false."""
        out: dict[str, Any] = {}
        for i in self.entries():
            if isinstance(i, Elements):
                out[i.key] = i.value
                continue
            if not listed and i.key[0] == "listed":
                continue
            inner = out
            for part in i.key[:-1]:
                inner = inner.setdefault(part, {})
            inner[i.key[-1]] = i.value
        return out

    def header(self) -> str | None:
        if self.kind is None:
            return None
        return f"[[{self.kind}]]" if self.array else f"[{self.kind}]"

    def lines(self) -> list[str]:
        out = [h] if (h := self.header()) else []
        for i in self.items:
            if type(i) is Entry and not i.fields:  # (most lines: one a key, most rendered already)
                out.append(i.line() if i.rendered is None else i.rendered)
            elif isinstance(i, str):
                out.append(i)
            else:
                out += [i.line()] if isinstance(i, Idle) else i.lines()
        return out


def _name(item: Entry | Elements) -> str:
    return item.key if isinstance(item, Elements) else ".".join(item.key)


@dataclass
class HostTables:
    """The host's scenario as typed tables, the keys before the first table first."""

    tables: list[Table] = field(default_factory=lambda: [Table(None)])

    @property
    def top(self) -> Table:
        return self.tables[0]

    def table(self, kind: str, array: bool = False, blank_before: bool = True) -> Table:
        """A new table at the end (a blank line before its header, as the importers write)."""
        if blank_before:
            self.tables[-1].line()
        self.tables.append(Table(kind, array))
        return self.tables[-1]

    def of(self, kind: str) -> list[Table]:
        return [t for t in self.tables if t.kind == kind]

    def values(self, listed: bool = True) -> dict[str, Any]:
        """The tables as Python values: what the scenario's text parses to. Without `listed`, the
        tables a run reads: no device's `listed` table (what its listing printed, word for word, for
        `pathlab show` to print back), which the simulation never reads and the engine would
        otherwise convert and hold with every scenario loaded from them (on 32 hosts × 500 devices
        × 8 paths, 128,000 paths' listings: most of the tables, and 0.4 s of each load's 0.7 s)."""
        out = self.top.values(listed)
        for t in self.tables[1:]:
            assert t.kind is not None
            if t.array:
                out.setdefault(t.kind, []).append(t.values(listed))
            else:
                out[t.kind] = t.values(listed)
        return out

    def copy(self) -> HostTables:
        """The tables as tables of their own, their items shared: what edits a table (`Table.set`,
        a key added, moved or put in another's place) edits its list of items and never an item in
        place, so that editing the copy leaves these as they are (a cluster's merge of a host's
        import), at the cost of a list a table, not of every value and its provenance again."""
        return HostTables([Table(t.kind, t.array, list(t.items)) for t in self.tables])

    def render(self) -> str:
        """The annotated scenario `pathlab import` writes."""
        return "\n".join(itertools.chain.from_iterable(t.lines() for t in self.tables)) + "\n"

    def forget_lines(self) -> None:
        """Lets go of each entry's line kept since it was rendered (`Entry.rendered`)."""
        for t in self.tables:
            for i in t.items:
                if type(i) is Entry:
                    i.rendered = None

    def idle(self) -> list[Idle]:
        """The devices the captures show idle (no workload written for them), each with why."""
        return [i for t in self.tables for i in t.items if isinstance(i, Idle)]

    def assumed(self, kind: str, key: str) -> list[int]:
        """The indexes of the `[[kind]]` tables whose `key` the captures did not give (`Assumed`)."""
        return [n for n, t in enumerate(self.of(kind)) if isinstance(t.source(key), Assumed)]
