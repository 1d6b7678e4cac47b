//! A scenario's load to be run, step by step, each in this thread's CPU time and minor page
//! faults (`/proc/thread-self`: Linux only), as a ranking loads each candidate of a cluster from
//! its tables converted once: the `--set` values read, the tables copied, the variant's `set` and
//! the overrides applied, the tables typed (and the typed tables of the largest arrays alone),
//! the scenario let go. The devices' `listed` tables are left out, as a run's tables leave them.
//! `cargo run --release --example load_costs -- FILE [OVERRIDES [ROUNDS]]`, OVERRIDES a file of
//! `key=value` lines (`--set`'s form).

use pathlab_sim::scenario::schema::{DeviceSpec, FabricSpec, WorkloadSpec};
use pathlab_sim::scenario::{parse_override_value, tables_as_run, Scenario};

/// This thread's CPU time (ns, `schedstat`'s first field) and its minor faults (`stat`'s tenth).
fn thread_costs() -> (u64, u64) {
    let cpu = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux's schedstat");
    let stat = std::fs::read_to_string("/proc/thread-self/stat").expect("Linux's stat");
    let after = &stat[stat.rfind(')').expect("a stat line") + 2..];
    let minflt = after.split(' ').nth(7).expect("minflt").parse().expect("a count");
    (cpu.split(' ').next().expect("run time").parse().expect("nanoseconds"), minflt)
}

fn measured<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let (cpu0, flt0) = thread_costs();
    let out = f();
    let (cpu1, flt1) = thread_costs();
    eprint!("{label} {:.1} ms {} faults; ", (cpu1 - cpu0) as f64 / 1e6, flt1 - flt0);
    out
}

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
        let overrides: Vec<(String, toml::Value)> =
            measured("overrides read", || raw.iter().map(|(k, v)| (k.clone(), parse_override_value(v))).collect());
        let copy = measured("copied", || table.clone());
        let applied = measured("applied", || tables_as_run(copy, file, None, &overrides).expect("overrides apply"));
        let devices = applied["devices"].clone();
        let workloads = applied["workloads"].clone();
        let fabric = applied["fabric"].clone();
        let scenario = measured("typed", || Scenario::from_table(applied, file, None, &[], None).expect("a scenario"));
        measured("let go", || drop(scenario));
        let mut bare = devices.clone();
        for device in bare.as_array_mut().expect("devices").iter_mut().filter_map(toml::Value::as_table_mut) {
            device.remove("policy");
        }
        let typed: Vec<DeviceSpec> = measured("(devices typed", || devices.try_into().expect("devices"));
        let _: Vec<DeviceSpec> = measured("without their policy", || bare.try_into().expect("devices"));
        let typed_workloads: Vec<WorkloadSpec> =
            measured("workloads typed", || workloads.try_into().expect("workloads"));
        let typed_fabric: Vec<FabricSpec> = measured("fabric typed", || fabric.try_into().expect("fabric"));
        measured("devices copied", || typed.clone());
        measured("workloads copied)", || typed_workloads.clone());
        drop((typed, typed_workloads, typed_fabric));
        eprintln!();
    }
}
