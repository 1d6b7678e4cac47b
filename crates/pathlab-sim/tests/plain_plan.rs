//! The plain plan's shortcuts (`sim/plan.rs`, `never_wait.rs`, `known_at_send.rs`) give the
//! figures the general steps give: the same model run once as it is and once with a fault that
//! changes nothing (a path erring at rate 0), which takes the general plan from the start.

mod common;

use pathlab_sim::RunResult;

/// Four devices of queue depth 8 on two ports of 32 servers: a port can never make work wait
/// (32 commands at most reach it), and each route is the port alone, so the answer is known
/// when the command is sent. Exponential service, reads or writes as `read_pct` says, a warm-up
/// that ends with commands on their way out and in service.
fn scenario(read_pct: u32, faults: &str) -> String {
    let (devices, _) = devices(4, 8);
    let fabric = fabric_and_round_robin("50us");
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
{fabric}
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

/// `n` devices `naa.0`… of queue depth `depth` on array `a`, and their names as a TOML list's items.
fn devices(n: usize, depth: u32) -> (String, String) {
    let tables =
        (0..n).map(|d| format!("[[devices]]\nname = \"naa.{d}\"\narray = \"a\"\nlun = {d}\nqueue_depth = {depth}\n"));
    let names: Vec<String> = (0..n).map(|d| format!("\"naa.{d}\"")).collect();
    (tables.collect(), names.join(", "))
}

/// Both adapters to both ports of array `a`, `latency` each way; round robin after every I/O.
fn fabric_and_round_robin(latency: &str) -> String {
    format!(
        "[[fabric]]\nadapters = [\"vmhba1\", \"vmhba2\"]\nports = [\"a/P0\", \"a/P1\"]\nlatency = \"{latency}\"\n\
         [policy]\nname = \"VMW_PSP_RR\"\ntype = \"iops\"\niops = 1"
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
/// where the general steps gave it one at its port's end (`known_at_send.rs`). Such ties (a few
/// in this run, times being whole nanoseconds) move which path round robin gives some later
/// I/Os, and so per-path figures; what the application saw is the same.
#[test]
fn reads_and_writes_together_give_what_the_application_saw() {
    let (plain, general, _, _) = both(70);
    assert_eq!(serde_json::to_string(&plain.summary).unwrap(), serde_json::to_string(&general.summary).unwrap());
    assert_eq!(serde_json::to_string(&plain.devices).unwrap(), serde_json::to_string(&general.devices).unwrap());
}

/// One device of queue depth 1, every time fixed: a read's command reaches the port 50 µs after
/// its send and the next is sent 120 µs after that one, so arrivals fall at 50 + 120k µs (a
/// write's at 150 + 220k µs). A snapshot on an arrival comes before it (it was scheduled first):
/// the command is not yet counted; one while a command is on its way out takes its whole service
/// off the busy area, none of it having begun.
fn on_an_arrival(read_pct: u32, warmup: &str, duration: &str, faults: &str) -> RunResult {
    let text = format!(
        r#"
[run]
duration = "{duration}"
warmup = "{warmup}"
interval = "{duration}"
[host]
adapters = [{{ name = "vmhba1" }}]
[[arrays]]
name = "a"
service = {{ fixed = "20us", distribution = "fixed", servers = 1 }}
ports = [{{ name = "P0" }}]
[[fabric]]
adapters = ["vmhba1"]
ports = ["a/P0"]
latency = "50us"
[policy]
name = "VMW_PSP_RR"
type = "iops"
iops = 1
[[devices]]
name = "naa.0"
array = "a"
lun = 0
queue_depth = 1
[[workloads]]
devices = ["naa.0"]
outstanding = 1
read_pct = {read_pct}
{faults}
"#
    );
    common::run_text(&text, "on-an-arrival.toml")
}

#[test]
fn a_snapshot_on_an_arrival_counts_it_as_the_general_steps_do() {
    // Reads: the warm-up on an arrival (170 µs) and the end not (1,170 µs); the warm-up while a
    // command is on its way out (150 µs: sent at 120, arrives at 170) and the end on an arrival
    // (1,250 µs). Writes: 370 µs an arrival, 1,170 µs not; 300 µs on the way (sent at 220) and
    // 1,250 µs an arrival.
    let cases = [(100, "170us", "1000us"), (100, "150us", "1100us"), (0, "370us", "800us"), (0, "300us", "950us")];
    for (read_pct, warmup, duration) in cases {
        let plain = on_an_arrival(read_pct, warmup, duration, "");
        let mut general = on_an_arrival(read_pct, warmup, duration, NEVER_ERRS);
        general.application.faults.clear();
        // The plain run took the shortcut: about one event an I/O where the general took three.
        assert!(2 * plain.engine_events < general.engine_events, "{read_pct}: {}", plain.engine_events);
        general.engine_events = plain.engine_events;
        assert_eq!(serde_json::to_string(&plain).unwrap(), serde_json::to_string(&general).unwrap(), "{read_pct}");
    }
}

/// A run that is not plain reads nothing of the routes known at the send: a failover adds routes
/// mid-run (`Model::set_routes`), past that list's end (session 28's review: a completion on one
/// panicked where the completions' lines are read ahead, hosts of 1,000 devices and more).
#[test]
fn a_failover_on_a_host_of_many_devices_adds_routes_safely() {
    let (devices, names) = devices(1_000, 4);
    let fabric = fabric_and_round_robin("1us");
    let text = format!(
        r#"
[run]
duration = "300ms"
interval = "100ms"
[host]
adapters = [{{ name = "vmhba1" }}, {{ name = "vmhba2" }}]
[[arrays]]
name = "a"
read_latency = "100us"
service = {{ fixed = "20us", distribution = "fixed", servers = 64 }}
tpgs = true
forward_latency = "200us"
controllers = [{{ name = "CT0" }}, {{ name = "CT1" }}]
ports = [{{ name = "P0", controller = "CT0" }}, {{ name = "P1", controller = "CT1" }}]
{fabric}
{devices}
[[workloads]]
devices = [{names}]
outstanding = 1
[[faults]]
kind = "controller_failover"
at = "100ms"
array = "a"
owner = "CT1"
"#
    );
    let r = common::run_text(&text, "failover.toml");
    let a = &r.accounting;
    assert!(a.completed > 100_000, "{}", a.completed);
    assert_eq!(a.issued, a.completed + a.failed);
}
