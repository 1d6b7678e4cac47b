//! `finish_figures`, a ranking's end of a run: the full result's figures, computed alike.

use pathlab_sim::{run, RunFigures, RunResult};

/// Four hosts on one shared device (a cluster; `variant` one_host_iops1: one host), shortened to
/// 1 s after 0.2 s.
fn load(variant: Option<&str>) -> pathlab_sim::Scenario {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/vmax3-shared-director.toml");
    let text = std::fs::read_to_string(file).unwrap();
    let short = [("run.duration", "1s"), ("run.warmup", "200ms")]
        .map(|(k, v)| (k.to_string(), toml::Value::String(v.to_string())));
    run::load(&text, file, variant, &short, Some(3)).unwrap_or_else(|e| panic!("{e}"))
}

fn both(s: &pathlab_sim::Scenario, per_host: bool) -> (RunResult, RunFigures) {
    let full = run::simulation(s).unwrap().finish().unwrap();
    (full, run::simulation(s).unwrap().finish_figures(per_host).unwrap())
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

#[test]
fn a_runs_figures_are_its_full_results_byte_for_byte() {
    let (full, figures) = both(&load(None), true);
    assert!(full.summary.figures.ios > 10_000, "a run that measured I/Os: {}", full.summary.figures.ios);
    assert_eq!(
        (figures.scenario.as_str(), figures.variant.as_deref(), figures.seed),
        (full.scenario.as_str(), full.variant.as_deref(), 3)
    );
    assert_eq!((figures.warmup_s, figures.duration_s), (0.2, 1.0));
    assert_eq!(json(&figures.summary), json(&full.summary));
    assert_eq!(json(&figures.accounting), json(&full.accounting));
    assert_eq!(json(&figures.hosts), json(&full.hosts));
    assert_eq!(figures.engine_events, full.engine_events);
    // Each host's p99, four hosts, each the full result's.
    let latency = figures.host_latency.as_ref().expect("several hosts: each one's p99");
    assert_eq!(latency.len(), 4);
    assert_eq!(json(latency), json(&full.host_latency));
    // Each device's rate and response, those of its full row.
    let rows: Vec<(String, f64, f64)> =
        full.devices.iter().map(|d| (d.host.clone(), d.figures.cmds_s, d.figures.gavg_ms)).collect();
    let rates: Vec<(String, f64, f64)> =
        figures.devices.unwrap().into_iter().map(|d| (d.host, d.cmds_s, d.gavg_ms)).collect();
    assert_eq!(rates.len(), 4);
    assert_eq!(rates, rows);
}

#[test]
fn without_per_host_a_runs_figures_hold_no_host_or_device() {
    let (full, figures) = both(&load(None), false);
    assert!(figures.hosts.is_none() && figures.host_latency.is_none() && figures.devices.is_none());
    assert_eq!(json(&figures.summary), json(&full.summary));
    let text = json(&figures);
    assert!(text.starts_with(r#"{"scenario":"vmax3-shared-director","variant":null,"seed":3,"#), "{text}");
    assert!(!text.contains("hosts") && !text.contains("devices"), "{text}");
}

#[test]
fn a_run_of_one_host_has_no_host_latency_as_its_full_result_has_none() {
    let (full, figures) = both(&load(Some("one_host_iops1")), true);
    assert!(full.host_latency.is_empty() && figures.host_latency.is_none());
    assert_eq!(json(&figures.hosts), json(&full.hosts));
    assert_eq!(figures.devices.map(|d| d.len()), Some(1));
    assert_eq!(json(&figures.summary), json(&full.summary));
}
