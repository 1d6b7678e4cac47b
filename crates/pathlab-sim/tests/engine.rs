//! Engine properties checked on small scenarios: determinism, accounting, failover.

mod common;

use pathlab_sim::{run, RunResult};

/// Two adapters × two ports, one LUN; `policy` and `faults` are TOML fragments.
fn scenario(policy: &str, faults: &str) -> String {
    format!(
        r#"
[run]
duration = "2s"
warmup = "0s"
interval = "100ms"
seed = 7

[host]
adapters = [{{ name = "vmhba1", link_speed = "16Gb" }}, {{ name = "vmhba2", link_speed = "16Gb" }}]

[[arrays]]
name = "a"
read_latency = "100us"
write_latency = "50us"
service = {{ fixed = "20us", per_kib = "1us", distribution = "exponential" }}
ports = [{{ name = "P0" }}, {{ name = "P1" }}]

[[fabric]]
adapters = ["vmhba1", "vmhba2"]
ports = ["a/P0", "a/P1"]
latency = "10us"

[[devices]]
name = "naa.1"
array = "a"
lun = 3
queue_depth = 16

[policy]
{policy}

[[workloads]]
devices = ["naa.1"]
outstanding = 24
bssplit = [["4KiB", 50], ["64KiB", 50]]
read_pct = 60

{faults}
"#
    )
}

fn run(text: &str) -> RunResult {
    common::run_text(text, "test.toml")
}

fn json(r: &RunResult) -> String {
    serde_json::to_string(r).unwrap()
}

const RR1: &str = r#"name = "VMW_PSP_RR"
type = "iops"
iops = 1"#;

#[test]
fn same_seed_gives_byte_identical_results_and_another_seed_does_not() {
    let text = scenario(RR1, "");
    let a = json(&run(&text));
    assert_eq!(a, json(&run(&text)));
    let other =
        run::load(&text, "t", None, &[], Some(8)).map(|s| run::simulation(&s)).unwrap().unwrap().finish().unwrap();
    assert_ne!(a, json(&other));
}

#[test]
fn every_io_completes_exactly_once_across_path_failures() {
    let faults = r#"
[[faults]]
kind = "path_down"
at = "300ms"
path = "vmhba1"
[[faults]]
kind = "path_down"
at = "500ms"
path = "vmhba2:C0:T0:L3"
[[faults]]
kind = "path_up"
at = "800ms"
path = "vmhba1:C0:T1"
[[faults]]
kind = "path_down"
at = "1s"
path = "vmhba1"
[[faults]]
kind = "path_down"
at = "1s"
path = "vmhba2"
[[faults]]
kind = "path_up"
at = "1200ms"
path = "vmhba2"
"#;
    let r = run(&scenario(RR1, faults));
    let a = &r.accounting;
    assert!(a.issued > 10_000);
    assert_eq!(a.issued, a.completed + a.failed);
    assert!(a.retried > 0, "I/O in flight on the failed paths was retried");
    assert_eq!(a.failed, 0, "a path was always left, or came back");
    // From 1 s to 1.2 s no path works: I/O waits, so nothing completes in those intervals.
    let idle: Vec<_> = r.intervals.iter().filter(|i| i.t_s > 1.05 && i.t_s <= 1.2).collect();
    assert!(!idle.is_empty() && idle.iter().all(|i| i.figures.ios == 0));
}

#[test]
fn io_stuck_without_a_path_fails_at_the_end_and_is_counted_once() {
    let faults = r#"
[[faults]]
kind = "path_down"
at = "1s"
path = "vmhba1"
[[faults]]
kind = "path_down"
at = "1s"
path = "vmhba2"
"#;
    let r = run(&scenario(RR1, faults));
    assert_eq!(r.accounting.failed, 24, "the 24 outstanding I/Os never find a path");
    assert_eq!(r.accounting.issued, r.accounting.completed + r.accounting.failed);
    // When the measurement ended they were still waiting, the oldest issued just before the
    // paths went at 1 s (within one response time, about 1 ms at 24 outstanding).
    let end = &r.accounting.at_end;
    assert_eq!((end.failed, end.in_flight), (0, 24));
    assert_eq!(r.accounting.issued, end.completed + end.failed + end.in_flight);
    assert!((1.0..1.005).contains(&end.oldest_in_flight_s), "{}", end.oldest_in_flight_s);
}

#[test]
fn io_stuck_behind_a_100_day_path_is_counted_in_flight_at_the_end() {
    // From 1 s every I/O sent to port P0 takes 100 days more: round robin sends every other I/O
    // there, so within a few ms all 24 wait behind it (the oldest issued within a response time
    // of 1 s, about 1 ms), and none of them completes in the window.
    let faults = r#"
[[faults]]
kind = "congestion"
from = "1s"
port = "a/P0"
added_latency = "2400h"
"#;
    let r = run(&scenario(RR1, faults));
    let end = &r.accounting.at_end;
    assert_eq!(end.in_flight, 24);
    assert_eq!(r.accounting.issued, end.completed + end.failed + end.in_flight);
    assert!((1.0..1.005).contains(&end.oldest_in_flight_s), "{}", end.oldest_in_flight_s);
    // The drain lets them finish, 100 days later, outside every figure of the window.
    assert_eq!(r.accounting.completed, r.accounting.issued);
}

fn path_share(r: &RunResult, from_s: f64, to_s: f64) -> Vec<f64> {
    let mut per_path: Vec<(String, f64)> = Vec::new();
    for row in r.path_intervals.iter().filter(|p| p.t_s > from_s && p.t_s <= to_s) {
        match per_path.iter_mut().find(|(n, _)| *n == row.name) {
            Some(e) => e.1 += row.figures.cmds_s,
            None => per_path.push((row.name.clone(), row.figures.cmds_s)),
        }
    }
    let total: f64 = per_path.iter().map(|p| p.1).sum();
    per_path.iter().map(|p| p.1 / total).collect()
}

#[test]
fn fixed_fails_over_and_back_to_the_preferred_path() {
    let policy = "name = \"VMW_PSP_FIXED\"\npreferred = \"vmhba2:C0:T1:L3\"";
    let faults = r#"
[[faults]]
kind = "path_down"
at = "500ms"
path = "vmhba2:C0:T1:L3"
[[faults]]
kind = "path_up"
at = "1500ms"
path = "vmhba2:C0:T1:L3"
"#;
    let r = run(&scenario(policy, faults));
    // Paths in discovery order: vmhba1 T0, T1, vmhba2 T0, T1 (preferred).
    assert_eq!(path_share(&r, 0.0, 0.5), [0.0, 0.0, 0.0, 1.0]);
    assert_eq!(path_share(&r, 0.55, 1.5), [1.0, 0.0, 0.0, 0.0], "first working path");
    // The interval of the failback still completes I/Os issued before it; the next ones do not.
    assert_eq!(path_share(&r, 1.65, 2.0), [0.0, 0.0, 0.0, 1.0], "failback");
}

#[test]
fn mru_stays_on_the_path_it_moved_to() {
    let faults = r#"
[[faults]]
kind = "path_down"
at = "500ms"
path = "vmhba1:C0:T0:L3"
[[faults]]
kind = "path_up"
at = "1s"
path = "vmhba1:C0:T0:L3"
"#;
    let r = run(&scenario("name = \"VMW_PSP_MRU\"", faults));
    assert_eq!(path_share(&r, 0.0, 0.5), [1.0, 0.0, 0.0, 0.0]);
    assert_eq!(path_share(&r, 0.55, 2.0), [0.0, 1.0, 0.0, 0.0], "no failback");
}

#[test]
fn round_robin_iops_one_spreads_commands_evenly_over_equal_paths() {
    let r = run(&scenario(RR1, ""));
    let counts: Vec<f64> = r.paths.iter().map(|p| p.figures.cmds_s).collect();
    let max = counts.iter().cloned().fold(0.0, f64::max);
    let min = counts.iter().cloned().fold(f64::MAX, f64::min);
    let mean = counts.iter().sum::<f64>() / counts.len() as f64;
    // Each switch goes to the path holding the fewest commands (`nmp/round_robin.rs`), so on
    // equal paths a path that fell behind is picked first and no share drifts: within 1% of the
    // mean (a strict rotation would keep them within one dispatch).
    assert!(max - min <= 0.01 * mean, "{counts:?}");
    assert!(min > 8000.0, "{counts:?}");
}

#[test]
fn memory_follows_what_is_in_flight_not_the_run_length() {
    let short = run(&scenario(RR1, ""));
    let long = run(&scenario(RR1, "").replace("duration = \"2s\"", "duration = \"8s\""));
    assert!(long.accounting.issued > 3 * short.accounting.issued);
    assert_eq!(short.accounting.peak_in_flight, 24);
    assert_eq!(long.accounting.peak_in_flight, 24);
}

#[test]
fn policies_are_compared_on_the_same_generated_ios() {
    // Open loop: arrivals come from the workers' own streams, whatever the policy does, so two
    // policies issue exactly the same I/Os; another seed issues others.
    let open = |policy: &str| scenario(policy, "").replace("outstanding = 24", "rate = 20000");
    let rr = run(&open(RR1));
    let mru = run(&open("name = \"VMW_PSP_MRU\""));
    assert!(rr.accounting.issued > 30_000);
    assert_eq!(rr.accounting.issued, mru.accounting.issued);
    assert_ne!(json(&rr), json(&mru), "the policies did differ");
    let reseeded =
        run::load(&open(RR1), "t", None, &[], Some(8)).map(|s| run::simulation(&s)).unwrap().unwrap().finish().unwrap();
    assert_ne!(rr.accounting.issued, reseeded.accounting.issued);
}
