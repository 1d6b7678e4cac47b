//! The one error a user sees for bad input: which file, which field, what is allowed.

use std::fmt;

/// An error inside one scenario, before the file name is known: the dotted field and what is
/// allowed. Every layer that checks input (model, workload, limits) returns it.
pub type FieldError = (String, String);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    /// Dotted path of the offending field (`devices.0.queue_depth`); empty for syntax errors.
    pub field: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(file: &str, field: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError { file: file.to_string(), field: field.into(), message: message.into() }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}
