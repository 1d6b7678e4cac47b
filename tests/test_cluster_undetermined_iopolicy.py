"""Issue 32: a cluster's NVMe iopolicy that no capture shows is open on each host as on one host:
numa (the kernel's default, simulated as assumed) is offered too, and the candidates say on which
hosts the setting in force is assumed. The hosts name a shared subsystem alike (its NQN), so the
open setting is each host's device, not the name's."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import pathlab
from pathlab.advisor.candidates import candidates
from pathlab.advisor.cluster_pipeline import undetermined_of

ROOT = Path(__file__).resolve().parent.parent
PAIR = str(ROOT / "tests" / "data" / "cluster" / "nvme-pair.toml")
SETTLE = ("/sys/class/nvme-subsystem/nvme-subsys0/iopolicy would tell, "
          "/sys/class/nvme-subsystem/nvme-subsys1/iopolicy would tell")
NVME = ["nvme numa", "nvme round-robin", "nvme queue-depth"]


def _ran(folder: Path, *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "pathlab", *args], capture_output=True, text=True, check=True,
                          cwd=folder).stdout


@pytest.fixture(scope="module")
def captures(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each host's `nvme list-subsys` (as pathlab prints it: `iopolicy=numa` under each subsystem)
    and /proc/diskstats samples."""
    folder = tmp_path_factory.mktemp("nvme-pair")
    _ran(folder, "run", PAIR, "--diskstats", "diskstats.txt")
    for host in ("nv-a", "nv-b"):
        (folder / f"nvme-{host}.txt").write_text(_ran(folder, "show", "paths", PAIR, "--style", "nvme", "--host", host))
    return folder


def _hosts(folder: Path, without_iopolicy: tuple[str, ...]) -> dict[str, list[str]]:
    """The hosts' files, the `iopolicy=` lines taken out of those named (as nvme-cli 1.x prints them)."""
    out = {}
    for host in ("nv-a", "nv-b"):
        listing = folder / f"nvme-{host}.txt"
        if host in without_iopolicy:
            listing = folder / f"nvme-{host}-no-iopolicy.txt"
            listing.write_text(re.sub(r"^\s*iopolicy=\S+\n", "", (folder / f"nvme-{host}.txt").read_text(), flags=re.M))
        out[host] = [str(listing), str(folder / f"diskstats-{host}.txt")]
    return out


def test_a_cluster_whose_captures_show_no_iopolicy_offers_numa_assumed_on_both_hosts(captures: Path) -> None:
    cluster = pathlab.import_cluster(hosts=_hosts(captures, ("nv-a", "nv-b")))
    assert {h: sorted(u.setting for u in host.undetermined) for h, host in cluster.hosts.items()} == {
        "nv-a": ["iopolicy", "iopolicy"], "nv-b": ["iopolicy", "iopolicy"]}
    advice = pathlab.advise(cluster, duration="200ms", warmup="0s", seeds=2)
    offered = {c.label: c.candidate for c in advice.candidates}
    assert set(NVME) <= set(offered)
    assert offered["nvme numa"].caveat == ("the setting in force is simulated as numa on nv-a, nv-b, assumed, so numa "
                                           "ranks as it does: it changes something only if a host runs another iopolicy")
    assert {offered[label].against_assumed for label in NVME} == {
        f"the iopolicy in force is not determined ({SETTLE}): every candidate is ranked against numa on nv-a, nv-b, "
        "assumed"}


def test_one_host_read_and_one_assumed_names_the_assumed_host_alone(captures: Path) -> None:
    cluster = pathlab.import_cluster(hosts=_hosts(captures, ("nv-b",)))
    open_ = undetermined_of(cluster.hosts)
    assert [(u.host, u.device) for u in open_] == [("nv-b", "nqn.2014-08.com.example:sub1"),
                                                    ("nv-b", "nqn.2014-08.com.example:sub2")]
    scenario = cluster.scenario.with_set({"run.duration": "20ms", "run.warmup": "0s"})
    offered = {c.label: c for c in candidates(scenario, scenario.run(), open_)}
    assert set(NVME) <= set(offered)
    assert offered["nvme round-robin"].against_assumed == (
        f"the iopolicy in force is not determined ({SETTLE}): every candidate is ranked against numa on nv-b, assumed")
    # nv-a's iopolicy was read: nothing of it is open, so the name shared with nv-b does not make it so.
    assert not [u for u in open_ if any(u.concerns(d) for d in scenario.devices if d.host == "nv-a")]
