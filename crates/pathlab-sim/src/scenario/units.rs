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

/// The longest time a scenario may name (100 days): sums of a few such times (warm-up plus
/// duration plus a timeout) stay far inside the engine's 64-bit nanosecond clock.
pub const MAX_DURATION_NS: u64 = 100 * 24 * 3_600_000_000_000;
/// The largest size a scenario may name (1 EiB): byte counts and offsets stay inside 64 bits.
pub const MAX_BYTES: u64 = 1 << 60;

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
    ("PiB", 1125899906842624.0),
    ("KB", 1e3),
    ("MB", 1e6),
    ("GB", 1e9),
    ("TB", 1e12),
];
/// Link speeds in bits or bytes per second, converted to bytes per second. Fibre Channel's
/// speed names carry 100 MB/s of payload per "G" in every generation (4GFC: 4.25 Gbaud with
/// 8b/10b, 400 MB/s; 16GFC: 14.025 Gbaud with 64b/66b, 1,600 MB/s; FC-PI-5/6, the FCIA
/// roadmap), not the bit rate the name suggests: "16GFC" is 1,600 MB/s where "16Gb" is 2,000.
const RATE_UNITS: &[(&str, f64)] = &[
    ("GFC", 1e8),
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

/// A value in base units, refused above `max` (also when it is not a finite number).
fn bounded(s: &str, value: f64, max: u64, limit: &str) -> Result<u64, String> {
    if value.is_finite() && value <= max as f64 {
        Ok(value.round() as u64)
    } else {
        Err(format!("\"{s}\" is too large: at most {limit}"))
    }
}

pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    bounded(s, parse_with(s, DURATION_UNITS)?, MAX_DURATION_NS, "100 days (2400h)")
}

pub fn parse_bytes(s: &str) -> Result<u64, String> {
    bounded(s, parse_with(s, SIZE_UNITS)?, MAX_BYTES, "1 EiB (1024PiB)")
}

/// The slowest and fastest link a scenario may name, in bytes per second: 1 Mb/s (below any
/// storage link still in service) to 1 TB/s (ten times 800 Gb Ethernet, the fastest link
/// shipping). A speed outside them is a typo, and near zero the time to send one I/O would
/// leave the engine's 64-bit clock.
pub const LINK_SPEED_RANGE: (f64, f64) = (125_000.0, 1e12);
/// The longest fibre route a scenario may name: once round the Earth (40,000 km, 0.2 s one
/// way), so that every trip stays within the bounds of times.
pub const MAX_DISTANCE_KM: f64 = 40_000.0;

/// A link speed, refused outside `LINK_SPEED_RANGE` (and when not a finite number).
fn parse_link_speed(s: &str) -> Result<f64, String> {
    let value = parse_with(s, RATE_UNITS)?;
    let (least, most) = LINK_SPEED_RANGE;
    if value.is_finite() && (least..=most).contains(&value) {
        Ok(value)
    } else {
        Err(format!("\"{s}\" is out of range: allowed 1Mb (1 Mb/s) to 1TB/s"))
    }
}

/// A distance, refused beyond `MAX_DISTANCE_KM` (and when not a finite number).
fn parse_distance(s: &str) -> Result<f64, String> {
    let value = parse_with(s, DISTANCE_UNITS)?;
    if value.is_finite() && value <= MAX_DISTANCE_KM {
        Ok(value)
    } else {
        Err(format!("\"{s}\" is out of range: at most 40000km (once round the Earth)"))
    }
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
unit_type!(BytesPerSec, f64, "a link speed", "16Gb", parse_link_speed);
unit_type!(Kilometres, f64, "a distance", "50km", parse_distance);

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
        assert_eq!(parse_with("16GFC", RATE_UNITS).unwrap(), 1.6e9);
        assert_eq!(parse_with("4GFC", RATE_UNITS).unwrap(), 4e8);
        assert_eq!(parse_with("50km", DISTANCE_UNITS).unwrap(), 50.0);
    }

    #[test]
    fn bad_units_name_what_is_allowed() {
        let err = parse_duration_ns("26 parsecs").unwrap_err();
        assert!(err.contains("unknown unit \"parsecs\""), "{err}");
        assert!(err.contains("us, µs, ms"), "{err}");
        assert!(parse_bytes("lots").unwrap_err().contains("not a number"));
    }

    #[test]
    fn values_beyond_the_engines_range_are_refused_not_wrapped() {
        assert_eq!(parse_duration_ns("2400h").unwrap(), MAX_DURATION_NS);
        let err = parse_duration_ns("9999999999999h").unwrap_err();
        assert!(err.contains("too large: at most 100 days"), "{err}");
        assert!(parse_duration_ns("99999999999h").is_err());
        assert!(parse_bytes("2048PiB").unwrap_err().contains("at most 1 EiB"));
        let huge = format!("{}Gb", "9".repeat(400));
        assert!(parse_link_speed(&huge).unwrap_err().contains("out of range"));
    }

    #[test]
    fn speeds_and_distances_outside_what_a_real_network_has_are_refused() {
        assert_eq!(parse_link_speed("1Mb").unwrap(), 125_000.0);
        assert_eq!(parse_link_speed("1000GB/s").unwrap(), 1e12);
        let crawl = parse_link_speed("0.000000000000001Gb").unwrap_err();
        assert!(crawl.contains("allowed 1Mb (1 Mb/s) to 1TB/s"), "{crawl}");
        assert!(parse_link_speed("2000GB/s").is_err());
        assert_eq!(parse_distance("40000km").unwrap(), 40_000.0);
        assert!(parse_distance("100000000000000000km").unwrap_err().contains("at most 40000km"));
    }
}
