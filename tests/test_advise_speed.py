"""Advise simulates only what its decision needs (issue 25 item 3): runs as long as the host's
rates and its policy's rotation need, seeds only while the intervals leave the decision open,
and no run for a candidate that resolves to the setting in force; with the decision of a longer
run and byte-identical advice for the same host."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from conftest import SCENARIOS, one_error_line, pathlab
from host_text import host_tables
from pathlab import Scenario
from pathlab.advisor import alike, end_pilots, own_pilot, run_length
from pathlab.advisor.candidates import OWN_POLICY, Candidate, candidates
from pathlab.advisor.pipeline import auto_lengths
from pathlab.advisor.ranges import AtEnd, end_labels, span_ends
from pathlab.advisor.rank import FIRST_SEEDS, _simulated, rank_together, settled
from pathlab.advisor.ranked import Ranked
from pathlab.large_host import cluster_text, scenario_text

SHORT = {"run.duration": "0.3s", "run.warmup": "0.05s"}


def test_a_policy_moves_after_its_iops_or_bytes_and_per_io_otherwise() -> None:
    assert run_length.in_a_row({"type": "iops", "iops": 1000, "num_sampling_cycles": 16}, 8192) == 1000
    assert run_length.in_a_row({"type": "bytes", "bytes": 10485760}, 8192) == 1280
    assert run_length.in_a_row({"type": "latency", "iops": 1000, "num_sampling_cycles": 16}, 8192) == 1
    # dm's rr_min_io_rq is clamped to 1 by the kernel since 4.6; SPDK's rr_min_io is a real run
    assert run_length.in_a_row({"selector": "service-time", "rr_min_io_rq": 4}, 8192) == 1
    assert run_length.in_a_row({"policy": "active_active", "selector": "round_robin", "rr_min_io": 8}, 8192) == 8
    assert run_length.in_a_row({"iopolicy": "numa"}, 8192) == 1
    # ESXi's default type switches at 1000 I/Os or 10 MiB, whichever comes first
    assert run_length.in_a_row({"type": "default", "iops": 1000, "bytes": 10485760}, 4096) == 1000
    assert run_length.in_a_row({"type": "default", "iops": 1000, "bytes": 10485760}, 65536) == 160


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



def test_the_length_covers_every_candidates_paths_and_rotations_not_only_the_setting_in_force() -> None:
    """MRU in force sends everything down one path; round robin iops=1000, a candidate, goes over
    all 8 in rows of 1000: the length covers its 8 × 20 × 1000 I/Os, not MRU's one path."""
    scenario = Scenario.load(SCENARIOS / "c1-vmax-1lun.toml", variant="iops1000",
                             set={**run_length.pilot_length(), "devices.*.policy": {"name": "VMW_PSP_MRU"}})
    pilot = scenario.run()
    (device,) = pilot.data["devices"]
    assert len(device["working_paths"]) == 1
    alone = run_length.choose(pilot, 20.0, 5.0, [[device["name"]]], [])
    rr = Scenario.from_text(scenario.text, set={"devices.*.policy": {"name": "VMW_PSP_RR", "iops": 1000}}).devices
    chosen = run_length.choose(pilot, 20.0, 5.0, [[device["name"]]], [pilot.setups, rr])
    needed = 8 * 20 * 1000 / pilot.data["summary"]["iops"]
    assert needed <= chosen.duration_s <= max(needed * 1.1, alone.duration_s) and chosen.duration_s > alone.duration_s

ODD = f"naa.6{39:031x}"
#: 39 alike devices and an odd one, driven by a workload of its own (one I/O at a time after 2 ms
#: of think time: about 475 I/O/s against 8,300 on each of the others); 4 servers per port, so
#: no port is saturated.
ODD_ONE_OUT = scenario_text(40, 8, 1, busy=39, servers=4) + \
    f'[[workloads]]\ndevices = ["{ODD}"]\noutstanding = 1\nthink_time = "2ms"\n'


def _pilot(text: str) -> tuple[Scenario, run_length.Result]:
    scenario = Scenario.from_text(text, set=run_length.pilot_length())
    return scenario, scenario.run()


def test_devices_alike_in_every_resolved_setting_share_a_class_and_an_odd_one_has_its_own() -> None:
    scenario, pilot = _pilot(ODD_ONE_OUT)
    classes = alike.classes(scenario, pilot)
    assert sorted(len(c) for c in classes) == [1, 39] and [ODD] in classes
    # A device's own policy, queue depth or path set also sets it apart (the resolved data, not the file's text).
    for change, sizes in (({"devices.3.policy": {"name": "VMW_PSP_MRU"}}, [1, 1, 38]),
                          ({"devices.3.queue_depth": 2}, [1, 1, 38]),
                          ({"fabric.0.latency": "60us"}, [1, 39])):  # every path moves alike
        other = Scenario.from_text(ODD_ONE_OUT, set={**change, **dict(run_length.pilot_length())})
        classes = alike.classes(other, other.run())
        assert sorted(len(c) for c in classes) == sizes
        assert ([f"naa.6{3:031x}"] in classes) is (sizes[1] == 1)


def test_alike_devices_count_their_ios_together_and_the_odd_device_gets_its_full_count() -> None:
    """The 39 alike devices together need 8 × 100 I/Os (a few ms at ~320,000 I/O/s); the odd
    device needs its own 800 I/Os at its own rate: the length is set by it alone."""
    scenario, pilot = _pilot(ODD_ONE_OUT)
    assert not run_length.saturated(pilot)
    rate = next(r["cmds_s"] for r in pilot.data["device_intervals"] if r["name"] == ODD)
    chosen = run_length.choose(pilot, 20.0, 5.0, alike.classes(scenario, pilot), [])
    assert 8 * 100 / rate <= chosen.duration_s <= 8 * 100 / rate * 1.1
    alike_only, alike_pilot = _pilot(scenario_text(40, 8, 1, servers=4))
    host_rate = alike_pilot.data["summary"]["iops"]
    short = run_length.choose(alike_pilot, 20.0, 5.0, alike.classes(alike_only, alike_pilot), [])
    # Only the host-wide floor of 20,000 I/Os is left.
    assert run_length.HOST_IOS / host_rate <= short.duration_s <= run_length.HOST_IOS / host_rate * 1.1
    assert "counted over 1 class of alike devices" in short.reason


def test_devices_on_a_saturated_port_are_counted_one_by_one() -> None:
    """One server per port and 500 devices (the host measured): the ports are saturated, and
    each device needs its own 800 I/Os as if it had no like."""
    scenario, pilot = _pilot(scenario_text(500, 8, 1))
    assert len(run_length.saturated(pilot)) == 500
    classes = alike.classes(scenario, pilot)
    assert len(classes) == 1
    device_rate = pilot.data["summary"]["iops"] / 500
    chosen = run_length.choose(pilot, 20.0, 5.0, classes, [])
    assert 800 / device_rate * 0.8 <= chosen.duration_s and "alike" not in chosen.reason


def test_a_latency_sampling_candidate_gets_a_warm_up_through_every_devices_first_sampling() -> None:
    """Round robin's latency sub-type samples 16 I/Os down each of the 8 paths first: twice that
    at each device's rate, for that candidate's runs only."""
    scenario, pilot = _pilot(scenario_text(40, 8, 1, servers=4))
    latency = Scenario.from_text(scenario.text, set={"devices.*.policy": {"name": "VMW_PSP_RR", "type": "latency"}})
    assert run_length.samples_per_path(latency.devices[0].policy.params) == 16
    chosen = run_length.choose(pilot, 20.0, 5.0, alike.classes(scenario, pilot), [pilot.setups, latency.devices])
    needed = 2 * 8 * 16 / (pilot.data["summary"]["iops"] / 40)
    assert needed <= chosen.sampling_warmup_s <= needed * 1.1
    assert chosen.overrides(latency.devices)["run.warmup"] != chosen.overrides(pilot.setups)["run.warmup"]
    assert chosen.overrides(pilot.setups) == chosen.overrides()


def test_a_first_sampling_past_the_full_warm_up_is_said_to_be_measured_with_the_runs() -> None:
    """The same host with a full warm-up a quarter of what the sampling needs: the warm-up stops
    at the full one, and the reason says the runs measure the sampling (32 × 500 × 8 at 12.5 I/O/s
    a device needs 20 s against the default 5 s)."""
    scenario, pilot = _pilot(scenario_text(40, 8, 1, servers=4))
    latency = Scenario.from_text(scenario.text, set={"devices.*.policy": {"name": "VMW_PSP_RR", "type": "latency"}})
    needed = 2 * 8 * 16 / (pilot.data["summary"]["iops"] / 40)
    chosen = run_length.choose(pilot, 20.0, needed / 4, alike.classes(scenario, pilot), [pilot.setups, latency.devices])
    assert chosen.sampling_warmup_s == needed / 4
    assert "short of the slowest device's first sampling" in chosen.reason
    assert "their runs measure the sampling too" in chosen.reason and "to the end of" not in chosen.reason


def test_pathlab_s_own_policy_which_learns_its_paths_keeps_the_full_warm_up() -> None:
    scenario, pilot = _pilot(scenario_text(40, 8, 1, servers=4))
    gated = Scenario.from_text(scenario.text, set={"devices.*.policy": {"name": "gated-least-load"}}).devices
    assert run_length.learns(gated[0].policy.params) and not run_length.learns(pilot.setups[0].policy.params)
    chosen = run_length.choose(pilot, 20.0, 5.0, alike.classes(scenario, pilot), [pilot.setups, gated])
    assert chosen.overrides(gated)["run.warmup"] == "5000000us" and chosen.duration_s < 1.0


def test_a_host_that_needs_more_than_the_full_length_gets_the_full_length() -> None:
    pilot = Scenario.load(SCENARIOS / "c1-vmax-1lun.toml", variant="iops1000", set=run_length.pilot_length()).run()
    chosen = run_length.choose(pilot, 1.0, 0.5, [[d['name'] for d in pilot.data['devices']]], [])
    assert (chosen.duration_s, chosen.warmup_s) == (1.0, 0.5)


def test_scheduled_faults_host_pauses_bursts_and_balancing_keep_the_full_length() -> None:
    assert Scenario.load(SCENARIOS / "flaky-path.toml").timeline == ["faults"]
    generated = scenario_text(4, 4)
    assert Scenario.from_text(generated).timeline == []
    pauses = {"every": "1s", "duration": "1ms"}
    assert Scenario.from_text(generated, set={"host.pauses": pauses}).timeline == ["host pauses"]


def test_what_is_on_the_timeline_is_read_from_what_an_override_sets_whatever_its_shape() -> None:
    """Session 9 read the override's keys only: a whole-table `--set host={...}` holding pauses,
    or a variant's `set` of faults, kept the short length of a host without them."""
    generated = scenario_text(4, 4)
    host = {"adapters": [{"name": f"vmhba{n}", "queue_depth": 1000000} for n in (1, 2)],
            "pauses": {"every": "1s", "duration": "1ms"}}
    assert Scenario.from_text(generated, set={"host": host}).timeline == ["host pauses"]
    failing = generated + '[variants.failing]\nset = { faults = [{ kind = "port_down", port = "a/P0", at = "1s" }] }\n'
    assert Scenario.from_text(failing).timeline == []
    assert Scenario.from_text(failing, variant="failing").timeline == ["faults"]


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
    (ranked,) = rank_together([scenario], cands, 5, [[SHORT] * len(cands)])
    seeds = {r.candidate.label: r.seeds for r in ranked}
    assert seeds["round robin, iops=1"] == 2
    assert seeds["the setting in force"] == max(seeds.values())
    assert all(2 <= n <= seeds["the setting in force"] for n in seeds.values())


def test_a_candidate_that_resolves_to_the_setting_in_force_takes_its_figures_which_are_its_own() -> None:
    """The generated host runs round robin iops=1 already: the candidate of the same setting is not
    simulated, and simulating it gives the very same figures (same seeds, same resolved devices)."""
    scenario = Scenario.from_text(scenario_text(8, 4, 2), set=SHORT)
    cands = candidates(scenario, scenario.run())
    (ranking,) = rank_together([scenario], cands, 2, [[SHORT] * len(cands)])
    ranked = {r.candidate.label: r for r in ranking}
    same = ranked["round robin, iops=1"]
    assert same.figures == ranked["the setting in force"].figures
    # Not simulated: the ranking leaves it out of its runs (equal figures alone would hold either way).
    assert cands.index(same.candidate) not in _simulated(scenario, cands, None)
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


def test_the_run_length_is_in_the_json_the_html_and_the_text(tmp_path) -> None:  # noqa: ANN001
    """Session 9 said it on stderr only: the outputs carry the length every run simulated and why."""
    host = tmp_path / "generated.toml"
    host.write_text(scenario_text(8, 4, 4))
    page = tmp_path / "advice.html"
    done = pathlab("advise", str(host), "--format", "json", "--html", str(page))
    length = json.loads(done.stdout)["run_length"]
    said = f"runs of {length['duration_s']:g} s after {length['warmup_s']:g} s of warm-up ({length['reason']})"
    assert said in done.stderr and length["at_span_ends"] == []
    assert 0 < length["duration_s"] < 20 and length["reason"].startswith("100 I/Os per path")
    assert f"Each run simulated {length['duration_s']:g} s after {length['warmup_s']:g} s of warm-up" in page.read_text()
    # The text says it with --verbose (the README's advise block shows the default without it).
    text = pathlab("advise", str(host), "--duration", "1s", "--warmup", "0.2s", "--verbose").stdout
    assert "  Each run simulated 1 s after 0.2 s of warm-up (as given with --duration)." in text.splitlines()


def test_the_ends_of_the_spans_rank_in_the_same_batches_with_the_figures_they_get_alone() -> None:
    """An imported-looking host (its ports' service marked `# default`, no array latency):
    ranked together with its span ends, the host has the very figures it gets ranked alone, and
    each end those of its first two seeds ranked alone (an end gives a range and decides
    nothing: no third seed is added there)."""
    text = scenario_text(8, 4, 4).replace('servers = 1 }', 'servers = 1 }  # default')
    scenario = Scenario.from_text(text, set=SHORT)
    found, at_ends = span_ends(scenario, host_tables(text))
    # The port's capacity at both ends; the zero-load time (none written) at its far end only.
    assert len(found) == 2 and len(at_ends) == 3
    cands = candidates(scenario, scenario.run())
    lengths = [SHORT] * len(cands)
    together = rank_together([scenario, *at_ends], cands, 3, [lengths] * 4)
    alone = [rank_together([s], cands, 3 if s is scenario else FIRST_SEEDS, [lengths])[0] for s in (scenario, *at_ends)]
    # The ends leave out pathlab's own policy (never recommended: `rank._spanned`), and only it.
    ranked_at = [[r.candidate.label for r in ranking] for ranking in together]
    assert OWN_POLICY in ranked_at[0] and ranked_at[1:] == [[c.label for c in cands if c.label != OWN_POLICY]] * 3
    assert [[r.figures for r in ranking] for ranking in together] == \
        [[r.figures for r in ranking if r.candidate.label in ranked_at[k]] for k, ranking in enumerate(alone)]
    assert together[1][0].figures["iops"] != together[2][0].figures["iops"]  # the ends differ


def test_each_span_end_gets_the_run_length_of_its_own_pilot() -> None:
    """100 alike devices at 1,100 I/O/s each on four ports of an assumed capacity (55% busy): the
    host counts its devices' I/Os together (0.19 s runs, the host-wide floor). At capacity -50%
    the ports saturate, the devices wait for each other and each needs its own 8 x 100 I/Os at the
    rate it gets there: 0.83 s. Session 9 ran every end at the host's 0.19 s. pathlab's own
    policy, simulated on the host alone (never recommended), gives the host's runs its learning
    warm-up and no end's."""
    text = scenario_text(100, 8, 1, rate=1100.0).replace('servers = 1 }', 'servers = 1 }  # default')
    scenario = Scenario.from_text(text, set={"run.duration": "20s", "run.warmup": "5s"})
    found, at_ends = span_ends(scenario, host_tables(text))
    assert end_labels(found)[0] == "the low end of port capacity ±50%"
    chosen, _, _ = auto_lengths(scenario, at_ends, run_length.RunLength(20.0, 5.0, "the full length"))
    host, slow_ports, fast_ports, zero_load = chosen
    assert host.duration_s == 0.19 and "counted over 1 class" in host.reason
    assert slow_ports.duration_s == 0.83 and "counted over" not in slow_ports.reason
    assert fast_ports == zero_load and fast_ports.same_runs(host) and fast_ports != host
    assert not slow_ports.same_runs(host)
    assert not replace(host, sampling_warmup_s=host.sampling_warmup_s + 1).same_runs(host)
    assert host.learning_warmup_s == 5.0 and "pathlab's own policy" in host.reason
    assert all(n.learning_warmup_s == 0.0 and "own policy" not in n.reason for n in chosen[1:])


def test_a_clusters_end_pilots_on_their_own_thread_give_each_end_the_length_of_its_pilot_run_alone() -> None:
    """A cluster's ends' pilots run on a second thread beside its own (`end_pilots`), their
    lengths chosen once the candidates' devices are given: the same lengths as the pilots run one
    at a time (`auto_lengths`). The generated cluster's ports at 200 µs and 10 µs in place of 20:
    a slower port, a longer run."""
    scenario = Scenario.from_text(cluster_text(3, 20, 4), set={"run.duration": "20s", "run.warmup": "5s"})
    at_ends = [AtEnd(scenario, (f'arrays.0.service.fixed="{us}us"',)) for us in (200, 10)]
    full = run_length.RunLength(20.0, 5.0, "the full length")
    one_at_a_time, cands, resolved = auto_lengths(scenario, at_ends, full, per_host=True)
    with end_pilots.started(at_ends, full) as ends:
        (cluster,), beside, resolved_beside = auto_lengths(scenario, [], full, per_host=True,
                                                           candidates_known=ends.given)
        assert [cluster, *ends.lengths()] == one_at_a_time
    assert "pathlab's own policy" in cluster.reason and all("own policy" not in n.reason for n in one_at_a_time[1:])
    assert [c.label for c in beside] == [c.label for c in cands] and resolved_beside == resolved
    assert one_at_a_time[1].duration_s > one_at_a_time[0].duration_s


def test_a_clusters_own_pilot_taken_ahead_of_its_fit_is_the_pilot_of_the_fitted_cluster() -> None:
    """The fitted cluster's own pilot taken on a thread while the fit runs (`own_pilot.Ahead`),
    for the values the fit expects, is the one `auto_lengths` takes of the cluster with those
    values set: the same length, candidates and resolved devices; values fitted otherwise get
    nothing from it (None, its thread stopped). Ports at 200 µs in place of 20: a longer run."""
    base = Scenario.from_text(cluster_text(3, 20, 4), set={"run.duration": "20s", "run.warmup": "5s"})
    full = run_length.RunLength(20.0, 5.0, "the full length")
    expected = {"workloads.0.outstanding": 2, "arrays.0.service.fixed": "200us"}
    with own_pilot.ahead(base, full, ()) as taken:
        taken.start(expected)
        fitted = taken.fitted_for(dict(expected))
        assert fitted is not None and fitted.overrides == base.with_set(expected).overrides
        length, cands, resolved = taken.pilot_for(fitted, full) or pytest.fail("no pilot taken")
    (alone,), cands_alone, resolved_alone = auto_lengths(base.with_set(expected), [], full, per_host=True)
    (unfitted,), _, _ = auto_lengths(base, [], full, per_host=True)
    assert length == alone and length.duration_s > unfitted.duration_s  # the values expected were set (2.5 → 7.8 s)
    assert [c.label for c in cands] == [c.label for c in cands_alone] and resolved == resolved_alone
    with own_pilot.ahead(base, full, ()) as other:
        other.start(expected)
        assert other.fitted_for({**expected, "arrays.0.service.fixed": "150us"}) is None
        assert not other._thread.is_alive()  # waited for as it is let go, before the advice runs its own
        assert other.pilot_for(fitted, full) is None
    assert not other._thread.is_alive() and other._pilot is None


def test_an_advice_that_ends_early_leaves_no_end_pilot_running() -> None:
    """An advice that leaves before the ends' lengths are asked (an error) stops the ends not
    started and waits for the pilot under way: no run goes on behind it."""
    scenario = Scenario.from_text(cluster_text(3, 20, 4), set={"run.duration": "20s", "run.warmup": "5s"})
    at_ends = [AtEnd(scenario, (f'arrays.0.service.fixed="{us}us"',)) for us in (200, 10)]
    with pytest.raises(KeyboardInterrupt), end_pilots.started(at_ends, run_length.RunLength(20.0, 5.0, "full")) as ends:
        raise KeyboardInterrupt
    assert not ends._thread.is_alive() and not ends._pending


def test_the_in_force_run_taken_as_seed_one_is_the_run_rank_would_make() -> None:
    scenario = Scenario.from_text(scenario_text(8, 4, 2), set=SHORT)
    in_force = scenario.run()
    cands = candidates(scenario, in_force)
    lengths = [SHORT] * len(cands)
    assert [r.figures for r in rank_together([scenario], cands, 2, [lengths], in_force)[0]] == \
        [r.figures for r in rank_together([scenario], cands, 2, [lengths])[0]]


@pytest.mark.parametrize("given", ["run.duration=5s", "run.warmup=1s", 'run={duration="5s"}'])
def test_a_run_length_set_by_hand_is_refused_not_replaced(given: str) -> None:
    """advise sets every run's length itself (after the user's --set): a --set of it would be
    replaced without a word, so it is refused and the options that do it are named."""
    done = pathlab("advise", "vmax-iops1000", "--set", given)
    line = one_error_line(done)
    assert done.returncode == 2 and "--set" in line and "give --duration and --warmup instead" in line, done.stderr
