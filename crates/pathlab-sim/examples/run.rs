//! Runs a scenario file and prints the JSON result (the run's time on stderr, set-up apart): `cargo run --release --example run -- FILE [VARIANT] [--full]`.
//! Its summary, or with `--full` the whole result (per path, port and device, the policies' state).
//! A file that cannot be read or loaded, or a run the workload overloads, is one line on stderr
//! and exit status 2, as `pathlab` says bad input.
fn main() {
    let full = std::env::args().any(|a| a == "--full");
    let args: Vec<String> = std::env::args().filter(|a| a != "--full").collect();
    if let Err(line) = run(&args, full) {
        eprintln!("{line}");
        std::process::exit(2);
    }
}

/// The run of `args` (the program, FILE, VARIANT), or the one line that says why there is none.
fn run(args: &[String], full: bool) -> Result<(), String> {
    let file = args.get(1).ok_or("usage: run FILE [VARIANT] [--full]")?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let variant = args.get(2).map(String::as_str);
    let scenario = pathlab_sim::run::load(&text, file, variant, &[], None).map_err(|e| e.to_string())?;
    // Set-up, run and result timed apart: the rate is the run's alone.
    let t = std::time::Instant::now();
    let mut sim = pathlab_sim::run::simulation(&scenario).map_err(|e| e.to_string())?;
    let setup = t.elapsed().as_secs_f64();
    let t = std::time::Instant::now();
    sim.run_until(sim.measure_end());
    let secs = t.elapsed().as_secs_f64();
    let result = sim.finish().map_err(|e| format!("{file}: {e}"))?;
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::run;

    fn refused(args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let line = run(&args, false).unwrap_err();
        assert_eq!(line.lines().count(), 1, "{line}");
        line
    }

    /// A missing file, a scenario the loader refuses and no file at all: each one line naming
    /// what is wrong (main prints it and exits 2), where `run` panicked after printing it.
    #[test]
    fn a_load_error_is_one_line() {
        let missing = refused(&["run", "/nonexistent/pathlab-run.toml"]);
        assert!(missing.starts_with("/nonexistent/pathlab-run.toml: "), "{missing}");
        let dir = std::env::temp_dir().join(format!("pathlab-run-example-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bad = dir.join("bad.toml");
        std::fs::write(&bad, "name = \"bad\"\n[run]\nduration = \"ten seconds\"\n").unwrap();
        let bad = bad.to_str().unwrap();
        let line = refused(&["run", bad]);
        assert!(line.starts_with(&format!("{bad}: ")) && line.contains("duration"), "{line}");
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(refused(&["run"]), "usage: run FILE [VARIANT] [--full]");
    }
}
