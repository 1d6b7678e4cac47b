//! Path discovery: a device's paths, one for each zoned pair of its host's adapters and its
//! arrays' ports, in discovery order (by adapter, then by target number), each with its runtime
//! name, the ALUA state its array reports and its target port group.

use std::sync::Arc;

use super::fabric::Zoning;
use super::values::err;
use crate::model::{Model, Path};
use crate::scenario::error::FieldError;
use crate::scenario::limits::too_many_adapters;

/// Discovers the paths of device `di`, whose LUN number is `lun`; `rtp_ids` are the ports'
/// relative target port ids.
pub(super) fn discover(m: &mut Model, di: usize, lun: u32, zoning: &Zoning, rtp_ids: &[u32]) -> Result<(), FieldError> {
    let host = m.devices[di].host;
    let mut name = String::new();
    for (a, ports_of_adapter) in zoning.targets.iter().enumerate().filter(|&(a, _)| m.adapters[a].host == host) {
        for &(c, t, p) in ports_of_adapter {
            let port_array = m.ports[p].array;
            if !m.devices[di].owners.iter().any(|&(served_by, _)| served_by == port_array) {
                continue;
            }
            let nexus = *zoning.nexus_of.get(&(a, p)).expect("zoned pair");
            let alua = m.reported_alua(di, p);
            // Symmetric arrays report one target port group (FlashArray, PowerMax); arrays
            // with LUN ownership one per controller.
            let tpg_id = if m.arrays[port_array].symmetric {
                m.arrays[port_array].controllers[0] as u32 + 1
            } else {
                m.ports[p].controller as u32 + 1
            };
            let name = runtime_name(&mut name, &m.adapters[a].name, [c, t, lun]);
            let one_way_ns = zoning.nexuses[nexus].one_way_ns;
            let path = Path::discovered(name, di, adapter_index(a)?, p, nexus, one_way_ns, alua, tpg_id, rtp_ids[p]);
            m.devices[di].paths.push(m.paths.len());
            m.paths.push(path);
        }
    }
    if m.devices[di].paths.is_empty() {
        let device = &m.devices[di];
        return err(
            format!("devices.{di}"),
            format!(
                "no path: no adapter of host \"{}\" is zoned to a port of array \"{}\"",
                m.host_names[host], m.arrays[device.array].name
            ),
        );
    }
    Ok(())
}

/// A path's runtime name, `ADAPTER:C<channel>:T<target>:L<LUN>`, written in `scratch`: piece by
/// piece rather than by `format!`, whose formatting machinery was a fifth of a cluster's build
/// (32 hosts × 500 devices × 8 paths: 128,000 names, about 1,500 instructions each).
fn runtime_name(scratch: &mut String, adapter: &str, [channel, target, lun]: [u32; 3]) -> Arc<str> {
    scratch.clear();
    scratch.push_str(adapter);
    for (tag, number) in [(":C", channel), (":T", target), (":L", lun)] {
        scratch.push_str(tag);
        push_decimal(scratch, number);
    }
    Arc::from(scratch.as_str())
}

/// `number` in decimal, as `Display` writes it.
fn push_decimal(out: &mut String, mut number: u32) {
    let mut digits = [0u8; 10];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (number % 10) as u8;
        number /= 10;
        if number == 0 {
            break;
        }
    }
    out.extend(digits[start..].iter().map(|&d| char::from(d)));
}

/// A path's adapter index, in the 16 bits its record holds: more adapters than that is the
/// adapter limit's error (`scenario::limits::check`, checked after the build, would say the same).
fn adapter_index(a: usize) -> Result<u16, FieldError> {
    u16::try_from(a).map_err(|_| too_many_adapters())
}

#[cfg(test)]
mod tests {
    use super::{adapter_index, runtime_name};

    #[test]
    fn a_runtime_name_is_written_as_format_writes_it() {
        let mut scratch = String::from("left over");
        for numbers in [[0, 0, 0], [0, 3, 17], [9, 10, 99], [1, 100, 1_000_000], [u32::MAX, 7, 4_294_967_294]] {
            let [c, t, l] = numbers;
            assert_eq!(&*runtime_name(&mut scratch, "vmhba64", numbers), format!("vmhba64:C{c}:T{t}:L{l}"));
        }
        assert_eq!(&*runtime_name(&mut scratch, "", [1, 2, 3]), ":C1:T2:L3");
    }

    /// An adapter index a path's 16 bits hold is kept; one past them is the adapter limit's
    /// error, named as `scenario::limits::check` names it, not a panic.
    #[test]
    fn an_adapter_past_sixteen_bits_is_the_limit_s_error() {
        assert_eq!(adapter_index(65_535), Ok(65_535));
        let (field, message) = adapter_index(65_536).unwrap_err();
        assert_eq!((field.as_str(), message.as_str()), ("host.adapters", "at most 4096 adapters"));
        assert_eq!(adapter_index(usize::from(u16::MAX) + 1), Err(crate::scenario::limits::too_many_adapters()));
    }
}
