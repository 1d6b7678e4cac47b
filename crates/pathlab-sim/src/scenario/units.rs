//! Human units in scenario files: "26us", "8KiB", "16Gb", "50km", "300s".
//! Each quantity is a newtype whose name says its unit once parsed.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// One-way delay of light in optical fibre: about 5 µs per km (refractive index ~1.47).
pub const FIBRE_NS_PER_KM: f64 = 5_000.0;

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_')).unwrap_or(s.len());
    let number: f64 = s[..end].replace('_', "").parse().ok()?;
    Some((number, s[end..].trim()))
}

fn parse_with(s: &str, units: &[(&str, f64)]) -> Result<f64, String> {
    let allowed = || units.iter().map(|u| u.0).filter(|u| !u.is_empty()).collect::<Vec<_>>().join(", ");
    let (number, unit) =
        split_number(s).ok_or_else(|| format!("\"{s}\" is not a number with a unit (units: {})", allowed()))?;
    units
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|(_, scale)| number * scale)
        .ok_or_else(|| format!("\"{s}\": unknown unit \"{unit}\" (units: {})", allowed()))
}

const DURATION_UNITS: &[(&str, f64)] =
    &[("ns", 1.0), ("us", 1e3), ("µs", 1e3), ("ms", 1e6), ("s", 1e9), ("min", 60e9), ("h", 3600e9)];
const SIZE_UNITS: &[(&str, f64)] = &[
    ("B", 1.0),
    ("KiB", 1024.0),
    ("MiB", 1048576.0),
    ("GiB", 1073741824.0),
    ("TiB", 1099511627776.0),
    ("KB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("TB", 1e12),
];
/// Link speeds in bits or bytes per second, converted to bytes per second.
const RATE_UNITS: &[(&str, f64)] = &[
    ("Mb", 1e6 / 8.0),
    ("Gb", 1e9 / 8.0),
    ("Mbps", 1e6 / 8.0),
    ("Gbps", 1e9 / 8.0),
    ("Mb/s", 1e6 / 8.0),
    ("Gb/s", 1e9 / 8.0),
    ("MB/s", 1e6),
    ("GB/s", 1e9),
    ("MiB/s", 1048576.0),
    ("GiB/s", 1073741824.0),
];
const DISTANCE_UNITS: &[(&str, f64)] = &[("m", 1e-3), ("km", 1.0)];

pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    Ok(parse_with(s, DURATION_UNITS)?.round() as u64)
}

pub fn parse_bytes(s: &str) -> Result<u64, String> {
    Ok(parse_with(s, SIZE_UNITS)?.round() as u64)
}

/// A string-only unit quantity: a bare number is refused because its unit would be a guess.
macro_rules! unit_type {
    ($name:ident, $inner:ty, $what:literal, $example:literal, $parse:expr) => {
        #[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Default)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        write!(f, "{} with a unit, like \"{}\"", $what, $example)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        let parse: fn(&str) -> Result<$inner, String> = $parse;
                        parse(s).map($name).map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

unit_type!(DurationNs, u64, "a duration", "26us", parse_duration_ns);
unit_type!(Bytes, u64, "a size", "8KiB", parse_bytes);
unit_type!(BytesPerSec, f64, "a link speed", "16Gb", |s| parse_with(s, RATE_UNITS));
unit_type!(Kilometres, f64, "a distance", "50km", |s| parse_with(s, DISTANCE_UNITS));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_convert_to_base_units() {
        assert_eq!(parse_duration_ns("26us").unwrap(), 26_000);
        assert_eq!(parse_duration_ns("1.5ms").unwrap(), 1_500_000);
        assert_eq!(parse_duration_ns("300s").unwrap(), 300_000_000_000);
        assert_eq!(parse_bytes("8KiB").unwrap(), 8192);
        assert_eq!(parse_bytes("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_with("16Gb", RATE_UNITS).unwrap(), 2e9);
        assert_eq!(parse_with("50km", DISTANCE_UNITS).unwrap(), 50.0);
    }

    #[test]
    fn bad_units_name_what_is_allowed() {
        let err = parse_duration_ns("26 parsecs").unwrap_err();
        assert!(err.contains("unknown unit \"parsecs\""), "{err}");
        assert!(err.contains("us, µs, ms"), "{err}");
        assert!(parse_bytes("lots").unwrap_err().contains("not a number"));
    }
}
