"""NVMe multipath's per-path sysfs attributes (2026): read as `grep -r .` and a shell loop print
them, the paths' `queue_depth` as a measured load (one snapshot), the diagnostic counters as
health findings naming their line. The list-subsys listing is the corpus' real NetApp sample 009
(subsystem 4, controllers nvme4, nvme53, nvme102, nvme151); no published capture of the 2026
attributes was found, so the sysfs captures are written by hand in the kernel's names
(`drivers/nvme/host/multipath.c`, libnvme's accessors)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import one_error_line, pathlab
from pathlab.api import ScenarioError
from pathlab.importer.kinds import kind_of
from pathlab.importer.nvme_counters import snapshot_load
from pathlab.readers import nvme_sysfs

SUBSYS = Path(__file__).parent / "data" / "corpus" / "nvme-list-subsys" / "009-netapp-rocky10-tcp-two-subnets" / "bare.txt"

GREP = """\
[root@rocky10 ~]# grep -r . /sys/block/nvme4c*n1/{queue_depth,ana_state,diag/*} /sys/class/nvme/nvme{4,53}/diag/reset_count
/sys/block/nvme4c4n1/queue_depth:3
/sys/block/nvme4c53n1/queue_depth:14
/sys/block/nvme4c102n1/queue_depth:2
/sys/block/nvme4c151n1/queue_depth:13
/sys/block/nvme4c4n1/ana_state:non-optimized
/sys/block/nvme4c53n1/ana_state:optimized
/sys/block/nvme4c53n1/diag/command_error_count:0
/sys/block/nvme4c53n1/diag/command_retry_count:0
/sys/block/nvme4c53n1/diag/multipath_failover_count:0
/sys/block/nvme4c151n1/diag/command_error_count:2
/sys/block/nvme4c151n1/diag/command_retry_count:9
/sys/block/nvme4c151n1/diag/multipath_failover_count:4
/sys/class/nvme/nvme4/diag/reset_count:0
/sys/class/nvme/nvme53/diag/reset_count:1
"""

#: `echo "$f: $(cat $f)"` leaves a blank after the colon, and nothing after it for an empty file.
LOOP = "\n".join([
    '$ for f in /sys/block/nvme4c*n1/queue_depth /sys/block/nvme4c*n1/diag/*; do echo "$f: $(cat $f)"; done',
    "/sys/block/nvme4c4n1/queue_depth: ",
    "/sys/block/nvme4c53n1/queue_depth: ",
    "/sys/block/nvme4c4n1/diag/multipath_failover_count: 0",
    "grep: /sys/block/nvme4c102n1/diag/multipath_failover_count: No such file or directory",
    "",
])


def _write(tmp_path: Path, text: str, name: str = "sysfs.txt") -> str:
    (tmp_path / name).write_text(text)
    return str(tmp_path / name)


def test_grep_output_is_read_path_by_path_and_recognised(tmp_path: Path) -> None:
    file = _write(tmp_path, GREP)
    assert kind_of(file).name == "nvme-sysfs"
    table = nvme_sysfs.read(file)
    assert len(table) == 14
    first = table.iloc[0]
    assert (first["name"], first["object"], first["attribute"], first["value"], first["line"]) == \
        ("nvme4c4n1", "path", "queue_depth", "3", 2)
    reset = table[table["name"] == "nvme53"].iloc[0]
    assert (reset["object"], reset["attribute"], reset["value"], reset["line"]) == ("controller", "diag/reset_count", "1", 15)


def test_a_loops_empty_queue_depth_is_no_load_and_a_missing_attribute_is_said(tmp_path: Path) -> None:
    """queue_depth prints nothing unless the iopolicy is queue-depth; a kernel before 2026 has no diag/."""
    file = _write(tmp_path, LOOP)
    with pytest.warns(match="line 5: grep: .* this kernel lacks the attribute"):
        table = nvme_sysfs.read(file)
    assert list(table["value"]) == ["", "", "0"]
    assert snapshot_load(table, file) == {}


@pytest.mark.parametrize(("line", "says"), [
    ("/sys/block/nvme4c4n1/diag/queue_length:3", "diag/queue_length of a path: not an NVMe multipath attribute"),
    ("/sys/block/nvme4c4n1/diag/command_retry_count:many", "diag/command_retry_count 'many': the kernel prints a whole"),
    ("/sys/block/nvme4c4n1/queue_depth:²", "queue_depth '²': the kernel prints a whole"),  # a digit to isdigit, not to int
    ("/sys/block/nvme4c4n1/ana_state:optimised", "ana_state 'optimised': one of optimized, non-optimized"),
    ("/sys/class/nvme/nvme4/diag/multipath_failover_count:1", "diag/multipath_failover_count of a controller"),
])
def test_what_the_kernel_does_not_print_is_refused_with_its_line(tmp_path: Path, line: str, says: str) -> None:
    file = _write(tmp_path, "/sys/block/nvme4c53n1/queue_depth:1\n" + line + "\n")
    with pytest.raises(ScenarioError) as error:
        nvme_sysfs.read(file)
    assert error.value.args[1] == "line 2" and says in error.value.args[2]


def test_a_controller_serving_two_namespaces_shares_its_in_flight_count(tmp_path: Path) -> None:
    """`queue_depth` is the controller's nr_active, for every namespace behind it: 8 in flight on
    nvme1, seen from namespaces 1 and 2, is 4 each; each namespace's head has its own paths' share
    (the subsystem's 9 in all, not 9 for each namespace)."""
    file = _write(tmp_path, "/sys/block/nvme0c1n1/queue_depth:8\n/sys/block/nvme0c1n2/queue_depth:8\n"
                            "/sys/block/nvme0c2n1/queue_depth:1\n")
    load = snapshot_load(nvme_sysfs.read(file), file)
    assert load["nvme0n1"][0] == 4 + 1 and load["nvme0n2"][0] == 4
    said = {head: where.comment() for head, (_, where) in load.items()}
    assert load["nvme0n1"][1].file == file
    assert "nvme0c1n1 8 (line 1, shared by 2 namespaces)" in said["nvme0n1"] and "one snapshot" in said["nvme0n1"]
    assert "nvme0c1n2" not in said["nvme0n1"] and "nvme0c2n1" not in said["nvme0n2"]


def test_the_snapshot_is_the_simulated_load_no_rate_and_the_counters_are_findings(tmp_path: Path) -> None:
    sysfs = _write(tmp_path, GREP)
    imported = pathlab("import", str(SUBSYS), sysfs)
    assert imported.returncode == 0, imported.stderr
    # 3 + 14 + 2 + 13 I/Os in flight on subsystem 4's four paths at that instant.
    assert f"outstanding = 32  # {sysfs}: queue_depth of nvme4c4n1 3 (line 2)" in imported.stdout
    # The listing shows no iopolicy; a path's queue_depth is printed only under queue-depth.
    assert (f'policy = {{ name = "nvme", iopolicy = "queue-depth" }}  # {sysfs}: the paths print queue_depth'
            in imported.stdout)
    done = pathlab("advise", str(SUBSYS), sysfs, "--seeds", "2", "--duration", "1s", "--warmup", "0.5s", "--format", "json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    titles = {f["title"]: f["evidence"] for f in document["findings"]}
    path = ("path nvme4c151n1 (controller nvme151): 2 commands ended with an error status, 9 commands retried, "
            "4 I/Os failed over to another path after an error on this one, since it was created (captured)")
    assert titles[path].startswith(f"{sysfs}, line 11: diag/command_error_count 2; {sysfs}, line 12:")
    assert titles["controller nvme53: 1 controller resets, since it was created (captured)"] == \
        f"{sysfs}, line 15: diag/reset_count 1: counts since creation, not rates; two captures minutes apart give a rate"
    assert not [t for t in titles if "nvme4c53n1" in t or "controller nvme4:" in t]  # all zero: nothing to say
    # One snapshot of the I/Os in flight is no rate (as PowerPath's queued-IOs): no gain is
    # predicted from it (it was taken as a measured load), and advise says what to capture.
    assert document["capture_needed"][1] == "iostat -xt 5 61 > iostat.txt" and not document["candidates"]
    assert ("the sysfs snapshot gives the I/Os in flight at one instant, no rate and not their size or read share: "
            "4 KiB, 70% reads assumed; no gain is predicted from it") in imported.stderr


def test_sysfs_attributes_without_the_listing_are_refused_in_one_line(tmp_path: Path) -> None:
    done = pathlab("import", _write(tmp_path, GREP))
    assert "give one `nvme list-subsys`" in one_error_line(done)


TOPOLOGY = Path(__file__).parent / "data" / "corpus" / "nvme-show-topology" / "001-nvme-cli-pr1693-four-ports-one-address" / "bare.txt"


def test_each_namespace_takes_its_own_share_of_the_snapshot(tmp_path: Path) -> None:
    """Four namespaces behind controllers nvme2-nvme5, which hold 8, 4, 12 and 0 I/Os in flight
    for all four: each namespace's workload has its quarter, (8 + 4 + 12 + 0) / 4 = 6, and the
    host the 24 the controllers hold, not 24 for each namespace."""
    in_flight = {2: 8, 3: 4, 4: 12, 5: 0}
    sysfs = _write(tmp_path, "".join(f"/sys/block/nvme2c{c}n{n}/queue_depth:{v}\n"
                                     for c, v in in_flight.items() for n in range(1, 5)))
    imported = pathlab("import", str(TOPOLOGY), sysfs)
    assert imported.returncode == 0, imported.stderr
    assert imported.stdout.count("outstanding = 6  #") == 4, imported.stdout
    assert "outstanding = 24" not in imported.stdout


def test_a_snapshot_of_another_host_is_refused(tmp_path: Path) -> None:
    sysfs = _write(tmp_path, "/sys/block/nvme9c9n1/queue_depth:8\n/sys/block/nvme9c9n1/diag/command_retry_count:5\n")
    done = pathlab("import", str(TOPOLOGY), sysfs)
    line = one_error_line(done)
    assert done.returncode == 2 and sysfs in line, done.stderr
    assert f"the controllers its paths lead to (nvme9) are none of the controllers of {TOPOLOGY} (" in line, line


def test_a_snapshot_with_no_io_in_flight_on_any_namespace_is_one_line(tmp_path: Path) -> None:
    # Every head idle at that instant (the four namespaces of nvme-subsys2 and the local disk's):
    # the scenario had no workload, and the engine refused it as "missing field `workloads`".
    paths = ["nvme0c0n1", *(f"nvme2c{c}n{n}" for c in range(2, 6) for n in range(1, 5))]
    sysfs = _write(tmp_path, "".join(f"/sys/block/{p}/queue_depth:0\n" for p in paths))
    line = one_error_line(pathlab("import", str(TOPOLOGY), sysfs))
    assert line == (f"pathlab: error: {sysfs}: every namespace head is idle in it (no reads or writes, no I/O in "
                    "flight, or left out by iostat -z): the capture saw no I/O; capture while the host runs its load")
