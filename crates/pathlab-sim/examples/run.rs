//! Runs a scenario file and prints the JSON result (the run's time on stderr, set-up apart): `cargo run --release --example run -- FILE [VARIANT] [--full]`.
//! Its summary, or with `--full` the whole result (per path, port and device, the policies' state).
fn main() {
    let full = std::env::args().any(|a| a == "--full");
    let args: Vec<String> = std::env::args().filter(|a| a != "--full").collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable file");
    let variant = args.get(2).map(String::as_str);
    let scenario = pathlab_sim::run::load(&text, &args[1], variant, &[], None).unwrap_or_else(|e| panic!("{e}"));
    // Set-up, run and result timed apart: the rate is the run's alone.
    let t = std::time::Instant::now();
    let mut sim = pathlab_sim::run::simulation(&scenario).unwrap();
    let setup = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    sim.run_until(sim.measure_end());
    let secs = t.elapsed().as_secs_f64();
    let result = sim.finish().unwrap();
    eprintln!(
        "{} I/Os in {:.3} s ({:.0} ns each, {:.2} M simulated I/O/s); set-up {:.3} s",
        result.accounting.issued,
        secs,
        secs * 1e9 / result.accounting.issued as f64,
        result.accounting.issued as f64 / secs / 1e6,
        setup
    );
    if full {
        println!("{}", serde_json::to_string(&result).unwrap());
    } else {
        println!("{}", serde_json::to_string(&result.summary).unwrap());
    }
    eprintln!("replication {}", serde_json::to_string(&result.replication).unwrap());
    eprintln!("controllers {}", serde_json::to_string(&result.controllers).unwrap());
    eprintln!("raid groups {}", serde_json::to_string(&result.raid_groups).unwrap());
    eprintln!("write caches {}", serde_json::to_string(&result.write_caches).unwrap());
}
