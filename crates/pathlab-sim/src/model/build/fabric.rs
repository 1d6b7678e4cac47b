//! The fabric: which adapter reaches which array port (each pair an I_T nexus), how far away,
//! and the target number the adapter gives each of its ports.

use super::values::{err, one_way};
use crate::model::names::Names;
use crate::model::names_per_host::{adapter_named, adapters_written};
use crate::model::Adapter;
use crate::scenario::error::FieldError;
use crate::scenario::schema::ScenarioSpec;
use std::collections::HashMap;

/// The zoning as paths are discovered over it.
pub(super) struct Zoning {
    /// Every (adapter, port) pair, in zoning order: a pair's index is its nexus.
    pub(super) nexuses: Vec<Zoned>,
    /// Each adapter's ports by channel and target number: as given, or channel 0 and targets
    /// 0, 1, … in order of appearance.
    pub(super) targets: Vec<Vec<(u32, u32, usize)>>,
    /// The nexus of an (adapter, port) pair.
    pub(super) nexus_of: HashMap<(usize, usize), usize>,
}

pub(super) fn zoning(
    spec: &ScenarioSpec,
    adapters: &[Adapter],
    hosts: &[String],
    port_keys: &[String],
) -> Result<Zoning, FieldError> {
    let nexuses = zoned_pairs(spec, adapters, hosts, port_keys)?;
    let mut targets: Vec<Vec<(u32, u32, usize)>> = vec![Vec::new(); adapters.len()];
    for &Zoned { adapter: a, port: p, channel: c, target, .. } in &nexuses {
        let t = target.unwrap_or(targets[a].len() as u32);
        if targets[a].iter().any(|&(d, u, _)| (d, u) == (c, t)) {
            let on = if c == 0 { String::new() } else { format!(" channel {c} of") };
            let adapter = &adapters_written(adapters, hosts)[a];
            return err("fabric", format!("target number {t} is given twice on{on} adapter {adapter}"));
        }
        targets[a].push((c, t, p));
    }
    for ports_of_adapter in &mut targets {
        ports_of_adapter.sort_by_key(|&(c, t, _)| (c, t));
    }
    let nexus_of = nexuses.iter().enumerate().map(|(i, z)| ((z.adapter, z.port), i)).collect();
    Ok(Zoning { nexuses, targets, nexus_of })
}

/// (adapter, port, one-way latency) in zoning order.
fn zoned_pairs(
    spec: &ScenarioSpec,
    adapters: &[Adapter],
    hosts: &[String],
    port_keys: &[String],
) -> Result<Vec<Zoned>, FieldError> {
    let keys = Names::new(port_keys.iter().map(String::as_str).collect());
    let mut zoned = std::collections::HashSet::new();
    if spec.fabric.is_empty() {
        return err("fabric", "no zoning: add a [[fabric]] table connecting adapters to ports");
    }
    let mut nexuses = Vec::new();
    for (fi, f) in spec.fabric.iter().enumerate() {
        let latency = one_way(f.latency.map(|l| l.0), f.distance.map(|d| d.0), &format!("fabric.{fi}"))?;
        if let Some(t) = &f.targets {
            if t.len() != f.ports.len() {
                let n = f.ports.len();
                return err(
                    format!("fabric.{fi}.targets"),
                    format!("one target number per port: {n} ports, {} numbers", t.len()),
                );
            }
        }
        for (k, an) in f.adapters.iter().enumerate() {
            let a = adapter_named(adapters, hosts, an, &format!("fabric.{fi}.adapters.{k}"))?;
            for (k, pn) in f.ports.iter().enumerate() {
                let p = keys.find(pn, &format!("fabric.{fi}.ports.{k}"), "port (write array/port)")?;
                if !zoned.insert((a, p)) {
                    return err(format!("fabric.{fi}"), format!("{an} is zoned to {pn} twice"));
                }
                nexuses.push(Zoned {
                    fabric: fi,
                    adapter: a,
                    port: p,
                    one_way_ns: latency,
                    channel: f.channel,
                    target: f.targets.as_ref().map(|t| t[k]),
                });
            }
        }
    }
    Ok(nexuses)
}

/// One (adapter, port) pair of the zoning: its one-way latency and the target number given for
/// it, if any.
#[derive(Clone, Copy)]
pub(super) struct Zoned {
    /// The `[[fabric]]` table it is zoned in.
    pub(super) fabric: usize,
    pub(super) adapter: usize,
    pub(super) port: usize,
    pub(super) one_way_ns: u64,
    channel: u32,
    target: Option<u32>,
}
