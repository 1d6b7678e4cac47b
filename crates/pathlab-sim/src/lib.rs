//! pathlab-sim: a deterministic discrete-event simulator of a host spreading I/O over its paths
//! to storage. Layers from the bottom: `engine` keeps time; `scenario` reads what the user wrote;
//! `nmp` and `linux` are the hosts' claim tables; `model` is the storage network and `workload` makes the I/O, both built from the scenario;
//! `sim` moves I/Os through the model; `observe` turns what happened into figures; `run` turns a
//! scenario into a simulation.

pub mod engine;
pub mod linux;
pub mod model;
pub mod nmp;
pub mod observe;
pub mod run;
pub mod scenario;
pub mod sim;
pub mod workload;

pub use observe::result::{RunFigures, RunResult};
pub use scenario::{Scenario, ScenarioError};
pub use sim::Simulation;
