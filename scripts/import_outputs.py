"""What `pathlab import` prints for every sample and sample set under tests/data, one file per
input set (exit code, stdout, stderr), for checking a change of the importers byte for byte:
run it before and after into two folders and `diff -r` them (or `cmp` file by file).

    python scripts/import_outputs.py OUTDIR [--inputs DIR]

The sets: every sample alone (the corpus's bare and as-collected forms, tests/data's listings);
each `multipath -ll`/`-l` sample with each multipath.conf and with each diskstats/iostat capture;
each NVMe listing with each capture; each ESXi device list with each path list; the shipped
capture; and hosts generated from the shipped and the cluster scenarios (their `show` views and
`run` counters, written once into `--inputs`, default OUTDIR/../import-inputs, and reused), alone
and as clusters (`--host NAME=FILES`). With `--values`, each host imported is also checked: its
typed tables' values are what its text parses to (the scenario is built from the values)."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import sys
from pathlib import Path

from click.testing import CliRunner

from pathlab.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
PACKAGE = Path(__import__("pathlab").__file__).parent
SHORT = ["--set", 'run.duration="2s"', "--set", 'run.warmup="1s"', "--set", 'run.interval="1s"']


def _cli(*args: str) -> tuple[int, str, str]:
    with contextlib.chdir(ROOT):
        result = CliRunner().invoke(main, list(args), prog_name="pathlab")
    err = result.stderr
    if result.exc_info and not isinstance(result.exception, SystemExit):
        import traceback

        err += "".join(traceback.format_exception(*result.exc_info))
    return result.exit_code, result.stdout, err


def _samples() -> list[Path]:
    skip = {"README.md", "expected.toml", "shown.txt"}
    return sorted(p for p in DATA.rglob("*") if p.is_file() and p.name not in skip and p.suffix != ".toml"
                  and "workloads" not in p.parts)


def _generated(inputs: Path) -> tuple[list[list[str]], list[list[str]]]:
    """Hosts (each a list of files) and clusters (each a list of `--host` arguments) generated from
    the shipped and the cluster scenarios."""
    inputs.mkdir(parents=True, exist_ok=True)
    hosts: list[list[str]] = []
    clusters: list[list[str]] = []
    scenarios = sorted((ROOT / "python" / "pathlab" / "scenarios").glob("*.toml")) + sorted((DATA / "cluster").glob("*.toml"))
    views = {"esxi": ([["show", "devices"], ["show", "paths"]], "--esxtop-csv", "esxtop.csv"),
             "linux": ([["show", "paths", "--style", "linux"]], "--diskstats", "diskstats.txt"),
             "nvme": ([["show", "paths", "--style", "nvme"]], "--diskstats", "diskstats.txt")}
    for scenario in scenarios:
        from pathlab.api import Scenario

        loaded = Scenario.load(scenario)
        names = loaded.handle.hosts
        for stack, (shows, option, counters) in views.items():
            folder = inputs / scenario.stem / stack
            marker = folder / "done"
            if not marker.exists():
                folder.mkdir(parents=True, exist_ok=True)
                code, _, _ = _cli("run", str(scenario), *SHORT, option, str(folder / counters), "--format", "json")
                ok = code == 0
                for host in names:
                    for i, show in enumerate(shows):
                        args = [*show, str(scenario), *(["--host", host] if len(names) > 1 else [])]
                        code, out, _ = _cli(*args)
                        ok = ok and code == 0 and bool(out.strip())
                        (folder / f"view{i}-{host}.txt").write_text(out)
                marker.write_text("ok" if ok else "failed")
            if marker.read_text() != "ok":
                continue
            stem, suffix = counters.split(".")
            per_host = []
            for host in names:
                files = [str(folder / f"view{i}-{host}.txt") for i in range(len(shows))]
                counted = folder / (f"{stem}-{host}.{suffix}" if len(names) > 1 else counters)
                if counted.exists():
                    files.append(str(counted))
                hosts.append(files)
                per_host.append(f"--host={host}={','.join(files)}")
            if len(per_host) > 1:
                clusters.append(per_host)
    return hosts, clusters


def sets(inputs: Path) -> list[list[str]]:
    samples = _samples()
    out: list[list[str]] = [[str(p)] for p in samples]
    text = {p: p.name + " " + str(p.parent) for p in samples}
    # Combinations: the corpus's bare form only (its as-collected form is imported alone above).
    paired = [p for p in samples if "corpus" not in p.parts or p.name == "bare.txt"]
    multipath = [p for p in paired if ("multipath-l" in text[p] or "multipath_check" in text[p] or
                                       "multipathd" in text[p]) and "conf" not in p.name]
    # multipath.conf and counters: tests/data/linux's (the corpus's are read alone).
    confs = [p for p in paired if "multipath-conf" in text[p] and "corpus" not in p.parts]
    counters = [p for p in paired if ("diskstats" in text[p] or "iostat" in text[p]) and "corpus" not in p.parts]
    nvme = [p for p in paired if "nvme-list-subsys" in text[p] or "nvme-show-topology" in text[p]]
    devices = [p for p in paired if "device-list" in text[p]]
    paths = [p for p in paired if "path-list" in text[p] or "esxcfg-mpath" in text[p]]
    out += [[str(a), str(b)] for a, b in itertools.product(multipath, confs)]
    out += [[str(a), str(b)] for a, b in itertools.product(multipath + nvme, counters)]
    out += [[str(a), str(b)] for a, b in itertools.product(devices, paths)]
    out.append(["vmax-iops1000"])
    hosts, clusters = _generated(inputs)
    out += hosts
    out += clusters
    return out


def _check_values(files: list[str]) -> None:
    """The host's (or cluster's) typed tables hold what its text says, value for value."""
    import tomllib
    import warnings

    import pathlab

    with warnings.catch_warnings(), contextlib.chdir(ROOT):
        warnings.simplefilter("ignore")
        if files[0].startswith("--host="):
            made = pathlab.import_cluster({f.split("=")[1]: f.split("=", 2)[2].split(",") for f in files})
        else:
            made = pathlab.import_host(*files)
    if made.tables.values() != tomllib.loads(made.text):
        raise SystemExit(f"{' '.join(files)}: the typed tables' values differ from the text's")


def main_() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("--inputs", type=Path)
    parser.add_argument("--values", action="store_true", help="check each host's values against its text")
    args = parser.parse_args()
    inputs = args.inputs or args.outdir.resolve().parent / "import-inputs"
    args.outdir.mkdir(parents=True, exist_ok=True)
    every = sets(inputs)
    index = []
    for i, files in enumerate(every):
        code, out, err = _cli("import", *files)
        # A shipped capture is named where the package is: the same for code at two places.
        out, err = (text.replace(str(PACKAGE), "<pathlab>") for text in (out, err))
        (args.outdir / f"{i:04d}.out").write_text(f"exit {code}\n--- stdout\n{out}--- stderr\n{err}")
        index.append(f"{i:04d} exit {code}: {' '.join(files)}")
        if args.values and code == 0:
            _check_values(files)
        if i % 100 == 0:
            print(f"{i}/{len(every)}", file=sys.stderr)
    (args.outdir / "index.txt").write_text("\n".join(index) + "\n")
    codes = [line.split(" ")[2] for line in index]
    print(f"{len(every)} input sets: {codes.count('0:')} imported, {len(every) - codes.count('0:')} refused")


if __name__ == "__main__":
    main_()
