//! The top layer: a scenario file becomes a checked scenario, and a scenario becomes a
//! simulation (the model, the workers, the plan and the faults).

use crate::model::build_model;
use crate::model::fault::{resolve_faults, ScheduledFault};
use crate::model::Model;
use crate::observe::responses_kept::ResponseScope;
use crate::scenario::fault_windows::fault_windows;
use crate::scenario::{limits, Scenario, ScenarioError};
use crate::sim::{RunPlan, Simulation};
use crate::workload::{build_workers, Worker};

/// Reads a scenario (see [`Scenario::parse`]) and checks everything a run needs: names that
/// refer to other objects, faults, limits against memory. Nothing is simulated.
pub fn load(
    text: &str,
    file: &str,
    variant: Option<&str>,
    overrides: &[(String, toml::Value)],
    seed: Option<u64>,
) -> Result<Scenario, ScenarioError> {
    let scenario = Scenario::parse(text, file, variant, overrides, seed)?;
    parts(&scenario, &model(&scenario)?, scenario.spec.run.seed)?;
    Ok(scenario)
}

/// As [`load`], from the scenario's tables as values (an imported host's, built without text).
pub fn load_table(
    table: toml::Table,
    file: &str,
    variant: Option<&str>,
    overrides: &[(String, toml::Value)],
    seed: Option<u64>,
) -> Result<Scenario, ScenarioError> {
    let scenario = Scenario::from_table(table, file, variant, overrides, seed)?;
    parts(&scenario, &model(&scenario)?, scenario.spec.run.seed)?;
    Ok(scenario)
}

/// The objects that get a row of interval figures each (`limits::interval_objects`), of a loaded
/// scenario: its model built again to count the zoning's paths.
pub fn interval_objects(scenario: &Scenario) -> Result<u64, ScenarioError> {
    let model =
        build_model(&scenario.spec).map_err(|(field, message)| ScenarioError::new(&scenario.file, field, message))?;
    Ok(limits::interval_objects(&scenario.spec, model.paths.len()))
}

/// A fresh simulation of a scenario.
pub fn simulation(scenario: &Scenario) -> Result<Simulation, ScenarioError> {
    simulation_with_seed(scenario, scenario.spec.run.seed)
}

/// A fresh simulation of a scenario with another seed: the same as [`simulation`] of the
/// scenario with `run.seed` set, without a copy of the scenario (a cluster of 32 hosts × 500
/// devices × 8 paths is about 200 MiB of it; no part of the model reads the seed).
pub fn simulation_with_seed(scenario: &Scenario, seed: u64) -> Result<Simulation, ScenarioError> {
    simulation_on(scenario, model(scenario)?, seed)
}

/// The scenario's model as built, checked against the limits: what every seed's simulation
/// starts from. The build reads no seed, so a copy of it (`Clone`) is the model built again: a
/// ranking runs one candidate's seeds on copies of one build (a generated cluster of 32 hosts ×
/// 500 devices × 8 paths: built in 0.15 s, copied in 0.04 s, `examples/ranking_run`).
pub fn model(scenario: &Scenario) -> Result<Model, ScenarioError> {
    let file = &scenario.file;
    let err = |(field, message): (String, String)| ScenarioError::new(file, field, message);
    let spec = &scenario.spec;
    let run = &spec.run;
    if run.duration.0 == 0 {
        return Err(ScenarioError::new(file, "run.duration", "must be above zero"));
    }
    if run.interval.0 == 0 {
        return Err(ScenarioError::new(file, "run.interval", "must be above zero"));
    }
    let model = build_model(spec).map_err(err)?;
    limits::check(spec, model.paths.len()).map_err(err)?;
    Ok(model)
}

/// A simulation of the scenario with `seed` on `model`, the scenario's model as built
/// ([`model`], or a copy of it).
pub fn simulation_on(scenario: &Scenario, model: Model, seed: u64) -> Result<Simulation, ScenarioError> {
    simulation_keeping(scenario, model, seed, ResponseScope::Devices)
}

/// As [`simulation_on`], keeping of the devices' responses what its end will read (`responses`:
/// every device's for `finish`, each host's for `finish_figures(true)`, none for
/// `finish_figures(false)`); an end that reads more fails (`RunError::NotKept`).
pub fn simulation_keeping(
    scenario: &Scenario,
    model: Model,
    seed: u64,
    responses: ResponseScope,
) -> Result<Simulation, ScenarioError> {
    let (workers, mut plan, faults) = parts(scenario, &model, seed)?;
    plan.responses = responses;
    Ok(Simulation::new(model, workers, plan, faults))
}

/// What a simulation of `seed` on `model` is made of besides the model, every input checked.
fn parts(
    scenario: &Scenario,
    model: &Model,
    seed: u64,
) -> Result<(Vec<Worker>, RunPlan, Vec<ScheduledFault>), ScenarioError> {
    let file = &scenario.file;
    let err = |(field, message): (String, String)| ScenarioError::new(file, field, message);
    let spec = &scenario.spec;
    let run = &spec.run;
    let devices = model.device_names();
    let device_index = |n: &str, field: &str| devices.find(n, field);
    let workers =
        build_workers(&spec.workloads, device_index, seed, model.reads_offsets(), model.host.cpus).map_err(err)?;
    let faults = resolve_faults(&spec.faults, model, run.warmup.0 + run.duration.0).map_err(err)?;
    let plan = RunPlan {
        scenario: scenario.name().to_string(),
        variant: scenario.variant.clone(),
        seed,
        warmup_ns: run.warmup.0,
        duration_ns: run.duration.0,
        interval_ns: run.interval.0,
        path_intervals: true,
        responses: ResponseScope::Devices,
        fault_windows: fault_windows(&spec.faults, run.warmup.0 + run.duration.0),
    };
    Ok((workers, plan, faults))
}
