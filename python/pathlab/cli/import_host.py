"""`pathlab import FILES... -o host.toml`: a scenario of the admin's host from its esxcli
listings and esxtop capture, every value commented with where it came from."""

from __future__ import annotations

import click

from pathlab.cli.common import force_option, handle_errors, writable_output
from pathlab.importer.host import import_host
from pathlab.output.files import OutputFile, written


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path())
@click.option("-o", "--output", type=OutputFile(), help="Write the scenario here (default: stdout).")
@force_option
@handle_errors
def command(files: tuple[str, ...], output: str | None, force: bool) -> None:
    """Build a scenario of a host from what it prints: ESXi (`esxcli storage nmp device list` or
    `hpp device list`, `nmp path list` or `core path list`, an `esxtop -b` capture), Linux
    dm-multipath (`multipath -ll`, `multipath.conf`, `iscsiadm -m session -P 3`, /proc/diskstats or
    `iostat -x`), native NVMe (`nvme list-subsys`, the paths' sysfs attributes), PowerPath
    (`powermt display dev=all`, `rpowermt` on ESXi) or Windows MPIO (`mpclaim -s -d N`,
    `Get-MPIOSetting`). FILES may be a
    folder of them (a sosreport or vm-support tree) or a shipped capture's name (vmax-iops1000)."""
    from pathlab import shipped

    # The inputs as given (a folder stands for every file under it), a shipped capture's files.
    writable_output(output, "--output", [f for name in files for f in (shipped.capture_files(name) or [name])], force)
    text = import_host(*files).to_toml()
    if output:
        with written(output, "--output") as part:
            part.write_text(text, encoding="utf-8")
        click.echo(f"pathlab import: wrote {output}", err=True)
    else:
        click.echo(text, nl=False)
