"""Whether `pathlab advise --duration auto` ranks and decides as the full length (20 s after 5 s
of warm-up) does, on the shipped scenarios advise is tested on, the shipped capture, a generated
host of 500 devices × 8 paths with one I/O outstanding on each (its ports saturated: each
device's I/Os counted on their own) and one of 5,000 devices × 8 paths at 20 I/O/s each (ports
half busy: the alike devices' I/Os counted together). Prints one row per host with both wall
times; slow (the full length is what it checks against): minutes on 2 cores.

    python scripts/advise_length_check.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pathlab.advisor.run_length import same_ranking
from pathlab.large_host import scenario_text

ROOT = Path(__file__).resolve().parent.parent
HOSTS = [
    [str(ROOT / "scenarios" / "c1-vmax-1lun.toml"), "--variant", "iops1000"],
    [str(ROOT / "scenarios" / "c2-activecluster-distance.toml"), "--variant", "rr_all_paths"],
    [str(ROOT / "scenarios" / "vmax3-shared-director.toml"), "--variant", "iops1000"],
    [str(ROOT / "scenarios" / "reactions" / "nvme-shared-controllers.toml"), "--variant", "round_robin"],
    ["vmax-iops1000"],
]


def advise(args: list[str], duration: str) -> tuple[dict, float]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pathlab", "advise", *args, "--duration", duration, "--format", "json"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout), time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        generated = Path(folder) / "generated-500x8.toml"
        generated.write_text(scenario_text(500, 8, 1))
        light = Path(folder) / "generated-5000x8-20iops.toml"
        light.write_text(scenario_text(5000, 8, 1, rate=20.0))
        print("| host | decision (full) | decision (auto) | same ranking | wall s full | wall s auto |")
        print("|---|---|---|---|---:|---:|")
        for args in [*HOSTS, [str(generated)], [str(light)]]:
            print(f"pathlab advise {' '.join(args)}", file=sys.stderr)
            full, full_s = advise(args, "20s")
            short, short_s = advise(args, "auto")
            same = same_ranking(full["candidates"], short["candidates"])
            name = Path(args[0]).stem + (f" {args[2]}" if len(args) > 2 else "")
            print(f"| {name} | {full['recommendation']['to']} | {short['recommendation']['to']} | "
                  f"{'yes' if same else 'NO'} | {full_s:.1f} | {short_s:.1f} |", flush=True)


if __name__ == "__main__":
    main()
