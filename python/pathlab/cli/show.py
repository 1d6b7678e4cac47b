"""`pathlab show devices|paths|iscsi|advanced|timeouts FILE`: the configuration as the host's own tools print it."""

from __future__ import annotations

import click

from pathlab.cli.common import handle_errors, load, seed_option, set_option, variant_option
from pathlab.output.configuration import STYLES, configuration
from pathlab.output.sink import emit

VIEWS = click.Choice(["devices", "paths", "iscsi", "advanced", "timeouts"])


@click.command("show")
@click.argument("what", type=VIEWS)
@click.argument("file")
@variant_option
@set_option
@seed_option
@click.option("--at", "at", default="0s", show_default=True,
              help="Simulated time to show it at, e.g. 60s (the run is simulated up to then).")
@click.option("--style", type=click.Choice([*STYLES, "json"]), default="esxi", show_default=True,
              help="esxi: esxcli storage nmp device/path list; linux: multipath -ll; linux-l: multipath -l (no "
                   "checker or prioritizer run: undef, prio=0); nvme: nvme list-subsys (native NVMe multipath "
                   "heads); nvme-topology: nvme show-topology (each namespace's ANA states); nvme-list: nvme list -v "
                   "(subsystems, controllers, namespaces); powerpath: powermt "
                   "display dev=all (devices under the powerpath policy); mpio: mpclaim -s -d N and "
                   "Get-MPIOSetting (devices under the mpio policy).")
@click.option("--host", help="Show only this host's view, of a scenario with several hosts.")
@handle_errors
def command(what: str, file: str, variant: str | None, sets: tuple[str, ...], seed: int | None, at: str,
            style: str, host: str | None) -> None:
    """Print devices (esxcli storage nmp device list) or paths (esxcli storage nmp path list,
    or multipath -ll with --style linux, -l with linux-l, or nvme list-subsys with --style nvme,
    nvme show-topology with nvme-topology, nvme list -v with nvme-list, powermt display dev=all with
    powerpath, mpclaim -s -d N with mpio), or iscsi: each ESXi software iSCSI adapter's session
    timers (esxcli iscsi adapter param get), or advanced: an ESXi host's Misc.APDTimeout and
    Disk.PathEvalTime (esxcli system settings advanced list -o), or timeouts: a Linux host's SCSI
    disks' command timeout (grep . /sys/block/sd*/device/timeout).

    Each host's tools know only its own devices, adapters and paths: with several hosts in the
    scenario and no --host, each host's view is printed in turn under a line `==> host NAME <==`
    (JSON: one list, each device or path naming its host)."""
    if what == "timeouts":
        if style not in ("esxi", "linux", "json"):  # esxi: the option's default, not asked for
            raise click.BadParameter("timeouts are printed as grep prints Linux's sysfs: --style linux or json",
                                     param_hint="--style")
        from pathlab.output.scsi_timeouts import scsi_timeouts

        emit(scsi_timeouts(load(file, variant, sets, seed), host), "json" if style == "json" else "table")
        return
    if what in ("iscsi", "advanced"):
        if style not in ("esxi", "json"):
            raise click.BadParameter(f"{what} is printed as esxcli prints it: --style esxi or json", param_hint="--style")
        from pathlab.output.esxcli_advanced import advanced
        from pathlab.output.esxcli_iscsi import iscsi_params

        view = iscsi_params if what == "iscsi" else advanced
        emit(view(load(file, variant, sets, seed), host), "json" if style == "json" else "table")
        return
    emit(configuration(load(file, variant, sets, seed), what, style, at, host), "json" if style == "json" else "table")
