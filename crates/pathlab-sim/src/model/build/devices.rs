//! The devices: each LUN checked against the arrays, hosts, RAID groups and replication it
//! names, its owning controller on each array that serves it, and its claim (`claim.rs`).

use super::claim::{self, Esxcli, LinuxClaims};
use super::values::err;
use crate::engine::level::Level;
use crate::model::names::Names;
use crate::model::names_per_host::NamesPerHost;
use crate::model::{Device, Model, Outage};
use crate::scenario::bounds;
use crate::scenario::error::FieldError;
use crate::scenario::schema::{HostSpec, ScenarioSpec};
use pathlab_policy::{AluaState, HostStack};
use std::borrow::Borrow;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

/// The device names, each defined once on its host: hosts sharing a LUN each see its NAA.
pub(super) fn names<'a>(spec: &'a ScenarioSpec, hosts: &'a [String]) -> Result<NamesPerHost<'a>, FieldError> {
    if spec.devices.is_empty() {
        return err("devices", "at least one device is needed");
    }
    let host_names = Names::new(hosts.iter().map(String::as_str).collect());
    let mut named = Vec::with_capacity(spec.devices.len());
    for (i, d) in spec.devices.iter().enumerate() {
        let host = match &d.host {
            Some(h) => host_names.find(h, &format!("devices.{i}.host"), "host")?,
            None => 0,
        };
        named.push((d.name.as_str(), host));
    }
    // A map kept as read but not simulated is printed back by its host's view: a host not in
    // the scenario would leave it out of every view without a word.
    for (i, u) in spec.unsimulated.iter().enumerate() {
        if let Some(h) = &u.host {
            host_names.find(h, &format!("unsimulated.{i}.host"), "host")?;
        }
    }
    let names = NamesPerHost::new(named, hosts, "device");
    names.unique("devices")?;
    Ok(names)
}

/// What each device is resolved against, and the LUN numbers taken so far.
pub(super) struct DeviceScope<'a> {
    spec: &'a ScenarioSpec,
    hosts: &'a [(String, &'a HostSpec)],
    device_names: &'a NamesPerHost<'a>,
    /// Each device's replication group, if it has one.
    replication_of: &'a [Option<usize>],
    esxcli: &'a Esxcli,
    array_names: Names<'a>,
    /// (array, LUN, host) of every device so far.
    luns_seen: HashSet<(usize, u32, usize)>,
    linux_claims: LinuxClaims,
    /// Each device's `preferred` controller (its index in the model), resolved once by name at
    /// `add`: `routes::connect` marks the paths to it. Build-local, so the Device record's hot
    /// lines stay as they are.
    pub(super) preferred: Vec<Option<usize>>,
}

impl<'a> DeviceScope<'a> {
    pub(super) fn new(
        spec: &'a ScenarioSpec,
        hosts: &'a [(String, &'a HostSpec)],
        device_names: &'a NamesPerHost<'a>,
        replication_of: &'a [Option<usize>],
        esxcli: &'a Esxcli,
    ) -> Self {
        DeviceScope {
            spec,
            hosts,
            device_names,
            replication_of,
            esxcli,
            array_names: Names::new(spec.arrays.iter().map(|a| a.name.as_str()).collect()),
            luns_seen: HashSet::new(),
            linux_claims: LinuxClaims::default(),
            preferred: Vec::with_capacity(spec.devices.len()),
        }
    }
}

/// Adds device `di` to the model, without paths; returns the field that set its policy.
pub(super) fn add(m: &mut Model, scope: &mut DeviceScope, di: usize) -> Result<String, FieldError> {
    let spec = scope.spec;
    let d = &spec.devices[di];
    let field = format!("devices.{di}");
    let array = scope.array_names.find(&d.array, &format!("{field}.array"), "array")?;
    let host = scope.device_names.host(di);
    bounds::within(d.queue_depth(), &bounds::QUEUE_DEPTH, bounds::QUEUE_DEPTH_WORDS)
        .map_err(|m| (format!("{field}.queue_depth"), m))?;
    if d.owner.is_some() && m.arrays[array].symmetric {
        return err(
            format!("{field}.owner"),
            format!("array \"{}\" is symmetric: every controller serves the LUN, none owns it", d.array),
        );
    }
    // The preferred bit is one of the ALUA states' report (REPORT TARGET PORT GROUPS' PREF): an
    // array that reports none, or reports one port group for every controller, has no port group
    // to prefer, and the key would be read by nothing.
    if d.preferred.is_some() && (m.arrays[array].symmetric || !m.arrays[array].tpgs) {
        let why = if m.arrays[array].symmetric {
            "is symmetric: one port group for every controller, none preferred over another"
        } else {
            "reports no ALUA/ANA states (tpgs = false): no port group reports the preferred bit"
        };
        return err(format!("{field}.preferred"), format!("array \"{}\" {why}", d.array));
    }
    if d.non_owner_state == Some(AluaState::ActiveOptimized) {
        return err(format!("{field}.non_owner_state"), super::arrays::NON_OWNER_ALLOWED);
    }
    if d.non_owner_state == Some(AluaState::Unavailable) && !m.arrays[array].tpgs {
        return err(
            format!("{field}.non_owner_state"),
            format!("unavailable, but array \"{}\" reports no ALUA/ANA states (tpgs = false): the host sees every path alike", d.array),
        );
    }
    if !scope.luns_seen.insert((array, d.lun, host)) {
        return err(
            format!("{field}.lun"),
            format!(
                "LUN {} is already used on array \"{}\" by host \"{}\": give each device its own number",
                d.lun, d.array, scope.hosts[host].1.name
            ),
        );
    }
    let replication = scope.replication_of[di];
    let raid_group = match &d.raid_group {
        None => None,
        Some(_) if replication.is_some() => {
            return err(format!("{field}.raid_group"), "a replicated device's back end is not modelled: leave it out")
        }
        Some(g) => {
            let key = format!("{}/{g}", d.array);
            match m.backends.groups.iter().position(|rg| rg.array == array && rg.name == key) {
                Some(i) => Some(i),
                None => {
                    let known: Vec<&str> = spec.arrays[array].raid_groups.iter().map(|r| r.name.as_str()).collect();
                    let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
                    return err(
                        format!("{field}.raid_group"),
                        format!("\"{g}\" is not a RAID group of array \"{}\" (its groups: {known})", d.array),
                    );
                }
            }
        }
    };
    let arrays_of_device: Vec<usize> = match replication {
        Some(g) => m.replications[g].arrays.to_vec(),
        None => vec![array],
    };
    // The owner is named on the device's own array; on a peer, the controller of that name
    // or else its first.
    let mut owners = Vec::new();
    let mut preferred = None;
    for &a in &arrays_of_device {
        let ctrls = &m.arrays[a].controllers;
        let names = Names::new(ctrls.iter().map(|&c| m.controllers[c].name.as_str()).collect());
        let owner = match &d.owner {
            Some(o) if a == array => ctrls[names.find(o, &format!("{field}.owner"), "controller")?],
            Some(o) => names.position(o).map_or(ctrls[0], |i| ctrls[i]),
            None => ctrls[0],
        };
        owners.push((a, owner));
        if a == array {
            if let Some(p) = &d.preferred {
                preferred = Some(ctrls[names.find(p, &format!("{field}.preferred"), "controller")?]);
            }
        }
    }
    let (esxcli, device_names) = (scope.esxcli, scope.device_names);
    let host_table = &scope.hosts[host];
    let claimed = claim::claim(spec, di, &m.arrays[array], host_table, esxcli, device_names, &mut scope.linux_claims)?;
    let last = m.devices.last();
    let (satp, given) = (shared(last.map(|l| &l.satp), claimed.satp), shared(last.map(|l| &l.given), claimed.given));
    m.devices.push(Device {
        name: d.name.as_str().into(),
        host,
        array,
        lun: d.lun,
        non_owner: d.non_owner_state,
        queue_depth: d.queue_depth(),
        bio_based: claimed.policy_config.host_stack() == HostStack::LinuxNvme,
        per_path_depth: claimed.policy_config.host_stack() == HostStack::LinuxDm,
        active: Level::default(),
        queued: Level::default(),
        queue: VecDeque::new(),
        queue_waits: false,
        no_path: VecDeque::new(),
        outage: Outage::None,
        counters: Default::default(),
        watch: Default::default(),
        failed: Default::default(),
        stack: claimed.stack,
        satp,
        // Under dm-multipath each device's claim is its own (`LinuxClaims::claim`): shared where equal to the last's.
        linux: shared(last.map(|l| &l.linux), claimed.linux),
        given,
        path_states: claimed.path_states,
        policy_config: claimed.policy_config,
        policy: claimed.policy,
        paths: Vec::new(),
        owners,
        replication,
        raid_group,
    });
    scope.preferred.push(preferred);
    Ok(claimed.policy_field)
}

/// `value` shared, or the last device's where equal: devices claimed alike (every device of an
/// array under one policy, as they are listed) share one copy of what the claim gave them.
fn shared<T: ?Sized + PartialEq, V: Borrow<T> + Into<Arc<T>>>(last: Option<&Arc<T>>, value: V) -> Arc<T> {
    match last {
        Some(last) if **last == *value.borrow() => Arc::clone(last),
        _ => value.into(),
    }
}
