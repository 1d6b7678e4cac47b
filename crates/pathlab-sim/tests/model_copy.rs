//! A model built once and copied (`run::model`, `Clone`) runs as a model built again: a ranking
//! runs a candidate's seeds on copies of one build. Checked on every policy and dm selector, with
//! a path that fails and comes back (each policy's failover state copied too).

use pathlab_sim::{run, RunResult};

/// Four namespaces on one array of two controllers (ALUA), two adapters × two ports, a closed
/// loop of 4 I/Os each; `vmhba1` goes down at 30 ms and back at 60 ms.
fn scenario(policy: &str) -> String {
    let timers = match policy {
        p if p.contains("dm-multipath") => ", checker_interval = \"20ms\"",
        p if p.contains("nvme") || p.contains("spdk") || p.contains("rnbd") => ", reconnect_delay = \"20ms\"",
        _ => "",
    };
    let mut text = format!(
        r#"
[run]
duration = "100ms"
warmup = "10ms"
interval = "50ms"

[host]
adapters = [{{ name = "vmhba1" }}, {{ name = "vmhba2" }}]
stack = {{ io_timeout = "20ms"{timers} }}

[[arrays]]
name = "a"
tpgs = true
service = {{ fixed = "20us", distribution = "exponential" }}
controllers = [{{ name = "A" }}, {{ name = "B" }}]
ports = [{{ name = "P0", controller = "A" }}, {{ name = "P1", controller = "B" }}]

[[fabric]]
adapters = ["vmhba1", "vmhba2"]
ports = ["a/P0", "a/P1"]
latency = "10us"

[policy]
{policy}

[[workloads]]
devices = ["d0", "d1", "d2", "d3"]
outstanding = 4
bssplit = [["4KiB", 50], ["64KiB", 50]]
read_pct = 60

[[faults]]
kind = "path_down"
at = "30ms"
until = "60ms"
path = "vmhba1"
"#
    );
    for d in 0..4 {
        text.push_str(&format!("\n[[devices]]\nname = \"d{d}\"\narray = \"a\"\nlun = {d}\n"));
    }
    text
}

const POLICIES: &[&str] = &[
    "name = \"VMW_PSP_RR\"\ntype = \"iops\"\niops = 1",
    "name = \"VMW_PSP_RR\"\ntype = \"latency\"",
    "name = \"VMW_PSP_FIXED\"",
    "name = \"VMW_PSP_MRU\"",
    "name = \"HPP\"",
    "name = \"gated-least-load\"",
    "name = \"dm-multipath\"\nselector = \"round-robin\"",
    "name = \"dm-multipath\"\nselector = \"queue-length\"",
    "name = \"dm-multipath\"\nselector = \"service-time\"",
    "name = \"dm-multipath\"\nselector = \"historical-service-time\"",
    "name = \"dm-multipath\"\nselector = \"io-affinity\"\ncpu_map = [[0], [1], [2], [3]]",
    "name = \"nvme\"\niopolicy = \"numa\"",
    "name = \"nvme\"\niopolicy = \"round-robin\"",
    "name = \"nvme\"\niopolicy = \"queue-depth\"",
    "name = \"nvme-latency\"",
    "name = \"spdk\"\npolicy = \"active_active\"",
    "name = \"mpio\"",
    "name = \"powerpath\"",
    "name = \"rnbd\"",
];

fn json(r: &RunResult) -> String {
    serde_json::to_string(r).unwrap()
}

#[test]
fn a_copied_models_run_is_a_fresh_builds_byte_for_byte_for_every_policy() {
    for policy in POLICIES {
        let text = scenario(policy);
        let s = run::load(&text, "copy.toml", None, &[], None).unwrap_or_else(|e| panic!("{policy}: {e}"));
        let fresh = run::simulation_with_seed(&s, 5).unwrap().finish().unwrap();
        assert!(fresh.accounting.completed > 1000, "{policy}: {:?}", fresh.accounting);
        assert!(!fresh.events.is_empty(), "{policy}: the host saw the path go down");
        let built = run::model(&s).unwrap();
        let copy = built.clone();
        // The copy runs first, then the model it was copied from: neither shares state with the other.
        for model in [copy, built] {
            let r = run::simulation_on(&s, model, 5).unwrap().finish().unwrap();
            assert_eq!(json(&r), json(&fresh), "{policy}");
        }
    }
}

#[test]
fn a_copied_model_runs_another_seed_as_that_seeds_fresh_build() {
    let s = run::load(&scenario(POLICIES[0]), "copy.toml", None, &[], None).unwrap();
    let built = run::model(&s).unwrap();
    let seed_9 = run::simulation_on(&s, built.clone(), 9).unwrap().finish().unwrap();
    assert_eq!(json(&seed_9), json(&run::simulation_with_seed(&s, 9).unwrap().finish().unwrap()));
    let seed_5 = run::simulation_on(&s, built, 5).unwrap().finish().unwrap();
    assert_ne!(json(&seed_5), json(&seed_9));
}
