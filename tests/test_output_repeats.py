"""Text outputs say alike lines of many devices a few times and count the rest (`output/repeats`):
a 4 × 50-device cluster's advice was 1,211 lines, 710 of them findings and 200 rows of the capture
check; 32 × 500 devices would be a hundred thousand. `--verbose` keeps every one."""

from __future__ import annotations

from pathlab.advisor.capture_check import CaptureCheck, DeviceFigures
from pathlab.output import in_force_capture
from pathlab.output.repeats import SHOWN, alike, counted, hosts_of


def test_alike_takes_out_hosts_identifiers_runtime_names_and_figures() -> None:
    one = "esx01: vmhba2:C0:T0:L0: a path of naa.600009700001979001230000000000 answers far slower than its peers"
    other = "esx03, esx04: vmhba1:C0:T3:L17: a path of naa.60000970000197900123000000002a answers far slower than its peers"
    assert alike(one) == alike(other) == "##: a path of # answers far slower than its peers"
    assert alike("array port EMC/P0 is 100% busy") == alike("array port EMC/P3 is 97% busy")
    assert alike("3 slow paths carry 44% of its I/O") != alike("a path answers far slower")
    # Linux: multipath's friendly names, scsi_id's WWIDs, dm and block devices, NVMe namespaces.
    assert alike("lin-a: mpatha (36000d31000abcdef0000000000000001): path sdb answers far slower") == \
        alike("lin-b: mpathbc (36000d31000abcdef00000000000000a2): path sdaf answers far slower") == \
        "## (#): path # answers far slower"
    assert alike("lin-a: dm-3 waits on nvme0c1n1") == alike("lin-b: dm-12 waits on nvme2c0n14") == "## waits on #"
    assert alike("lin-a: mpatha is used") != alike("lin-a: mpatha is unused")


def test_a_group_past_its_first_few_is_counted_where_its_last_shown_one_is() -> None:
    items = ["a1", "b1", "a2", "a3", "a4", "a5", "b2", "c1"]
    out = counted(items, lambda s: s[0], lambda rest: f"+{len(rest)} {rest[0][0]}", shown=2)
    assert out == ["a1", "a2", "+3 a", "b1", "b2", "c1"]
    # A group of one more than those shown is said whole: "1 more" says no less than the line.
    assert counted(["a1", "a2", "a3"], lambda s: s[0], lambda rest: "more", shown=2) == ["a1", "a2", "a3"]


def test_the_hosts_named_by_titles_in_the_clusters_order() -> None:
    titles = ["esx03: x", "esx01, esx04: y", "array port P1 is busy", "esx01: z"]
    assert hosts_of(titles, ["esx01", "esx02", "esx03", "esx04"]) == ["esx01", "esx03", "esx04"]


def _device(n: int, simulated: float) -> DeviceFigures:
    return DeviceFigures(f"esx01/naa.6000{n:04d}", 1000.0, 1.0, simulated, 1.0, 0.05, 0.2,
                         f"esxtop-esx01.csv: naa.6000{n:04d}'s Commands/sec, Average Guest MilliSec/Command")


def test_the_capture_check_counts_the_devices_that_agree_and_shows_every_one_that_does_not() -> None:
    devices = (*(_device(n, 1000.0 + n) for n in range(10)), _device(10, 1300.0), _device(11, 990.0))
    check = CaptureCheck(devices, (), "esx01/naa.60000010: rate +30.0%", 1, 2.0, 1)
    every = in_force_capture.lines(check)
    short = in_force_capture.lines(check, every=False)
    assert sum(line.startswith("  esx01/naa.6000") for line in every) == 12
    rows = [line for line in short if line.startswith("  esx01/naa.6000")]
    assert [row.split()[0] for row in rows] == [
        *(f"esx01/naa.6000{n:04d}" for n in range(SHOWN)), "esx01/naa.60000010"]  # the one that does not agree
    counted_line = next(line for line in short if "more devices agree" in line)
    # Devices 3 to 9 and 11 agree beyond the first three: eight, their rates 0.3% to 0.9% and -1.0% off.
    assert counted_line == ("  ... 8 more devices agree (rate -1.0% to +0.9%, response +0.0% to +0.0%; every one with "
                            "--verbose or --format json)")
    (captured,) = [line for line in short if line.startswith("  Captured: ")]
    assert captured.startswith("  Captured: esxtop-esx01.csv: naa.60000000's Commands/sec") and \
        captured.endswith("; and 9 more alike.")
    # The report's table the same: the first three and the one that does not agree, then the count.
    page, every_row = in_force_capture.html(check, every=False), in_force_capture.html(check)
    assert page.count("<th style='text-align:left'>esx01/naa.6000") == SHOWN + 1
    assert every_row.count("<th style='text-align:left'>esx01/naa.6000") == 12
    assert "... 8 more devices agree (rate -1.0% to +0.9%" in page and "more devices agree" not in every_row
    assert "; and 9 more alike.</p>" in page and "They do not agree" in page


def test_warnings_alike_past_the_first_few_are_counted_at_the_end(capsys) -> None:
    """The CLI's warnings (`cli.common.AlikeWarnings`): each once, three alike ones said, the rest
    counted after the command's own lines, naming the last; a fourth alone is said, not counted;
    warnings apart by a figure are not alike."""
    from pathlab.cli.common import AlikeWarnings

    said = AlikeWarnings()
    for n in range(6):
        said.show(f"h.txt: workloads.naa.{n:04d}.range: the span of the I/Os is not in the captures: 1 GiB assumed")
    said.show("h.txt: workloads.naa.0000.range: the span of the I/Os is not in the captures: 1 GiB assumed")  # again
    for n in range(4):
        said.show(f"h.txt: devices.naa.{n:04d}.queue_depth: DQLEN is not in the captures: 32 assumed")
    for pct in (95, 5, 45, 55, 65):
        said.show(f"h.txt: the port's queue is {pct}% full")
    said.end()
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        *(f"pathlab: warning: h.txt: workloads.naa.{n:04d}.range: the span of the I/Os is not in the captures: 1 GiB "
          "assumed" for n in range(3)),
        *(f"pathlab: warning: h.txt: devices.naa.{n:04d}.queue_depth: DQLEN is not in the captures: 32 assumed"
          for n in range(3)),
        *(f"pathlab: warning: h.txt: the port's queue is {pct}% full" for pct in (95, 5, 45, 55, 65)),
        "pathlab: warning: and 3 more alike, the last: h.txt: workloads.naa.0005.range: the span of the I/Os is not in "
        "the captures: 1 GiB assumed",
        "pathlab: warning: h.txt: devices.naa.0003.queue_depth: DQLEN is not in the captures: 32 assumed"]


def test_the_html_report_says_alike_findings_and_assumptions_as_the_text_does() -> None:
    """Ten devices with the same finding and the same assumption: the report shows the first
    SHOWN of each and counts the rest, as the text does; with --verbose every one."""
    from pathlab import Scenario
    from pathlab.advisor.advice import Advice
    from pathlab.assumption import Assumption
    from pathlab.finding import Finding
    from pathlab.large_host import scenario_text
    from pathlab.output.advice import report, text

    names = [f"naa.6000097000019790012300000000{i:04x}" for i in range(10)]
    advice = Advice("ten devices", Scenario.from_text(scenario_text(1, 2, 1)), "balanced",
                    tuple(Finding(f"{n}: the device queue is full (captured)", "QUED 63") for n in names), (), None,
                    tuple(Assumption(f"workloads.{n}.range", "1 GiB assumed") for n in names), unmeasured_stack="esxi")
    html_page = report(advice, {})
    for shown in (html_page, text(advice)):
        assert sum(f"{n}: the device queue is full" in shown for n in names) == SHOWN
        assert f"and {len(names) - SHOWN} more alike (every one with --verbose or --format json)" in shown
    # The text lists assumptions under simulated figures only; the report always.
    assert sum(f"workloads.{n}.range" in html_page for n in names) == SHOWN + 2  # the count names the first and last left out
    assert f"and {len(names) - SHOWN} more alike, workloads.{names[SHOWN]}.range to workloads.{names[-1]}.range" in html_page
    every = report(advice, {}, verbose=True)
    assert all(f"{n}: the device queue is full" in every and f"workloads.{n}.range" in every for n in names)
    assert "more alike" not in every
