"""Reports: one self-contained HTML file per result that a headless browser opens with every plot
drawn, and figures a storage admin reads at a glance: a colour per path up to eight and a panel
per path past that, the faults shaded and named, response times in ms with plain ticks, the
policy in force in the title, one bar per path for the share of the I/O."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import matplotlib.colors
import pytest

from conftest import ROOT, SCENARIOS, pathlab
from pathlab import Scenario
from pathlab.api import Fault
from pathlab.output.report import plots

ARTEFACTS = ROOT / "target" / "test-artefacts"
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
HEADLESS = ["--headless", "--no-sandbox", "--disable-gpu", "--allow-file-access-from-files"]
CONGESTED = str(SCENARIOS / "congested-path.toml")


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Path]:
    """Every kind of report pathlab writes, from short runs."""
    d = tmp_path_factory.mktemp("reports")
    short = ("--set", "run.duration=2s", "--set", "run.warmup=1s")
    # The congestion moved into the run, so that the report has a window to shade; and host
    # pauses, which it cannot (random instants), to say so.
    congested = ("--set", "run.duration=3s", "--set", "run.warmup=1s", "--set", "run.interval=0.5s",
                 "--set", "faults.0.from=2s", "--set", "faults.0.until=3s",
                 "--set", 'host.pauses={ every = "1s", duration = "1ms" }')
    run = pathlab("run", CONGESTED, *congested, "--format", "json", "--html", str(d / "run.html"))
    (d / "run.json").write_text(run.stdout)
    made = {
        "run": run,
        "report": pathlab("report", str(d / "run.json"), "--scenario", CONGESTED, *congested, "--html", str(d / "report.html")),
        "compare": pathlab("compare", "scenarios/c1-vmax-1lun.toml", *short, "--html", str(d / "compare.html")),
        "lineup": pathlab("compare", "scenarios/bench-minimal.toml", "--lineup", "--set", "run.duration=0.3s",
                          "--set", "run.warmup=0.1s", "--html", str(d / "lineup.html")),
        "seeds": pathlab("compare", "scenarios/c1-vmax-1lun.toml", "--seeds", "2", "--set", "run.duration=1s",
                         "--set", "run.warmup=1s", "--html", str(d / "seeds.html")),
        "sweep": pathlab("sweep", "scenarios/bench-minimal.toml", "--grid", "policy.iops=1:1000:*10", "--seeds", "2",
                         "--set", "run.duration=1s", "--out", str(d / "bm"), "--html", str(d / "sweep.html")),
        # 1 s after 1 s (the default warm-up is 5 s): iops=1's fourfold gain decides at any length.
        "advise": pathlab("advise", "vmax-iops1000", "--seeds", "2", "--duration", "1s", "--warmup", "1s",
                          "--html", str(d / "advise.html")),
    }
    for name, done in made.items():
        assert done.returncode == 0, f"{name}: {done.stderr}"
    return {name: d / f"{name}.html" for name in made}


#: A run's four, and one per device the congestion touched (all four: round robin's I/Os wait
#: 2 ms on the congested paths, the rate falls to 57%) through the fault (`report/through_faults.py`).
FIGURES = {"run": 8, "report": 8, "compare": 3, "lineup": 3, "seeds": 1, "sweep": 3, "advise": 1}
#: What each report's title says is compared or in force.
SETTINGS = {"run": "round robin, iops=1", "report": "round robin, iops=1", "compare": "2 variants, each on the same I/Os",
            "lineup": "every stack's policies", "seeds": "2 settings over 2 seeds", "advise": "in force: round robin, iops=1000",
            "sweep": "the scenario's setting: round robin, iops=1; swept over policy.iops"}


def test_reports_are_self_contained_deterministic_and_carry_scenario_and_provenance(reports, tmp_path) -> None:
    for name, path in reports.items():
        text = path.read_text()
        assert text.count("<figure>") == FIGURES[name], name
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), f"{name} loads something from the network"
        assert "<h2>Provenance</h2>" in text
        title = re.search(r"<title>(.*?)</title>", text).group(1)
        assert SETTINGS[name] in title.replace("&#x27;", "'"), (name, title)
        assert "×" not in text, f"{name}: a tick labelled in scientific notation"
    assert "[[workloads]]" in reports["run"].read_text()  # the scenario text
    advice = reports["advise"].read_text()  # findings, candidates and the commands to paste
    assert "How to apply each" in advice and "the device queue is full (captured)" in advice
    assert "--type=iops --iops=1" in advice
    assert "± " in reports["seeds"].read_text()
    # The sweep's report again from its table: the same bytes (no date, fixed SVG ids).
    again = tmp_path / "again.html"
    done = pathlab("report", str(reports["sweep"].parent / "bm-runs.parquet"), "--html", str(again))
    assert done.returncode == 0, done.stderr
    assert again.read_bytes() == reports["sweep"].read_bytes()


def test_a_run_report_shades_the_fault_and_draws_a_panel_per_path_past_eight(reports) -> None:
    for name in ("run", "report"):
        text = reports[name].read_text()
        # 16 paths: a panel each in both time plots, each panel's window shaded; and each of the 4
        # devices through the fault, its rate and its latency shaded.
        assert len(re.findall(r'<g id="path-vmhba\d:C0:T\d:L\d"', text)) == 2 * 16
        assert len(re.findall(r'id="fault-0"', text)) == 2 * 16 + 2 * 4
        assert "congestion vmhba1:C0:T1, 2-3 s" in text
        assert "Not marked: host pauses (drawn at random instants)." in text
        assert "DAVG (ms)" in text and "response time (ms)" in text


def test_report_from_a_file_that_is_not_a_result_is_refused_in_one_line(tmp_path) -> None:
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    done = pathlab("report", str(bad), "--html", str(tmp_path / "x.html"))
    assert done.returncode == 2
    assert done.stderr.startswith(f"pathlab: error: {bad}: not a pathlab result") and done.stderr.count("\n") == 1
    done = pathlab("report", str(bad), "--set", "run.duration=3s", "--html", str(tmp_path / "x.html"))
    assert done.returncode == 2
    assert done.stderr == f"pathlab: error: {bad}: --set: overrides apply to the scenario: give --scenario with them\n"


def test_report_renders_in_headless_chromium_with_every_plot_drawn(reports) -> None:
    """Screenshots of every kind land in target/test-artefacts/report-KIND.png, to look at."""
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
        subprocess.run([BROWSER, *HEADLESS, f"--screenshot={shot}", "--window-size=1400,2000", path.as_uri()],
                       capture_output=True, timeout=60)
        assert shot.stat().st_size > 20_000  # a page with plots, not a blank one


def _run(paths: int) -> dict:
    """A run's per-path tables, `paths` paths over four devices, path i carrying i+1 shares."""
    names = [f"vmhba{1 + i % 2}:C0:T{i // 2 % 2}:L{1 + i // 4}" for i in range(paths)]
    rows = [{"t_s": t, "name": n, "cmds_s": 100.0 * (i + 1), "davg_ms": 0.2 + 0.01 * i}
            for t in (1.0, 2.0, 3.0, 4.0) for i, n in enumerate(names)]
    return {"path_intervals": rows,
            "paths": [{"name": n, "device": f"naa.{n[-1]}", "cmds_s": 100.0 * (i + 1)} for i, n in enumerate(names)]}


def test_a_colour_per_path_up_to_eight_then_a_panel_per_path() -> None:
    fig = plots.per_path_over_time(_run(8), "cmds_s", "commands per second", ())
    (ax,) = fig.axes
    colours = {matplotlib.colors.to_hex(line.get_color()) for line in ax.get_lines()}
    assert len(ax.get_lines()) == 8 and len(colours) == 8
    legend = ax.get_legend()  # beside the data, not over it
    assert legend.get_bbox_to_anchor().bounds[0] >= ax.get_window_extent().bounds[0] + ax.get_window_extent().width
    fig = plots.per_path_over_time(_run(12), "cmds_s", "commands per second", ())
    shown = [a for a in fig.axes if a.get_visible()]
    assert len(shown) == 12 and all(len(a.get_lines()) == 1 for a in shown)
    assert len({a.get_ylim() for a in shown}) == 1  # shared axes


def test_faults_are_shaded_and_named_and_moments_drawn_as_lines() -> None:
    faults = [Fault("congestion", "vmhba1:C0:T1", 2.0, 3.0), Fault("path_up", "vmhba2:C0:T0", 3.5, None),
              Fault("path_down", "vmhba2:C0:T1", 9.0, 12.0)]  # the last after the plotted time
    fig = plots.per_path_over_time(_run(4), "davg_ms", "DAVG (ms)", faults)
    (ax,) = fig.axes
    window = [p for p in ax.patches if p.get_gid() == "fault-0"]
    assert len(window) == 1 and window[0].get_label() == "congestion vmhba1:C0:T1, 2-3 s"
    assert [line.get_label() for line in ax.get_lines() if line.get_gid() == "fault-1"] == ["path up vmhba2:C0:T0, at 3.5 s"]
    assert not [a for a in (*ax.patches, *ax.get_lines()) if a.get_gid() == "fault-2"]
    assert "congestion vmhba1:C0:T1" in [t.get_text() for t in ax.texts]
    assert "ms" in ax.get_ylabel()


def test_response_axes_are_in_ms_with_plain_ticks() -> None:
    summaries = [{"p50_ms": 0.25, "p90_ms": 0.4, "p99_ms": 3.0, "p999_ms": 100.0},
                 {"p50_ms": 0.3, "p90_ms": 0.5, "p99_ms": 0.9, "p999_ms": 2.0}]
    fig = plots.percentiles(["a", "b"], summaries)
    (ax,) = fig.axes
    fig.canvas.draw()
    assert ax.get_xscale() == "log" and "ms" in ax.get_xlabel()
    labels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert labels and all(re.fullmatch(r"[0-9.,]+", label) for label in labels), labels
    assert {"0.5", "1", "2", "5", "10", "100"} <= set(labels)
    fig = plots.percentiles(["a"], summaries[1:])  # a factor of 7: linear
    fig.canvas.draw()
    assert fig.axes[0].get_xscale() == "linear"


def test_share_of_the_io_is_one_bar_per_path() -> None:
    fig = plots.path_share(_run(6))
    (ax,) = fig.axes[:1]
    widths = [bar.get_width() for bar in ax.patches]
    assert len(widths) == 6 and sum(widths) == pytest.approx(100)
    assert max(widths) == pytest.approx(100 * 6 / 21)


def test_the_setting_in_force_and_the_faults_come_from_the_resolved_scenario() -> None:
    settings = {None: "round robin, iops=1", "rr_latency": "round robin, latency",
                "dm_service_time": "dm, service-time, multibus", "nvme_queue_depth": "nvme, queue-depth",
                "powerpath_adaptive": "powerpath, adaptive", "gated_least_load": "pathlab gated-least-load"}
    for variant, label in settings.items():
        assert Scenario.load(CONGESTED, variant=variant).setting == label
    moved = Scenario.load(CONGESTED, set=["faults.0.from=3s", "faults.0.until=5s", "policy.iops=1000"])
    assert moved.faults == [Fault("congestion", "vmhba1:C0:T1", 3.0, 5.0)] and moved.setting == "round robin, iops=1000"
    # A window without an end lasts to the end of the run (warm-up 10 s and 120 s measured).
    endless = 'faults=[{kind="congestion", path="vmhba1:C0:T1", from="20s", added_latency="2ms"}]'
    assert Scenario.load(CONGESTED, set=[endless]).faults[0].end_s == 130.0
    # A path down without `until` ends where a later path_up brings that path back.
    down_up = ('faults=[{kind="path_down", path="vmhba1:C0:T1", at="20s"}, '
               '{kind="path_up", path="vmhba1:C0:T1", at="50s"}]')
    assert Scenario.load(CONGESTED, set=[down_up]).faults == [Fault("path_down", "vmhba1:C0:T1", 20.0, 50.0),
                                                            Fault("path_up", "vmhba1:C0:T1", 50.0, None)]
