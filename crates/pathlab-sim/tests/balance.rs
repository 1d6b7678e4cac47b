//! Array-side balancing (`[arrays.balance]`, after Ceph NVMe-oF's `rebalance.py`): the cap of
//! moves per pass, convergence to equal namespace counts from a skewed start, and what hosts see.

use pathlab_sim::{run, RunResult};
use std::collections::BTreeMap;

/// Four gateways (one port each) of one array, `devices` namespaces all owned by GW0 at the
/// start, one adapter zoned to every port; each namespace is inaccessible through the gateways
/// that do not own it (reported as ANA states: `tpgs`). A closed loop of one I/O per namespace with 10 ms of think time.
fn scenario(devices: usize, balance: &str, policy: &str, duration: &str) -> String {
    let mut text = format!(
        r#"
[run]
duration = "{duration}"
interval = "1s"

[host]
adapters = [{{ name = "nvme0" }}]

[[arrays]]
name = "gw"
non_owner_state = "unavailable"
tpgs = true
service = {{ fixed = "20us" }}
controllers = [{{ name = "GW0" }}, {{ name = "GW1" }}, {{ name = "GW2" }}, {{ name = "GW3" }}]
ports = [{{ name = "P0", controller = "GW0" }}, {{ name = "P1", controller = "GW1" }},
         {{ name = "P2", controller = "GW2" }}, {{ name = "P3", controller = "GW3" }}]
{balance}

[[fabric]]
adapters = ["nvme0"]
ports = ["gw/P0", "gw/P1", "gw/P2", "gw/P3"]
latency = "10us"

[policy]
{policy}

[[workloads]]
devices = [{names}]
outstanding = 1
think_time = "10ms"
"#,
        names = (0..devices).map(|d| format!("\"ns{d}\"")).collect::<Vec<_>>().join(", ")
    );
    for d in 0..devices {
        text.push_str(&format!("\n[[devices]]\nname = \"ns{d}\"\narray = \"gw\"\nlun = {d}\n"));
    }
    text
}

fn run_text(text: &str) -> RunResult {
    let s = run::load(text, "test.toml", None, &[], None).unwrap_or_else(|e| panic!("{e}"));
    let r = run::simulation(&s).unwrap().finish().unwrap_or_else(|e| panic!("{e}"));
    let a = &r.accounting;
    assert_eq!(a.issued, a.completed + a.failed, "each I/O completes or fails exactly once");
    r
}

/// Moves per pass, by the pass's time in whole seconds.
fn moves_per_pass(r: &RunResult) -> BTreeMap<u64, usize> {
    let mut passes = BTreeMap::new();
    for e in r.events.iter().filter(|e| e.event == "owner_moved") {
        *passes.entry(e.t_s.round() as u64).or_insert(0) += 1;
    }
    passes
}

/// Namespaces per gateway after the last move.
fn owned(r: &RunResult, devices: usize) -> BTreeMap<String, usize> {
    let mut owner: Vec<String> = vec!["GW0".into(); devices];
    for e in r.events.iter().filter(|e| e.event == "owner_moved") {
        owner[e.device[2..].parse::<usize>().unwrap()] = e.detail.clone();
    }
    let mut counts = BTreeMap::new();
    owner.into_iter().for_each(|o| *counts.entry(o).or_insert(0) += 1);
    counts
}

const NVME: &str = "name = \"nvme\"";

#[test]
fn a_pass_moves_at_most_the_cap_and_32_namespaces_on_one_gateway_spread_8_each() {
    let balance = "[arrays.balance]\nperiod = \"7s\"\nmax_moves = 2";
    let r = run_text(&scenario(32, balance, NVME, "100s"));
    // 24 moves take 32/0/0/0 to 8/8/8/8: 12 passes of 2 (7 s to 84 s), then none qualifies.
    let expected: BTreeMap<u64, usize> = (1..=12).map(|k| (7 * k, 2)).collect();
    assert_eq!(moves_per_pass(&r), expected);
    let even: BTreeMap<String, usize> = (0..4).map(|g| (format!("GW{g}"), 8)).collect();
    assert_eq!(owned(&r, 32), even);
    // The host hears each move as two ANA changes: the new owner's path optimized, the old
    // one's inaccessible; NVMe leaves the old path before any I/O goes to it.
    let alua: Vec<_> = r.events.iter().filter(|e| e.event == "alua").collect();
    assert_eq!(alua.len(), 48);
    assert_eq!(alua.iter().filter(|e| e.detail == "AO").count(), 24);
    assert_eq!((r.summary.errors, r.accounting.failed), (0, 0));
}

#[test]
fn the_ceph_defaults_are_7_seconds_and_8_moves() {
    let r = run_text(&scenario(32, "[arrays.balance]", NVME, "30s"));
    // 32/0/0/0: 8 moves at 7 s (one at a time, most to least loaded: 24/3/3/2), 8 at 14 s, the
    // last 8 at 21 s.
    let passes = moves_per_pass(&r);
    assert_eq!(passes.get(&7), Some(&8));
    assert_eq!(passes.get(&14), Some(&8));
    assert_eq!(passes.get(&21), Some(&8));
    assert_eq!(passes.values().sum::<usize>(), 24);
}

#[test]
fn a_balanced_array_moves_nothing_and_the_rule_needs_a_difference_of_two() {
    // 5 namespaces on 4 gateways: 2/1/1/1 after 3 moves, and a difference of one stays.
    let r = run_text(&scenario(5, "[arrays.balance]\nperiod = \"1s\"\nmax_moves = 1", NVME, "10s"));
    assert_eq!(moves_per_pass(&r), BTreeMap::from([(1, 1), (2, 1), (3, 1)]));
    let counts: Vec<usize> = owned(&r, 5).into_values().collect();
    assert_eq!(counts, [2, 1, 1, 1]);
}

#[test]
fn bad_balance_settings_name_the_field() {
    let error = |balance: &str| {
        let text = scenario(2, balance, NVME, "1s");
        run::load(&text, "test.toml", None, &[], None).map(|_| ()).unwrap_err().to_string()
    };
    assert!(
        error("[arrays.balance]\nperiod = \"0s\"").contains("arrays.0.balance.period: 0ns is too short: at least 1ms")
    );
    assert!(error("[arrays.balance]\nmax_moves = 0").contains("arrays.0.balance.max_moves: must be at least 1"));
    assert!(error("[arrays.balance]\nload = \"iops\"").contains("arrays.0.balance.load"));
    assert!(error("[arrays.balance]\nevery = \"1s\"").contains("every"));
}

#[test]
fn balancing_under_faults_keeps_each_io_completing_or_failing_exactly_once() {
    let faults = r#"
[[faults]]
kind = "port_down"
at = "1200ms"
until = "2500ms"
port = "gw/P1"

[[faults]]
kind = "flaky"
from = "0s"
port = "gw/P2"
error_rate = 0.2

[[faults]]
kind = "marginal"
from = "500ms"
port = "gw/P3"

[[faults]]
kind = "all_paths_down"
at = "3s"
until = "3200ms"
"#;
    let balance = "[arrays.balance]\nperiod = \"300ms\"\nmax_moves = 3";
    for policy in [
        "name = \"VMW_PSP_RR\"",
        "name = \"HPP\"",
        "name = \"powerpath\"",
        "name = \"dm-multipath\"\nno_path_retry = \"queue\"",
        "name = \"nvme\"\niopolicy = \"queue-depth\"",
        "name = \"spdk\"\npolicy = \"active_active\"",
        "name = \"mpio\"",
        "name = \"gated-least-load\"",
    ] {
        let mut text = scenario(12, balance, policy, "4s").replace("outstanding = 1", "outstanding = 4");
        // Each stack's own short timers (another stack's would be refused).
        let timers = match policy {
            p if p.contains("dm-multipath") => ", checker_interval = \"250ms\"",
            p if p.contains("nvme") || p.contains("spdk") => ", reconnect_delay = \"250ms\"",
            _ => "",
        };
        text = text.replace("[host]", &format!("[host]\nstack = {{ io_timeout = \"100ms\"{timers} }}"));
        text.push_str(faults);
        let r = run_text(&text);
        assert_eq!(moves_per_pass(&r).values().sum::<usize>(), 9, "{policy}: 12/0/0/0 to 3/3/3/3");
        assert!(r.accounting.completed > 1000, "{policy}: {:?}", r.accounting);
    }
}
