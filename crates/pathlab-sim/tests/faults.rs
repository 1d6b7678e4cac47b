//! Faults and each stack's handling of them, on small scenarios with fixed service times so
//! that times and ratios come out exact: failover and failback timing, no-path behaviour,
//! degraded paths, controller failover, and the accounting invariant under every fault kind.

use pathlab_sim::observe::result::HostEvent;
use pathlab_sim::{run, RunResult};

/// Two adapters zoned to two ports of one array, one LUN: paths vmhba1:C0:T0:L3 (port P0),
/// vmhba1:C0:T1:L3 (P1), vmhba2:C0:T0:L3 (P0), vmhba2:C0:T1:L3 (P1). A read costs 10 us out,
/// 20 us at the port, 100 us of cache, 10 us back and 2.048 us on the 16Gb link (4 KiB).
struct Case {
    duration: &'static str,
    interval: &'static str,
    policy: String,
    faults: String,
    stack: &'static str,
    outstanding: u32,
    block: &'static str,
    /// Two controllers owning nothing in common: P0 on CT0 (the owner, active-optimized), P1 on
    /// CT1 (active-non-optimized, 200 us forwarding each way).
    alua: bool,
    /// More lines of the array's table.
    array_extra: &'static str,
    /// The workload's think time.
    think: &'static str,
}

impl Default for Case {
    fn default() -> Self {
        Case {
            duration: "2s",
            interval: "100ms",
            policy: RR1.to_string(),
            faults: String::new(),
            stack: "",
            outstanding: 24,
            block: "4KiB",
            alua: false,
            array_extra: "",
            think: "0s",
        }
    }
}

const RR1: &str = "name = \"VMW_PSP_RR\"\ntype = \"iops\"\niops = 1";
/// dm-multipath over FC failing a lost port's I/O over at once (`fast_io_fail_tmo 0`), for the
/// tests of what comes after the failover.
const FC_AT_ONCE: &str = "fast_io_fail_tmo = \"0s\"";

impl Case {
    fn text(&self) -> String {
        let array = if self.alua {
            r#"tpgs = true
forward_latency = "200us"
controllers = [{ name = "CT0" }, { name = "CT1" }]
ports = [{ name = "P0", controller = "CT0" }, { name = "P1", controller = "CT1" }]"#
        } else {
            r#"ports = [{ name = "P0" }, { name = "P1" }]"#
        };
        format!(
            r#"
[run]
duration = "{duration}"
interval = "{interval}"
seed = 7

[host]
adapters = [{{ name = "vmhba1", link_speed = "16Gb" }}, {{ name = "vmhba2", link_speed = "16Gb" }}]
stack = {{ {stack} }}

[[arrays]]
name = "a"
read_latency = "100us"
write_latency = "50us"
service = {{ fixed = "20us", distribution = "fixed", servers = 4 }}
{array}
{array_extra}

[[fabric]]
adapters = ["vmhba1", "vmhba2"]
ports = ["a/P0", "a/P1"]
latency = "10us"

[[devices]]
name = "naa.1"
array = "a"
lun = 3
queue_depth = 32

[policy]
{policy}

[[workloads]]
devices = ["naa.1"]
outstanding = {outstanding}
block_size = "{block}"
read_pct = 100
think_time = "{think}"

{faults}
"#,
            duration = self.duration,
            interval = self.interval,
            stack = self.stack,
            policy = self.policy,
            outstanding = self.outstanding,
            block = self.block,
            faults = self.faults,
            array_extra = self.array_extra,
            think = self.think,
        )
    }

    fn run(&self) -> RunResult {
        let text = self.text();
        let s = run::load(&text, "test.toml", None, &[], None).unwrap_or_else(|e| panic!("{e}"));
        let r = run::simulation(&s).unwrap().finish().unwrap_or_else(|e| panic!("{e}"));
        let a = &r.accounting;
        assert_eq!(a.issued, a.completed + a.failed, "each I/O completes or fails exactly once");
        // What the application saw counts every failed I/O once, per device and per host.
        let app = &r.application;
        assert_eq!(app.devices.iter().map(|d| d.failed_ios).sum::<u64>(), a.failed);
        assert_eq!(app.hosts.iter().map(|h| h.failed_ios).sum::<u64>(), a.failed);
        r
    }
}

fn load_error(text: &str) -> String {
    run::load(text, "test.toml", None, &[], None).map(|_| ()).unwrap_err().to_string()
}

/// A `[[faults]]` table from its lines.
fn fault(lines: &str) -> String {
    format!("[[faults]]\n{lines}\n")
}

const P0_1: &str = "vmhba1:C0:T0:L3";
const P1_1: &str = "vmhba1:C0:T1:L3";
const P0_2: &str = "vmhba2:C0:T0:L3";
const P1_2: &str = "vmhba2:C0:T1:L3";

/// Times (s) of the host events `event` on `path` (empty: device events).
fn times(r: &RunResult, event: &str, path: &str) -> Vec<f64> {
    r.events.iter().filter(|e: &&HostEvent| e.event == event && e.path == path).map(|e| e.t_s).collect()
}

/// Commands per second summed over the intervals ending in (from_s, to_s], per path in path order.
fn path_cmds(r: &RunResult, from_s: f64, to_s: f64) -> Vec<f64> {
    r.paths
        .iter()
        .map(|p| {
            let rows = r.path_intervals.iter().filter(|i| i.name == p.name && i.t_s > from_s && i.t_s <= to_s);
            rows.map(|i| i.figures.cmds_s).sum()
        })
        .collect()
}

/// Which paths carried commands in the intervals ending in (from_s, to_s].
fn busy_paths(r: &RunResult, from_s: f64, to_s: f64) -> Vec<bool> {
    path_cmds(r, from_s, to_s).iter().map(|&c| c > 0.0).collect()
}

fn path<'a>(r: &'a RunResult, name: &str) -> &'a pathlab_sim::observe::result::PathResult {
    r.paths.iter().find(|p| p.name == name).unwrap()
}

/// Mean DAVG (ms) of a path over the intervals ending in (from_s, to_s], weighted by commands.
fn davg_ms(r: &RunResult, name: &str, from_s: f64, to_s: f64) -> f64 {
    let rows: Vec<_> = r.path_intervals.iter().filter(|i| i.name == name && i.t_s > from_s && i.t_s <= to_s).collect();
    let cmds: f64 = rows.iter().map(|i| i.figures.cmds_s).sum();
    rows.iter().map(|i| i.figures.davg_ms * i.figures.cmds_s).sum::<f64>() / cmds
}

#[test]
fn every_fault_kind_keeps_each_io_completing_or_failing_exactly_once() {
    let faults = [
        fault(&format!("kind = \"path_down\"\nat = \"200ms\"\nuntil = \"900ms\"\npath = \"{P0_1}\"")),
        fault(&format!(
            "kind = \"path_down\"\nat = \"300ms\"\nuntil = \"700ms\"\npath = \"{P1_2}\"\ndetection = \"timeout\""
        )),
        fault("kind = \"port_down\"\nat = \"1s\"\nuntil = \"1100ms\"\nport = \"a/P1\"\ndetection = \"timeout\""),
        fault(&format!("kind = \"flaky\"\nfrom = \"0s\"\nuntil = \"1500ms\"\npath = \"{P0_2}\"\nerror_rate = 0.3")),
        fault("kind = \"flaky\"\nfrom = \"100ms\"\nport = \"a/P1\"\nburst_every = \"300ms\"\nburst_length = \"30ms\""),
        fault("kind = \"congestion\"\nfrom = \"400ms\"\nuntil = \"800ms\"\nport = \"a/P0\"\nadded_latency = \"2ms\""),
        fault("kind = \"link_speed\"\nfrom = \"500ms\"\nuntil = \"1200ms\"\nadapter = \"vmhba2\"\nspeed = \"1Gb\""),
        fault("kind = \"controller_failover\"\nat = \"600ms\"\narray = \"a\"\nowner = \"CT1\""),
        fault(&format!("kind = \"alua_state\"\nat = \"1300ms\"\npath = \"{P0_1}\"\nstate = \"standby\"")),
        fault("kind = \"all_paths_down\"\nat = \"1400ms\"\nuntil = \"1450ms\""),
        fault("kind = \"all_paths_down\"\nat = \"1700ms\"\nuntil = \"1900ms\"\ndetection = \"timeout\""),
        fault(&format!("kind = \"marginal\"\nfrom = \"100ms\"\nuntil = \"1600ms\"\npath = \"{P1_1}\"")),
        fault("kind = \"marginal\"\nfrom = \"800ms\"\nport = \"a/P0\""),
    ]
    .concat();
    let policies = [
        RR1,
        "name = \"VMW_PSP_FIXED\"",
        "name = \"VMW_PSP_MRU\"",
        "name = \"HPP\"",
        "name = \"powerpath\"",
        "name = \"dm-multipath\"",
        "name = \"dm-multipath\"\nno_path_retry = \"queue\"\nfailback = \"immediate\"",
        "name = \"dm-multipath\"\nmarginal_pathgroups = \"on\"\nsan_path_err_threshold = 1\nsan_path_err_forget_rate = 5\nsan_path_err_recovery_time = 1",
        "name = \"dm-multipath\"\nmarginal_path_double_failed_time = 1\nmarginal_path_err_sample_time = 120\nmarginal_path_err_rate_threshold = 10\nmarginal_path_err_recheck_gap_time = 1",
        "name = \"nvme\"\niopolicy = \"round-robin\"",
        "name = \"spdk\"\npolicy = \"active_active\"",
        "name = \"mpio\"\npolicy = \"least_queue_depth\"",
        "name = \"gated-least-load\"",
    ];
    // Non-owners that answer with an error (ANA inaccessible) and the NVMe head kept after its
    // controllers, on every policy too.
    let arrays = ["", "non_owner_state = \"unavailable\""];
    for (policy, array_extra) in policies.iter().flat_map(|p| arrays.map(|a| (p, a))) {
        let case = Case {
            policy: policy.to_string(),
            faults: faults.clone(),
            // Each stack's own timers, short (another stack's would be refused).
            stack: match policy.split('\n').next().unwrap() {
                "name = \"dm-multipath\"" => "io_timeout = \"150ms\", checker_interval = \"1s\"",
                "name = \"nvme\"" => {
                    "io_timeout = \"150ms\", reconnect_delay = \"250ms\", controller_loss_timeout = \"100ms\", \
                     delayed_removal = \"50ms\""
                }
                "name = \"spdk\"" => {
                    "io_timeout = \"150ms\", reconnect_delay = \"250ms\", controller_loss_timeout = \"100ms\""
                }
                _ => "io_timeout = \"150ms\"",
            },
            outstanding: 8,
            alua: true,
            array_extra,
            ..Case::default()
        };
        let r = case.run();
        let a = &r.accounting;
        assert!(a.completed > 1000, "{policy}: {a:?}");
        assert!(r.summary.errors > 0 && a.retried > 0 && a.failovers > 0, "{policy}: {a:?}");
        let per_path: u64 = r.paths.iter().map(|p| p.figures.failovers).sum();
        assert_eq!(per_path, r.devices[0].figures.failovers, "{policy}: failovers add up");
        // Failures while the run drains after the measurement are not in any interval.
        assert!(r.intervals.iter().map(|i| i.failed).sum::<u64>() <= a.failed, "{policy}");
    }
}

#[test]
fn link_down_moves_traffic_at_once() {
    let faults = fault(&format!("kind = \"path_down\"\nat = \"500ms\"\npath = \"{P0_1}\""));
    let r = Case { faults, ..Case::default() }.run();
    assert_eq!(times(&r, "link_down", P0_1), [0.5]);
    assert_eq!(times(&r, "path_failed", P0_1), [0.5]);
    let lost = path(&r, P0_1);
    // Every command aborted on the dead path went to another one (round robin skips it).
    assert!(lost.figures.errors >= 4, "{:?}", lost.figures);
    assert_eq!(lost.figures.failovers, lost.figures.errors);
    assert_eq!(busy_paths(&r, 0.5, 2.0), [false, true, true, true]);
    // The interval right after the failure carries the same load as the one before (24 I/Os
    // outstanding keep three paths as busy as four: the run is latency-bound).
    let ios = |t: f64| r.intervals.iter().find(|i| (i.t_s - t).abs() < 1e-9).unwrap().figures.ios as f64;
    assert!((ios(0.6) / ios(0.5) - 1.0).abs() < 0.02, "{} then {}", ios(0.5), ios(0.6));
}

#[test]
fn silent_loss_moves_traffic_after_the_io_timeout() {
    let faults = fault(&format!("kind = \"path_down\"\nat = \"500ms\"\npath = \"{P0_1}\"\ndetection = \"timeout\""));
    let r = Case { duration: "31s", interval: "500ms", faults, outstanding: 4, ..Case::default() }.run();
    assert_eq!(times(&r, "link_down", P0_1), [0.5]);
    // ESXi's 30 s: the first command lost was sent within a round trip (0.15 ms) of the loss.
    let failed = times(&r, "path_failed", P0_1);
    assert_eq!(failed.len(), 1);
    assert!((failed[0] - 30.5).abs() < 0.000_2, "{failed:?}");
    // Round robin sends one I/O down the lost path, which then holds it: every later switch
    // passes over a path still holding a command (`nmp/round_robin.rs`), so the other 3 of the
    // 4 outstanding I/Os keep cycling on the other paths. The run is latency-bound, so each
    // interval carries 3/4 of what it carries with all 4 I/Os moving; at the timeout the one
    // stuck I/O moves to another path.
    let full = r.intervals.last().unwrap().figures.ios as f64;
    let stalled: Vec<_> = r.intervals.iter().filter(|i| i.t_s > 1.0 && i.t_s <= 30.0).collect();
    assert_eq!(stalled.len(), 58);
    assert!(stalled.iter().all(|i| (i.figures.ios as f64 / full - 0.75).abs() < 0.001), "{full}");
    let lost = path(&r, P0_1);
    assert_eq!((lost.figures.errors, lost.figures.failovers), (1, 1));
    assert_eq!(r.accounting.failed, 0);
}

#[test]
fn dm_takes_a_path_back_at_the_next_checker_tick_and_fails_back_after_the_deferred_delay() {
    let faults = fault("kind = \"port_down\"\nat = \"1s\"\nuntil = \"6500ms\"\nport = \"a/P0\"");
    let policy = "name = \"dm-multipath\"\nfailback = 3".to_string();
    let r = Case {
        duration: "14s",
        interval: "500ms",
        policy,
        faults,
        outstanding: 4,
        alua: true,
        stack: FC_AT_ONCE,
        ..Case::default()
    }
    .run();
    for p in [P0_1, P0_2] {
        assert_eq!(times(&r, "path_failed", p), [1.0]);
        assert_eq!(times(&r, "link_up", p), [6.5]);
        // multipathd polls every 5 s: the path is back at the tick at 10 s, not at 6.5 s.
        assert_eq!(times(&r, "path_reinstated", p), [10.0]);
    }
    // group_by_prio: the optimized group (P0) first, the non-optimized one (P1) while it is down;
    // failback 3 s after the paths came back at 10 s.
    assert_eq!(busy_paths(&r, 0.0, 1.0), [true, false, true, false]);
    assert_eq!(busy_paths(&r, 1.5, 12.5), [false, true, false, true]);
    assert_eq!(busy_paths(&r, 13.5, 14.0), [true, false, true, false]);
    assert_eq!(r.accounting.failed, 0);
}

#[test]
fn dm_with_manual_failback_stays_on_the_group_it_moved_to() {
    let faults = fault("kind = \"port_down\"\nat = \"500ms\"\nuntil = \"1s\"\nport = \"a/P0\"");
    let policy = "name = \"dm-multipath\"".to_string();
    let r =
        Case { duration: "8s", interval: "500ms", policy, faults, alua: true, stack: FC_AT_ONCE, ..Case::default() }
            .run();
    assert_eq!(times(&r, "path_reinstated", P0_1), [5.0]);
    assert_eq!(busy_paths(&r, 1.0, 8.0), [false, true, false, true]);
}

#[test]
fn fixed_takes_the_preferred_path_back_the_moment_its_link_returns() {
    let faults = fault(&format!("kind = \"path_down\"\nat = \"500ms\"\nuntil = \"1s\"\npath = \"{P1_2}\""));
    let policy = format!("name = \"VMW_PSP_FIXED\"\npreferred = \"{P1_2}\"");
    let r = Case { policy, faults, ..Case::default() }.run();
    assert_eq!(times(&r, "path_failed", P1_2), [0.5]);
    assert_eq!(times(&r, "path_reinstated", P1_2), [1.0]);
    assert_eq!(busy_paths(&r, 0.5, 1.0), [true, false, false, false], "first working path");
    assert_eq!(busy_paths(&r, 1.1, 2.0), [false, false, false, true], "failback at once");
}

#[test]
fn esxi_apd_fails_waiting_io_at_its_timeout_and_new_io_at_once_after() {
    let faults = fault("kind = \"all_paths_down\"\nat = \"500ms\"");
    let r =
        Case { duration: "30s", interval: "500ms", faults, stack: "apd_timeout = \"20s\"", ..Case::default() }.run();
    assert_eq!(times(&r, "no_path", ""), [0.5]);
    assert_eq!(times(&r, "gave_up", ""), [20.5]);
    // The 24 waiting I/Os fail at 20.5 s; the worker issues each again 1 s later (its error
    // backoff), which fails at once, until the end at 30 s: 24 × (1 + 9 rounds).
    assert_eq!(r.accounting.failed, 240);
    let failed_at = |t: f64| r.intervals.iter().find(|i| (i.t_s - t).abs() < 1e-9).unwrap().failed;
    assert_eq!((failed_at(20.5), failed_at(21.0), failed_at(21.5), failed_at(22.0)), (0, 24, 0, 24));
    assert!(r.intervals.iter().filter(|i| i.t_s > 0.5).all(|i| i.figures.ios == 0));
}

#[test]
fn esxi_without_apd_handling_retries_io_until_a_path_returns() {
    // Misc.APDHandlingEnable 0: no APD timeout; the 24 waiting I/Os are held until the paths
    // return at 25.5 s, past the 20 s an APD timeout would have failed them at, and none fails.
    let faults = fault("kind = \"all_paths_down\"\nat = \"500ms\"\nuntil = \"25500ms\"");
    let r = Case { duration: "30s", interval: "500ms", faults, stack: "apd_handling = false", ..Case::default() }.run();
    assert_eq!(times(&r, "no_path", ""), [0.5]);
    assert!(times(&r, "gave_up", "").is_empty());
    assert_eq!(times(&r, "path_restored", ""), [25.5]);
    assert_eq!(r.accounting.failed, 0);
    assert!(r.intervals.iter().filter(|i| i.t_s > 0.5 && i.t_s <= 25.5).all(|i| i.figures.ios == 0));
    assert!(r.intervals.iter().filter(|i| i.t_s > 26.0).all(|i| i.figures.ios > 0));
}

#[test]
fn esxi_apd_timeout_is_140_seconds_by_default() {
    let faults = fault("kind = \"all_paths_down\"\nat = \"500ms\"");
    let r = Case { duration: "1s", faults, ..Case::default() }.run();
    assert_eq!(times(&r, "gave_up", ""), [140.5]);
    assert_eq!(r.accounting.failed, 24);
}

#[test]
fn dm_queue_if_no_path_holds_io_until_the_checker_finds_a_path() {
    let faults = fault("kind = \"all_paths_down\"\nat = \"500ms\"\nuntil = \"1500ms\"");
    let policy = "name = \"dm-multipath\"\nno_path_retry = \"queue\"".to_string();
    let r = Case { duration: "6s", policy, faults, stack: FC_AT_ONCE, ..Case::default() }.run();
    assert_eq!(times(&r, "no_path", ""), [0.5]);
    assert_eq!(times(&r, "path_reinstated", P0_1), [5.0]);
    assert_eq!(times(&r, "path_restored", ""), [5.0]);
    assert!(times(&r, "gave_up", "").is_empty());
    assert_eq!(r.accounting.failed, 0);
    let ios =
        |from: f64, to: f64| r.intervals.iter().filter(move |i| i.t_s > from && i.t_s <= to).map(|i| i.figures.ios);
    assert!(ios(0.6, 5.0).all(|n| n == 0), "nothing completes while I/O waits");
    assert!(ios(5.0, 5.1).all(|n| n > 1000), "the held I/O goes at the checker tick");
}

#[test]
fn dm_no_path_retry_fail_fails_io_at_once() {
    let faults = fault("kind = \"all_paths_down\"\nat = \"500ms\"");
    let policy = "name = \"dm-multipath\"".to_string();
    let r = Case { duration: "3s", policy, faults, stack: FC_AT_ONCE, ..Case::default() }.run();
    assert_eq!(times(&r, "no_path", ""), [0.5]);
    // At 0.5 s, then as the worker comes back every second: 1.5 s, 2.5 s.
    assert_eq!(r.accounting.failed, 72);
    let failed_at = |t: f64| r.intervals.iter().find(|i| (i.t_s - t).abs() < 1e-9).unwrap().failed;
    assert_eq!((failed_at(0.5), failed_at(0.6), failed_at(1.6), failed_at(2.6)), (0, 24, 24, 24));
}

#[test]
fn dm_no_path_retry_n_gives_up_after_n_polling_intervals() {
    let faults = fault("kind = \"all_paths_down\"\nat = \"500ms\"");
    let policy = "name = \"dm-multipath\"\nno_path_retry = 2".to_string();
    let r = Case { duration: "1s", policy, faults, stack: FC_AT_ONCE, ..Case::default() }.run();
    assert_eq!(times(&r, "gave_up", ""), [10.5]);
    assert_eq!(r.accounting.failed, 24);
}

#[test]
fn nvme_and_spdk_take_a_path_back_at_the_next_reconnect_attempt() {
    let faults = fault(&format!("kind = \"path_down\"\nat = \"1s\"\nuntil = \"3s\"\npath = \"{P0_1}\""));
    for policy in ["name = \"nvme\"", "name = \"spdk\""] {
        let case = Case {
            duration: "12s",
            interval: "1s",
            policy: policy.into(),
            faults: faults.clone(),
            outstanding: 1,
            ..Case::default()
        };
        let r = case.run();
        assert_eq!(times(&r, "path_failed", P0_1), [1.0], "{policy}");
        // Reconnect attempts every 10 s from the loss: the one at 11 s finds the path.
        assert_eq!(times(&r, "path_reinstated", P0_1), [11.0], "{policy}");
    }
}

#[test]
fn a_port_failure_fails_every_path_through_it_and_a_cut_path_stays_down_after() {
    let faults = [
        fault("kind = \"port_down\"\nat = \"500ms\"\nport = \"a/P1\""),
        fault(&format!("kind = \"path_down\"\nat = \"700ms\"\npath = \"{P1_1}\"")),
        fault("kind = \"port_up\"\nat = \"1s\"\nport = \"a/P1\""),
    ]
    .concat();
    let r = Case { faults, ..Case::default() }.run();
    for p in [P1_1, P1_2] {
        assert_eq!(times(&r, "path_failed", p), [0.5]);
    }
    assert_eq!(times(&r, "path_reinstated", P1_2), [1.0]);
    assert!(times(&r, "path_reinstated", P1_1).is_empty(), "its own link is still cut");
    assert_eq!(busy_paths(&r, 1.1, 2.0), [true, false, true, true]);
}

#[test]
fn congestion_raises_the_path_davg_by_the_added_latency() {
    let faults = [
        fault(&format!(
            "kind = \"congestion\"\nfrom = \"500ms\"\nuntil = \"1s\"\npath = \"{P0_1}\"\nadded_latency = \"500us\""
        )),
        fault("kind = \"congestion\"\nfrom = \"1200ms\"\nuntil = \"1600ms\"\nport = \"a/P1\"\nadded_latency = \"1ms\""),
    ]
    .concat();
    // One I/O at a time: no queueing, so each figure is the exact cost of one read.
    let r = Case { faults, outstanding: 1, ..Case::default() }.run();
    let base = 0.142_048;
    assert!((davg_ms(&r, P0_1, 0.0, 0.5) - base).abs() < 1e-9);
    assert!((davg_ms(&r, P0_1, 0.6, 1.0) - (base + 0.5)).abs() < 1e-9);
    assert!((davg_ms(&r, P0_1, 1.1, 2.0) - base).abs() < 1e-9);
    for p in [P1_1, P1_2] {
        assert!((davg_ms(&r, p, 1.3, 1.6) - (base + 1.0)).abs() < 1e-9, "port congestion on {p}");
    }
    assert!((davg_ms(&r, P0_2, 1.3, 1.6) - base).abs() < 1e-9, "the other port is not congested");
}

#[test]
fn a_slower_link_lowers_a_bandwidth_bound_run_by_the_speed_ratio() {
    let faults = [
        fault("kind = \"link_speed\"\nfrom = \"1s\"\nuntil = \"2s\"\nadapter = \"vmhba1\"\nspeed = \"4Gb\""),
        fault("kind = \"link_speed\"\nfrom = \"1s\"\nuntil = \"2s\"\nadapter = \"vmhba2\"\nspeed = \"4Gb\""),
    ]
    .concat();
    // 1 MiB reads, 32 outstanding: both 16Gb links stay saturated.
    let r = Case { duration: "3s", faults, outstanding: 32, block: "1MiB", ..Case::default() }.run();
    let mbps = |from: f64, to: f64| {
        let rows: Vec<f64> =
            r.intervals.iter().filter(|i| i.t_s > from && i.t_s <= to).map(|i| i.figures.mbps).collect();
        rows.iter().sum::<f64>() / rows.len() as f64
    };
    let full = mbps(0.2, 1.0);
    assert!((full / (2.0 * 2e9 / 1_048_576.0) - 1.0).abs() < 0.01, "two 16Gb links: {full} MiB/s");
    assert!((mbps(1.2, 2.0) / full - 0.25).abs() < 0.005, "4Gb / 16Gb");
    assert!((mbps(2.2, 3.0) / full - 1.0).abs() < 0.01, "back to full speed");
}

#[test]
fn controller_failover_swaps_ao_and_ano_and_traffic_follows() {
    let faults = fault("kind = \"controller_failover\"\nat = \"1s\"\narray = \"a\"\nowner = \"CT1\"");
    let r = Case { faults, outstanding: 1, alua: true, ..Case::default() }.run();
    assert_eq!(busy_paths(&r, 0.0, 1.0), [true, false, true, false]);
    assert_eq!(busy_paths(&r, 1.1, 2.0), [false, true, false, true]);
    let states: Vec<&str> = r.paths.iter().map(|p| p.alua.as_str()).collect();
    assert_eq!(states, ["ANO", "AO", "ANO", "AO"]);
    assert_eq!(times(&r, "alua", P0_1), [1.0]);
    // Each side served its I/O without forwarding: the routes changed with the owner.
    assert!((davg_ms(&r, P0_1, 0.0, 1.0) - 0.142_048).abs() < 1e-9);
    assert!((davg_ms(&r, P1_1, 1.1, 2.0) - 0.142_048).abs() < 1e-9);

    // With useANO=1 every path carries I/O; the forwarding (2 × 200 us) moves to the old owner.
    let policy = format!("{RR1}\nuse_ano = true");
    let faults = fault("kind = \"controller_failover\"\nat = \"1s\"\narray = \"a\"\nowner = \"CT1\"");
    let r = Case { policy, faults, outstanding: 1, alua: true, ..Case::default() }.run();
    assert!((davg_ms(&r, P1_1, 0.0, 1.0) - 0.542_048).abs() < 1e-9);
    assert!((davg_ms(&r, P0_1, 1.1, 2.0) - 0.542_048).abs() < 1e-9);
    assert!((davg_ms(&r, P1_1, 1.1, 2.0) - 0.142_048).abs() < 1e-9);
}

#[test]
fn flaky_errors_are_retried_and_esxi_keeps_the_path() {
    let faults = fault(&format!("kind = \"flaky\"\nfrom = \"0s\"\npath = \"{P0_1}\"\nerror_rate = 0.2"));
    let r = Case { faults, ..Case::default() }.run();
    assert!(times(&r, "path_failed", P0_1).is_empty(), "NMP keeps a path that answers");
    let flaky = &path(&r, P0_1).figures;
    let answered = flaky.errors as f64 + flaky.cmds_s * 2.0;
    assert!(answered > 50_000.0, "{answered}");
    assert!((flaky.errors as f64 / answered - 0.2).abs() < 0.005, "{flaky:?}");
    // Each error is retried, unless it was the I/O's sixth (ESXi's 5 retries used up); with fixed
    // service times the I/Os move in lock step, so round robin often hands a retry straight back
    // to the flaky path.
    let retries: u64 = r.paths.iter().map(|p| p.figures.retries).sum();
    assert_eq!(retries + r.accounting.failed, flaky.errors);
    assert!(flaky.failovers > 0 && flaky.failovers <= flaky.errors);
}

#[test]
fn dm_fails_a_flaky_path_at_its_first_error_and_the_checker_takes_it_back() {
    let faults = fault(&format!("kind = \"flaky\"\nfrom = \"1s\"\nuntil = \"11s\"\npath = \"{P0_1}\""));
    // One group of every path: a default host would group this non-ALUA array failover.
    let policy = "name = \"dm-multipath\"\nselector = \"round-robin\"\npath_grouping_policy = \"multibus\"".to_string();
    let r = Case { duration: "12s", interval: "500ms", policy, faults, outstanding: 4, ..Case::default() }.run();
    // Failed at the first error after 1 s, 5 s and 10 s; taken back at each 5 s tick (the tick
    // at 15 s falls after the run's last I/O: not logged).
    assert_eq!(times(&r, "path_reinstated", P0_1), [5.0, 10.0]);
    let failed = times(&r, "path_failed", P0_1);
    assert_eq!(failed.len(), 3);
    for (f, t) in failed.iter().zip([1.0, 5.0, 10.0]) {
        assert!(*f >= t && *f < t + 0.001, "{failed:?}");
    }
    assert_eq!(r.accounting.failed, 0);
}

#[test]
fn an_io_that_keeps_failing_fails_after_its_stack_retries() {
    let everywhere = [
        fault("kind = \"flaky\"\nfrom = \"0s\"\npath = \"vmhba1\""),
        fault("kind = \"flaky\"\nfrom = \"0s\"\npath = \"vmhba2\""),
    ]
    .concat();
    // Errors per failed I/O: the first attempt and every retry (MPIO's retries without their
    // RetryInterval, which `timers.rs` tests).
    for (policy, errors_each, stack) in [
        (format!("name = \"VMW_PSP_FIXED\"\npreferred = \"{P1_2}\""), 6, ""),
        (RR1.to_string(), 6, ""),
        ("name = \"nvme\"".to_string(), 6, ""),
        ("name = \"spdk\"".to_string(), 4, ""),
        ("name = \"mpio\"".to_string(), 4, "retry_interval = \"0s\""),
    ] {
        let case =
            Case { policy: policy.clone(), faults: everywhere.clone(), outstanding: 4, stack, ..Case::default() };
        let r = case.run();
        // 4 I/Os at 0 s fail within a few ms; the worker issues them again 1 s later; those fail
        // too, and the next round would come after the end.
        assert_eq!(r.accounting.failed, 8, "{policy}");
        assert_eq!(r.accounting.completed, 0, "{policy}");
        assert_eq!(r.summary.errors, errors_each * 8, "{policy}");
    }
}

#[test]
fn flaky_bursts_fail_commands_only_inside_the_bursts() {
    let faults = fault(&format!(
        "kind = \"flaky\"\nfrom = \"500ms\"\npath = \"{P0_1}\"\nburst_every = \"200ms\"\nburst_length = \"50ms\""
    ));
    let r = Case { interval: "50ms", faults, ..Case::default() }.run();
    let rows: Vec<_> = r.path_intervals.iter().filter(|i| i.name == P0_1 && i.t_s > 0.5).collect();
    for row in rows {
        // Intervals of 50 ms line up with the bursts: the 1st, 5th, 9th… after 0.5 s.
        let in_burst = (((row.t_s - 0.5) / 0.05).round() as i64 - 1) % 4 == 0;
        assert_eq!(row.figures.errors > 0, in_burst, "t = {}", row.t_s);
        assert_eq!(row.figures.cmds_s == 0.0, in_burst, "t = {}", row.t_s);
    }
}

#[test]
fn a_window_starting_where_another_ends_is_not_undone_by_its_end() {
    // Listed later-first: at 1 s the first window's end must not cancel the second's start.
    let faults = [
        fault(&format!("kind = \"flaky\"\nfrom = \"1s\"\npath = \"{P0_1}\"")),
        fault(&format!("kind = \"flaky\"\nfrom = \"0s\"\nuntil = \"1s\"\npath = \"{P0_1}\"\nerror_rate = 0.0")),
        fault("kind = \"link_speed\"\nfrom = \"1s\"\nadapter = \"vmhba2\"\nspeed = \"4Gb\""),
        fault("kind = \"link_speed\"\nfrom = \"0s\"\nuntil = \"1s\"\nadapter = \"vmhba2\"\nspeed = \"8Gb\""),
    ]
    .concat();
    let r = Case { faults, outstanding: 1, ..Case::default() }.run();
    let errors = |from: f64, to: f64| -> u64 {
        r.path_intervals
            .iter()
            .filter(|i| i.name == P0_1 && i.t_s > from && i.t_s <= to)
            .map(|i| i.figures.errors)
            .sum()
    };
    assert_eq!(errors(0.0, 1.0), 0);
    assert!(errors(1.0, 2.0) > 100);
    // A 4 KiB read on vmhba2 after 1 s: 8192 ns on a 4Gb link instead of 2048 ns on 16Gb.
    assert!((davg_ms(&r, P0_2, 1.1, 2.0) - 0.148_192).abs() < 1e-9);
}

#[test]
fn a_path_that_never_errs_leaves_the_run_unchanged() {
    // The error draws come from their own stream: the workload's I/Os stay the same.
    let faults = fault(&format!("kind = \"flaky\"\nfrom = \"0s\"\npath = \"{P0_1}\"\nerror_rate = 0.0"));
    let case = || Case { duration: "1s", outstanding: 4, ..Case::default() };
    let plain = serde_json::to_string(&case().run()).unwrap();
    let mut drawn = Case { faults, ..case() }.run();
    drawn.application.faults.clear(); // the one thing that differs: the fault is listed
    assert_eq!(plain, serde_json::to_string(&drawn).unwrap());
}

#[test]
fn bad_fault_specs_name_the_field_and_what_is_allowed() {
    let with = |faults: String, stack: &'static str| Case { faults, stack, alua: false, ..Case::default() }.text();
    let cases = [
        (
            fault(&format!("kind = \"flaky\"\nfrom = \"0s\"\npath = \"{P0_1}\"\nerror_rate = 1.5")),
            "",
            "faults.0.error_rate: 1.5 is out of range: allowed 0 to 1",
        ),
        (
            fault(&format!("kind = \"flaky\"\nfrom = \"0s\"\npath = \"{P0_1}\"\nport = \"a/P0\"")),
            "",
            "faults.0: name exactly one of `path` or `port`",
        ),
        (
            fault("kind = \"flaky\"\nfrom = \"0s\"\nport = \"a/P0\"\nburst_every = \"1s\""),
            "",
            "faults.0.burst_every: give both burst_every and burst_length, or neither",
        ),
        (
            [
                fault("kind = \"flaky\"\nfrom = \"0s\"\nuntil = \"1s\"\nport = \"a/P0\""),
                fault(&format!("kind = \"flaky\"\nfrom = \"500ms\"\npath = \"{P0_1}\"")),
            ]
            .concat(),
            "",
            "faults.1.from: overlaps faults.0 on path vmhba1:C0:T0:L3",
        ),
        (
            fault("kind = \"port_down\"\nat = \"1s\"\nport = \"a/P9\""),
            "",
            "faults.0.port: unknown port \"a/P9\" (write array/port); ports: a/P0, a/P1",
        ),
        (
            fault("kind = \"path_down\"\nat = \"1s\"\nuntil = \"1s\"\npath = \"vmhba1\""),
            "",
            "faults.0.until: must be after `at`",
        ),
        (
            fault("kind = \"controller_failover\"\nat = \"1s\"\narray = \"a\"\nowner = \"CT9\""),
            "",
            "faults.0.owner: unknown controller \"CT9\"; defined: CT0",
        ),
        (
            fault("kind = \"path_down\"\nat = \"1s\"\npath = \"vmhba1\"\ndetection = \"psychic\""),
            "",
            "faults.0.detection: unknown value `psychic`, expected `link` or `timeout`",
        ),
        (
            fault("kind = \"congestion\"\nfrom = \"1s\"\npath = \"vmhba1\"\nlatency = \"1ms\""),
            "",
            "faults.0.latency: unknown field `latency`",
        ),
        (String::new(), "apd_timeout = \"10s\"", "host.stack.apd_timeout: allowed 20s..=99999s (Misc.APDTimeout)"),
    ];
    for (faults, stack, expected) in cases {
        let message = load_error(&with(faults, stack));
        assert!(message.starts_with(&format!("test.toml: {expected}")), "{message}\nexpected: {expected}");
    }
}

#[test]
fn target_numbers_given_in_the_zoning_name_the_paths() {
    // SAS hosts number targets sparsely (T72, T175): the fabric may give them.
    let text = r#"
[host]
adapters = [{ name = "vmhba2" }]
[[arrays]]
name = "a"
service = { fixed = "20us" }
ports = [{ name = "P0" }, { name = "P1" }]
[[fabric]]
adapters = ["vmhba2"]
ports = ["a/P1", "a/P0"]
latency = "5us"
targets = [175, 72]
[[devices]]
name = "naa.1"
array = "a"
lun = 0
[[workloads]]
devices = ["naa.1"]
outstanding = 1
[run]
duration = "10ms"
"#;
    let s = run::load(text, "t.toml", None, &[], None).unwrap_or_else(|e| panic!("{e}"));
    let r = run::simulation(&s).unwrap().finish().unwrap();
    let names: Vec<&str> = r.paths.iter().map(|p| p.name.as_str()).collect();
    // Discovery order follows the target numbers.
    assert_eq!(names, ["vmhba2:C0:T72:L0", "vmhba2:C0:T175:L0"]);
    assert_eq!(r.paths[0].target, "a/P0");
    let bad = text.replace("targets = [175, 72]", "targets = [7]");
    assert!(load_error(&bad).contains("fabric.0.targets: one target number per port: 2 ports, 1 numbers"));
    let twice = text.replace("targets = [175, 72]", "targets = [3, 3]");
    assert!(load_error(&twice).contains("target number 3 is given twice on adapter vmhba2"));
}

#[test]
fn nvme_delayed_removal_holds_io_beyond_the_controller_loss_and_a_path_back_in_time_takes_it() {
    let stack = "controller_loss_timeout = \"2s\", reconnect_delay = \"1s\", delayed_removal = \"3s\"";
    let back_at = |until: &str| {
        let faults = fault(&format!("kind = \"all_paths_down\"\nat = \"500ms\"\nuntil = \"{until}\""));
        let policy = "name = \"nvme\"".to_string();
        Case { duration: "9s", interval: "500ms", policy, faults, stack, ..Case::default() }.run()
    };
    // Back at 4 s, inside 0.5 s + 2 s (ctrl_loss_tmo) + 3 s: the reconnect attempt at 4.5 s
    // finds it and the 24 queued I/Os go on; none fails.
    let r = back_at("4s");
    assert_eq!(times(&r, "no_path", ""), [0.5]);
    assert_eq!(times(&r, "path_restored", ""), [4.5]);
    assert!(times(&r, "gave_up", "").is_empty());
    assert_eq!(r.accounting.failed, 0);
    let ios = |r: &RunResult, from: f64, to: f64| -> Vec<u64> {
        r.intervals.iter().filter(|i| i.t_s > from && i.t_s <= to).map(|i| i.figures.ios).collect()
    };
    assert!(ios(&r, 0.6, 4.5).iter().all(|&n| n == 0), "queued on the head");
    assert!(ios(&r, 4.5, 5.0).iter().all(|&n| n > 1000), "resumed");
    // Back at 7 s: the head is removed at 5.5 s and what it queued fails.
    let r = back_at("7s");
    assert_eq!(times(&r, "gave_up", ""), [5.5]);
    let failed_at = |t: f64| r.intervals.iter().find(|i| (i.t_s - t).abs() < 1e-9).unwrap().failed;
    assert_eq!(failed_at(6.0), 24);
    // Without delayed removal (the kernel's default, 0) the head goes with the controllers.
    let faults = fault("kind = \"all_paths_down\"\nat = \"500ms\"\nuntil = \"4s\"");
    let stack = "controller_loss_timeout = \"2s\", reconnect_delay = \"1s\"";
    let policy = "name = \"nvme\"".to_string();
    let r = Case { duration: "9s", interval: "500ms", policy, faults, stack, ..Case::default() }.run();
    assert_eq!(times(&r, "gave_up", ""), [2.5]);
}

#[test]
fn san_path_err_holds_a_flaky_path_out_for_the_recovery_time() {
    let faults = fault(&format!("kind = \"flaky\"\nfrom = \"1s\"\nuntil = \"11s\"\npath = \"{P0_1}\""));
    let shaky = "san_path_err_threshold = 1\nsan_path_err_forget_rate = 5\nsan_path_err_recovery_time = 12";
    let case = |policy: String| Case {
        duration: "30s",
        interval: "500ms",
        policy,
        faults: faults.clone(),
        outstanding: 4,
        ..Case::default()
    };
    // Failed at the first error after 1 s, back at the 5 s check (one failure, not above 1);
    // failed again at once, and at the 10 s check two failures: held. Checks at 15 and 20 s
    // find 5 and 10 s passed; at 25 s, 15 > 12: back (without the check: 10, 15 s, as
    // `dm_fails_a_flaky_path_at_its_first_error_and_the_checker_takes_it_back` shows).
    let r = case(format!(
        "name = \"dm-multipath\"\nselector = \"round-robin\"\npath_grouping_policy = \"multibus\"\n{shaky}"
    ))
    .run();
    assert_eq!(times(&r, "path_reinstated", P0_1), [5.0, 25.0]);
    assert_eq!(times(&r, "path_delayed", P0_1), [10.0]);
    assert_eq!(times(&r, "path_failed", P0_1).len(), 2);
    let carried = path_cmds(&r, 10.0, 25.0);
    assert_eq!(carried[0], 0.0, "held out");
    assert!(path_cmds(&r, 25.5, 30.0)[0] > 0.0, "back in use");
    // With marginal_pathgroups on, the held path is back at once in a group of its own below
    // the others, and leaves it when the hold ends.
    let r = case(format!("name = \"dm-multipath\"\nselector = \"round-robin\"\npath_grouping_policy = \"multibus\"\nmarginal_pathgroups = \"on\"\n{shaky}"))
        .run();
    assert_eq!(times(&r, "path_reinstated", P0_1), [5.0, 10.0]);
    assert_eq!(times(&r, "marginal", P0_1), [10.0]);
    assert_eq!(times(&r, "not_marginal", P0_1), [25.0]);
    assert_eq!(path_cmds(&r, 10.0, 25.0)[0], 0.0, "the marginal group is not used while others work");
    assert_eq!(r.accounting.failed, 0);
}

#[test]
fn marginal_path_probes_a_twice_failed_path_before_it_is_put_back() {
    // Errors from 1 s to 200 s at 20%: failed at 1 s, back at 5 s, failed again at once: the
    // second failure within 60 s holds it; the 10 s check starts 120 s of probes, which see
    // 200 per mille > 10 at the 130 s check: held 60 s more, probed again from the 195 s check
    // to 315 s, when the errors are gone: back then.
    let faults =
        fault(&format!("kind = \"flaky\"\nfrom = \"1s\"\nuntil = \"200s\"\npath = \"{P0_1}\"\nerror_rate = 0.2"));
    let policy = "name = \"dm-multipath\"\nselector = \"round-robin\"\npath_grouping_policy = \"multibus\"\nmarginal_path_double_failed_time = 60\n\
                  marginal_path_err_sample_time = 120\nmarginal_path_err_rate_threshold = 10\n\
                  marginal_path_err_recheck_gap_time = 60"
        .to_string();
    let r = Case { duration: "330s", interval: "5s", policy, faults, outstanding: 2, think: "5ms", ..Case::default() }
        .run();
    assert_eq!(times(&r, "path_reinstated", P0_1), [5.0, 315.0]);
    assert_eq!(times(&r, "path_delayed", P0_1), [10.0]);
}

/// What the application sees (`observe::application`, `observe::recovery`).
mod application {
    use super::*;

    /// vmhba2's paths are down from the start (seen by the link): naa.1 runs on vmhba1's two.
    fn one_adapter_left() -> String {
        fault("kind = \"path_down\"\nat = \"0s\"\npath = \"vmhba2\"")
    }

    /// Every I/O of a run with one outstanding and fixed service times takes the same time.
    fn response_s(r: &RunResult) -> f64 {
        r.intervals[0].figures.resp_ms / 1e3
    }

    #[test]
    fn a_silent_loss_stalls_the_io_timeout_plus_the_retry_on_the_path_left() {
        let faults = one_adapter_left()
            + &fault(&format!("kind = \"path_down\"\nat = \"1s\"\npath = \"{P0_1}\"\ndetection = \"timeout\""));
        let case = Case { duration: "4s", faults, stack: "io_timeout = \"2s\"", outstanding: 1, ..Case::default() };
        let r = case.run();
        let stall = &r.application.devices[0];
        // The one I/O sent down the lost path waits the 2 s timeout, then is served on the path
        // left in one response time; the application had no other I/O outstanding.
        // (2 s and 142.048 us: 10 us out, 20 us at the port, 100 us of cache, 10 us back, 2.048 us
        // of 4 KiB on the link.)
        assert!((response_s(&r) - 142.048e-6).abs() < 1e-12, "{}", response_s(&r));
        assert!((stall.longest_stall_s - (2.0 + response_s(&r))).abs() < 1e-9, "{stall:?}");
        // It started with the first I/O sent down the lost path, within a response of the loss.
        assert!((stall.stall_from_s - 1.0).abs() <= response_s(&r), "{stall:?}");
        assert_eq!((stall.failed_ios, stall.first_failed_s), (0, None));
        assert_eq!(r.application.hosts[0].longest_stall_s, stall.longest_stall_s);
        assert_eq!(r.application.hosts[0].device, "naa.1");
    }

    #[test]
    fn a_loss_the_link_reports_stalls_about_one_retry() {
        let faults = one_adapter_left() + &fault(&format!("kind = \"path_down\"\nat = \"1s\"\npath = \"{P0_1}\""));
        let r = Case { duration: "2s", faults, outstanding: 1, ..Case::default() }.run();
        let stall = r.application.devices[0].longest_stall_s;
        // The I/O aborted at the loss (sent at most one response time before) is retried at once.
        let s = response_s(&r);
        assert!(stall >= s - 1e-9 && stall <= 2.0 * s + 1e-9, "{stall} against {s}");
    }

    #[test]
    fn esxi_apd_stalls_until_its_timeout_then_fails_the_io_back() {
        let faults = fault("kind = \"all_paths_down\"\nat = \"500ms\"");
        let case =
            Case { duration: "22s", interval: "500ms", faults, stack: "apd_timeout = \"20s\"", ..Case::default() };
        let r = case.run();
        let d = &r.application.devices[0];
        // The 24 waiting I/Os fail at the APD timeout, 20 s after the paths went; the workers issue
        // again after their 1 s backoff, and those fail at once (21.5 s); the run ends at 22 s.
        assert_eq!((d.failed_ios, d.first_failed_s, d.last_failed_s), (48, Some(20.5), Some(21.5)));
        assert_eq!(d.stall_to_s, Some(20.5));
        assert!(d.stall_from_s <= 0.5 && d.stall_from_s > 0.499, "{d:?}");
        let h = &r.application.hosts[0];
        assert_eq!((h.failed_ios, h.first_failed_s, h.longest_stall_s), (48, Some(20.5), d.longest_stall_s));
        // Never back to full rate: every I/O after the timeout fails.
        let rows: Vec<_> = r.application.recovery.iter().filter(|x| x.device == "naa.1").collect();
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].back_to_full_rate_s, rows[0].lowest_iops), (None, Some(0.0)));
    }

    #[test]
    fn a_stall_still_going_when_the_measurement_ends_is_counted_to_the_end() {
        let faults = fault("kind = \"all_paths_down\"\nat = \"500ms\"");
        let r =
            Case { duration: "3s", interval: "500ms", faults, stack: "apd_timeout = \"20s\"", ..Case::default() }.run();
        let d = &r.application.devices[0];
        assert_eq!(d.stall_to_s, None);
        assert!((d.stall_from_s + d.longest_stall_s - 3.0).abs() < 1e-9, "{d:?}");
        // Those 24 I/Os fail in the drain after the measurement, at the timeout.
        assert_eq!((d.failed_ios, d.first_failed_s), (24, Some(20.5)));
    }

    #[test]
    fn back_to_full_rate_after_the_io_timeout_and_fail_back_at_the_checker_tick() {
        let faults = fault(&format!(
            "kind = \"path_down\"\nat = \"1s\"\nuntil = \"5500ms\"\npath = \"{P0_1}\"\ndetection = \"timeout\""
        ));
        // ALUA: group_by_prio puts P0's two paths (optimized) in the group in use; failback
        // immediate to go back to a path of it when it returns.
        let policy = "name = \"dm-multipath\"\nfailback = \"immediate\"".to_string();
        let stack = "io_timeout = \"2s\", checker_interval = \"1s\"";
        let case = Case {
            duration: "8s",
            interval: "500ms",
            policy,
            faults,
            stack,
            outstanding: 4,
            alua: true,
            ..Case::default()
        };
        let r = case.run();
        let rows = &r.application.recovery;
        assert_eq!(rows.iter().map(|x| x.device.as_str()).collect::<Vec<_>>(), ["naa.1", ""], "the device, its host");
        let d = &rows[0];
        assert_eq!((d.kind, d.start_s, d.end_s), ("path_down", 1.0, Some(5.5)));
        // The I/Os on the lost path wait for the 2 s timeout, which fails the path (3.0 s after
        // the first of them was sent): the interval from 3 s on is at full rate again, on P0_2.
        assert_eq!(times(&r, "path_failed", P0_1).len(), 1);
        assert_eq!(d.back_to_full_rate_s, Some(2.0), "{d:?}");
        // The I/Os sent down the lost path wait: the rate falls to half (14,080 a second, from 28,156).
        assert_eq!((d.iops_before, d.lowest_iops), (Some(28_156.0), Some(14_080.0)));
        // The link is back at 5.5 s; multipathd's checker (every 1 s) takes the path back at 6 s,
        // and the I/O goes back to its group.
        assert_eq!(times(&r, "path_reinstated", P0_1), [6.0]);
        assert_eq!(d.paths_before, [P0_1, P0_2]);
        assert_eq!(d.failed_back_s, Some(0.5));
        assert_eq!(
            (rows[1].host.as_str(), rows[1].failed_back_s, rows[1].back_to_full_rate_s),
            ("esx01", Some(0.5), Some(2.0))
        );
    }

    #[test]
    fn a_fault_the_rate_does_not_feel_is_back_at_once() {
        // A link loss on one of four paths of a latency-bound run: the other three carry it all.
        let faults = fault(&format!("kind = \"path_down\"\nat = \"500ms\"\nuntil = \"1s\"\npath = \"{P0_1}\""));
        let r = Case { faults, ..Case::default() }.run();
        let d = &r.application.recovery[0];
        assert_eq!((d.back_to_full_rate_s, d.lowest_iops), (Some(0.0), None));
        // ESXi takes the path back the moment its link returns.
        assert_eq!(d.failed_back_s, Some(0.0));
    }
}
