"""Whether the fabric's distance and the array's zero-load time move advise's predicted gain as
much as the spans advise already shows (port capacity ±50%, load 8-64): on imported hosts with
measured load, each candidate's gain at the assumed values, at both ends of each of the two
assumptions, and the range advise prints over its own spans. Prints one Markdown row per host,
candidate and assumption; a few minutes on 2 cores.

    python scripts/advise_assumption_spans.py

The ends, and why: the importers assume 5 µs one way (a fabric within one room); 1 µs is the
same switch, 50 µs is 10 km of fibre between two sites (light in glass, about 5 µs per km). The
imported array answers a command in its port's service time alone (no `read_latency` or
`write_latency`); 0.3 ms more is the zero-load time measured on the VMAX of C1 (0.31 ms), the
highest of the shipped calibrations."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINUX = ROOT / "tests" / "data" / "linux"
sys.path.insert(0, str(ROOT / "tests"))
from test_advise_ranges import mru_capture  # noqa: E402  (the tests' MRU variant of the capture)

#: The assumption, and the overrides at its two ends.
ASSUMPTIONS = {
    "fabric one way 1-50 µs (assumed 5)": (['fabric.*.latency="1us"'], ['fabric.*.latency="50us"']),
    "zero-load time +0-0.3 ms": ([], ['arrays.*.read_latency="300us"', 'arrays.*.write_latency="300us"']),
}


def netapp_map(folder: Path) -> list[str]:
    """A NetApp map on dm-1 (multipath -ll of the netapp sample) with the pt-diskstats sample that
    measures dm-1 (as tests/test_import_linux.py makes it): load measured, the port assumed."""
    text = (LINUX / "multipath_check-multipath-20_netapp-debian-squeeze.txt").read_text().split("foobar_postgresql_lun0")[0]
    (folder / "mp.txt").write_text(text)
    return [str(folder / "mp.txt"), str(LINUX / "diskstats_pt-diskstats-small.txt")]


def advise(files: list[str], sets: list[str]) -> dict:
    done = subprocess.run([sys.executable, "-m", "pathlab", "advise", *files, "--format", "json",
                           *(a for s in sets for a in ("--set", s))], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        hosts = {"C1 capture, MRU": mru_capture(folder), "C1 capture (vmax-iops1000)": ["vmax-iops1000"],
                 "NetApp dm-1 + pt-diskstats": netapp_map(folder)}
        print("| host | candidate | gain (assumed) | advise's range | assumption | gain at its ends |")
        print("|---|---|---:|---|---|---|")
        for host, files in hosts.items():
            print(f"advise {host}", file=sys.stderr)
            central = advise(files, [])
            ends = {a: [advise(files, sets) for sets in pair] for a, pair in ASSUMPTIONS.items()}
            for c in central["candidates"]:
                span = c.get("gain_range")
                shown = f"{span[0]:.2f}-{span[1]:.2f}" if span else "one figure"
                for a, docs in ends.items():
                    at = [next(d for d in doc["candidates"] if d["label"] == c["label"])["gain"] for doc in docs]
                    print(f"| {host} | {c['label']} | {c['gain']:.2f} | {shown} | {a} | "
                          f"{at[0]:.2f} / {at[1]:.2f} |", flush=True)


if __name__ == "__main__":
    main()
