//! A scenario's load to be run, step by step, each in this thread's CPU time and minor page
//! faults (`/proc/thread-self`: Linux only), as a candidate of a cluster was loaded from its
//! tables converted once before session 25's applied tables (`AppliedTables`, which a ranking now
//! loads from, apply the fitted values once): the `--set` values read, the tables copied, the variant's `set` and
//! the overrides applied, the tables typed (and the typed tables of the largest arrays alone),
//! the scenario let go. The devices' `listed` tables are left out, as a run's tables leave them.
//! `cargo run --release --example load_costs -- FILE [OVERRIDES [ROUNDS]]`, OVERRIDES a file of
//! `key=value` lines (`--set`'s form). Instruction counts: `valgrind --tool=callgrind` with
//! `--toggle-collect` on a step's function (`load_costs::typed`).

use pathlab_sim::scenario::schema::{DeviceSpec, WorkloadSpec};
use pathlab_sim::scenario::{parse_override_value, tables_as_run, Scenario};

#[path = "shared/thread_costs.rs"]
mod thread_costs;
use thread_costs::measured;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable file");
    let mut table: toml::Table = toml::from_str(&text).expect("a TOML scenario");
    drop(text);
    if let Some(toml::Value::Array(devices)) = table.get_mut("devices") {
        for device in devices.iter_mut().filter_map(toml::Value::as_table_mut) {
            device.remove("listed");
        }
    }
    let raw: Vec<(String, String)> = args.get(2).map_or_else(Vec::new, |f| {
        let lines = std::fs::read_to_string(f).expect("readable overrides");
        lines.lines().filter_map(|l| l.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect()
    });
    let rounds: usize = args.get(3).map_or(3, |r| r.parse().expect("a number of rounds"));
    let file = &args[1];
    for round in 0..rounds {
        eprint!("round {round}: ");
        let overrides = measured("overrides read", || read(&raw));
        let copy = measured("copied", || copied(&table));
        let applied = measured("applied", || apply(copy, file, &overrides));
        let devices = applied["devices"].clone();
        let workloads = applied["workloads"].clone();
        let again = applied.clone();
        let scenario = measured("typed", || typed(applied, file));
        measured("(typed without the fields' path", || typed_plainly(again));
        measured("let go", || let_go(scenario));
        let mut bare = devices.clone();
        for device in bare.as_array_mut().expect("devices").iter_mut().filter_map(toml::Value::as_table_mut) {
            device.remove("policy");
        }
        let devices = measured("(devices typed", || typed_devices(devices));
        measured("without their policy", || typed_devices(bare));
        let workloads: Vec<WorkloadSpec> = measured("workloads typed", || workloads.try_into().expect("workloads"));
        measured("devices copied", || devices.clone());
        measured("workloads copied)", || workloads.clone());
        eprintln!();
    }
}

#[inline(never)]
fn read(raw: &[(String, String)]) -> Vec<(String, toml::Value)> {
    raw.iter().map(|(k, v)| (k.clone(), parse_override_value(v))).collect()
}

#[inline(never)]
fn copied(table: &toml::Table) -> toml::Table {
    table.clone()
}

#[inline(never)]
fn apply(table: toml::Table, file: &str, overrides: &[(String, toml::Value)]) -> toml::Table {
    tables_as_run(table, file, None, overrides).expect("overrides apply")
}

#[inline(never)]
fn typed(table: toml::Table, file: &str) -> Scenario {
    Scenario::from_table(table, file, None, &[], None).expect("a scenario")
}

#[inline(never)]
fn typed_plainly(table: toml::Table) -> pathlab_sim::scenario::schema::ScenarioSpec {
    serde::Deserialize::deserialize(toml::Value::Table(table)).expect("a scenario")
}

#[inline(never)]
fn let_go(scenario: Scenario) {
    drop(scenario)
}

#[inline(never)]
fn typed_devices(devices: toml::Value) -> Vec<DeviceSpec> {
    devices.try_into().expect("devices")
}
