"""pathlab's layers point one way: a module imports only from a lower layer or from its own
package, and no modules import each other, directly or round a longer circle. Every import of
python/pathlab counts, at the top of a file, inside a function (the lazy loads that keep `import
pathlab` fast) or under TYPE_CHECKING: each is a dependency someone reading the code must follow.
One way back up is declared: a typed result of the API drawing itself (`_repr_html_`, `to_text`)
imports its renderer inside that method (`RENDER_HELPERS`). Imports by a computed name
(`importlib.import_module(name)`) are not seen. docs/design/2026-11-28-layers.md explains the
table."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "pathlab"

#: Each unit of the package, by module or package name, with its layer: a module may import a
#: lower layer, or its own unit; never a higher layer, nor another unit of its own layer.
#: A new top-level module or package needs a line here (the test says so).
LAYERS: dict[str, tuple[int, str]] = {
    # Entry points: `python -m pathlab`, and the package root, the library's face (`import
    # pathlab` gives the API and may import any layer below it to do so).
    "pathlab.__main__": (8, "main"),
    "pathlab": (7, "facade"),
    # The command line: one module per verb, options and `emit`.
    "pathlab.cli": (7, "cli"),
    # The agents' front end (`pathlab mcp`, whose verb is the CLI's): the library's verbs as tools.
    "pathlab.agent": (6, "agent"),
    # Renderers: tables, JSON, CSV, HTML and the hosts' own styles (multipath -ll, nvme
    # list-subsys, esxcli, esxtop, vdbench). Used by the CLI and the API's render helpers only.
    "pathlab.output": (5, "output"),
    # The advisor: findings, candidates, their ranking and the decision. It uses study's
    # statistics and runs; study never uses the advisor.
    "pathlab.advisor": (4, "advise"),
    # Sweeps, replications and their statistics, the lineup.
    "pathlab.study": (3, "study"),
    # What a host prints, made into a scenario of it.
    "pathlab.importer": (2, "importer"),
    # One module per host format, read into typed tables.
    "pathlab.readers": (1, "readers"),
    # The base every layer may use: the Python API over the engine and the domain types. They may
    # use each other; the circle check orders them.
    "pathlab.api": (0, "base"),
    "pathlab._core": (0, "base"),
    "pathlab.devices": (0, "base"),
    "pathlab.finding": (0, "base"),
    "pathlab.figures": (0, "base"),
    "pathlab.student_t": (0, "base"),
    "pathlab.toml_values": (0, "base"),
    "pathlab.shipped": (0, "base"),
    "pathlab.version": (0, "base"),
    "pathlab.writable": (0, "base"),
    "pathlab.host_views": (0, "base"),
    "pathlab.linux_names": (0, "base"),
    "pathlab.workload_files": (0, "base"),
    "pathlab.large_host": (0, "base"),
    "pathlab.results": (0, "base"),
    "pathlab.progress": (0, "base"),
    "pathlab.processes": (0, "base"),
    "pathlab.loading": (0, "base"),
    "pathlab.assumption": (0, "base"),
    "pathlab.validated": (0, "base"),
    "pathlab.sites": (0, "base"),
    "pathlab.esxi_timer_ranges": (0, "base"),
    "pathlab.keep_alive": (0, "base"),
    "pathlab.host_site_figures": (0, "base"),
}

#: Modules outside the CLI and the facade that may import a renderer, each with its reason: the
#: API's render helpers, a typed result's methods that draw it (HTML for a notebook, the CLI's
#: text). The import must be inside the method: then it is allowed, and it is no edge of a circle
#: (the renderer imports the result's type; the result asks for its renderer only when drawn).
RENDER_HELPERS: dict[str, str] = {
    "pathlab.advisor.advice": "Advice.to_dict, to_text and _repr_html_ draw the advice as the CLI does",
    "pathlab.advisor.failure_advice": "FailureAdvice._repr_html_ draws advise --failures' table as the CLI does",
    "pathlab.importer.host": "Host._repr_html_ shows the imported host in a notebook",
    "pathlab.study.compare": "Comparison.to_dict and _repr_html_ draw the comparison as the CLI does",
    "pathlab.study.sweep_pipeline": "Sweep.write and _repr_html_ write and draw the sweep's table",
    "pathlab.api": "Result._repr_html_ shows the run's headline in a notebook",
}

#: Imports against the table that a change under way removes: (importer, imported) and why.
#: Delete the line with the import.
PENDING: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    importer: str
    imported: str
    file: str
    line: int
    #: Made inside a function (run when called, not when the module is imported).
    lazy: bool = False

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.importer} imports {self.imported}"


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_in(source: str, module: str, is_package: bool, known: set[str], file: str) -> list[Import]:
    """Every import of the package's own modules in `source`, at any depth of the tree; `from
    pathlab.x import y` is an import of `pathlab.x.y` when that is a module, of `pathlab.x`
    otherwise."""
    top = module.split(".")[0]
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node, lazy in _import_nodes(ast.parse(source, file), False):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, one level up per extra dot
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        for target in targets:
            if target == top or target.startswith(top + "."):
                while target not in known and "." in target:
                    target = target.rpartition(".")[0]
                if target != module:
                    found.append(Import(module, target, file, node.lineno, lazy))
    return found


def _import_nodes(node: ast.AST, in_function: bool) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement under `node`, with whether it is inside a function."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, in_function
        yield from _import_nodes(child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda))


def modules(root: Path = PACKAGE) -> set[str]:
    """The package's modules, its compiled core among them."""
    return {module_name(f, root) for f in root.rglob("*.py")} | {f"{root.name}._core"}


def package_imports(root: Path = PACKAGE, shown_from: Path = PACKAGE.parent.parent) -> list[Import]:
    """Every import between the package's modules, each with its file (relative to `shown_from`)
    and line."""
    known = modules(root)
    return [i for f in sorted(root.rglob("*.py"))
            for i in imports_in(f.read_text(), module_name(f, root), f.name == "__init__.py", known,
                                str(f.relative_to(shown_from)))]


def unit_of(module: str, layers: dict[str, tuple[int, str]]) -> tuple[int, str] | None:
    """The entry of the longest name in `layers` that is the module or a package holding it; the
    package root's entry covers its `__init__` alone."""
    root = module.split(".")[0]
    for length in range(module.count(".") + 1, 0, -1):
        name = ".".join(module.split(".")[:length])
        if name in layers and (name != root or module == root):
            return layers[name]
    return None


def counted(imports: list[Import], layers: dict[str, tuple[int, str]], render_helpers: dict[str, str],
            pending: dict[tuple[str, str], str]) -> list[Import]:
    """The imports the rules apply to: all but those `pending`, and a render helper's import of a
    renderer inside the method that draws."""
    def draws(i: Import) -> bool:
        there = unit_of(i.imported, layers)
        return i.lazy and i.importer in render_helpers and there is not None and there[1] == "output"

    return [i for i in imports if (i.importer, i.imported) not in pending and not draws(i)]


def upward(imports: list[Import], layers: dict[str, tuple[int, str]]) -> list[str]:
    """Each import of a higher layer, or of another unit of the same layer; and each module the
    table does not place."""
    wrong = []
    for i in imports:
        here, there = unit_of(i.importer, layers), unit_of(i.imported, layers)
        if here is None or there is None:
            wrong.append(f"{i}: {i.importer if here is None else i.imported} has no line in LAYERS")
        elif here[1] != there[1] and here[0] <= there[0]:
            side = "a layer above" if here[0] < there[0] else "another unit of its layer"
            wrong.append(f"{i}: {here[1]} (layer {here[0]}) imports {there[1]} (layer {there[0]}), {side}")
    return wrong


def circles(imports: list[Import]) -> list[list[Import]]:
    """One circle of imports through each group of modules that import each other (Tarjan's
    strongly connected components, then a shortest way back round each)."""
    edges: dict[str, dict[str, Import]] = {}
    for i in imports:
        edges.setdefault(i.importer, {}).setdefault(i.imported, i)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    found = []
    for group in sorted(groups):
        start, members = group[0], set(group)
        came_from: dict[str, Import] = {}
        frontier = [start]
        while start not in came_from:  # breadth first, inside the group, back to start
            step = []
            for v in frontier:
                for w, i in sorted(edges.get(v, {}).items()):
                    if w in members and w not in came_from:
                        came_from[w] = i
                        step.append(w)
            frontier = step
        circle, v = [], start
        while True:
            circle.append(came_from[v])
            v = came_from[v].importer
            if v == start:
                break
        found.append(circle[::-1])
    return found


@functools.cache
def pathlab_imports() -> list[Import]:
    imports = package_imports()
    assert len(imports) > 200 and any(i.lazy for i in imports)  # the walk found them, in functions too
    return counted(imports, LAYERS, RENDER_HELPERS, PENDING)


def test_every_import_points_down_the_layers() -> None:
    assert upward(pathlab_imports(), LAYERS) == []


def test_no_modules_import_each_other() -> None:
    assert ["\n".join(map(str, c)) for c in circles(pathlab_imports())] == []


def test_the_table_places_every_module_and_names_none_that_is_gone() -> None:
    names = modules()
    assert sorted(m for m in names if unit_of(m, LAYERS) is None) == []
    assert sorted(n for n in LAYERS if not any(m == n or m.startswith(n + ".") for m in names)) == []
    assert sorted(set(RENDER_HELPERS) - names) == []


# The checker checked: a synthetic package with one of each fault.
FAKE = {
    "p/__init__.py": "from p.api import Thing\n",
    "p/api.py": "X = 1\n",
    "p/low/__init__.py": "",
    "p/low/a.py": "import os\nfrom p.api import X\n\ndef f():\n    from p.high import b  # upward, lazily\n",
    "p/low/c.py": "from p.low import d\n",
    "p/low/d.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.low.c import Y\n",
    "p/high/__init__.py": "",
    "p/high/b.py": "from . import e\nimport p.low.a\n",
    "p/high/e.py": "from ..low.a import f\nfrom p.mystery import z\n",
    "p/mystery.py": "",
}
FAKE_LAYERS = {"p": (3, "facade"), "p.high": (2, "high"), "p.low": (1, "low"), "p.api": (0, "base")}


def _fake(tmp_path: Path) -> list[Import]:
    for name, text in FAKE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return package_imports(tmp_path / "p", tmp_path)


def test_the_checker_reads_every_form_of_import(tmp_path: Path) -> None:
    assert sorted((i.importer, i.imported, i.line, i.lazy) for i in _fake(tmp_path)) == [
        ("p", "p.api", 1, False),
        ("p.high.b", "p.high.e", 1, False),  # relative, a module named in the from-list
        ("p.high.b", "p.low.a", 2, False),
        ("p.high.e", "p.low.a", 1, False),  # two dots: the package's parent
        ("p.high.e", "p.mystery", 2, False),
        ("p.low.a", "p.api", 2, False),
        ("p.low.a", "p.high.b", 5, True),  # inside a function
        ("p.low.c", "p.low.d", 1, False),
        ("p.low.d", "p.low.c", 3, False),  # under TYPE_CHECKING
    ]


def test_the_checker_fails_an_upward_import_and_an_unplaced_module(tmp_path: Path) -> None:
    imports = _fake(tmp_path)
    assert upward(imports, FAKE_LAYERS) == [
        "p/high/e.py:2: p.high.e imports p.mystery: p.mystery has no line in LAYERS",
        "p/low/a.py:5: p.low.a imports p.high.b: low (layer 1) imports high (layer 2), a layer above",
    ]
    same_layer = {**FAKE_LAYERS, "p.high": (1, "high"), "p.mystery": (0, "base")}
    assert upward(imports, same_layer)[1].endswith("another unit of its layer")
    assert len(upward(imports, same_layer)) == 3  # and both ways between high and low
    assert len(upward(counted(imports, same_layer, {}, {("p.low.a", "p.high.b"): "moving"}), same_layer)) == 2


def test_the_checker_names_each_circle_by_its_imports(tmp_path: Path) -> None:
    assert [[str(i) for i in c] for c in circles(_fake(tmp_path))] == [
        ["p/high/b.py:2: p.high.b imports p.low.a", "p/low/a.py:5: p.low.a imports p.high.b"],
        ["p/low/c.py:1: p.low.c imports p.low.d", "p/low/d.py:3: p.low.d imports p.low.c"],
    ]


def test_a_render_helper_may_import_output_in_the_method_that_draws_and_nothing_else_above_it() -> None:
    imports = [Import("pathlab.advisor.result", "pathlab.output.advice", "x.py", 1),
               Import("pathlab.advisor.result", "pathlab.output.advice", "x.py", 9, lazy=True),
               Import("pathlab.advisor.result", "pathlab.cli.common", "x.py", 10, lazy=True),
               Import("pathlab.output.advice", "pathlab.advisor.result", "y.py", 3)]
    kept = counted(imports, LAYERS, {"pathlab.advisor.result": "draws Advice"}, {})
    assert upward(kept, LAYERS) == [
        "x.py:1: pathlab.advisor.result imports pathlab.output.advice: advise (layer 4) imports output (layer 5), a layer above",
        "x.py:10: pathlab.advisor.result imports pathlab.cli.common: advise (layer 4) imports cli (layer 7), a layer above"]
    assert [[i.line for i in c] for c in circles(kept)] == [[1, 3]]  # the top-of-file import still closes a circle
    assert circles(kept[1:]) == []
