"""Outputs never destroy inputs (issue 24): an output named as one of the command's inputs, or
as another output of it, is refused before anything runs; an existing scenario is not replaced
without --force; a file that cannot be written is refused up front, and a write that fails late
leaves the old file whole and nothing half-written beside it."""

from __future__ import annotations

import errno
import hashlib
import shutil
from pathlib import Path

import pytest

import pathlab
from conftest import SCENARIOS, limited, one_error_line
from pathlab.output.files import written

MINIMAL = SCENARIOS / "bench-minimal.toml"
CAPTURE = Path(pathlab.__file__).parent / "captures" / "vmax-iops1000"
LINUX_LISTING = Path(__file__).parent / "data" / "linux" / "multipath_check-multipath-20_netapp-debian-squeeze.txt"
SHORT = ("--set", "run.duration=1s", "--set", "run.warmup=0s")


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """A scenario, a capture and a fio job file of the user's own, in one folder."""
    shutil.copy(MINIMAL, tmp_path / "victim.toml")
    for f in CAPTURE.iterdir():
        if f.name != "README.md":
            shutil.copy(f, tmp_path / f.name)
    (tmp_path / "job.fio").write_text("[job]\nrw=randread\nbs=4k\niodepth=4\n")
    listing = tmp_path / "sos" / "sos_commands" / "multipath" / "multipath_-v4_-ll"
    listing.parent.mkdir(parents=True)
    shutil.copy(LINUX_LISTING, listing)
    return tmp_path


# Every command that writes a file, each pointed at one of its own inputs.
OVERWRITES = [
    ("run", "victim.toml", *SHORT, "--esxtop-csv", "victim.toml"),
    ("run", "victim.toml", *SHORT, "--html", "victim.toml"),
    ("run", "victim.toml", *SHORT, "--diskstats", "victim.toml"),
    ("run", "victim.toml", *SHORT, "--vdbench-flatfile", "./victim.toml"),
    ("run", "victim.toml", *SHORT, "--workload", "job.fio", "--esxtop-csv", "job.fio"),
    ("import", "esxcli-storage-nmp-device-list.txt", "esxcli-storage-nmp-path-list.txt", "esxtop-batch.csv",
     "--force", "--output", "esxcli-storage-nmp-device-list.txt"),
    ("import", ".", "--force", "--output", "esxtop-batch.csv"),
    # A capture deep in a sosreport tree given as a folder (it was looked for one level down only).
    ("import", "sos", "--force", "--output", "sos/sos_commands/multipath/multipath_-v4_-ll"),
    ("advise", "sos", "--force", "--html", "sos/sos_commands/multipath/multipath_-v4_-ll"),
    ("advise", "victim.toml", "--html", "victim.toml"),
    ("compare", "victim.toml", "--html", "victim.toml"),
    ("report", "victim.toml", "--html", "victim.toml"),
    ("sweep", "victim.toml", "--grid", "workloads.0.outstanding=1", *SHORT, "--html", "victim.toml"),
    ("failover", "victim.toml", "--html", "victim.toml"),
]


@pytest.mark.parametrize("args", OVERWRITES, ids=lambda a: " ".join(a[:1] + a[-2:]))
def test_no_command_writes_over_one_of_its_inputs(inputs: Path, args: tuple[str, ...]) -> None:
    before = digest(inputs)
    line = one_error_line(limited(*args, cwd=inputs, timeout=60))
    option, target = args[-2:]
    assert line == f"pathlab: error: {option}: {target}: is an input of this command: writing it would destroy it"
    assert digest(inputs) == before


def test_two_outputs_of_one_command_may_not_name_one_file(inputs: Path) -> None:
    line = one_error_line(limited("run", "victim.toml", *SHORT, "--esxtop-csv", "x.csv", "--diskstats", "x.csv",
                                  cwd=inputs, timeout=60))
    assert line == "pathlab: error: --diskstats: x.csv: is also the file of --esxtop-csv: give each output its own file"
    assert not (inputs / "x.csv").exists()


def test_import_replaces_an_existing_scenario_only_when_told(inputs: Path) -> None:
    (inputs / "host.toml").write_text("# mine\n")
    captures = [f.name for f in CAPTURE.iterdir() if f.name != "README.md"]
    line = one_error_line(limited("import", *captures, "-o", "host.toml", cwd=inputs, timeout=60))
    assert line == "pathlab: error: --output: host.toml: already exists: give --force to replace it"
    assert (inputs / "host.toml").read_text() == "# mine\n"
    forced = limited("import", *captures, "-o", "host.toml", "--force", cwd=inputs, timeout=60)
    assert forced.returncode == 0, forced.stderr
    assert pathlab.Scenario.load(str(inputs / "host.toml")).name


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/dev/full", "/dev/full: is not a regular file (a device, a FIFO or a socket): give a file name"),
        ("/proc/pathlab.csv", "/proc/pathlab.csv: cannot be written: "),
        ("/", "/: is a directory: give a file name"),
    ],
)
def test_an_output_that_cannot_be_written_is_refused_before_the_run(target: str, expected: str) -> None:
    line = one_error_line(limited("run", str(MINIMAL), "--esxtop-csv", target, timeout=60))
    assert line.startswith(f"pathlab: error: --esxtop-csv: {expected}"), line


def test_a_folder_given_for_an_output_file_is_one_line_not_a_usage_text(tmp_path: Path) -> None:
    line = one_error_line(limited("run", str(MINIMAL), "--diskstats", str(tmp_path), timeout=60))
    assert line == f"pathlab: error: --diskstats: {tmp_path}: is a directory: give a file name"


def test_a_write_that_fails_late_leaves_the_old_file_whole_and_no_part(tmp_path: Path) -> None:
    old = tmp_path / "run.csv"
    old.write_text("the last good capture\n")
    with pytest.raises(pathlab.ScenarioError) as refused, written(old, "--esxtop-csv") as part:
        part.write_text("half a capt")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert refused.value.args == ("--esxtop-csv", str(old), "could not be written: No space left on device")
    assert old.read_text() == "the last good capture\n"
    assert [p.name for p in tmp_path.iterdir()] == ["run.csv"]


def test_a_new_file_is_written_whole_with_the_usual_permissions(tmp_path: Path) -> None:
    done = limited("run", str(MINIMAL), *SHORT, "--diskstats", str(tmp_path / "d.txt"), timeout=60)
    assert done.returncode == 0, done.stderr
    written_file = tmp_path / "d.txt"
    assert written_file.read_text().count("dm-0") >= 1
    assert written_file.stat().st_mode & 0o644 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["d.txt"]


# The output rule (issue 35): an output file that exists is refused in one line, exit 2, unless
# --force is given; the same for every verb and every output flag. The table is built from the
# commands themselves: a new output option (of type OutputFile) is covered here without a word.
def output_flags() -> list[tuple[str, str]]:
    import click

    from pathlab.cli import main
    from pathlab.output.files import OutputFile

    return [(verb, max(p.opts, key=len) if isinstance(p, click.Option) else p.name.upper())  # type: ignore[union-attr]
            for verb, command in sorted(main.commands.items()) for p in command.params if isinstance(p.type, OutputFile)]


#: What each verb is given before its output flag: short, and for advise and compare a setting
#: refused right after the outputs are checked (the check is what is tested, not a long run).
BEFORE = {
    "run": ("victim.toml", *SHORT),
    "advise": ("victim.toml", "--set", "run.duration=1s"),
    "compare": ("victim.toml",),
    "report": ("run.json",),
    "sweep": ("victim.toml", "--grid", "policy.iops=1", "--set", "run.duration=100ms", "--set", "run.warmup=0s",
              "--workers", "1"),
    "import": ("vmax-iops1000",),
    "scenarios": ("--copy", "bench-minimal"),
    "failover": ("victim.toml",),
}
#: What a forced command ends with, where it goes on to fail by design.
FORCED_THEN = {
    "advise": "--set: 'run.duration=1s': advise chooses the run length",
    "compare": "victim.toml: variants: the file defines no variants to compare",
    "failover": "victim.toml: sweep.grid: a failover study's [sweep] grid is over `faults` alone",
}


def test_every_output_flag_is_in_the_table() -> None:
    flags = output_flags()
    assert {verb for verb, _ in flags} == set(BEFORE), "give the new verb's arguments in BEFORE"
    assert ("run", "--esxtop-csv") in flags and ("sweep", "--out") in flags and ("scenarios", "DEST") in flags
    import click

    from pathlab.cli import main
    from pathlab.output.files import OutputFile

    # An option that says it writes a file is an OutputFile, so that the rule reaches it.
    writers = [(verb, p.opts[0]) for verb, command in main.commands.items() for p in command.params
               if isinstance(p, click.Option) and p.help and "write" in p.help.lower().split("(")[0]
               and not isinstance(p.type, OutputFile)]
    assert writers == []


@pytest.mark.parametrize(("verb", "flag"), output_flags())
def test_an_output_that_exists_is_refused_unless_forced(inputs: Path, verb: str, flag: str) -> None:
    from conftest import pathlab

    (inputs / "run.json").write_text(pathlab("run", "victim.toml", *SHORT, "--format", "json", cwd=inputs).stdout)
    given = "out" if flag == "--out" else "out.txt"
    existing = inputs / ("out-runs.parquet" if flag == "--out" else given)
    existing.write_text("mine\n")
    command = (verb, *BEFORE[verb], *((given,) if flag == "DEST" else (flag, given)))
    refused = pathlab(*command, cwd=inputs)
    assert one_error_line(refused) == f"pathlab: error: {flag}: {existing.name}: already exists: give --force to replace it"
    assert existing.read_text() == "mine\n"
    forced = pathlab(*command, "--force", cwd=inputs)
    if verb in FORCED_THEN:
        assert FORCED_THEN[verb] in one_error_line(forced)
    else:
        assert forced.returncode == 0, forced.stderr
        assert existing.read_bytes() != b"mine\n"


def test_each_hosts_own_output_is_checked_as_the_name_given(tmp_path: Path) -> None:
    """With several hosts, --esxtop-csv r.toml writes r-HOST.toml for each: a name that is the
    scenario itself (or exists) is refused before the run, as the name given would be."""
    from conftest import pathlab

    scenario = tmp_path / "r-esx-2.toml"
    shutil.copy(SCENARIOS / "vmax3-shared-director.toml", scenario)
    before = scenario.read_bytes()
    line = one_error_line(pathlab("run", str(scenario), *SHORT, "--esxtop-csv", str(tmp_path / "r.toml")))
    assert line == f"pathlab: error: --esxtop-csv: {scenario}: is an input of this command: writing it would destroy it"
    assert scenario.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["r-esx-2.toml"]
    (tmp_path / "d-esx-3.txt").write_text("mine\n")
    line = one_error_line(pathlab("run", str(scenario), *SHORT, "--diskstats", str(tmp_path / "d.txt")))
    assert line == f"pathlab: error: --diskstats: {tmp_path / 'd-esx-3.txt'}: already exists: give --force to replace it"
    forced = pathlab("run", str(scenario), *SHORT, "--diskstats", str(tmp_path / "d.txt"), "--force")
    assert forced.returncode == 0, forced.stderr
    assert sorted(p.name for p in tmp_path.glob("d-*.txt")) == [f"d-esx-{i}.txt" for i in range(1, 5)]
    assert "dm-0" in (tmp_path / "d-esx-3.txt").read_text()


def test_a_host_name_that_cannot_name_a_file_is_one_line(tmp_path: Path) -> None:
    from conftest import pathlab

    two = str(SCENARIOS / "vmax3-shared-director.toml")
    done = pathlab("run", two, *SHORT, "--set", 'host.name="a\\u0000b"', "--esxtop-csv", str(tmp_path / "r.csv"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
