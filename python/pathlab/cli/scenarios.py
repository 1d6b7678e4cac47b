"""`pathlab scenarios`: the shipped scenarios, and a copy of one to start a scenario of one's own."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import click

from pathlab import shipped
from pathlab.api import Scenario, ScenarioError
from pathlab.cli.common import force_option, handle_errors, writable_output
from pathlab.output.files import OutputFile, written


def _summary(path: Path) -> str:
    """A scenario's first line of description; a study's (a `[sweep]` over another scenario)
    first comment line."""
    text = path.read_text(encoding="utf-8")
    if tomllib.loads(text).get("sweep", {}).get("scenario"):
        comment = next((line.lstrip("# ") for line in text.splitlines() if line.startswith("#")), "")
        return f"(study for pathlab sweep) {comment}"
    description = Scenario.load(path).description.strip()
    return description.splitlines()[0] if description else ""


@click.command("scenarios")
@click.option("--copy", "copy_name", metavar="NAME", help="Copy the shipped scenario NAME to DEST.")
@click.argument("dest", required=False, type=OutputFile())
@force_option
@handle_errors
def command(copy_name: str | None, dest: str | None, force: bool) -> None:
    """List the scenarios shipped with pathlab, or copy one (--copy NAME [DEST]) to edit."""
    if copy_name is None:
        if dest is not None:
            raise ScenarioError("DEST", dest, "give --copy NAME to say what to copy")
        for name in shipped.names():
            click.echo(f"{name:<36} {_summary(shipped.path(name))}")
        click.echo(f"(in {shipped.FOLDER})", err=True)
        return
    source = shipped.path(copy_name)
    target = Path(dest) if dest else Path(source.name)
    if target.is_dir():
        target = target / source.name
    writable_output(str(target), "DEST", force=force)
    with written(target, "DEST") as part:
        shutil.copyfile(source, part)
    click.echo(f"pathlab: copied {copy_name} to {target}", err=True)
