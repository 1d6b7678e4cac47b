"""Advise simulates only what its decision needs (issue 25 item 3): runs as long as the host's
rates and its policy's rotation need, seeds only while the intervals leave the decision open,
and no run for a candidate that resolves to the setting in force; with the decision of a longer
run and byte-identical advice for the same host."""

from __future__ import annotations

import json

import pytest

from conftest import SCENARIOS, pathlab
from pathlab import Scenario
from pathlab.advise import run_length
from pathlab.advise.candidates import Candidate, candidates
from pathlab.advise.rank import Ranked, rank_together, settled
from pathlab.large_host import scenario_text

SHORT = {"run.duration": "0.3s", "run.warmup": "0.05s"}


def test_a_policy_moves_after_its_iops_or_bytes_and_per_io_otherwise() -> None:
    assert run_length.in_a_row({"type": "iops", "iops": 1000, "num_sampling_cycles": 16}, 8192) == 1000
    assert run_length.in_a_row({"type": "bytes", "bytes": 10485760}, 8192) == 1280
    assert run_length.in_a_row({"type": "latency", "iops": 1000, "num_sampling_cycles": 16}, 8192) == 1
    assert run_length.in_a_row({"selector": "service-time", "rr_min_io_rq": 4}, 8192) == 4
    assert run_length.in_a_row({"iopolicy": "numa"}, 8192) == 1


def test_the_length_covers_twenty_rotations_of_iops_1000_on_the_slowest_device() -> None:
    """One device, 8 paths, round robin iops=1000: 20 rotations are 8 × 20 × 1000 = 160,000 I/Os,
    at the rate the pilot measured, rounded up to two digits."""
    scenario = Scenario.load(SCENARIOS / "c1-vmax-1lun.toml", variant="iops1000", set=run_length.pilot_length())
    pilot = scenario.run()
    (device,) = pilot.data["devices"]
    assert len(device["working_paths"]) == 8
    chosen = run_length.choose(pilot, 20.0, 5.0, [[device['name']]], [])
    needed = 8 * 20 * 1000 / pilot.data["summary"]["iops"]
    assert needed <= chosen.duration_s <= needed * 1.1 and chosen.duration_s < 20.0
    assert chosen.warmup_s == pytest.approx(chosen.duration_s / 4)


def test_a_host_that_needs_more_than_the_full_length_gets_the_full_length() -> None:
    pilot = Scenario.load(SCENARIOS / "c1-vmax-1lun.toml", variant="iops1000", set=run_length.pilot_length()).run()
    chosen = run_length.choose(pilot, 1.0, 0.5, [[d['name'] for d in pilot.data['devices']]], [])
    assert (chosen.duration_s, chosen.warmup_s) == (1.0, 0.5)


def test_scheduled_faults_host_pauses_bursts_and_balancing_keep_the_full_length() -> None:
    assert run_length.has_timeline(Scenario.load(SCENARIOS / "flaky-path.toml"))
    generated = scenario_text(4, 4)
    assert not run_length.has_timeline(Scenario.from_text(generated))
    assert run_length.has_timeline(Scenario.from_text(generated, set={"host.pauses": {"every": "1s", "duration": "1ms"}}))


def _ranked(iops: tuple[float, float], p99: tuple[float, float]) -> Ranked:
    return Ranked(Candidate("c", {}, ["cmd"]), {"iops": iops, "p99_ms": p99}, 0.0, 2)


IN_FORCE = _ranked((1000.0, 10.0), (2.0, 0.02))


@pytest.mark.parametrize(("candidate", "is_settled"), [
    (_ranked((2000.0, 10.0), (1.0, 0.02)), True),   # apart by far on both figures
    (_ranked((1010.0, 10.0), (2.0, 0.02)), True),   # within 5% whichever way the means move
    (_ranked((1040.0, 30.0), (2.0, 0.02)), False),  # could clear 5% of the rate with more seeds
    (_ranked((1000.0, 10.0), (2.0, 0.2)), False),   # the p99's interval reaches past 5%
])
def test_a_candidate_is_settled_once_more_seeds_cannot_change_what_decide_makes_of_it(
        candidate: Ranked, is_settled: bool) -> None:
    assert settled(candidate, IN_FORCE) is is_settled


def test_seeds_are_added_only_to_candidates_the_intervals_leave_open() -> None:
    """iops=1000 against iops=1 on the VMAX scenario is decided on 2 seeds; the setting in force
    runs every seed an open candidate runs."""
    scenario = Scenario.load(SCENARIOS / "c1-vmax-1lun.toml", variant="iops1000", set=SHORT)
    cands = candidates(scenario, scenario.run())
    (ranked,) = rank_together([scenario], cands, 5, [SHORT] * len(cands))
    seeds = {r.candidate.label: r.seeds for r in ranked}
    assert seeds["round robin, iops=1"] == 2
    assert seeds["the setting in force"] == max(seeds.values())
    assert all(2 <= n <= seeds["the setting in force"] for n in seeds.values())


def test_a_candidate_that_resolves_to_the_setting_in_force_takes_its_figures_which_are_its_own() -> None:
    """The generated host runs round robin iops=1 already: the candidate of the same setting is not
    simulated, and simulating it gives the very same figures (same seeds, same resolved devices)."""
    scenario = Scenario.from_text(scenario_text(8, 4, 2), set=SHORT)
    cands = candidates(scenario, scenario.run())
    (ranking,) = rank_together([scenario], cands, 2, [SHORT] * len(cands))
    ranked = {r.candidate.label: r for r in ranking}
    same = ranked["round robin, iops=1"]
    assert same.figures == ranked["the setting in force"].figures
    sets = [f"{k}={v}" for k, v in scenario.overrides]
    from pathlab.toml_values import to_toml

    overrides = sets + [f"{k}={to_toml(v)}" for k, v in same.candidate.overrides.items()]
    simulated = [Scenario.from_text(scenario.text, set=overrides, seed=s).run().data["summary"] for s in (1, 2)]
    in_force = [Scenario.from_text(scenario.text, set=sets, seed=s).run().data["summary"] for s in (1, 2)]
    assert simulated == in_force


def _advise(*args: str) -> dict:
    done = pathlab("advise", *args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(("args", "longer"), [
    (("c2-activecluster-distance", "--variant", "rr_all_paths"), ("--duration", "20s", "--warmup", "5s")),
    (("{generated}", "--set", "policy.iops=100"), ("--duration", "8s", "--warmup", "2s")),
])
def test_the_chosen_length_decides_and_ranks_as_a_longer_run(args: tuple[str, ...], longer: tuple[str, ...],
                                                             tmp_path) -> None:  # noqa: ANN001
    """The ActiveCluster scenario against the full length, and a small generated host (8 I/Os
    outstanding on each of 16 devices, 4 paths, iops=100 in force: about 1.4 s chosen) against
    runs of 8 s: the same decision (a change) and ranking."""
    host = tmp_path / "generated.toml"
    host.write_text(scenario_text(16, 4, 8))
    args = tuple(a.format(generated=host) for a in args)
    auto = _advise(*args)
    reference = _advise(*args, *longer)
    assert auto["recommendation"] == reference["recommendation"] and auto["recommendation"]["change"]
    assert run_length.same_ranking(reference["candidates"], auto["candidates"])


def test_the_same_host_gets_byte_identical_advice(tmp_path) -> None:  # noqa: ANN001
    host = tmp_path / "generated.toml"
    host.write_text(scenario_text(8, 4, 4))
    first, second = (pathlab("advise", str(host), "--seeds", "3") for _ in range(2))
    assert first.returncode == 0 and first.stdout == second.stdout
