"""ESXi's `Misc.APDHandlingEnable` (issue 36): read from `esxcli system settings advanced list`
with its line; 0 turns APD handling off, and VMware says the host then retries I/O until a path
returns, as ESXi 5.0 did (vSphere 5.1 Storage, 'Disable Storage APD Handling'): the engine's
`apd_handling = false` holds the I/O for the whole outage and fails none, the stall rule and
`advise --failures` predict the same, and the finding says it with the line it rests on."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import pathlab
from conftest import ROOT
from conftest import pathlab as run_pathlab
from pathlab import import_host
from pathlab.advisor import stall_rule as rule
from pathlab.advisor.timer_candidates import in_force
from pathlab.advisor.timer_findings import timer_findings
from pathlab.api import ScenarioError
from pathlab.readers import esxcli_advanced

DATA = ROOT / "tests/data"
OFF = DATA / "esxcli/advanced-list-apd-handling-off-handmade.txt"
DEVICES = DATA / "corpus/esxcli-nmp-device-list/007-esxi5-openindiana-comstar-mru/bare.txt"
ESXI = DATA / "failures/esxi-iscsi.toml"


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def test_the_switch_is_read_with_its_line_and_a_value_outside_0_to_1_refused(tmp_path: Path) -> None:
    assert [(s.name, s.key, s.value, s.default, s.line) for s in esxcli_advanced.read(OFF)] == [
        ("Misc.APDHandlingEnable", "apd_handling", 0, 1, 4), ("Misc.APDTimeout", "apd_timeout", 60, 140, 15)]
    bad = tmp_path / "bad.txt"
    bad.write_text(OFF.read_text().replace("Int Value: 0", "Int Value: 2"))
    with pytest.raises(ScenarioError) as refused:
        esxcli_advanced.read(bad)
    assert refused.value.args == (str(bad), "line 4", "Misc.APDHandlingEnable Int Value 2 is outside the listing's "
                                                      "own range 0 to 1")
    word = tmp_path / "word.txt"
    word.write_text(OFF.read_text().replace("Int Value: 0", "Int Value: off"))
    with pytest.raises(ScenarioError, match=r"Misc.APDHandlingEnable `Int Value`: expected 0 or 1, found 'off'"):
        esxcli_advanced.read(word)


def test_the_import_writes_apd_handling_off_and_leaves_the_timeout_that_does_nothing_out() -> None:
    host = _quiet(import_host, DEVICES, OFF)
    assert (f"stack.apd_handling = false  # {OFF}, line 4: Misc.APDHandlingEnable Int Value 0: APD handling off, I/O "
            "retried until a path returns") in host.text
    assert "apd_timeout" not in host.text
    assert [(t.setting, t.value, t.where) for t in host.timers] == [
        ("Misc.APDHandlingEnable", "0", f"{OFF}, line 4"), ("Misc.APDTimeout", "60", f"{OFF}, line 15")]
    now = in_force(host.scenario, host.scenario.devices, host.timers)
    said = {s.name: (s.value, s.provenance, s.where) for s in now.settings}
    assert said["Misc.APDHandlingEnable"] == ("0", "read", f"{OFF}, line 4") and "Misc.APDTimeout" not in said
    assert now.timers.seconds["apd_timeout"] is None


def test_the_finding_says_io_is_retried_until_a_path_returns_with_the_lines() -> None:
    host = _quiet(import_host, DEVICES, OFF)
    (found,) = [f for f in timer_findings(host.stack, host.timers, host.scenario.devices) if "APD" in f.title]
    assert found.title == ("APD handling is off: every path down of any device retries all I/O until a path returns, "
                           "which may leave virtual machines past their own I/O timeout, unresponsive, and the host "
                           "disconnected from vCenter Server")
    assert found.evidence == (
        f"Misc.APDHandlingEnable 0 (read at {OFF}, line 4); Misc.APDHandlingEnable 0: retried until a path returns; "
        f"{rule.ESXI_APD_HANDLING_OFF_SOURCE}; Misc.APDTimeout 60 (read at {OFF}, line 15) does nothing while it is "
        "off; with it on (1, the default) I/O that is not a virtual machine's fails after Misc.APDTimeout (140 s by "
        "default)")
    assert rule.esxi_all_paths_down(None).seconds is None


def test_show_advanced_prints_the_switch_back_and_no_timeout(tmp_path: Path) -> None:
    scenario = tmp_path / "host.toml"
    scenario.write_text(_quiet(import_host, DEVICES, OFF).text)
    done = run_pathlab("show", "advanced", str(scenario))
    assert done.returncode == 0, done.stderr
    shown = tmp_path / "shown.txt"
    shown.write_text(done.stdout)
    assert [(s.name, s.value) for s in esxcli_advanced.read(shown)] == [("Misc.APDHandlingEnable", 0),
                                                                        ("Disk.PathEvalTime", 300)]


def test_a_timeout_beside_handling_off_and_handling_on_another_stack_are_refused() -> None:
    text = ESXI.read_text()
    with pytest.raises(ScenarioError) as refused:
        pathlab.Scenario.from_text(text + '\n[host.stack]\napd_handling = false\napd_timeout = "60s"\n',
                                   "esxi.toml").run()
    assert refused.value.args[1] == "host.stack.apd_timeout"
    assert refused.value.args[2].startswith("does nothing with apd_handling = false")


def test_advise_failures_holds_every_path_down_for_the_outage_without_apd_handling() -> None:
    """APD handling off: the rule's stall is the outage (the paths' return), which advise runs
    (5 s, its shortest outage) and measures, failing nothing; over a 30 s outage the prediction is
    30 s, where Misc.APDTimeout 20 s would fail the I/O at 20 s."""
    from pathlab.advisor.failure_theory import predict

    off = _quiet(pathlab.advise, str(ESXI), failures="all_paths_down", seeds=2, set={"host.stack.apd_handling": False})
    (row,) = [r for r in off.rows if r.candidate == "in force"]
    assert row.predicted.seconds == 5 and "Misc.APDHandlingEnable 0: retried until a path returns" in row.predicted.rule
    assert abs(row.measured.longest_wait_s - 5) < 0.0015 and row.measured.failed_ios == 0
    scenario = pathlab.Scenario.load(str(ESXI))
    for given, stall in (({"host.stack.apd_handling": False}, 30.0), ({"host.stack.apd_timeout": "20s"}, 20.0)):
        now = in_force(scenario.with_set(given), scenario.devices)
        assert predict("esxi", "all_paths_down", now.timers, 30.0).seconds == stall
