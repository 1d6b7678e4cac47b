//! Checked values more than one step reads: an error at a field, names defined once, a
//! distribution's shape, a one-way latency given as a time or a distance, a fraction.

use crate::engine::dist::Shape;
use crate::model::names::Names;
use crate::scenario::error::FieldError;
use crate::scenario::schema::Distribution;
use crate::scenario::units::FIBRE_NS_PER_KM;

pub(super) fn err<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, FieldError> {
    Err((field.into(), message.into()))
}

/// Checks that no name in the list is defined twice.
pub(super) fn unique<'a>(names: impl IntoIterator<Item = &'a str>, field: &str) -> Result<(), FieldError> {
    Names::new(names.into_iter().collect()).unique(field)
}

/// The shape of a distribution given with its optional coefficient of variation.
pub(super) fn shape(distribution: Distribution, cv: Option<f64>, field: &str) -> Result<Shape, FieldError> {
    Ok(match (distribution, cv) {
        // Up to 10: wider tails give draws beyond any run's length (and the clock's range).
        (Distribution::Lognormal, Some(cv)) if cv > 0.0 && cv <= 10.0 => Shape::lognormal_with_cv(cv),
        (Distribution::Lognormal, _) => {
            return err(format!("{field}.cv"), "lognormal needs cv, a coefficient of variation from above 0 to 10")
        }
        (_, Some(_)) => return err(format!("{field}.cv"), "cv applies to the lognormal distribution only"),
        (Distribution::Fixed, None) => Shape::Fixed,
        (Distribution::Exponential, None) => Shape::Exponential,
    })
}

pub(super) fn one_way(latency: Option<u64>, distance: Option<f64>, field: &str) -> Result<u64, FieldError> {
    match (latency, distance) {
        (Some(l), None) => Ok(l),
        (None, Some(d)) if d >= 0.0 => Ok((d * FIBRE_NS_PER_KM).round() as u64),
        (None, Some(_)) => err(format!("{field}.distance"), "must not be negative"),
        (None, None) => err(field, "give the one-way `latency` or the `distance`"),
        (Some(_), Some(_)) => err(field, "give `latency` or `distance`, not both"),
    }
}

/// A fraction from 0 to 1.
pub(super) fn fraction(value: f64, field: String) -> Result<f64, FieldError> {
    match (0.0..=1.0).contains(&value) {
        true => Ok(value),
        false => err(field, format!("{value} is not a fraction: allowed 0 to 1")),
    }
}
