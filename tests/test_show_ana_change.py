"""`show --style nvme` prints a path whose ANA group is in the change state as the kernel's
`ana_state` and nvme-cli print it, `live change`: while a simulated change lasts, and as an
imported listing read it."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT, pathlab
from two_controllers import two_controllers

REBOOT = 'kind = "controller_reboot"\narray = "a"\ncontroller = "CT0"\nat = "1s"\nuntil = "8s"\nana_change = "3s"'


def test_a_path_in_the_change_state_is_live_change_while_the_change_lasts(tmp_path: Path) -> None:
    text = two_controllers(duration="10s", seed=3, stack="", policy='name = "nvme"', workload="outstanding = 1",
                           fault=REBOOT).replace("tpgs = true", 'tpgs = true\nanatt = "3s"').replace("vmhba", "tcp")
    file = tmp_path / "change.toml"
    file.write_text(text)
    during = pathlab("show", "paths", str(file), "--style", "nvme", "--at", "2s")
    assert during.returncode == 0, during.stderr
    assert [line for line in during.stdout.splitlines() if "+-" in line] == [
        " +- nvme0 tcp traddr=a/P0,trsvcid=4420 connecting optimized",
        " +- nvme1 tcp traddr=a/P1,trsvcid=4420 live change",
        " +- nvme2 tcp traddr=a/P0,trsvcid=4420 connecting optimized",
        " +- nvme3 tcp traddr=a/P1,trsvcid=4420 live change"]
    after = pathlab("show", "paths", str(file), "--style", "nvme", "--at", "5s")
    assert " +- nvme1 tcp traddr=a/P1,trsvcid=4420 live optimized" in after.stdout.splitlines()


def test_an_imported_listings_live_change_is_printed_as_read(tmp_path: Path) -> None:
    listing = (ROOT / "tests/data/corpus/nvme-list-subsys/009-netapp-rocky10-tcp-two-subnets/bare.txt").read_text()
    changed = tmp_path / "list-subsys.txt"
    changed.write_text(listing.replace("*live optimized*", "*live change*", 1))
    scenario = tmp_path / "host.toml"
    assert pathlab("import", str(changed), "-o", str(scenario)).returncode == 0
    shown = pathlab("show", "paths", str(scenario), "--style", "nvme")
    assert any(line.startswith(" +- nvme151 tcp traddr=192.168.21.21,trsvcid=4420,") and line.endswith(" live change")
               for line in shown.stdout.splitlines()), shown.stdout
