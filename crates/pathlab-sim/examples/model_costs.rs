//! A run's fixed costs on its model, each measured apart in this thread's CPU time and minor
//! page faults (`/proc/thread-self`: Linux only): the model built (`run::model`), copied
//! (`Clone`: a ranking's seeds of one candidate run on copies of one build), the copy let go,
//! and the build let go. Instruction counts: `valgrind --tool=callgrind` with
//! `--toggle-collect` on the step's function.
//! `cargo run --release --example model_costs -- FILE [ROUNDS]`.

#[path = "shared/thread_costs.rs"]
mod thread_costs;
use thread_costs::measured;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("readable file");
    let rounds: usize = args.get(2).map_or(3, |r| r.parse().expect("a number of rounds"));
    let scenario = pathlab_sim::run::load(&text, &args[1], None, &[], None).unwrap_or_else(|e| panic!("{e}"));
    drop(text);
    for round in 0..rounds {
        eprint!("round {round}: ");
        let model = measured("built", || build(&scenario));
        let copy = measured("copied", || copy(&model));
        measured("copy let go", || let_go(copy));
        measured("build let go", || let_go(model));
        eprintln!();
    }
}

#[inline(never)]
fn build(scenario: &pathlab_sim::Scenario) -> pathlab_sim::model::Model {
    pathlab_sim::run::model(scenario).unwrap_or_else(|e| panic!("{e}"))
}

#[inline(never)]
fn copy(model: &pathlab_sim::model::Model) -> pathlab_sim::model::Model {
    model.clone()
}

#[inline(never)]
fn let_go(model: pathlab_sim::model::Model) {
    drop(model)
}
