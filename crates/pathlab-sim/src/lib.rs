//! pathlab-sim: a deterministic discrete-event simulator of a host spreading I/O over its paths
//! to storage. `scenario` reads what the user wrote, `model` is the storage network, `workload`
//! makes the I/O, `engine` keeps time, `observe` turns what happened into figures.

pub mod engine;
pub mod model;
pub mod observe;
pub mod scenario;
pub mod sim;
pub mod workload;

pub use observe::result::RunResult;
pub use scenario::{Scenario, ScenarioError};
pub use sim::Simulation;
