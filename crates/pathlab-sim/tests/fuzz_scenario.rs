//! Fuzzing the scenario parser: whatever the text, loading a scenario returns a scenario or an
//! error naming a field; it never panics. Mutations of the shipped scenarios reach far deeper
//! than random text: each replaces one value with a hostile one (huge, negative, empty, wrong
//! type, odd unit) or deletes a line. What loads is then simulated for a few thousand events:
//! debug builds check every addition for overflow, and the scheduler refuses time going back.

use pathlab_sim::run;
use proptest::prelude::*;
use std::path::Path;

const HOSTILE: &[&str] = &[
    "0",
    "-1",
    "18446744073709551616",
    "9223372036854775807",
    "1e308",
    "nan",
    "inf",
    "\"\"",
    "\"99999999999999h\"",
    "\"1ns\"",
    "\"-5us\"",
    "\"1e400GiB\"",
    "\"5 parsecs\"",
    "[]",
    "{}",
    "true",
    "\"vmhba:1\"",
    "\"naa.1\"",
    "[[\"8KiB\", 0]]",
    "1e-11",
    "\"0.000000000000001Gb\"",
    "\"100000000000000000km\"",
    "\"40000km\"",
    "\"1Mb\"",
    "\"1GiB\"",
    "\"2400h\"",
    "4000001",
];

/// Events simulated per loaded scenario: enough to issue, route and complete I/Os.
const EVENTS: usize = 3_000;

fn shipped() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut texts: Vec<String> = std::fs::read_dir(dir)
        .expect("scenarios folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .map(|p| std::fs::read_to_string(p).expect("readable"))
        .collect();
    texts.sort();
    texts
}

/// Replaces the value on one `key = value` line, or deletes the line.
fn mutate(text: &str, line_pick: usize, hostile: Option<&str>) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let candidates: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains(" = ")).collect();
    let target = candidates[line_pick % candidates.len()];
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match hostile {
        Some(v) => out[target] = format!("{} = {v}", lines[target].split(" = ").next().unwrap_or("x")),
        None => out[target].clear(),
    }
    out.join("\n")
}

fn load(text: &str) {
    // Loading checks every reference and limit; a short run is then safe to build.
    if let Ok(s) = run::load(text, "fuzz.toml", None, &[], None) {
        let mut sim = run::simulation(&s).expect("a loaded scenario builds");
        for _ in 0..EVENTS {
            if !sim.step_until(u64::MAX) {
                break;
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_shipped_scenarios_never_panic(file in 0usize..64, line in 0usize..10_000, pick in 0usize..64) {
        let texts = shipped();
        let text = &texts[file % texts.len()];
        let hostile = HOSTILE.get(pick % (HOSTILE.len() + 1)).copied();
        load(&mutate(text, line, hostile));
    }

    #[test]
    fn random_text_never_panics(text in "\\PC{0,400}") {
        load(&text);
    }
}
