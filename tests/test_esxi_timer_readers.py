"""ESXi's failure timers read from the host's own listings (issue 36): `esxcli iscsi adapter param
get` (elatov's ESXi 5.0 listings, and tables generated from the tool's grammar, seeded) into the
adapter's `iscsi` table with file and line, `esxcli system settings advanced list -o` into
`[host.stack]`, the findings they give by the stall rule (exact values), `show iscsi` printing them
back as esxcli does, and one refusal in one line per bad input."""

from __future__ import annotations

import math
import random
import warnings
from pathlib import Path

import pytest

from conftest import pathlab
from pathlab import import_host
from pathlab.advisor import stall_rule as rule
from pathlab.advisor.timer_candidates import in_force
from pathlab.advisor.timer_findings import timer_findings
from pathlab.api import PathlabWarning, ScenarioError
from pathlab.output.esxcli_iscsi import param_get
from pathlab.readers import esxcli_advanced, esxcli_iscsi_params

DATA = Path(__file__).parent / "data"
ADAPTER = DATA / "esxcli/iscsi-adapter-param-get-esxi5-elatov.txt"
PORTAL = DATA / "esxcli/iscsi-portal-param-get-esxi5-elatov.txt"
ADVANCED = DATA / "esxcli/advanced-list-apd-path-eval-handmade.txt"
#: elatov's ESXi 5 host: one OpenIndiana LUN over the software adapter vmhba33 (device list only).
DEVICES = DATA / "corpus/esxcli-nmp-device-list/007-esxi5-openindiana-comstar-mru/bare.txt"


def _quiet(call, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args)


def test_elatovs_adapter_listing_gives_the_session_timers_with_their_lines() -> None:
    read = _quiet(esxcli_iscsi_params.read, ADAPTER)
    assert (read.adapter, read.command_line, read.portal, len(read.params)) == ("vmhba33", 1, None, 19)
    assert {k: (s, p.line) for k, (s, p) in read.timers().items()} == {
        "noop_out_interval": (15, 17), "noop_out_timeout": (10, 18), "recovery_timeout": (10, 19)}
    login, ack = read.get("LoginTimeout"), read.get("DelayedAck")
    assert login is not None and (login.current, login.low, login.high, login.settable) == ("5", "1", "60", True)
    assert ack is not None and (ack.current, ack.default) == ("false", "true")  # this host had it off


def test_a_target_portals_listing_inherits_the_adapters_timers() -> None:
    read = _quiet(esxcli_iscsi_params.read, PORTAL)
    assert read.adapter == "vmhba33"
    assert read.portal == "192.168.1.107 iqn.2010-09.org.openindiana:02:bd79a6ff-33c2-41d3-8f0e-9c8d8b6e9fcb"
    assert [p.inherit for p in read.params] == [True] * 19
    assert {k: s for k, (s, _) in read.timers().items()} == {"noop_out_interval": 15, "noop_out_timeout": 10,
                                                           "recovery_timeout": 10}


PROMPTS = ("~ # ", "[root@esx01:~] ", "", "# ")
SPELLINGS = ("-A {a}", "--adapter={a}", "--adapter {a}")
OTHERS = (("LoginTimeout", "5", "5", "1", "60"), ("DelayedAck", "true", "true", "na", "na"),
          ("HeaderDigest", "prohibited", "prohibited", "na", "na"))


@pytest.mark.parametrize("seed", range(12))
def test_generated_tables_read_back_their_values_and_lines(tmp_path: Path, seed: int) -> None:
    """Tables written from esxcli's grammar: padded as esxcli pads them or with single blanks (a
    page's copy), any prompt, any spelling of the adapter option, mail quoting or not, the
    parameters in any order."""
    rng = random.Random(seed)
    adapter = f"vmhba{rng.randint(32, 70)}"
    timers = {"NoopOutInterval": rng.randint(1, 60), "NoopOutTimeout": rng.randint(10, 30),
              "RecoveryTimeout": rng.randint(1, 120)}
    rows = [(n, str(v), f"{b.value:g}", str(rule.ESXI_ISCSI_RANGES[n][0]), str(rule.ESXI_ISCSI_RANGES[n][1]))
            for n, v, b in zip(timers, timers.values(),
                               (rule.ESXI_NOOP_OUT_INTERVAL, rule.ESXI_NOOP_OUT_TIMEOUT, rule.ESXI_RECOVERY_TIMEOUT))]
    rows += list(OTHERS)
    rng.shuffle(rows)
    padded = rng.random() < 0.5
    widths = (20, 10, 10, 3, 8, 8, 7)

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip() if padded else " ".join(cells)

    lines = [rng.choice(PROMPTS) + "esxcli iscsi adapter param get " + rng.choice(SPELLINGS).format(a=adapter),
             line(esxcli_iscsi_params.HEADER), line(tuple("-" * w for w in widths))]
    at = {}
    for name, *cells in rows:
        at[name] = len(lines) + 1
        lines.append(line((name, *cells, "true", "false")))
    quote = "> " if rng.random() < 0.3 else ""
    path = tmp_path / "params.txt"
    path.write_text("".join(f"{quote}{t}\n" for t in lines))
    read = _quiet(esxcli_iscsi_params.read, path)
    assert read.adapter == adapter
    assert {p.name: int(p.current) for p in read.params if p.name in timers} == timers
    assert {p.name: p.line for p in read.params} == at


def test_shows_table_reads_back_as_the_adapters_listing(tmp_path: Path) -> None:
    path = tmp_path / "shown.txt"
    path.write_text(param_get("vmhba64", {"noop_out_interval": 5, "noop_out_timeout": 12, "recovery_timeout": 25}))
    read = esxcli_iscsi_params.read(path)
    assert read.adapter == "vmhba64"
    assert {k: s for k, (s, _) in read.timers().items()} == {"noop_out_interval": 5, "noop_out_timeout": 12,
                                                           "recovery_timeout": 25}


def test_show_iscsi_prints_the_scenarios_adapter_as_esxcli_does() -> None:
    done = pathlab("show", "iscsi", "tests/data/failures/esxi-iscsi.toml")
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "~ # esxcli iscsi adapter param get -A vmhba64\n"
        "Name                  Current     Default     Min  Max       Settable  Inherit\n"
        "--------------------  ----------  ----------  ---  --------  --------  -------\n"
        "NoopOutInterval       15          15          1    60        true      false\n"
        "NoopOutTimeout        10          10          10   30        true      false\n"
        "RecoveryTimeout       10          10          1    120       true      false\n")


def test_advanced_settings_give_apd_and_path_evaluation_with_their_lines() -> None:
    read = esxcli_advanced.read(ADVANCED)
    assert [(s.name, s.key, s.value, s.default, s.line) for s in read] == [
        ("Misc.APDTimeout", "apd_timeout", 60, 140, 4), ("Disk.PathEvalTime", "path_eval_time", 300, 300, 15)]


def test_the_import_writes_the_adapters_iscsi_table_and_host_stack_with_file_and_line() -> None:
    host = _quiet(import_host, DEVICES, ADAPTER, ADVANCED)
    text = host.text
    assert ('{ name = "vmhba33", queue_depth = 4096, iscsi = { noop_out_interval = "15s", noop_out_timeout = "10s", '
            'recovery_timeout = "10s" } },') in text
    assert f"iscsi.recovery_timeout {ADAPTER}, line 19: RecoveryTimeout Current 10" in text
    assert f'stack.apd_timeout = "60s"  # {ADVANCED}, line 4: Misc.APDTimeout Int Value' in text
    assert [(t.setting, t.value, t.scope, t.where) for t in host.timers] == [
        ("NoopOutInterval", "15", "vmhba33", f"{ADAPTER}, line 17"),
        ("NoopOutTimeout", "10", "vmhba33", f"{ADAPTER}, line 18"),
        ("RecoveryTimeout", "10", "vmhba33", f"{ADAPTER}, line 19"),
        ("LoginTimeout", "5", "vmhba33", f"{ADAPTER}, line 15"),  # compared with vendor practice, not simulated
        ("DelayedAck", "false", "vmhba33", f"{ADAPTER}, line 20"),
        ("Misc.APDTimeout", "60", "host", f"{ADVANCED}, line 4"),
        ("Disk.PathEvalTime", "300", "host", f"{ADVANCED}, line 15")]
    # advise --failures' timers in force cite the listing's line, not the scenario's key.
    now = in_force(host.scenario, host.scenario.devices, host.timers, "vmhba33:C0:T0:L0")
    said = {s.name: (s.value, s.provenance, s.where) for s in now.settings}
    assert said["NoopOutInterval"] == ("15s", "read", f"{ADAPTER}, line 17")
    assert said["Misc.APDTimeout"] == ("60s", "read", f"{ADVANCED}, line 4")


def test_the_findings_give_the_stall_rules_values_exactly() -> None:
    host = _quiet(import_host, DEVICES, ADAPTER, ADVANCED)
    found = timer_findings(host.stack, host.timers, host.scenario.devices)
    titles = [f.title for f in found]
    # 15 s to the next NOP-Out, 10 s unanswered, 10 s of RecoveryTimeout.
    assert rule.esxi_iscsi_path_hang(15, 10, 10, 30).seconds == 35
    assert titles == [
        "vmhba33: a path that stops answering (no link event) stalls I/O for about 35 s, then it is retried on "
        "another path",
        "vmhba33: a link down the host sees (iSCSI) holds I/O for about 10 s, then it is retried on another path",
        "Every path down (APD) of any device retries I/O for about 60 s, then I/O that is not a virtual machine's "
        "fails (a virtual machine's is retried until a path returns)",
        "A dead path that comes back without a link event is taken back within about 300 s (the next path "
        "evaluation)"]
    assert f"NoopOutInterval 15 (read at {ADAPTER}, line 17)" in found[0].evidence
    assert "the I/O timeout assumed 30 s" in found[0].evidence


@pytest.mark.parametrize(("interval", "timeout", "recovery", "stall"), [
    (60, 30, 120, 30),   # the NOP-Out cannot time out before ESXi's 30 s I/O timeout: that finds it
    (20, 10, 5, 35),     # 20 + 10 is not below 30: at most a NOP-Out just before the I/O timeout, then 5 s
    (1, 10, 1, 12),      # the shortest ESXi takes
])
def test_a_silent_loss_stalls_as_the_rule_says_for_each_setting(tmp_path: Path, interval: int, timeout: int,
                                                               recovery: int, stall: int) -> None:
    path = tmp_path / "params.txt"
    path.write_text(param_get("vmhba33", {"noop_out_interval": interval, "noop_out_timeout": timeout,
                                          "recovery_timeout": recovery}))
    host = _quiet(import_host, DEVICES, path)
    found = timer_findings(host.stack, host.timers, host.scenario.devices)
    assert rule.esxi_iscsi_path_hang(interval, timeout, recovery, 30).seconds == stall
    assert found[0].title.startswith(f"vmhba33: a path that stops answering (no link event) stalls I/O for about "
                                     f"{stall} s")
    assert found[1].title.startswith(f"vmhba33: a link down the host sees (iSCSI) holds I/O for about {recovery} s")
    assert found[2].title == "Failure timers no capture gives: Misc.APDTimeout"
    assert found[2].evidence.startswith("Misc.APDTimeout: the built-in default would be 140 s (VMware vSphere 7.0")
    assert found[2].evidence.endswith("`esxcli system settings advanced list -o /Misc/APDTimeout` would settle it")


def _refused(tmp_path: Path, text: str, reader=esxcli_iscsi_params.read) -> str:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(ScenarioError) as caught:
        _quiet(reader, path)
    file, field, message = caught.value.args
    assert file == str(path) and "\n" not in message
    return f"{field}: {message}"


TABLE = ("Name Current Default Min Max Settable Inherit\n"
         "-------------------- ---------- ---------- --- -------- -------- -------\n")


def test_each_bad_listing_is_refused_in_one_line(tmp_path: Path) -> None:
    command = "~ # esxcli iscsi adapter param get -A vmhba33\n"
    row = "RecoveryTimeout 10 10 1 120 true false\n"
    assert "line 1: the adapter is not named" in _refused(tmp_path, TABLE + row)
    assert "line 2: the command line names no adapter" in _refused(
        tmp_path, "x\n~ # esxcli iscsi adapter param get\n" + TABLE + row)
    assert "line 4: expected 7 cells" in _refused(tmp_path, command + TABLE + "RecoveryTimeout 10 10 1 120 true\n")
    assert "line 4: RecoveryTimeout Current 200 is outside the listing's own range 1 to 120" in _refused(
        tmp_path, command + TABLE + "RecoveryTimeout 200 10 1 120 true false\n")
    assert "line 4: RecoveryTimeout Current: expected whole seconds" in _refused(
        tmp_path, command + TABLE + "RecoveryTimeout 1.5 10 1 120 true false\n")
    assert "line 4: `Settable` of RecoveryTimeout: expected true or false" in _refused(
        tmp_path, command + TABLE + "RecoveryTimeout 10 10 1 120 yes false\n")
    assert "line 2: expected the header" in _refused(tmp_path, command + "Name Value\nRecoveryTimeout 10\n")
    assert "is set on the target portal" in _refused(
        tmp_path, "~ # esxcli iscsi adapter target portal param get -A vmhba33 -a 10.0.0.1 -n iqn.x\n" + TABLE
        + "RecoveryTimeout 30 10 1 120 true false\n")


def test_a_reply_after_the_adapters_table_is_said_not_read_as_a_row(tmp_path: Path) -> None:
    """The table ends at the blank line after it (esxcli prints none inside): the prose below was
    refused as a row of 9 cells."""
    pasted = tmp_path / "adapter.txt"
    pasted.write_text("~ # esxcli iscsi adapter param get -A vmhba33\n" + TABLE
                      + "RecoveryTimeout 10 10 1 120 true false\n\nThanks in advance, any idea why?\nBob\n")
    with pytest.warns(PathlabWarning) as said:
        read = esxcli_iscsi_params.read(pasted)
    assert {k: (s, p.line) for k, (s, p) in read.timers().items()} == {"recovery_timeout": (10, 4)}
    assert [str(w.message) for w in said] == [f"{pasted}: lines 6-7: skipped 2 line(s) after the `esxcli iscsi adapter "
                                              "param get` table, from 'Thanks in advance, any idea why?'"]


def test_remarks_with_a_colon_around_the_advanced_listing_are_said_not_read(tmp_path: Path) -> None:
    """`Here is the output:` above and `Note: …` below look like `Key: value` lines: they were
    taken for a block without its `Path:` and the whole listing refused."""
    pasted = tmp_path / "advanced.txt"
    pasted.write_text("Here is the output:\n" + ADVANCED.read_text() + "\nNote: the host runs ESXi 6.7 U3.\n")
    with pytest.warns(PathlabWarning) as said:
        read = esxcli_advanced.read(pasted)
    assert [(s.name, s.value, s.line) for s in read] == [("Misc.APDTimeout", 60, 5), ("Disk.PathEvalTime", 300, 16)]
    assert [str(w.message) for w in said] == [
        f"{pasted}: line 1: skipped 1 line(s) before the `esxcli system settings advanced list` output, from "
        "'Here is the output:'",
        f"{pasted}: line 25: skipped 1 line(s) after the `esxcli system settings advanced list` output, from "
        "'Note: the host runs ESXi 6.7 U3.'"]


def test_each_bad_advanced_listing_is_refused_in_one_line(tmp_path: Path) -> None:
    block = "   Path: /Misc/APDTimeout\n   Type: integer\n   Int Value: {v}\n   Min Value: 20\n   Max Value: 99999\n"
    read = esxcli_advanced.read
    assert "line 3: Misc.APDTimeout `Int Value`: expected a whole number" in _refused(tmp_path, block.format(v="x"), read)
    assert "line 3: Misc.APDTimeout Int Value 5 is outside the listing's own range 20 to 99999" in _refused(
        tmp_path, block.format(v=5), read)
    assert "none of /Misc/APDTimeout, /Misc/APDHandlingEnable, /Disk/PathEvalTime" in _refused(
        tmp_path, "   Path: /Net/UseHwTSO\n   Int Value: 0\n", read)
    assert "has no `Int Value:` line" in _refused(tmp_path, "   Path: /Misc/APDTimeout\n   Type: integer\n", read)


def test_a_value_the_listing_allows_but_pathlab_does_not_simulate_is_refused_at_its_line(tmp_path: Path) -> None:
    never = tmp_path / "path-eval-0.txt"
    never.write_text(ADVANCED.read_text().replace("Int Value: 300", "Int Value: 0"))
    done = pathlab("import", str(DEVICES), str(never))
    assert done.returncode == 2
    assert f"{never}: line 15: Disk.PathEvalTime 0: pathlab simulates from 1 s" in done.stderr


def test_an_adapter_the_paths_do_not_use_or_given_twice_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "vmhba40.txt"
    other.write_text(param_get("vmhba40", {"noop_out_interval": 15, "noop_out_timeout": 10, "recovery_timeout": 10}))
    done = pathlab("import", str(DEVICES), str(other))
    assert done.returncode == 2
    assert f"{other}: line 1: vmhba40 is no adapter of the listed paths (vmhba33)" in done.stderr
    again = tmp_path / "again.txt"
    again.write_text(ADAPTER.read_text())
    done = pathlab("import", str(DEVICES), str(ADAPTER), str(again))
    assert done.returncode == 2
    assert "vmhba33's parameters a second time" in done.stderr


def test_show_iscsi_of_a_cluster_names_the_host_of_each_adapter(tmp_path: Path) -> None:
    done = pathlab("import", "--host", f"esx-a={DEVICES},{ADAPTER}", "--host", f"esx-b={DEVICES}")
    assert done.returncode == 0, done.stderr
    cluster = tmp_path / "cluster.toml"
    cluster.write_text(done.stdout)
    shown = pathlab("show", "iscsi", str(cluster))
    assert shown.stdout.splitlines()[:2] == ["==> host esx-a <==", "~ # esxcli iscsi adapter param get -A vmhba33"]
    other = pathlab("show", "iscsi", str(cluster), "--host", "esx-b")
    assert other.returncode == 2
    assert "no adapter of esx-b has an `iscsi` table" in other.stderr


def test_a_host_shown_then_imported_with_its_adapters_listing_predicts_from_the_listing(tmp_path: Path) -> None:
    """The failures host's own listings (`show devices`, `show paths`) and its adapter's parameters
    with RecoveryTimeout 20: `advise --failures`' timers in force are the listing's, each at its
    line, and its prediction is the finding's stall (15 + 10 + 20 s; 20 s for a seen link loss)."""
    from pathlab.advisor.failure_theory import predict

    files = []
    for what in ("devices", "paths"):
        shown = pathlab("show", what, "tests/data/failures/esxi-iscsi.toml")
        files.append(tmp_path / f"{what}.txt")
        files[-1].write_text(shown.stdout)
    params = tmp_path / "params.txt"
    params.write_text(param_get("vmhba64", {"noop_out_interval": 15, "noop_out_timeout": 10, "recovery_timeout": 20}))
    host = _quiet(import_host, *files, params)
    now = in_force(host.scenario, host.scenario.devices, host.timers, "vmhba64:C0:T0:L3")
    said = {s.name: (s.provenance, s.where) for s in now.settings}
    assert said["RecoveryTimeout"] == ("read", f"{params}, line 6")
    hang = predict("esxi", "path_hang", now.timers, math.inf)
    assert (hang.seconds, hang.tick) == (45.0, 15.0)
    assert predict("esxi", "link_down", now.timers, math.inf).seconds == 20.0
    found = timer_findings(host.stack, host.timers, host.scenario.devices)
    assert found[0].title.startswith("vmhba64: a path that stops answering (no link event) stalls I/O for about 45 s")


def test_show_advanced_prints_the_imported_settings_back_as_esxcli_does(tmp_path: Path) -> None:
    scenario = tmp_path / "host.toml"
    scenario.write_text(_quiet(import_host, DEVICES, ADVANCED).text)
    done = pathlab("show", "advanced", str(scenario))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:5] == ["~ # esxcli system settings advanced list -o /Misc/APDTimeout",
                                            "   Path: /Misc/APDTimeout", "   Type: integer", "   Int Value: 60",
                                            "   Default Int Value: 140"]
    shown = tmp_path / "shown.txt"
    shown.write_text(done.stdout)
    assert [(s.name, s.value, s.line) for s in esxcli_advanced.read(shown)] == [
        ("Misc.APDTimeout", 60, 4), ("Disk.PathEvalTime", 300, 15)]
    other = pathlab("show", "advanced", "tests/data/failures/netapp-windows.toml")
    assert other.returncode == 2
    assert "no device of an ESXi host" in other.stderr


def test_show_refuses_a_variant_or_whole_table_set_that_changes_what_it_prints() -> None:
    """Printed as the file writes them, the views would not be what runs where the variant chosen or
    a `--set` of a whole table changes them (session 17 checked only `--set` keys under the prefix:
    a variant's APDTimeout 60 s and `--set host={...}`'s RecoveryTimeout 20 s were printed as 140 and 10)."""
    from pathlab.api import Scenario
    from pathlab.output.esxcli_advanced import advanced
    from pathlab.output.esxcli_iscsi import iscsi_params

    text = Path("tests/data/failures/esxi-iscsi.toml").read_text() + (
        '\n[variants.short]\ndescription = "APD 60 s"\nset = { "host.stack.apd_timeout" = "60s" }\n')
    with pytest.raises(ScenarioError) as refused:
        advanced(Scenario.from_text(text, "host.toml", variant="short"))
    assert refused.value.args[1:] == ("--variant short", "show advanced prints the settings as the scenario writes "
                                                         "them: the variant sets host.stack.apd_timeout: show the "
                                                         "file without it")
    whole = 'host={name="esx-iscsi", adapters=[{name="vmhba64", iscsi={recovery_timeout="20s"}}]}'
    with pytest.raises(ScenarioError) as refused:
        iscsi_params(Scenario.from_text(text, "host.toml", set=[whole]))
    assert refused.value.args[1] == "--set host.adapters.0.name"
    # A host key beside the stack's table is no stack timer: shown, as written.
    shown = advanced(Scenario.from_text(text, "host.toml", set=["host.stack_time=30us"]))
    assert shown.hosts == [("esx-iscsi", {"apd_timeout": 140, "path_eval_time": 300})]


def test_show_advanced_leaves_out_a_cluster_host_without_an_esxi_device() -> None:
    """esx-b's only device run by dm-multipath: no Misc.APDTimeout of it is printed as if ESXi ran
    it (session 17 printed esx-b's 140 and 300 under its heading), and `--host esx-b` is refused."""
    from pathlab.api import Scenario
    from pathlab.output.esxcli_advanced import advanced

    mixed = Scenario.load("tests/data/cluster/c1-two-hosts.toml", set=['devices.1.policy={name="dm-multipath"}'])
    shown = advanced(mixed)
    assert (shown.hosts, shown.several) == ([("esx-a", {"apd_timeout": 140, "path_eval_time": 300})], True)
    assert shown.table().splitlines()[:2] == ["==> host esx-a <==",
                                              "~ # esxcli system settings advanced list -o /Misc/APDTimeout"]
    with pytest.raises(ScenarioError) as refused:
        advanced(mixed, "esx-b")
    assert refused.value.args[1:] == ("--host", "esx-b has no device of an ESXi host: Misc.APDTimeout and "
                                                "Disk.PathEvalTime are ESXi's")


def test_both_esxcli_tables_take_their_rows_under_the_header_by_one_rule(tmp_path: Path) -> None:
    """`esxcli iscsi adapter param get` and `satp rule list` share the table's rule
    (`_dashed_table.rows_under`): no row under the header, or a line of dashes among the rows, is
    refused in the same words by both, at the same line."""
    from pathlab.readers import esxcli_satp_rules
    from pathlab.readers._dashed_table import rows_under

    assert rows_under("f", 1, [(2, "--- ---"), (3, "a b")], "row") == [(3, "a b")]
    assert rows_under("f", 1, [(2, "a b")], "row") == [(2, "a b")]  # the dashes dropped by grep
    command = "~ # esxcli iscsi adapter param get -A vmhba33\n"
    row = "RecoveryTimeout 10 10 1 120 true false\n"
    assert _refused(tmp_path, command + TABLE) == "line 2: a table header but no parameter under it"
    assert _refused(tmp_path, command + TABLE + row + "--- ---\n") == "line 5: a line of dashes inside the table"
    rules = (Path(__file__).parent / "data/esxcli/satp-rule-list-esxi6-handmade.txt").read_text().splitlines()
    assert _refused(tmp_path, "\n".join(rules[:2]) + "\n", esxcli_satp_rules.read) == \
        "line 1: a table header but no rule under it"
    assert _refused(tmp_path, "\n".join([*rules[:3], rules[1], *rules[3:]]) + "\n", esxcli_satp_rules.read) == \
        "line 4: a line of dashes inside the table"
