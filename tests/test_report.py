"""Reports: one self-contained HTML file that a headless browser opens with every plot drawn."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, pathlab

ARTEFACTS = ROOT / "target" / "test-artefacts"
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
HEADLESS = ["--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"]


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("reports")
    short = ("--set", "run.duration=4s", "--set", "run.warmup=1s")
    made = {
        "run": pathlab("run", "scenarios/congested-path.toml", *short, "--html", str(d / "run.html")),
        "compare": pathlab("compare", "scenarios/c1-vmax-1lun.toml", *short, "--html", str(d / "compare.html")),
        "seeds": pathlab("compare", "scenarios/c1-vmax-1lun.toml", "--seeds", "2", "--set", "run.duration=1s",
                         "--set", "run.warmup=1s", "--html", str(d / "seeds.html")),
        "sweep": pathlab("sweep", "scenarios/bench-minimal.toml", "--grid", "policy.iops=1:1000:*10", "--seeds", "2",
                         "--set", "run.duration=1s", "--out", str(d / "bm"), "--html", str(d / "sweep.html")),
    }
    for name, done in made.items():
        assert done.returncode == 0, f"{name}: {done.stderr}"
    return {name: d / f"{name}.html" for name in made}


FIGURES = {"run": 4, "compare": 5, "seeds": 3, "sweep": 3}


def test_reports_are_self_contained_deterministic_and_carry_scenario_and_provenance(reports, tmp_path) -> None:
    for name, path in reports.items():
        text = path.read_text()
        assert text.count("<figure>") == FIGURES[name], name
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), f"{name} loads something from the network"
        assert "<h2>Provenance</h2>" in text
    assert "[[workloads]]" in reports["run"].read_text()  # the scenario text
    assert "± " in reports["seeds"].read_text()
    # The sweep's report again from its table: the same bytes (no date, fixed SVG ids).
    again = tmp_path / "again.html"
    done = pathlab("report", str(reports["sweep"].parent / "bm-runs.parquet"), "--html", str(again))
    assert done.returncode == 0, done.stderr
    assert again.read_bytes() == reports["sweep"].read_bytes()


def test_report_from_a_file_that_is_not_a_result_is_refused_in_one_line(tmp_path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    done = pathlab("report", str(bad), "--html", str(tmp_path / "x.html"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"pathlab: error: {bad}: not a pathlab result") and done.stderr.count("\n") == 1


def test_report_renders_in_headless_chromium_with_every_plot_drawn(reports) -> None:
    if BROWSER is None:
        pytest.skip("chromium is not installed (.ci/run installs the Debian package `chromium` with apt-get)")
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    for name, path in reports.items():
        dom = subprocess.run([BROWSER, *HEADLESS, "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=60)
        body = re.search(r"<body[^>]*>", dom.stdout)
        assert body, dom.stderr[-500:]
        assert "data-script-error" not in body.group(0), body.group(0)
        assert f'data-plots="{FIGURES[name]}/{FIGURES[name]}"' in body.group(0), (name, body.group(0))
        shot = ARTEFACTS / f"report-{name}.png"
        subprocess.run([BROWSER, *HEADLESS, f"--screenshot={shot}", "--window-size=1000,1400", path.as_uri()],
                       capture_output=True, timeout=60)
        assert shot.stat().st_size > 20_000  # a page with plots, not a blank one
