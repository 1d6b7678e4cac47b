//! Parameter descriptions shared by all policies: one table drives both validation and the
//! `pathlab policies` listing, so the two cannot disagree.

use std::fmt;

/// One parameter of a policy.
#[derive(Debug)]
pub struct ParamSpec {
    pub name: &'static str,
    /// What leaving the parameter out means, for parameters whose default is no value (a
    /// preferred path, a per-path list). Every other default is the config's `Default`, read by
    /// the catalogue: stated once.
    pub unset: Option<&'static str>,
    /// Inclusive integer range, when the parameter is an integer.
    pub range: Option<(u64, u64)>,
    /// Allowed words, when the parameter is a choice.
    pub choices: &'static [&'static str],
    pub help: &'static str,
}

/// A policy's description and parameters (its name is in the registration list, `registry.rs`).
#[derive(Debug)]
pub struct PolicySpec {
    pub stack: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
}

impl PolicySpec {
    /// The parameter called `name` (a policy table lists each parameter once).
    pub fn param(&self, name: &str) -> &ParamSpec {
        self.params
            .iter()
            .find(|p| p.name == name)
            .unwrap_or_else(|| panic!("{} has no parameter {name}", self.summary))
    }
}

/// A parameter value the real stack would refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// The parameter's name inside the policy table (`iops`, `preferred`).
    pub field: String,
    pub message: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for PolicyError {}

/// Checks `value` against the integer range of `spec`.
pub fn check_range(spec: &ParamSpec, value: u64) -> Result<(), PolicyError> {
    match spec.range {
        Some((lo, hi)) if value < lo || value > hi => Err(PolicyError {
            field: spec.name.to_string(),
            message: format!("{value} is out of range: allowed {lo} to {hi}"),
        }),
        _ => Ok(()),
    }
}
