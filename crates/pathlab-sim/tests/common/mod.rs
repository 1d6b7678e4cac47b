//! What the integration tests share: a scenario's text run to its result, and a relative match.

use pathlab_sim::{run, RunResult};

/// The result of the scenario `text` (named `file` in error messages); a bad scenario or a
/// failed run fails the test with its message.
pub fn run_text(text: &str, file: &str) -> RunResult {
    let s = run::load(text, file, None, &[], None).unwrap_or_else(|e| panic!("{e}"));
    run::simulation(&s).unwrap().finish().unwrap_or_else(|e| panic!("{e}"))
}

/// `measured` within `rel` (a fraction) of `expected`.
#[allow(dead_code)] // not every test file compares figures
pub fn close(measured: f64, expected: f64, rel: f64) -> bool {
    (measured / expected - 1.0).abs() <= rel
}
