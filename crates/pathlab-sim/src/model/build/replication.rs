//! Replication: the groups of devices two arrays keep in step, the link between them and
//! its contention for extents.

use super::values::{err, one_way};
use crate::model::contention::{Contention, NOT_IN_GROUP};
use crate::model::names::Names;
use crate::model::names_per_host::NamesPerHost;
use crate::model::{Array, Replication};
use crate::scenario::error::FieldError;
use crate::scenario::schema::ScenarioSpec;

/// Replication groups, and for each device the group it belongs to.
pub(super) struct ReplicationPlan {
    pub(super) groups: Vec<Replication>,
    pub(super) group_of: Vec<Option<usize>>,
}

pub(super) fn plan(
    spec: &ScenarioSpec,
    arrays: &[Array],
    device_names: &NamesPerHost,
) -> Result<ReplicationPlan, FieldError> {
    let array_names = Names::new(arrays.iter().map(|a| a.name.as_str()).collect());
    let mut groups = Vec::new();
    let mut of_device = vec![None; spec.devices.len()];
    for (ri, r) in spec.replication.iter().enumerate() {
        let field = format!("replication.{ri}");
        if r.arrays.len() != 2 {
            return err(format!("{field}.arrays"), "name exactly two arrays");
        }
        let a = array_names.find(&r.arrays[0], &format!("{field}.arrays.0"), "array")?;
        let b = array_names.find(&r.arrays[1], &format!("{field}.arrays.1"), "array")?;
        if a == b {
            return err(format!("{field}.arrays"), "an array cannot replicate to itself");
        }
        let latency = one_way(r.latency.map(|l| l.0), r.distance.map(|d| d.0), &field)?;
        let bandwidth = r.bandwidth.map(|b| b.0 / 1e9);
        let pref = match &r.preferred_array {
            None => None,
            Some(p) if *p == r.arrays[0] => Some(a),
            Some(p) if *p == r.arrays[1] => Some(b),
            Some(p) => {
                return err(
                    format!("{field}.preferred_array"),
                    format!("\"{p}\" is not one of this group's arrays: {}, {}", r.arrays[0], r.arrays[1]),
                )
            }
        };
        let mut contention = match &r.contention {
            None => None,
            Some(c) if c.extent.0 == 0 => return err(format!("{field}.contention.extent"), "must be above zero"),
            Some(c) => Some(Contention::new(c.extent.0, c.grant_cost.0)),
        };
        // A LUN of the group is its name: every host's entry for it, on either array and under
        // either array's LUN number, shares its tracks.
        let mut luns: Vec<&str> = Vec::new();
        let mut lun_of = vec![NOT_IN_GROUP; spec.devices.len()];
        if r.devices.is_empty() {
            return err(format!("{field}.devices"), "name at least one device");
        }
        for (k, d) in r.devices.iter().enumerate() {
            let di = device_names.find(d, &format!("{field}.devices.{k}"))?;
            if of_device[di].is_some() {
                return err(format!("{field}.devices.{k}"), format!("\"{d}\" is already in a replication group"));
            }
            if spec.devices[di].array != r.arrays[0] && spec.devices[di].array != r.arrays[1] {
                return err(
                    format!("{field}.devices.{k}"),
                    format!("\"{d}\" lives on array \"{}\", not on this group's arrays", spec.devices[di].array),
                );
            }
            of_device[di] = Some(groups.len());
            let name = spec.devices[di].name.as_str();
            lun_of[di] = luns.iter().position(|n| *n == name).unwrap_or_else(|| {
                luns.push(name);
                luns.len() - 1
            }) as u32;
        }
        if let Some(c) = contention.as_mut() {
            c.lun_of = lun_of;
        }
        groups.push(Replication {
            suspended: false,
            name: if r.name.is_empty() { format!("{}-{}", r.arrays[0], r.arrays[1]) } else { r.name.clone() },
            arrays: [a, b],
            one_way_ns: latency,
            bytes_per_ns: bandwidth,
            free_at: [0, 0],
            contention,
            writes: [0, 0],
            preferred_array: pref,
        });
    }
    Ok(ReplicationPlan { groups, group_of: of_device })
}
