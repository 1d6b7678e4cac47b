"""Issue 11: the shipped scenarios of each new mechanism (array-side balancing, NVMe
delayed_removal_secs, dm-multipath's shaky-path checks), run under every stack they concern,
with each stack's reaction checked in numbers. The scenarios' comment blocks give the sources."""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import SCENARIOS
from pathlab import Result, Scenario

REACTIONS = SCENARIOS / "reactions"


def _run(name: str, variant: str) -> tuple[dict, Result]:
    r = Scenario.load(REACTIONS / f"{name}.toml", variant=variant).run()
    accounting = r.data["accounting"]
    assert accounting["issued"] == accounting["completed"] + accounting["failed"], (name, variant)
    return r.data, r


def _times(data: dict, event: str, path: str = "") -> list[float]:
    return [round(e["t_s"], 3) for e in data["events"] if e["event"] == event and e["path"].startswith(path)]


# All paths down from 5 s to 23 s, ctrl_loss_tmo 10 s, reconnect attempts every 10 s from the
# loss (15 s, 25 s), dm's checker every 5 s; 8 I/Os outstanding, a failed I/O reissued 1 s later.
@pytest.mark.parametrize(("variant", "gave_up", "restored", "failed"), [
    # The head goes with its controllers at 15 s, ctrl_loss_tmo from their loss at 5 s
    # (delayed_removal_secs 0): the 8 queued I/Os fail, then every reissue a second later fails
    # at once until the attempt at 25 s: 8 × 10.
    ("nvme_default", [15.0], [25.0], 80),
    # Kept 30 s more (to 45 s): the path is back at the 25 s attempt and the queued I/O goes on.
    ("nvme_delayed_30s", [], [25.0], 0),
    # queue_if_no_path, and 12 polling intervals (60 s): held until the 25 s checker tick.
    ("dm_queue", [], [25.0], 0),
    ("dm_retry_12", [], [25.0], 0),
    # no_path_retry fail over FC: the lost ports' I/O is held for fast_io_fail_tmo (5 s), then
    # fails at once, from 10 s to 25 s: 8 × 15.
    ("dm_fail", [], [25.0], 120),
    # ESXi: all paths down retries until Misc.APDTimeout (140 s); the link's return is seen at once.
    ("esxi_hpp", [], [23.0], 0),
])
def test_each_stack_rides_out_or_fails_an_outage_by_its_no_path_rule(variant, gave_up, restored, failed) -> None:
    data, r = _run("nvme-delayed-removal", variant)
    assert _times(data, "gave_up") == gave_up
    assert _times(data, "path_restored") == restored
    assert data["accounting"]["failed"] == failed
    # Nothing completes during the outage; 792 I/Os a second before it (8 / (10 ms + 0.1 ms)).
    ios = dict(zip(r.intervals["t_s"], r.intervals["ios"]))
    assert ios[2.0] == 792 and all(ios[t] == 0 for t in range(6, 23))


# A path failing 5% of its commands from 10 s to 130 s (its link up: every check finds it good);
# dm's checker every 5 s. Each device's path through host1 to P0, the flaky one.
FLAKY = "host1:C0:T0:L1"


@pytest.mark.parametrize(("variant", "failed_at", "reinstated", "held", "errors"), [
    # Failed at its first error after each reinstatement, back at the next check: 24 times.
    ("dm_default", 24, 24, [], 24),
    # san_path_err 2 / 10 / 60: the third failure (checked at 25 s) is above 2: held to 90 s (65 s
    # after, > 60); three more failures by 100 s, held again at 105 s until 170 s.
    ("dm_san_path_err", 6, 6, [25.0, 105.0], 6),
    # marginal_path 60 / 120 / 10 per mille / 60: the second failure within 60 s (15.3 s) holds
    # it; probed from the 20 s check for 120 s; at 140 s the errors have stopped (130 s): back.
    ("dm_marginal_path", 2, 2, [20.0], 2),
])
def test_dm_holds_a_shaky_path_out_as_multipathd_does(variant, failed_at, reinstated, held, errors) -> None:
    data, r = _run("dm-shaky-path", variant)
    assert len(_times(data, "path_failed", FLAKY)) == failed_at
    assert len(_times(data, "path_reinstated", FLAKY)) == reinstated
    assert _times(data, "path_delayed", FLAKY) == held
    paths = r.paths.set_index("name")
    assert paths.loc[FLAKY, "errors"] == errors
    assert data["accounting"]["failed"] == 0


def test_with_marginal_pathgroups_the_held_path_waits_in_the_marginal_group() -> None:
    data, _ = _run("dm-shaky-path", "dm_san_path_err_marginal_group")
    # The same holds as without, but the path is back at once, in a group of its own.
    assert _times(data, "marginal", FLAKY) == [25.0, 105.0]
    assert _times(data, "not_marginal", FLAKY) == [90.0, 170.0]
    assert _times(data, "path_reinstated", FLAKY) == [15.0, 20.0, 25.0, 95.0, 100.0, 105.0]


def test_powerpath_and_nvme_keep_answering_paths_and_retry_the_errors() -> None:
    # PowerPath's autostandby iopf: standby after its 2nd failure within 6000 I/Os, never failed.
    data, r = _run("dm-shaky-path", "powerpath_iopf")
    assert _times(data, "path_failed", FLAKY) == []
    assert r.paths.set_index("name").loc[FLAKY, "errors"] == 2
    # NVMe neither fails nor avoids it: every error is retried elsewhere (5% of a quarter).
    data, r = _run("dm-shaky-path", "nvme")
    paths = r.paths.set_index("name")
    assert _times(data, "path_failed", FLAKY) == []
    assert 550 < paths.loc[FLAKY, "errors"] < 650
    assert data["accounting"]["failed"] == 0
    assert Counter(e["event"] for e in data["events"]) == Counter()


# Two gateways of 20 us a command (50,000 I/O/s each), eight namespaces on the first; the
# rebalancer's first pass (7 s) moves four to the second. 128 I/Os outstanding keep every
# gateway in use saturated, so the host's rate is the number of gateways it uses × 50,000.
@pytest.mark.parametrize("variant", ["nvme_numa", "nvme_round_robin", "nvme_queue_depth", "dm_immediate", "spdk", "hpp"])
def test_ana_aware_stacks_follow_a_rebalance_at_once_and_double_the_rate(variant) -> None:
    data, r = _run("nvmeof-gateway-rebalance", variant)
    moved = [e for e in data["events"] if e["event"] == "owner_moved"]
    assert [(e["t_s"], e["detail"]) for e in moved] == [(7.0, "gw-b")] * 4
    # Each move: the new owner's two paths optimized, the old owner's two inaccessible.
    assert Counter(e["detail"] for e in data["events"] if e["event"] == "alua") == {"AO": 8, "UNAV": 8}
    ios = dict(zip(r.intervals["t_s"], r.intervals["ios"]))
    assert (ios[5.0], ios[9.0]) == (50_000, 100_000)
    assert data["summary"]["errors"] == 0 and data["accounting"]["failed"] == 0


def test_dm_with_manual_failback_learns_of_a_move_from_errors() -> None:
    # The moved namespaces' current group is now inaccessible: the I/O dispatched to it comes
    # back with an error, dm fails both of its paths and switches group (4 namespaces × 2 paths),
    # and retries the I/O there: none fails, and the rate still doubles after a dip.
    data, r = _run("nvmeof-gateway-rebalance", "dm_manual")
    assert len(_times(data, "path_failed")) == 8
    assert data["summary"]["errors"] == 96 and data["accounting"]["failed"] == 0
    ios = dict(zip(r.intervals["t_s"], r.intervals["ios"]))
    assert ios[5.0] == 50_000 and 99_000 < ios[8.0] < 100_000 and ios[9.0] == 100_000


def test_a_gateway_group_that_reports_no_ana_states_is_warned_about() -> None:
    s = Scenario.load(REACTIONS / "nvmeof-gateway-rebalance.toml", set={"arrays.0.tpgs": False})
    assert [field for field, _ in s.warnings] == ["arrays.0.tpgs"]
    assert not Scenario.load(REACTIONS / "nvmeof-gateway-rebalance.toml").warnings


def _errors_and_share(data: dict, port: str, split_s: float) -> tuple[int, int, float]:
    """Errors up to and after `split_s`, and the share of commands through `port` after it."""
    rows = data["path_intervals"]
    through = {p["name"] for p in data["paths"] if p["target"] == port}
    before = sum(r["errors"] for r in rows if r["t_s"] <= split_s)
    after = sum(r["errors"] for r in rows if r["t_s"] > split_s)
    late = [r for r in rows if r["t_s"] > split_s]
    share = sum(r["cmds_s"] for r in late if r["name"] in through) / sum(r["cmds_s"] for r in late)
    return before, after, share


# fpin-marginal: 2 LUNs × 4 outstanding, 1 ms think time, about 0.128 ms response: an I/O rate of
# 8 / 1.128 ms = 7,092/s. Port P0 carries two of the four paths and fails 2% of its commands
# from 10 s; the fabric marks it marginal at 40 s. A stack that keeps rotating over it sees
# 7,092 / 2 × 0.02 = 71 errors a second: 2,128 in the 30 s before the notice, 4,255 in the 60 s
# after (8% allowed: Bernoulli noise is ±2% at 2,000, and each error adds a retried command).
# dm-multipath fails a path at its first error and reinstates it at the next checker tick (5 s):
# one error per path per tick, 4 × 6 before and 4 × 12 after, unless marginal_pathgroups fpin
# parks the paths. PowerPath iopf: 2 failures per path and the path is in autostandby.
RATE_THROUGH_P0_ERRORS = 7_092 / 2 * 0.02


@pytest.mark.parametrize(("variant", "before", "after", "share"), [
    # (A share of next to nothing: what was in flight at the notice completes there.)
    ("nvme", 30 * RATE_THROUGH_P0_ERRORS, 0, (0.0, 0.001)),
    ("dm_fpin", 4 * 6, 0, (0.0, 0.001)),
    ("dm_default", 4 * 6, 4 * 12, (0.0, 0.01)),
    ("esxi_rr", 30 * RATE_THROUGH_P0_ERRORS, 60 * RATE_THROUGH_P0_ERRORS, (0.49, 0.51)),
    ("powerpath_iopf", 4 * 2, 0, (0.0, 0.001)),
])
def test_each_stack_reacts_to_fpin_link_integrity_as_it_does(variant, before, after, share) -> None:
    data, _ = _run("fpin-marginal", variant)
    seen_before, seen_after, seen_share = _errors_and_share(data, "aa/P0", 40.0)
    assert seen_before == pytest.approx(before, rel=0.08), (variant, seen_before)
    assert seen_after == pytest.approx(after, rel=0.08), (variant, seen_after)
    assert share[0] <= seen_share <= share[1], (variant, seen_share)
    assert data["accounting"]["failed"] == 0  # every error retried on another path


def test_powerpath_without_autostandby_keeps_a_marginal_port_and_its_errors() -> None:
    # Adaptive weighs paths by their queued work, not by their errors or the fabric's notice: the
    # port keeps most of its share and the errors go on after 40 s.
    data, _ = _run("fpin-marginal", "powerpath_adaptive")
    _, after, share = _errors_and_share(data, "aa/P0", 40.0)
    assert 0.35 <= share <= 0.5 and after > 0.7 * 60 * RATE_THROUGH_P0_ERRORS * 2 * share


# nvme-shared-controllers: each array port serves a command in 5 us, 200,000/s, and the bulk
# namespace keeps 1,024 reads outstanding, far more than the 126 tags of a map (queue size 128).
# A port with a full map in front of it is saturated, and by Little's law a read's time below
# the driver (DAVG) is the tags in use over the port's rate: 126 / 200,000/s = 0.63 ms, on the
# near path and the far one alike. The small namespace submits on another CPU: with a queue per
# CPU it has maps of its own but meets the bulk's 126 at the port (0.63 ms too); with one queue
# per controller the two share each map, blk-mq caps the bulk at ⌈126 / 2⌉ = 63, and both wait
# behind 63 (0.315 ms), at the same bulk rate (the port stays saturated).
PORT_RATE = 1 / 5e-6
TAGS = 128 - 2


def _devices(data: dict) -> dict[str, dict]:
    return {d["name"].rsplit("/", 1)[1]: d for d in data["devices"]}


@pytest.mark.parametrize(("variant", "ports", "in_front"), [
    ("numa", 1, TAGS),  # every bulk read down the nearest path: one port
    ("round_robin", 2, TAGS),
    ("queue_depth", 2, TAGS),
    ("latency", 2, TAGS),
    ("queue_depth_one_queue", 2, TAGS // 2),
    ("round_robin_one_queue", 2, TAGS // 2),
])
def test_thousands_outstanding_fill_the_tags_and_the_ports(variant, ports, in_front) -> None:
    data, _ = _run("nvme-shared-controllers", variant)
    devices = _devices(data)
    bulk, small = devices["ns1"], devices["ns2"]
    assert bulk["cmds_s"] == pytest.approx(ports * PORT_RATE, rel=0.01)
    assert bulk["gavg_ms"] == pytest.approx(1024 / bulk["cmds_s"] * 1e3, rel=0.01)  # Little
    assert bulk["davg_ms"] == pytest.approx(in_front / PORT_RATE * 1e3, rel=0.03)
    assert small["davg_ms"] == pytest.approx(in_front / PORT_RATE * 1e3, rel=0.03)


def test_queue_depth_cannot_see_the_bulk_waiting_for_tags() -> None:
    # Both controllers hold 126 started requests: queue-depth sees a tie and takes the first,
    # so the bulk's line forms in front of the near controller's tags; round-robin splits it.
    def waits(variant: str) -> list[float]:
        data, _ = _run("nvme-shared-controllers", variant)
        return [p["kavg_ms"] for p in data["paths"] if p["device"].endswith("ns1")]

    near, far = waits("queue_depth")
    assert near > 10 * far, (near, far)
    near, far = waits("round_robin")
    assert near == pytest.approx(far, rel=0.1)
