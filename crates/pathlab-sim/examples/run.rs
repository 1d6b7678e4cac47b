//! Runs a scenario file and prints the JSON result: `cargo run --release --example run -- FILE [VARIANT]`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable file");
    let variant = args.get(2).map(String::as_str);
    let scenario = pathlab_sim::run::load(&text, &args[1], variant, &[], None).unwrap_or_else(|e| panic!("{e}"));
    let t = std::time::Instant::now();
    let result = pathlab_sim::run::simulation(&scenario).unwrap().finish().unwrap();
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{} I/Os in {:.2} s: {:.2} M simulated I/O/s",
        result.accounting.issued,
        secs,
        result.accounting.issued as f64 / secs / 1e6
    );
    println!("{}", serde_json::to_string(&result.summary).unwrap());
    eprintln!("replication {}", serde_json::to_string(&result.replication).unwrap());
    eprintln!("controllers {}", serde_json::to_string(&result.controllers).unwrap());
    eprintln!("raid groups {}", serde_json::to_string(&result.raid_groups).unwrap());
    eprintln!("write caches {}", serde_json::to_string(&result.write_caches).unwrap());
}
