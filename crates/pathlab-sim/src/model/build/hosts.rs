//! The hosts: their adapters (each with its host, NUMA node, queue and link) and the
//! pauses each host takes.

use super::values::{err, shape, unique};
use crate::engine::level::Level;
use crate::linux::MULTIPATH_TOOLS;
use crate::model::esxi_iscsi::EsxiIscsi;
use crate::model::pause::HostPauses;
use crate::model::{Adapter, Coalescing};
use crate::scenario::bounds;
use crate::scenario::error::FieldError;
use crate::scenario::schema::{CoalescingSpec, HostSpec, PauseSpec, ScenarioSpec};
use std::collections::VecDeque;

/// Every host's adapters, in host order; an adapter's `host` is its host's index in `hosts`.
pub(super) fn adapters(spec: &ScenarioSpec, hosts: &[(String, &HostSpec)]) -> Result<Vec<Adapter>, FieldError> {
    unique(hosts.iter().map(|(_, h)| h.name.as_str()), "hosts")?;
    // Unique per host, not over every host: every ESXi host has a vmhba1 (`names_per_host`).
    for (field, h) in hosts {
        unique(h.adapters.iter().map(|a| a.name.as_str()), &format!("{field}.adapters"))?;
    }
    let mut adapters = Vec::new();
    for (index, (field, host)) in hosts.iter().enumerate() {
        bounds::within(host.cpus, &bounds::CPUS, "1 to 8192 (Linux's largest NR_CPUS)")
            .map_err(|m| (format!("{field}.cpus"), m))?;
        if !bounds::NUMA_NODES.contains(&host.numa_nodes) || host.numa_nodes > host.cpus {
            return err(
                format!("{field}.numa_nodes"),
                format!("allowed 1 to {} (one CPU at least per node)", host.cpus),
            );
        }
        if let Some(release) = host.multipath_tools.as_deref().filter(|r| !MULTIPATH_TOOLS.contains(r)) {
            return err(
                format!("{field}.multipath_tools"),
                format!(
                    "\"{release}\": allowed {} (releases whose listings differ from today's), or leave it out",
                    MULTIPATH_TOOLS.join(", ")
                ),
            );
        }
        if host.adapters.is_empty() {
            return err(format!("{field}.adapters"), "at least one adapter is needed");
        }
        // The CPU topology policies see (`HostState`) is one for the run: a second host's own
        // would be ignored, so it is refused rather than dropped without a word.
        if index > 0 && (host.cpus, host.numa_nodes) != (spec.host.cpus, spec.host.numa_nodes) {
            return err(
                format!("{field}.cpus"),
                format!(
                    "every host shares [host]'s CPU topology ({} CPUs, {} NUMA nodes): leave cpus and numa_nodes out",
                    spec.host.cpus, spec.host.numa_nodes
                ),
            );
        }
        for (i, a) in host.adapters.iter().enumerate() {
            let at = format!("{field}.adapters.{i}");
            if a.name.is_empty()
                || a.name.contains([':', '/', '"', '\\', '(', ')'])
                || a.name.chars().any(char::is_whitespace)
            {
                return err(
                    format!("{at}.name"),
                    format!("\"{}\": an adapter name is one word without : / \" \\ ( ) (it is part of runtime names like vmhba1:C0:T0:L1; a zone writes HOST/NAME)", a.name),
                );
            }
            bounds::within(a.queue_depth, &bounds::QUEUE_DEPTH, bounds::QUEUE_DEPTH_WORDS)
                .map_err(|m| (format!("{at}.queue_depth"), m))?;
            if a.numa_node >= host.numa_nodes {
                return err(format!("{at}.numa_node"), format!("allowed 0 to {}", host.numa_nodes - 1));
            }
            // Speeds are bounded as they are read (`units::LINK_SPEED_RANGE`).
            let rate = a.link_speed.map(|r| r.0 / 1e9);
            adapters.push(Adapter {
                name: a.name.clone(),
                host: index,
                numa_node: a.numa_node,
                queue_depth: a.queue_depth,
                active: Level::default(),
                queued: Level::default(),
                waiting: VecDeque::new(),
                counters: Default::default(),
                bytes_per_ns: rate,
                tx_free_at: 0,
                rx_free_at: 0,
                coalescing: a.interrupt_coalescing.as_ref().map(|c| coalescing(c, &at)).transpose()?,
                esxi_iscsi: a.iscsi.as_ref().map(|i| EsxiIscsi::resolve(i, &at)).transpose()?,
            });
        }
    }
    Ok(adapters)
}

/// Each host's pauses, if it takes any.
pub(super) fn pauses(hosts: &[(String, &HostSpec)]) -> Result<Vec<Option<HostPauses>>, FieldError> {
    hosts.iter().map(|(field, h)| host_pauses(h.pauses.as_ref(), field)).collect()
}

fn host_pauses(spec: Option<&PauseSpec>, field: &str) -> Result<Option<HostPauses>, FieldError> {
    let Some(p) = spec else { return Ok(None) };
    bounds::long_enough(p.every.0, bounds::PAUSE_EVERY).map_err(|m| (format!("{field}.pauses.every"), m))?;
    bounds::long_enough(p.duration.0, bounds::PAUSE_DURATION).map_err(|m| (format!("{field}.pauses.duration"), m))?;
    let shape = shape(p.distribution, p.cv, &format!("{field}.pauses"))?;
    Ok(Some(HostPauses { mean_gap_ns: p.every.0 as f64, mean_duration_ns: p.duration.0 as f64, shape }))
}

/// `interrupt_coalescing` of an adapter, checked: a delay the firmware's timer can hold, a
/// threshold of one command or more.
fn coalescing(c: &CoalescingSpec, at: &str) -> Result<Coalescing, FieldError> {
    if !bounds::INTERRUPT_DELAY_NS.contains(&c.delay.0) {
        let us = c.delay.0 as f64 / 1e3;
        return err(
            format!("{at}.interrupt_coalescing.delay"),
            format!("{us}us is out of range: allowed {}", bounds::INTERRUPT_DELAY_WORDS),
        );
    }
    if c.threshold == Some(0) {
        return err(
            format!("{at}.interrupt_coalescing.threshold"),
            "must be at least 1 command (leave it out to hold every completion)",
        );
    }
    Ok(Coalescing { delay_ns: c.delay.0, threshold: c.threshold, ..Coalescing::default() })
}
