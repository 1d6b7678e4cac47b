//! Limits on what a scenario may ask for, derived from memory, checked before anything is
//! allocated or simulated. Each error names the field and the limit.

use super::schema::{FaultSpec, ScenarioSpec};
use crate::scenario::error::FieldError;
use pathlab_policy::{HostStack, MarginalPathgroups, PolicyConfig};

/// The most I/Os alive at once (about 100 bytes each): an open-loop rate that the paths cannot
/// serve piles I/Os up without end, and the run stops there rather than exhaust memory.
pub const MAX_LIVE_IOS: usize = 4_000_000;

/// Per-interval figures are kept for every object (host, device, path, adapter), about 200
/// bytes a row: 2,000,000 rows is about 400 MB.
pub const MAX_INTERVAL_ROWS: u64 = 2_000_000;
pub const MAX_DEVICES: usize = 100_000;
pub const MAX_ADAPTERS: usize = 4_096;

/// The error of a scenario with more than `MAX_ADAPTERS` adapters (said by `check`, and by the
/// model's build where a path's record cannot hold the adapter's index).
pub fn too_many_adapters() -> FieldError {
    ("host.adapters".into(), format!("at most {MAX_ADAPTERS} adapters"))
}

/// Checks the counts of a scenario; `paths` is the number of paths the zoning makes.
pub fn check(spec: &ScenarioSpec, paths: usize) -> Result<(), FieldError> {
    if spec.devices.len() > MAX_DEVICES {
        return Err(("devices".into(), format!("{} devices: at most {MAX_DEVICES}", spec.devices.len())));
    }
    let adapters: usize = spec.host.adapters.len() + spec.hosts.iter().map(|h| h.adapters.len()).sum::<usize>();
    if adapters > MAX_ADAPTERS {
        return Err(too_many_adapters());
    }
    let mut outstanding: u64 = 0;
    for (i, w) in spec.workloads.iter().enumerate() {
        if let Some(n) = w.outstanding {
            outstanding += u64::from(n) * w.devices.len() as u64;
            if outstanding > MAX_LIVE_IOS as u64 {
                return Err((
                    format!("workloads.{i}.outstanding"),
                    format!("{n}: at most {MAX_LIVE_IOS} I/Os outstanding in all (about 100 bytes each)"),
                ));
            }
        }
    }
    dirty_records(spec)?;
    let run = &spec.run;
    let end = run.warmup.0 + run.duration.0;
    if run.interval.0 > 0 {
        // Boundaries every interval up to the warm-up, then from it to the end.
        let intervals = run.warmup.0.div_ceil(run.interval.0) + run.duration.0.div_ceil(run.interval.0);
        let objects = interval_objects(spec, paths);
        if intervals.saturating_mul(objects) > MAX_INTERVAL_ROWS {
            let shortest = (end as u128 * objects as u128).div_ceil(MAX_INTERVAL_ROWS as u128);
            return Err((
                "run.interval".into(),
                format!(
                    "{intervals} intervals × {objects} objects is too many rows of interval figures (at most \
                     {MAX_INTERVAL_ROWS}): use an interval of at least {} ms",
                    shortest.div_ceil(1_000_000)
                ),
            ));
        }
    }
    Ok(())
}

/// The objects that get a row of interval figures each: the host's summary, every device, path
/// (`paths`: the zoning's) and adapter. A cluster's import sizes its interval by it.
pub fn interval_objects(spec: &ScenarioSpec, paths: usize) -> u64 {
    let adapters = spec.host.adapters.len() + spec.hosts.iter().map(|h| h.adapters.len()).sum::<usize>();
    1 + spec.devices.len() as u64 + paths as u64 + adapters as u64
}

/// Settings that are legal but probably not what was meant: one line each, for stderr.
/// Writes a write cache may hold at once (`model::backend`: one record of 24 bytes each, so
/// about 100 MB): its size over the smallest write any workload makes.
pub const MAX_DIRTY_RECORDS: u64 = 4_000_000;

fn dirty_records(spec: &ScenarioSpec) -> Result<(), FieldError> {
    let smallest = spec
        .workloads
        .iter()
        .flat_map(|w| match (&w.block_size, &w.bssplit) {
            (_, Some(split)) => split.iter().map(|s| s.0 .0).collect(),
            (Some(b), None) => vec![b.0],
            (None, None) => vec![8192],
        })
        .filter(|&b| b > 0)
        .min()
        .unwrap_or(8192);
    for (i, a) in spec.arrays.iter().enumerate() {
        let Some(size) = a.cache.as_ref().and_then(|c| c.write_size) else { continue };
        if size.0 / smallest > MAX_DIRTY_RECORDS {
            let most = MAX_DIRTY_RECORDS * smallest;
            return Err((
                format!("arrays.{i}.cache.write_size"),
                format!("holds more than {MAX_DIRTY_RECORDS} writes of {smallest} bytes: at most {most} bytes"),
            ));
        }
    }
    Ok(())
}

pub fn warnings(spec: &ScenarioSpec) -> Vec<(String, String)> {
    let end = spec.run.warmup.0 + spec.run.duration.0;
    let mut out: Vec<(String, String)> = spec
        .faults
        .iter()
        .enumerate()
        .filter(|(_, f)| f.starts_at().0 >= end)
        .map(|(i, f)| {
            let message = format!(
                "starts at {} s, at or after the end of the run ({} s): it never happens",
                f.starts_at().0 as f64 / 1e9,
                end as f64 / 1e9
            );
            (format!("faults.{i}"), message)
        })
        .collect();
    // Non-owners that reject I/O on an array that reports no access states: no host can tell
    // which paths to avoid, and every policy sends I/O there to be rejected.
    for (i, a) in spec.arrays.iter().enumerate() {
        if !a.tpgs && a.non_owner_state == pathlab_policy::AluaState::Unavailable {
            let message = "non_owner_state is unavailable (I/O through a non-owner is rejected) but the array \
                           reports no ALUA/ANA states (tpgs = false): hosts see every path alike";
            out.push((format!("arrays.{i}.tpgs"), message.to_string()));
        }
    }
    // The NVMe connect options size tag maps that only Linux NVMe heads use.
    let nvme_head = |d: &crate::scenario::schema::DeviceSpec| {
        d.policy.as_ref().or(spec.policy.as_ref()).is_some_and(|p| p.config.host_stack() == HostStack::LinuxNvme)
    };
    // Nor does a device queue depth: an NVMe head is bio-based, its limit the controllers' tags.
    for (i, d) in spec.devices.iter().enumerate() {
        if d.queue_depth.is_some() && nvme_head(d) {
            let message = "a Linux NVMe head has no device queue: the controllers' blk-mq tags limit it \
                           (host.stack.nvme_queue_size, nvme_io_queues)";
            out.push((format!("devices.{i}.queue_depth"), message.to_string()));
        }
    }
    if !spec.devices.iter().any(nvme_head) {
        for (field, host) in spec.every_host() {
            let given =
                [("nvme_queue_size", host.stack.nvme_queue_size), ("nvme_io_queues", host.stack.nvme_io_queues)];
            for (name, _) in given.iter().filter(|(_, v)| v.is_some()) {
                let message = "no device is a Linux NVMe head (policy nvme): the setting does nothing";
                out.push((format!("{field}.stack.{name}"), message.to_string()));
            }
        }
    }
    // A marginal-path notice changes nothing on stacks without FPIN handling: say so rather
    // than let the fault pass unnoticed.
    if !spec.faults.iter().any(|f| matches!(f, FaultSpec::Marginal(_)))
        || spec
            .devices
            .iter()
            .any(|d| d.policy.as_ref().or(spec.policy.as_ref()).is_some_and(|p| reacts_to_fpin(&p.config)))
    {
        return out;
    }
    for (i, f) in spec.faults.iter().enumerate() {
        if matches!(f, FaultSpec::Marginal(_)) {
            let message = "no device's policy acts on a marginal-path notice (NVMe does; dm-multipath with \
                           marginal_pathgroups on or fpin does): the fault changes nothing";
            out.push((format!("faults.{i}"), message.to_string()));
        }
    }
    out
}

/// Whether a policy's stack acts on FPIN marginal-path notices.
fn reacts_to_fpin(policy: &PolicyConfig) -> bool {
    match policy {
        PolicyConfig::Nvme(_) => true,
        PolicyConfig::DmMultipath(c) => c.marginal_pathgroups != MarginalPathgroups::Off,
        _ => false,
    }
}
