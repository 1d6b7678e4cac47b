//! A ranking's run of a scenario file step by step, timed apart (wall seconds: run it on a quiet
//! machine, or compare side by side): the simulation's set-up (the model built), the run, and its
//! end, as the full result (`finish`) or as what a ranking reads (`finish_figures`, per host or
//! not), each with its result let go; then the model built alone and copied (`run::model`,
//! `Clone`: a ranking's seeds of one candidate run on copies of one build).
//! `cargo run --release --example ranking_run -- FILE [ROUNDS]`.
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable file");
    let rounds: usize = args.get(2).map_or(1, |r| r.parse().expect("a number of rounds"));
    let scenario = pathlab_sim::run::load(&text, &args[1], None, &[], None).unwrap_or_else(|e| panic!("{e}"));
    for _ in 0..rounds {
        for end in ["finish", "finish_figures(per_host)", "finish_figures"] {
            let t = Instant::now();
            let mut sim = pathlab_sim::run::simulation(&scenario).unwrap();
            let setup = t.elapsed().as_secs_f64();
            let t = Instant::now();
            sim.run_until(sim.measure_end());
            let run = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let issued = match end {
                "finish" => sim.finish().unwrap().accounting.issued,
                "finish_figures(per_host)" => sim.finish_figures(true).unwrap().accounting.issued,
                _ => sim.finish_figures(false).unwrap().accounting.issued,
            };
            let finish = t.elapsed().as_secs_f64();
            eprintln!("{end:>26}: set-up {setup:.3} s, run {run:.3} s ({issued} I/Os), end {finish:.3} s");
        }
        let t = Instant::now();
        let model = pathlab_sim::run::model(&scenario).unwrap();
        let build = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let copy = model.clone();
        let copied = t.elapsed().as_secs_f64();
        let t = Instant::now();
        drop((model, copy));
        let dropped = t.elapsed().as_secs_f64();
        eprintln!("{:>26}: built {build:.3} s, copied {copied:.3} s, both let go {dropped:.3} s", "the model");
    }
}
