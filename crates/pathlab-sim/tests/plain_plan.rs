//! The plain plan's shortcuts (`sim/plan.rs`, `never_wait.rs`, `known_at_send.rs`) give the
//! figures the general steps give: the same model run once as it is and once with a fault that
//! changes nothing (a path erring at rate 0), which takes the general plan from the start.

mod common;

use pathlab_sim::RunResult;

/// Four devices of queue depth 8 on four ports of 32 servers: a port can never make work wait
/// (32 commands at most reach it), and each route is the port alone, so the answer is known
/// when the command is sent. Exponential service (no two events on the same nanosecond, so the
/// reads or writes as `read_pct` says, a warm-up that ends with commands on their way out and in
/// service.
fn scenario(read_pct: u32, faults: &str) -> String {
    let devices: String = (0..4)
        .map(|d| format!("[[devices]]\nname = \"naa.{d}\"\narray = \"a\"\nlun = {d}\nqueue_depth = 8\n"))
        .collect();
    format!(
        r#"
[run]
duration = "200ms"
warmup = "10ms"
interval = "50ms"
seed = 11
[host]
adapters = [{{ name = "vmhba1" }}, {{ name = "vmhba2" }}]
[[arrays]]
name = "a"
service = {{ fixed = "20us", distribution = "exponential", servers = 32 }}
ports = [{{ name = "P0" }}, {{ name = "P1" }}]
[[fabric]]
adapters = ["vmhba1", "vmhba2"]
ports = ["a/P0", "a/P1"]
latency = "50us"
[policy]
name = "VMW_PSP_RR"
type = "iops"
iops = 1
{devices}
[[workloads]]
devices = ["naa.0", "naa.1", "naa.2", "naa.3"]
outstanding = 8
read_pct = {read_pct}
block_size = "8KiB"
{faults}
"#
    )
}

const NEVER_ERRS: &str = "[[faults]]\nkind = \"flaky\"\nfrom = \"0s\"\npath = \"vmhba1:C0:T0:L0\"\nerror_rate = 0.0";

fn run(read_pct: u32, faults: &str) -> RunResult {
    common::run_text(&scenario(read_pct, faults), "plain.toml")
}

/// The run through the plain plan and through the general one (its events apart, the
/// fault that made it general unlisted), with the engine's events per completed I/O of each.
fn both(read_pct: u32) -> (RunResult, RunResult, f64, f64) {
    let plain = run(read_pct, "");
    let mut general = run(read_pct, NEVER_ERRS);
    general.application.faults.clear();
    let ios = plain.accounting.completed as f64;
    let per_io = (plain.engine_events as f64 / ios, general.engine_events as f64 / ios);
    general.engine_events = plain.engine_events;
    (plain, general, per_io.0, per_io.1)
}

/// Reads only, then writes only: all commands take the same trip out, so the shortcuts keep
/// the order of every event's effects and the whole result is the same.
#[test]
fn the_plain_plan_gives_the_general_steps_figures() {
    for read_pct in [100, 0] {
        let (plain, general, plain_per_io, general_per_io) = both(read_pct);
        // General: each I/O's arrival at the port, the port's end and its completion. Plain: its
        // completion only (the rest are the interval samples, the warm-up's and the end's).
        assert!((general_per_io - 3.0).abs() < 0.01, "{read_pct}% reads: {general_per_io}");
        assert!((plain_per_io - 1.0).abs() < 0.01, "{read_pct}% reads: {plain_per_io}");
        assert_eq!(serde_json::to_string(&plain).unwrap(), serde_json::to_string(&general).unwrap());
    }
}

/// Reads and writes together: a write's trip out is three one-way times, a read's one, so a
/// write's completion takes its place among events due on the same nanosecond at its send
/// where the general steps gave it one at its port's end (`known_at_send.rs`). Such ties (tens
/// in this run, times being whole nanoseconds) move which path round robin gives some later
/// I/Os, and so per-path figures; what the application saw is the same.
#[test]
fn reads_and_writes_together_give_what_the_application_saw() {
    let (plain, general, _, _) = both(70);
    assert_eq!(serde_json::to_string(&plain.summary).unwrap(), serde_json::to_string(&general.summary).unwrap());
    assert_eq!(serde_json::to_string(&plain.devices).unwrap(), serde_json::to_string(&general.devices).unwrap());
}
