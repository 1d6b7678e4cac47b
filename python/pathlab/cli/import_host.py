"""`pathlab import FILES... -o host.toml`: a scenario of the admin's host from its esxcli
listings and esxtop capture, every value commented with where it came from; `pathlab import
--host NAME=FILES --host NAME=FILES …`: several hosts that share arrays, as one scenario."""

from __future__ import annotations

import re

import click

from pathlab.api import ScenarioError
from pathlab.cli.common import INPUT_KINDS, force_option, handle_errors, writable_output
from pathlab.output.files import OutputFile, written

#: `NAME=` before a host's files in `--host`.
NAMED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)=(.*)$")


@click.command("import", help=f"""Build a scenario of a host from what it prints: {INPUT_KINDS}

With --host for each of several hosts, the hosts as one scenario: a device that several hosts
list (one NAA, WWID or NQN) is one LUN of their array, an array port that several reach (one
target WWN, iSCSI portal or NVMe address) one port; each host keeps its adapters, paths,
queue depths and measured load.""")
@click.argument("files", nargs=-1, type=click.Path())
@click.option("--host", "hosts", multiple=True, metavar="[NAME=]FILE[,FILE…]",
              help="One host of a cluster: its captures, comma-separated (or a folder, a vm-support bundle or "
                   "sosreport, extracted or as a .tgz), after its name and `=`. Give it once per host. The name is "
                   "the one the captures hold where they hold one (an esxtop capture's counter paths, a bundle's "
                   "hostname), and may then be left out.")
@click.option("-o", "--output", type=OutputFile(), help="Write the scenario here (default: stdout).")
@force_option
@handle_errors
def command(files: tuple[str, ...], hosts: tuple[str, ...], output: str | None, force: bool) -> None:
    from pathlab import shipped

    if files and hosts:
        raise ScenarioError("--host", hosts[0], "give FILES for one host, or --host for each host of a cluster, not both")
    if not files and not hosts:
        raise ScenarioError("import", "FILES", "no capture given: give a host's listings and captures, or --host for "
                                               "each host of a cluster")
    if hosts:
        given = [host_files(value) for value in hosts]
        inputs = [f for _, own in given for f in own]
    else:
        inputs = [f for name in files for f in (shipped.capture_files(name) or [name])]
    # The inputs as given (a folder stands for every file under it), a shipped capture's files.
    writable_output(output, "--output", inputs, force)
    if hosts:
        text = _cluster(given)
    else:
        from pathlab.importer.host import import_host

        text = import_host(*files).to_toml()
    if output:
        with written(output, "--output") as part:
            part.write_text(text, encoding="utf-8")
        click.echo(f"pathlab import: wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


def host_files(value: str) -> tuple[str | None, list[str]]:
    """`--host NAME=a,b` as (NAME, [a, b]); `--host a,b` as (None, [a, b]). A value that is an
    existing file's name is that file, `=` and all."""
    from pathlib import Path

    named = NAMED.match(value)
    if named and not Path(value).exists():
        name, rest = named.group(1), named.group(2)
    else:
        name, rest = None, value
    files = [f.strip() for f in rest.split(",") if f.strip()]  # `a, b` as pasted: no file named " b"
    if not files:
        raise ScenarioError("--host", value, "no file after the host's name: --host NAME=FILE[,FILE…]")
    return name, files


def _cluster(given: list[tuple[str | None, list[str]]]) -> str:
    """The cluster's scenario; what the hosts share said on stderr in one line."""
    from pathlab.importer.cluster import cluster_of

    cluster = cluster_of([(name, tuple(files)) for name, files in given])
    shared_ports = sum(1 for reached in cluster.ports.values() if len(reached) > 1)
    click.echo(f"pathlab import: hosts {', '.join(cluster.hosts)}; {len(cluster.shared_devices)} device(s) on several "
               f"hosts, {shared_ports} of {len(cluster.ports)} array port(s) reached by several", err=True)
    return cluster.to_toml()
