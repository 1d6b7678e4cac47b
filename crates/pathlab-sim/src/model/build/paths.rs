//! Path discovery: a device's paths, one for each zoned pair of its host's adapters and its
//! arrays' ports, in discovery order (by adapter, then by target number), each with its runtime
//! name, the ALUA state its array reports and its target port group.

use std::collections::VecDeque;

use super::fabric::Zoning;
use super::values::err;
use crate::model::{Model, Path};
use crate::scenario::error::FieldError;

/// Discovers the paths of device `di`, whose LUN number is `lun`; `rtp_ids` are the ports'
/// relative target port ids.
pub(super) fn discover(m: &mut Model, di: usize, lun: u32, zoning: &Zoning, rtp_ids: &[u32]) -> Result<(), FieldError> {
    let host = m.devices[di].host;
    for (a, ports_of_adapter) in zoning.targets.iter().enumerate().filter(|&(a, _)| m.adapters[a].host == host) {
        for &(c, t, p) in ports_of_adapter {
            let port_array = m.ports[p].array;
            if !m.devices[di].owners.iter().any(|&(served_by, _)| served_by == port_array) {
                continue;
            }
            let nexus = *zoning.nexus_of.get(&(a, p)).expect("zoned pair");
            let alua = m.reported_alua(di, p);
            let path = Path {
                name: format!("{}:C{}:T{}:L{}", m.adapters[a].name, c, t, lun).into(),
                device: di,
                adapter: a,
                port: p,
                nexus,
                one_way_ns: zoning.nexuses[nexus].one_way_ns,
                up: true,
                failed_at_ns: 0,
                lost_at_ns: None,
                losses: 0,
                reset_at_ns: None,
                blocked: false,
                cuts: 0,
                connected: true,
                errors: None,
                added_latency_ns: 0,
                counters: Default::default(),
                drain: None,
                alua,
                ana_change: false,
                transitioning: false,
                // Symmetric arrays report one target port group (FlashArray, PowerMax); arrays
                // with LUN ownership one per controller.
                tpg_id: if m.arrays[port_array].symmetric {
                    m.arrays[port_array].controllers[0] as u32 + 1
                } else {
                    m.ports[p].controller as u32 + 1
                },
                rtp_id: rtp_ids[p],
                routes: [0, 0],
                active: 0,
                waiting: VecDeque::new(),
            };
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
