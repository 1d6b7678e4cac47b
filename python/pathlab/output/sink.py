"""One sink for every verb's result. A verb builds a typed result (an `Output`); the format the
user chose picks its renderer here, in one place: the table for people, JSON and CSV for
machines, all on stdout, and the HTML report written to the file `--html` names. A verb's
`--format` choices are the renderers its result has."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from pathlab.output.files import OutputFile

if TYPE_CHECKING:  # pandas is imported where tables are written: `pathlab` starts fast
    import pandas as pd

F = TypeVar("F", bound=Callable[..., Any])


class Output:
    """A verb's result. A subclass overrides the renderers it has."""

    def table(self) -> str:
        """The text people read."""
        raise NotImplementedError

    def document(self) -> Any:
        """The JSON document: mappings and lists, or a pandas table (written as records)."""
        raise NotImplementedError

    def rows(self) -> list[dict[str, Any]] | pd.DataFrame:
        """The CSV lines: flat mappings or a pandas table, one line each."""
        raise NotImplementedError

    def html(self, provenance: dict[str, Any]) -> str:
        """The self-contained HTML report; `provenance` says how it was made."""
        raise NotImplementedError


def _text(out: Output) -> str:
    """The table and its line end; an empty table (a host listing of no device) prints nothing."""
    text = out.table()
    return text + "\n" if text else ""


def _json(out: Output) -> str:
    document = out.document()
    if hasattr(document, "to_json"):
        return document.to_json(orient="records", indent=2) + "\n"
    return json.dumps(document, indent=2) + "\n"


def _csv(out: Output) -> str:
    import pandas as pd

    rows = out.rows()
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(rows)
    return frame.to_csv(index=False, lineterminator="\n")


#: Each format, the method a result has for it, and how its answer becomes stdout's text.
RENDERERS: dict[str, tuple[str, Callable[[Output], str]]] = {
    "table": ("table", _text),
    "json": ("document", _json),
    "csv": ("rows", _csv),
}


def formats(kind: type[Output]) -> list[str]:
    """The formats a kind of result renders: those whose method it overrides."""
    return [f for f, (method, _) in RENDERERS.items() if getattr(kind, method) is not getattr(Output, method)]


def format_option(kind: type[Output]) -> Callable[[F], F]:
    """`--format`: the table for people (the default), and the machine formats `kind` has."""
    return click.option("--format", "fmt", type=click.Choice(formats(kind)), default="table", show_default=True)


html_option = click.option("--html", "html", type=OutputFile(),
                           help="Also write a report of this run to an HTML file.")


def provenance(file: str) -> dict[str, Any]:
    """How a report was made: the command line and the scenario file."""
    return {"command": "pathlab " + " ".join(sys.argv[1:]), "scenario file": file}


def write_html(path: str, text: str) -> None:
    from pathlab.output.files import written

    with written(path, "--html") as part:
        part.write_text(text, encoding="utf-8")
    click.echo(f"pathlab: report written to {path}", err=True)


def emit(out: Output, fmt: str, html: str | None = None, file: str = "") -> None:
    """The report to `html` (when given, `file` named in its provenance), then `out` in `fmt` on
    stdout."""
    if html:
        write_html(html, out.html(provenance(file)))
    _, render = RENDERERS[fmt]
    click.echo(render(out), nl=False)
