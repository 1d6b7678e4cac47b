"""Advice for a cluster (issue 33 item 2): several hosts on one LUN simulated together, every
candidate on every host at once on the same I/Os, the cluster's figures with each host's beside
them, findings only the hosts together show, the commands per host, groups of hosts that reach
the arrays differently, and `--host` narrowing the output without simulating the host alone.
Runs are 2 s after 1 s over 2 seeds: the decisions asserted are the mechanisms', wide apart."""

from __future__ import annotations

import json
import re

import pytest

import pathlab
from conftest import pathlab as command
from pathlab.advisor import alike, run_length
from pathlab.advisor.candidates import candidates
from pathlab.advisor.group_candidate import by_group, commands_for
from pathlab.advisor.host_groups import HostGroup
from pathlab.loading import load

METRO = "srdf-metro-cluster-50km"
NAA = "naa.60000970000197900123533030304d31"
SHORT = ("--duration", "2s", "--warmup", "1s", "--seeds", "2")
LATENCY = f"esxcli storage nmp psp roundrobin deviceconfig set --device={NAA} --type=latency"


class _Steps(pathlab.Progress):
    """The steps an advice reports (`Progress.stage`), in order: what `bench --advise` times."""

    def __init__(self) -> None:
        self.said: list[str] = []

    def stage(self, name: str) -> None:
        self.said.append(name)


METRO_STEPS = _Steps()


@pytest.fixture(scope="module")
def metro() -> pathlab.Advice:
    return pathlab.advise(METRO, duration="2s", warmup="1s", seeds=2, progress=METRO_STEPS)


def test_a_clusters_advice_reports_its_steps_in_order(metro: pathlab.Advice) -> None:
    # A scenario (nothing imported, the length given): no capture fit, no spans' ends, no pilot.
    # The sites choose alike (both take the latency sub-type): no setting per group is simulated.
    assert METRO_STEPS.said == ["the setting in force's run and findings", "the ranking", "the advice"]


def test_the_metro_cluster_is_advised_whole_with_each_hosts_figures_beside(metro: pathlab.Advice) -> None:
    assert metro.hosts == ("esx-a1", "esx-a2", "esx-b1", "esx-b2")
    for c in metro.candidates:
        assert set(c.hosts) == set(metro.hosts)
        # The cluster's rate is its hosts' together (commands a second against the application's I/Os:
        # no retries on this fabric), its p99 the worst host's.
        total = sum(h["iops"].mean for h in c.hosts.values())
        assert abs(total / c.figures["iops"].mean - 1) < 0.01, (c.label, total, c.figures["iops"])
        assert c.figures["p99_ms"].mean == pytest.approx(max(h["p99_ms"].mean for h in c.hosts.values()), rel=0.05)
    table = metro.hosts_table
    assert len(table) == 4 * len(metro.candidates) and set(table["host"]) == set(metro.hosts)
    assert metro._repr_html_().count("<td>esx-b2</td>") == len(metro.candidates)  # the notebook's view shows them
    document = metro.to_dict()
    assert document["hosts"] == list(metro.hosts) and set(document["host_figures"]["round robin, latency"]) == set(metro.hosts)


def test_the_metro_sites_are_two_groups_and_both_take_the_latency_sub_type(metro: pathlab.Advice) -> None:
    # The cluster-predictions design page: latency keeps each host on its own site's array (100%
    # local), ahead of iops=1000 (the setting in force) and iops=1 at both sites, by about 1.3x; r2's
    # hosts a few percent under r1's (every track starts owned by r1). One setting for every host.
    assert [(g.hosts, g.reach) for g in metro.groups] == [
        (("esx-a1", "esx-a2"), "r1: 2 ports at 2 µs one way; r2: 2 ports at 252 µs one way"),
        (("esx-b1", "esx-b2"), "r1: 2 ports at 252 µs one way; r2: 2 ports at 2 µs one way")]
    assert metro.recommendation is not None and metro.recommendation.to == "round robin, latency"
    assert [g.own_choice for g in metro.groups] == ["round robin, latency"] * 2
    r1, r2 = (g.gain for g in metro.groups)
    assert 1.15 < r2 < r1 < 1.6, (r1, r2)
    assert not any(c.label == "a setting per host group" for c in metro.candidates)
    # The commands: each host's device command under its name (latency has no claim rule option).
    assert metro.commands == [line for h in metro.hosts for line in (f"# on {h}:", LATENCY)]


def test_host_and_group_gains_are_rounded_to_the_model_error_as_the_clusters_are(metro: pathlab.Advice) -> None:
    # Latency's model error (+2.8% on C2) rounds its gains to one decimal: the cluster's row, each
    # host's beneath it and each group's line say them alike (they printed two decimals).
    latency = next(c for c in metro.candidates if c.label == "round robin, latency")
    assert latency.model_error is not None and metro.in_force is not None
    lines = metro.to_text().splitlines()
    at = lines.index(next(line for line in lines if line.startswith("  round robin, latency ")))
    assert lines[at].endswith(f" {latency.model_error.gain_text(latency.gain)}")
    for h, line in zip(metro.hosts, lines[at + 1:at + 5]):
        gain = latency.hosts[h]["iops"].mean / metro.in_force.hosts[h]["iops"].mean
        assert line.startswith(f"    {h} ") and line.endswith(f" {latency.model_error.gain_text(gain)}"), line
        assert re.search(r" \d\.\dx$", line), line
    said = [line for line in lines if "the recommendation gives them" in line]
    assert [re.search(r"gives them (\S+) the I/O rate", line)[1] for line in said] == [  # type: ignore[index]
        latency.model_error.gain_text(g.gain) for g in metro.groups]
    assert all(re.search(r"gives them \d\.\dx ", line) for line in said), said


def test_hosts_that_disagree_on_one_lun_are_found_and_each_gets_its_own_commands() -> None:
    # VMAX3: four hosts on one LUN at iops=1000, esx-1 set to Fixed.
    advice = pathlab.advise("vmax3-shared-director", variant="iops1000", set=['devices.0.policy={name="VMW_PSP_FIXED"}'],
                            duration="1s", warmup="0.5s", seeds=2)
    naa = "naa.60000970000197900123533030303141"
    (disagree,) = [f for f in advice.findings if "disagree" in f.title]
    assert disagree.title == f"{naa}: its hosts disagree on the PSP or its limit"
    assert disagree.evidence.startswith("esx-1: VMW_SATP_SYMM, fixed; esx-2, esx-3, esx-4: VMW_SATP_SYMM, round robin, "
                                        "iops=1000")
    rr1 = next(c for c in advice.candidates if c.label == "round robin, iops=1")
    set_iops1 = f"esxcli storage nmp psp roundrobin deviceconfig set --device={naa} --type=iops --iops=1"
    assert rr1.commands == [
        "# on esx-1:", f"esxcli storage nmp device set --device={naa} --psp=VMW_PSP_RR", set_iops1,
        *(line for h in ("esx-2", "esx-3", "esx-4") for line in (f"# on {h}:", set_iops1)),
        "# on every host:", "esxcli storage nmp satp rule add -s VMW_SATP_SYMM -V EMC -M SYMMETRIX -P VMW_PSP_RR -O iops=1"]
    assert commands_for(rr1.commands, ["esx-3"]) == [
        "# on esx-3:", set_iops1, "# on every host:",
        "esxcli storage nmp satp rule add -s VMW_SATP_SYMM -V EMC -M SYMMETRIX -P VMW_PSP_RR -O iops=1"]


def test_a_setting_per_group_gives_each_groups_hosts_their_own() -> None:
    scenario = load(METRO)
    ran = scenario.with_set({"run.duration": "0.2s", "run.warmup": "0.1s"}).run(path_intervals=False)
    cands = {c.label: c for c in candidates(scenario, ran)}
    a, b = HostGroup("r1 near", ("esx-a1", "esx-a2")), HostGroup("r2 near", ("esx-b1", "esx-b2"))
    mixed = by_group(scenario, [(a, cands["round robin, latency"]), (b, cands["round robin, iops=1"])])
    labels = {d.host: d.policy.label for d in scenario.with_set(mixed.overrides).devices}
    assert labels == {"esx-a1": "round robin, latency", "esx-a2": "round robin, latency",
                      "esx-b1": "round robin, iops=1", "esx-b2": "round robin, iops=1"}
    set_iops1 = f"esxcli storage nmp psp roundrobin deviceconfig set --device={NAA} --type=iops --iops=1"
    assert mixed.commands == [
        "# hosts esx-a1, esx-a2 (r1 near): round robin, latency", "# on esx-a1:", LATENCY, "# on esx-a2:", LATENCY,
        "# hosts esx-b1, esx-b2 (r2 near): round robin, iops=1", "# on esx-b1:", set_iops1, "# on esx-b2:", set_iops1]
    # Narrowed to one host (`--host`): its group's header and its own block, not the other group's header.
    assert commands_for(mixed.commands, ["esx-b1"]) == [
        "# hosts esx-b1, esx-b2 (r2 near): round robin, iops=1", "# on esx-b1:", set_iops1]
    assert commands_for(mixed.commands, ["esx-a2"]) == [
        "# hosts esx-a1, esx-a2 (r1 near): round robin, latency", "# on esx-a2:", LATENCY]


def test_host_narrows_the_output_to_one_host_of_the_whole_clusters_runs(metro: pathlab.Advice, tmp_path) -> None:
    done = command("advise", METRO, "--host", "esx-b1", *SHORT, "--format", "json")
    assert done.returncode == 0, done.stderr
    narrowed = json.loads(done.stdout)
    assert narrowed["shown_host"] == "esx-b1" and narrowed["commands"] == ["# on esx-b1:", LATENCY]
    whole = metro.to_dict()
    # The same runs (same seeds, every host simulated): the host's figures are the whole advice's.
    for label, by_host in narrowed["host_figures"].items():
        assert list(by_host) == ["esx-b1"] and by_host["esx-b1"] == whole["host_figures"][label]["esx-b1"]
    assert [c["figures"] for c in narrowed["candidates"]] == [c["figures"] for c in whole["candidates"]]
    report = tmp_path / "advice.html"
    shown = command("advise", METRO, "--host", "esx-b1", *SHORT, "--html", str(report))
    assert "    esx-b1 " in shown.stdout and "    esx-a1 " not in shown.stdout and "# on esx-a1:" not in shown.stdout
    page = report.read_text()  # the report: the groups and the host's figures under the recommendation
    assert "    esx-b1 " in page and "    esx-a1 " not in page and "esx-b1, esx-b2 (r1: 2 ports at 252 µs" in page


def test_an_unknown_host_is_one_line_and_exit_2() -> None:
    done = command("advise", METRO, "--host", "esx-zz", *SHORT)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        f'pathlab: error: {METRO}: --host: unknown host "esx-zz"; the scenario\'s hosts: esx-a1, esx-a2, esx-b1, esx-b2']
    twice = command("advise", METRO, "--host", "esx-a1", "--host", "esx-b1", *SHORT)
    assert twice.returncode == 2 and twice.stderr.strip().splitlines() == [
        "pathlab: error: --host: esx-b1: one host to narrow the advice to; esx-a1 is given already"]


def test_a_clusters_run_length_keys_each_hosts_device_of_one_lun_apart() -> None:
    # The pilot of the whole cluster: the LUN's four device entries (one per host) are four devices,
    # keyed as their interval rows are (`HOST/NAME`), never alike (their paths start at different
    # hosts). At iops=1000 each goes round 4 paths 1,000 I/Os at a time at about 2,700 I/O/s:
    # 4 × 20 rotations × 1,000 / 2,700 ≈ 30 s, past the full 20 s.
    scenario = load(METRO)
    pilot = scenario.with_set(run_length.pilot_length()).run(path_intervals=False)
    classes = alike.classes(scenario, pilot)
    assert classes == [[f"{h}/{NAA}"] for h in ("esx-a1", "esx-a2", "esx-b1", "esx-b2")]
    chosen = run_length.choose(pilot, 20.0, 5.0, classes, [])
    assert (chosen.duration_s, chosen.reason) == (20.0, "the full length: the host's slowest device needs it")


def test_a_clusters_ranking_keeps_the_figures_of_whole_runs() -> None:
    """A cluster's ranking keeps each run's device rows only (its path rows let go as each batch
    ends): each seed's host figures are those of the whole run of the same seed."""
    from pathlab.advisor.host_figures import host_figures
    from pathlab.advisor.rank import rank_together

    scenario = load(METRO).with_set({"run.duration": "0.2s", "run.warmup": "0.1s"})
    cands = candidates(scenario, scenario.run(path_intervals=False))
    latency = next(c for c in cands if c.label == "round robin, latency")
    (ranked,) = rank_together([scenario], [cands[0], latency], 2, [[{}, {}]], per_host=True)
    for seed in (1, 2):
        whole = scenario.with_set(latency.overrides).with_seed(seed).run(path_intervals=False)
        assert ranked[1].per_seed_hosts[seed - 1] == host_figures(whole.data)


def test_a_hosts_p99_is_the_quantile_of_its_own_ios() -> None:
    """Each host's p99 is read from its devices' histograms added (the engine's `host_latency`), not
    its worst device's: a host of one device has that device's p99 to the bucket; a host of three
    alike devices one within theirs; a run of one host has none (its p99 is the summary's)."""
    from pathlab.advisor.host_figures import host_figures
    from pathlab.api import Scenario
    from pathlab.large_host import cluster_text

    metro = load(METRO).with_set({"run.duration": "0.2s", "run.warmup": "0.05s"}).run(path_intervals=False)
    one = {d["host"]: d["p99_ms"] for d in metro.data["devices"]}
    assert len(one) == 4 and {h["name"]: h["p99_ms"] for h in metro.data["host_latency"]} == one
    assert {h: f["p99_ms"] for h, f in host_figures(metro.data).items()} == one
    three = Scenario.from_text(cluster_text(2, 3, 4, duration="0.2s", interval="0.2s")).run(path_intervals=False)
    below_worst = []
    for h in three.data["host_latency"]:
        own = [d["p99_ms"] for d in three.data["devices"] if d["host"] == h["name"]]
        assert len(own) == 3 and min(own) <= h["p99_ms"] <= max(own)
        below_worst.append(h["p99_ms"] < max(own))
    assert any(below_worst)  # the worst device's p99 would pass the bounds above; this run tells them apart
    alone = load("c1-vmax-1lun").with_set({"run.duration": "0.1s", "run.warmup": "0s"}).run(path_intervals=False)
    assert "host_latency" not in alone.data
