"""The documentation stays true: the site builds with `mkdocs build --strict` (broken links and
anchors included), the scenario reference lists exactly the fields the loader accepts, and the
README's and the docs' commands run.

Commands live in ```console blocks (`$ command`, then the output it prints; `[...]` stands for any
text within a line, or any lines on a line of its own) and ```bash blocks (each line a command).
A block that should not run here says so on the line above it: `<!-- not run: the reason -->`.
Python sessions live in ```pycon blocks (`>>> ` and `... ` lines, then what they print, `[...]`
as above): a page's blocks run in turn in one interpreter, as a notebook's cells do.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from pathlab import Scenario, ScenarioError
from pathlab.cli import main

PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "hooks" not in p.parts)]
NOT_RUN = re.compile(r"<!-- not run: (.*?) -->")
ELLIPSIS = "[...]"


@dataclass
class Command:
    line: str
    output: list[str] | None  # what it prints, when the block shows it


@dataclass
class Block:
    page: Path
    line: int
    commands: list[Command]
    not_run: str | None  # the reason given, or None when the block runs

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def _blocks(page: Path) -> list[Block]:
    """The console and bash blocks of a page, with the `not run` mark above each, if any."""
    lines = page.read_text().splitlines()
    blocks = []
    for i, line in enumerate(lines):
        fence = re.fullmatch(r"```(console|bash)", line.strip())
        if not fence:
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
        body = lines[i + 1 : end]
        mark = NOT_RUN.fullmatch(lines[i - 1].strip()) if i else None
        if fence[1] == "bash":
            commands = [Command(c, None) for c in body if c.strip() and not c.lstrip().startswith("#")]
        else:
            commands = []
            for text in body:
                if text.startswith("$ "):
                    commands.append(Command(text[2:], []))
                else:
                    commands[-1].output.append(text)  # type: ignore[union-attr]  # a list until the loop ends
            for command in commands:
                command.output = command.output or None
        blocks.append(Block(page, i + 1, commands, mark[1] if mark else None))
    return blocks


BLOCKS = [block for page in PAGES for block in _blocks(page)]


def _matches(expected: list[str], printed: str) -> bool:
    """Whether the output printed is the output shown, `[...]` standing for what varies."""
    pattern = []
    for line in expected:
        if line.strip() == ELLIPSIS:
            pattern.append(r"(?:[^\n]*\n)*?")
        else:
            pattern.append(".*?".join(re.escape(part) for part in line.rstrip().split(ELLIPSIS)) + r"\n")
    text = "\n".join(line.rstrip() for line in printed.splitlines()) + "\n"
    return re.fullmatch("".join(pattern), text) is not None


def test_the_pages_have_commands_and_every_block_left_out_says_why() -> None:
    names = {b.page.name for b in BLOCKS if b.not_run is None}
    assert {"README.md", "getting-started.md"} <= names
    for block in BLOCKS:
        assert block.commands, f"{block.name}: an empty block"
        assert block.not_run is None or block.not_run.strip(), f"{block.name}: `not run` needs a reason"
    marks = sum(len(NOT_RUN.findall(page.read_text())) for page in PAGES)
    assert marks == sum(b.not_run is not None for b in BLOCKS), "a `not run` mark that stands above no block"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory of one's own, where `scenarios/…` and `tests/data/…` paths work as in a checkout."""
    path = tmp_path_factory.mktemp("docs-commands")
    (path / "scenarios").symlink_to(ROOT / "scenarios")
    (path / "tests").symlink_to(ROOT / "tests")  # the test corpus's real samples, as `tests/data/…`
    return path


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.not_run is None], ids=lambda b: b.name)
def test_documented_commands_run_and_print_what_the_page_shows(block: Block, workdir: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command in block.commands:
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command.line], capture_output=True, text=True, cwd=workdir, env=env)
        assert done.returncode == 0, f"{block.name}: `{command.line}` exited {done.returncode}:\n{done.stderr}"
        if command.output is not None:
            shown = "\n".join(command.output)
            assert _matches(command.output, done.stdout), f"{block.name}: `{command.line}` printed\n{done.stdout}\nthe page shows\n{shown}"


def test_site_builds_strict_with_every_verb_and_table(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    build = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)]
    done = subprocess.run(build, capture_output=True, text=True, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    cli = (tmp_path / "reference/cli/index.html").read_text()
    for verb in main.commands:
        assert f'id="pathlab-{verb}"' in cli, f"the CLI reference lacks `pathlab {verb}`"
    reference = (tmp_path / "reference/scenario/index.html").read_text()
    for table in _schema().tables:
        assert f'id="{table.anchor}"' in reference, table.heading
    for kept in ("linux-claim-tables/index.html", "studies/vmax3-rr-limit.html", "vmax3-rr-limit.png"):
        assert (tmp_path / kept).exists(), kept


def _schema() -> Any:
    """The scenario reference's reading of the schema (the docs hook, loaded from its file)."""
    spec = importlib.util.spec_from_file_location("scenario_reference", ROOT / "docs/hooks/scenario_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return module.Schema()


def _fields_the_loader_expects(error: ScenarioError) -> list[str]:
    """serde's `unknown field `x`, expected one of `a`, `b`` (or `expected `a` or `b``)."""
    message = error.args[2]
    assert "unknown field `zz_not_a_field`" in message, message
    return re.findall(r"`(\w+)`", message.split("expected", 1)[1])


def test_scenario_reference_lists_exactly_the_fields_the_loader_accepts(tmp_path: Path) -> None:
    base = (ROOT / "scenarios/bench-minimal.toml").read_text()
    checked = 0
    for table in _schema().tables:
        if table.same_as or table.policy or table.item.variants:
            continue  # the same fields as a table checked here; a policy's are its catalogue's; faults by kind
        documented = [f.name for f in table.item.fields]
        if table.dotted == "variants.NAME":
            path = tmp_path / "variant.toml"
            path.write_text(f"{base}\n[variants.x]\nzz_not_a_field = 1\n")
            load = lambda: Scenario.load(str(path))  # noqa: B023 - called at once
        else:
            value: object = {"zz_not_a_field": 1, **({"kind": table.kind} if table.kind else {})}
            for key, is_array in reversed(table.segments):
                value = {key: [value] if is_array else value}
            load = lambda: Scenario.load(str(ROOT / "scenarios/bench-minimal.toml"), set=value)  # noqa: B023
        with pytest.raises(ScenarioError) as raised:
            load()
        assert _fields_the_loader_expects(raised.value) == documented, table.heading
        checked += 1
    assert checked >= 25


@dataclass
class Statement:
    source: str
    output: list[str]  # what it prints (an expression's value, as the prompt shows it)


def _session(page: Path) -> list[Statement]:
    """The statements of a page's ```pycon blocks, in order, with what each prints."""
    statements: list[Statement] = []
    inside = False
    for line in page.read_text().splitlines():
        if line.strip() == "```pycon":
            inside = True
        elif inside and line.strip() == "```":
            inside = False
        elif inside and (line.startswith(">>> ") or line == ">>>"):
            statements.append(Statement(line[4:] + "\n", []))
        elif inside and (line.startswith("... ") or line == "...") and statements and not statements[-1].output:
            statements[-1].source += line[4:] + "\n"
        elif inside:
            statements[-1].output.append(line)
    return statements


SESSIONS = [page for page in PAGES if "```pycon" in page.read_text()]

#: Runs each statement as the interactive prompt does (an expression's value printed), in one
#: namespace, and answers what each printed.
_DRIVER = """
import contextlib, io, json, sys
namespace, printed = {"__name__": "__main__"}, []
for source in json.load(sys.stdin):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<page>", "single"), namespace)
    printed.append(out.getvalue())
json.dump(printed, sys.__stdout__)
"""


@pytest.mark.parametrize("page", SESSIONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_documented_python_sessions_print_what_the_page_shows(page: Path, workdir: Path) -> None:
    statements = _session(page)
    assert statements, f"{page}: a pycon block without a statement"
    done = subprocess.run([sys.executable, "-W", "ignore", "-c", _DRIVER], input=json.dumps([s.source for s in statements]),
                          capture_output=True, text=True, cwd=workdir)
    assert done.returncode == 0, f"{page.name}: the session stopped:\n{done.stderr}"
    for statement, printed in zip(statements, json.loads(done.stdout), strict=True):
        if statement.output or printed:
            shown = "\n".join(statement.output)
            assert _matches(statement.output, printed), \
                f"{page.name}: `{statement.source.strip()}` printed\n{printed}\nthe page shows\n{shown}"
