"""`pathlab show devices|paths FILE`: the configuration as the host's own tools print it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from pathlab.cli.common import handle_errors, load, seed_option, set_option, variant_option
from pathlab.output import esxcli, hosts, multipath, nvme

VIEWS = click.Choice(["devices", "paths"])


@click.command("show")
@click.argument("what", type=VIEWS)
@click.argument("file")
@variant_option
@set_option
@seed_option
@click.option("--at", "at", default="0s", show_default=True,
              help="Simulated time to show it at, e.g. 60s (the run is simulated up to then).")
@click.option("--style", type=click.Choice(["esxi", "linux", "linux-l", "nvme", "nvme-topology", "json"]), default="esxi",
              show_default=True,
              help="esxi: esxcli storage nmp device/path list; linux: multipath -ll; linux-l: multipath -l (no "
                   "checker or prioritizer run: undef, prio=0); nvme: nvme list-subsys (native NVMe multipath "
                   "heads); nvme-topology: nvme show-topology (each namespace's ANA states).")
@click.option("--host", help="Show only this host's view, of a scenario with several hosts.")
@handle_errors
def command(what: str, file: str, variant: str | None, sets: tuple[str, ...], seed: int | None, at: str,
            style: str, host: str | None) -> None:
    """Print devices (esxcli storage nmp device list) or paths (esxcli storage nmp path list,
    or multipath -ll with --style linux, -l with linux-l, or nvme list-subsys with --style nvme,
    nvme show-topology with nvme-topology).

    Each host's tools know only its own devices, adapters and paths: with several hosts in the
    scenario and no --host, each host's view is printed in turn under a line `==> host NAME <==`
    (JSON: one list, each device or path naming its host)."""
    scenario = load(file, variant, sets, seed)
    desc = scenario.describe(at)
    if style == "json":
        hosts.check(desc, host, scenario.file)
        click.echo(json.dumps((hosts.view(desc, host) if host else desc)[what], indent=2))
        return
    if style.startswith("nvme") and not any(f["nvme_head"] for f in desc["linux"]["devices"]):
        click.echo("pathlab: warning: no device is a native NVMe multipath head (policy nvme or nvme-latency): "
                   "nvme list-subsys lists nothing", err=True)
    styles: dict[str, Callable[[dict[str, Any]], str]] = {
        "linux": multipath.multipath_ll, "linux-l": lambda view: multipath.multipath_ll(view, checked=False),
        "nvme": nvme.list_subsys, "nvme-topology": nvme.show_topology,
        "esxi": esxcli.device_list if what == "devices" else lambda view: esxcli.path_list(view, desc)}
    render = styles[style]
    click.echo(hosts.joined([(name, render(view)) for name, view in hosts.each(desc, host, scenario.file)]), nl=False)
