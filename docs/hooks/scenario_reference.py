"""The scenario reference (`reference/scenario.md`), generated from the schema when the site builds.

It reads the serde structs of `crates/pathlab-sim/src/scenario/schema.rs`: every table, each
field's doc comment, type, whether it is required and its default. A construct it does not know
stops the build (`SchemaError`) rather than leaving a field out, and `tests/test_docs.py`
checks every table's fields against the loader that pathlab was built with.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "crates/pathlab-sim/src/scenario/schema.rs"
UNITS = ROOT / "crates/pathlab-sim/src/scenario/units.rs"
POLICY_LIB = ROOT / "crates/pathlab-policy/src/lib.rs"
PAGE = "reference/scenario.md"


class SchemaError(Exception):
    """The schema holds something this reader cannot describe: teach it, don't skip it."""


@dataclass
class Field:
    name: str
    rust_type: str
    doc: str
    serde: str  # the field's #[serde(...)] arguments, "" when none


@dataclass
class Item:
    """A struct (fields) or an enum (variants) of the schema."""

    name: str
    doc: str
    serde: str
    fields: list[Field] = field(default_factory=list)
    variants: list[tuple[str, str, bool]] = field(default_factory=list)  # (name, doc, is #[default])


@dataclass
class Table:
    """One TOML table of a scenario file, as the loader reads it."""

    segments: list[tuple[str, bool]]  # (key, is an array of tables), from the top
    item: Item
    intro: str
    kind: str | None = None  # a fault's `kind`
    same_as: Table | None = None  # the table already described with the same fields
    policy: bool = False  # a policy table: its fields are the named policy's parameters

    @property
    def dotted(self) -> str:
        return ".".join(key for key, _ in self.segments)

    @property
    def heading(self) -> str:
        if not self.segments:
            return "top level"
        if self.kind:
            return f'kind = "{self.kind}"'
        return f"[[{self.dotted}]]" if self.segments[-1][1] else f"[{self.dotted}]"

    @property
    def anchor(self) -> str:
        """The id Python-Markdown's toc gives the heading: lower case, punctuation dropped, spaces as -."""
        return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", self.heading).strip().lower())


def _read_items(text: str) -> tuple[dict[str, Item], dict[str, str]]:
    """Every `pub struct`/`pub enum` with its docs and fields, and every `fn name() -> T { body }`."""
    items: dict[str, Item] = {}
    functions = {m[1]: m[2].strip() for m in re.finditer(r"^fn (\w+)\(\) -> [^{]+\{\n(.*?)\n\}", text, re.S | re.M)}
    lines = text.splitlines()
    docs: list[str] = []
    serde = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("///"):
            docs.append(line[3:].strip())
        elif line.startswith("#[serde("):
            serde = line[len("#[serde(") : -2]
        elif m := re.match(r"pub (struct|enum) (\w+) \{$", line):
            item = Item(m[2], " ".join(docs), serde)
            i = _read_body(lines, i + 1, item)
            items[item.name] = item
            docs, serde = [], ""
        elif not line.startswith("#["):
            docs, serde = [], ""
        i += 1
    return items, functions


def _one_item(text: str, head: str) -> Item:
    """The item opened by `head` (with the attributes and docs above it) in a file read no further."""
    lines = text.splitlines()
    start = end = lines.index(head)
    while lines[start - 1].startswith(("///", "#[")):
        start -= 1
    while lines[end] != "}":
        end += 1
    items, _ = _read_items("\n".join(lines[start : end + 1]))
    return next(iter(items.values()))


def _read_body(lines: list[str], i: int, item: Item) -> int:
    docs: list[str] = []
    serde = ""
    is_default = False
    while lines[i] != "}":
        line = lines[i].strip()
        if line.startswith("///"):
            docs.append(line[3:].strip())
        elif line.startswith("#[serde("):
            serde = line[len("#[serde(") : -2]
        elif line == "#[default]":
            is_default = True
        elif m := re.match(r"pub (\w+): (.+),$", line):
            item.fields.append(Field(m[1], m[2], " ".join(docs), serde))
            docs, serde = [], ""
        elif m := re.match(r"(\w+)(\((\w+)\))?,$", line):
            item.variants.append((m[1] if not m[3] else f"{m[1]}({m[3]})", " ".join(docs), is_default))
            docs, is_default = [], False
        elif line:
            raise SchemaError(f"{item.name}: cannot read `{line}`")
        i += 1
    return i


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


class Schema:
    """The schema's tables and how to describe each field."""

    def __init__(self) -> None:
        text = SCHEMA.read_text()
        self.items, self.functions = _read_items(text)
        self.items["AluaState"] = _one_item(POLICY_LIB.read_text(), "pub enum AluaState {")
        kinds = re.findall(r'"(\w+)",', _block(text, "pub const FAULT_KINDS"))
        self.fault_kinds = {kind: self._fault_spec(text, kind) for kind in kinds}
        self.run_defaults = dict(re.findall(r"^\s+(\w+): (.+),$", _block(text, "impl Default for RunSpec"), re.M))
        self.tables = self._walk()

    def _fault_spec(self, text: str, kind: str) -> Item:
        m = re.search(rf'"{kind}" => FaultSpec::(\w+)\(', text)
        if not m:
            raise SchemaError(f"fault kind {kind}: no arm in FaultSpec's deserializer")
        variant = next(v for v, _, _ in self.items["FaultSpec"].variants if v.startswith(f"{m[1]}("))
        return self.items[variant[variant.index("(") + 1 : -1]]

    def _walk(self) -> list[Table]:
        root = self.items["ScenarioSpec"]
        tables = [Table([], root, "")]
        self._children(root, [], tables, {})
        after_faults = next(i for i, t in enumerate(tables) if t.dotted == "faults") + 1
        tables[after_faults:after_faults] = [Table([("faults", True)], item, item.doc, kind) for kind, item in self.fault_kinds.items()]
        variant = self.items["VariantSpec"]
        tables.append(Table([("variants", False), ("NAME", False)], variant, variant.doc))
        return tables

    def _children(self, item: Item, segments: list[tuple[str, bool]], tables: list[Table], seen: dict[str, Table]) -> None:
        """The tables inside `item`'s, depth first; a struct met again points to where it was described."""
        for f in item.fields:
            inner, is_array = _table_type(f.rust_type)
            target = self.items.get(inner)
            if target is None or self.is_value_enum(inner):
                continue  # a value, not a table
            policy = inner == "PolicySetting"  # its own doc is about the loader, not the user
            intro = f.doc if policy else " ".join(d for d in (f.doc, target.doc) if d)
            table = Table([*segments, (f.name, is_array)], target, intro, policy=policy)
            table.same_as = seen.get(inner)
            tables.append(table)
            if table.same_as is None:
                seen[inner] = table
                if inner not in ("FaultSpec", "PolicySetting"):
                    self._children(target, table.segments, tables, seen)

    def is_value_enum(self, name: str) -> bool:
        """An enum written as one word (`"fixed"`); FaultSpec is a table chosen by its `kind`."""
        return bool(self.items[name].variants) and name != "FaultSpec"

    def describe_type(self, rust_type: str) -> str:
        inner = rust_type.removeprefix("Option<").removesuffix(">") if rust_type.startswith("Option<") else rust_type
        simple = {
            "String": "text",
            "u32": "whole number",
            "u64": "whole number",
            "f64": "number",
            "bool": "`true` or `false`",
            "DurationNs": "[time](#units)",
            "Bytes": "[size](#units)",
            "BytesPerSec": "[link speed](#units)",
            "Kilometres": "[distance](#units)",
            "Vec<String>": "list of text",
            "Vec<u32>": "list of whole numbers",
            "Vec<(Bytes, u32)>": 'list of [size, weight] (`[["8KiB", 60], ["32KiB", 40]]`)',
            "BTreeMap<String, f64>": "table of summary figure = number",
            "BTreeMap<String, String>": "table of summary figure = text",
            "ListedValues": "table of field = text",
            "BTreeMap<String, ListedValues>": "table of path name = table of field = text",
            "toml::Table": "table of dotted key = value",
            "pathlab_policy::AluaState": self._enum_values("AluaState"),
        }
        if inner in simple:
            return simple[inner]
        table, is_array = _table_type(inner)
        if table in self.items and self.is_value_enum(table):
            return self._enum_values(table)
        if table in self.items:
            return "array of tables" if is_array else "table"  # render() links it to its section
        raise SchemaError(f"no description for the type `{rust_type}`")

    def value_docs(self, rust_type: str) -> list[str]:
        """`value`: its doc comment, for each documented value of an enum field."""
        name = _table_type(rust_type)[0].removeprefix("pathlab_policy::")
        if name not in self.items or not self.is_value_enum(name):
            return []
        return [f"`{self.enum_value(name, v)}`: {doc}" for v, doc, _ in self.items[name].variants if doc]

    def _enum_values(self, name: str) -> str:
        return "one of " + ", ".join(f"`{self.enum_value(name, v)}`" for v, _, _ in self.items[name].variants)

    def enum_value(self, name: str, variant: str) -> str:
        rule = self.items[name].serde
        if "snake_case" in rule:
            return _snake(variant)
        if "lowercase" in rule:
            return variant.lower()
        raise SchemaError(f"{name}: unknown rename rule `{rule}`")

    def default(self, item: Item, f: Field) -> str | None:
        """The value a field takes when left out, as a user writes it; None when it is required."""
        if m := re.search(r'default = "(\w+)"', f.serde):
            return self._value(self.functions[m[1]])
        if item.name == "RunSpec":
            return self._value(self.run_defaults[f.name])
        if "default" not in f.serde and "default" not in item.serde and not f.rust_type.startswith("Option<"):
            return None
        inner = f.rust_type
        if inner.startswith(("Option<", "Vec<", "BTreeMap<", "toml::Table", "ListedValues")):
            return "—"
        zero = {"String": '""', "u32": "0", "u64": "0", "f64": "0", "bool": "`false`", "DurationNs": '`"0s"`'}
        if inner in zero:
            return zero[inner] if inner in ("bool", "DurationNs") else f"`{zero[inner]}`"
        if inner in self.items and self.items[inner].variants:
            return next(f"`{self.enum_value(inner, v)}`" for v, _, is_default in self.items[inner].variants if is_default)
        if inner in self.items:
            return "its fields' defaults"
        raise SchemaError(f"{item.name}.{f.name}: no default known for `{inner}`")

    def _value(self, expression: str) -> str:
        if m := re.fullmatch(r"DurationNs\(([\d_]+)\)", expression):
            return f'`"{_human_time(int(m[1].replace("_", "")))}"`'
        if m := re.fullmatch(r"Bytes\(([\d_ *<]+)\)", expression):
            return f'`"{_human_size(_integer(m[1]))}"`'
        if m := re.fullmatch(r'"(\w+)"\.to_string\(\)', expression):
            return f'`"{m[1]}"`'
        if re.fullmatch(r"[\d_]+(\.\d+)?", expression):
            return f"`{expression.replace('_', '').removesuffix('.0')}`"
        if m := re.fullmatch(r"pathlab_policy::(\w+)::(\w+)", expression):
            return f"`{self.enum_value(m[1], m[2])}`"
        raise SchemaError(f"cannot read the default `{expression}`")


def _table_type(rust_type: str) -> tuple[str, bool]:
    """(the type inside, whether it is a list) for `Vec<T>`, `Option<T>` and `T`."""
    if rust_type.startswith("Vec<"):
        return rust_type[4:-1], True
    if rust_type.startswith("Option<"):
        return rust_type[7:-1], False
    return rust_type, False


def _block(text: str, head: str) -> str:
    start = text.index(head)
    return text[start : text.index("\n}\n", start)]


def _integer(expression: str) -> int:
    """`64 * 1024`, `1 << 20`: the products and shifts the schema writes sizes with."""
    value = 1
    for factor in expression.replace("_", "").split("*"):
        base, _, shift = factor.partition("<<")
        value *= int(base) << int(shift or 0)
    return value


def _human_time(ns: int) -> str:
    if ns == 0:
        return "0s"
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns % scale == 0 and ns >= scale:
            return f"{ns // scale}{unit}"
    return f"{ns}ns"


def _human_size(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size % scale == 0 and size >= scale:
            return f"{size // scale}{unit}"
    return f"{size}B"


def _units() -> list[str]:
    """The units section, from the unit tables of `units.rs`."""
    text = UNITS.read_text()
    rows = ["## Units", "", "Quantities are strings with a unit; a bare number is refused.", "", "| quantity | units |", "|---|---|"]
    quantities = (("time", "DURATION_UNITS"), ("size", "SIZE_UNITS"), ("link speed", "RATE_UNITS"), ("distance", "DISTANCE_UNITS"))
    for quantity, table in quantities:
        units = re.findall(r'\("([^"]+)", [^)]+\)', _block(text, f"const {table}").split("];")[0])
        if not units:
            raise SchemaError(f"units.rs: no units in {table}")
        rows.append(f"| {quantity} | {', '.join(f'`{u}`' for u in units)} |")
    fibre_channel = '`"16GFC"` is Fibre Channel\'s speed name: 100 MB/s of payload per G (1,600 MB/s), where `"16Gb"` is 2,000 MB/s.'
    return [*rows, "", fibre_channel, ""]


def _cell(text: str) -> str:
    return text.replace("|", "\\|") or " "


def render(schema: Schema) -> str:
    out = [
        "# Scenario reference",
        "",
        "Every table and field a scenario file may hold, generated from the loader's schema",
        "(`crates/pathlab-sim/src/scenario/schema.rs`) when this site is built. Unknown fields are",
        "refused; a field without a default is required. How to write a scenario, with an example,",
        "is in [scenario files](../scenario-files.md); the `[policy]` table's fields depend on the",
        "policy it names ([policies](policies.md)); a `[sweep]` table is read by `pathlab sweep`",
        "([scenario files](../scenario-files.md#sweeps)).",
        "",
    ]
    out += _units()
    sections = {table.dotted: table for table in reversed(schema.tables)}  # the first of each key
    for table in schema.tables:
        out += [f"{'###' if table.kind else '##'} `{table.heading}`", ""]
        if table.intro:
            out += [table.intro, ""]
        if table.policy:
            out += ["`name` picks the policy; the other fields are its parameters ([policies](policies.md)).", ""]
            continue
        if table.same_as:
            out += [f"The fields of [`{table.same_as.heading}`](#{table.same_as.anchor}).", ""]
            continue
        if table.item.name == "FaultSpec":
            kinds = ", ".join(f"[`{t.kind}`](#{t.anchor})" for t in schema.tables if t.kind)
            out += [f"`kind` is one of {kinds}; the other fields depend on it.", ""]
            continue
        out += ["| field | value | default | meaning |", "|---|---|---|---|"]
        for f in table.item.fields:
            default = schema.default(table.item, f)
            value = schema.describe_type(f.rust_type)
            child = sections.get(".".join(filter(None, (table.dotted, f.name))))
            if child is not None and value.endswith("table" if not child.segments[-1][1] else "tables"):
                value = f"[{value}](#{child.anchor})"
            meaning = " ".join([f.doc, *schema.value_docs(f.rust_type)]).strip()
            out.append(f"| `{f.name}` | {_cell(value)} | {'required' if default is None else default} | {_cell(meaning)} |")
        out.append("")
    return "\n".join(out)


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """The mkdocs hook: the page joins the site's files before pages are read."""
    files.append(File.generated(config, PAGE, content=render(Schema())))
    return files
