"""`pathlab mcp`: pathlab's tools for agents (import_host, advise, run, compare, show) as an MCP
server over stdio (`agent/mcp_server.py`), reading files only under the folders given."""

from __future__ import annotations

import click

from pathlab.cli.common import BadInput, handle_errors


@click.command("mcp")
@click.option("--allow", "allow", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="A folder whose files the tools may read (repeatable; symlinks are followed before the check). "
                   "The shipped scenarios and captures are always allowed, by name.")
@handle_errors
def command(allow: tuple[str, ...]) -> None:
    """Serve pathlab's tools to an agent over stdio (the Model Context Protocol): import_host,
    advise, run, compare and show, each with a JSON schema and a JSON result. A path outside the
    --allow folders is refused. Needs the extra: pip install 'pathlab[mcp]'."""
    try:
        from pathlab.agent.mcp_server import serve
    except ImportError as e:
        if e.name is None or not e.name.startswith("mcp"):
            raise
        raise BadInput("mcp: the MCP SDK is not installed: pip install 'pathlab[mcp]'") from None
    serve(allow)
