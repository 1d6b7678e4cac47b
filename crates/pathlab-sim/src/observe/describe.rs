//! The configuration as the host's own tools show it: each device with its array-type plugin,
//! policy and working paths (`esxcli storage nmp device list`), each path with its group state
//! and ALUA target port group (`esxcli storage nmp path list`), and the policy's path groups
//! (`multipath -ll`). Taken from the model at any moment of a run. It holds every host's
//! devices, each naming its host; a view shows one host's, as that host's tools would.

use crate::linux::claim::{self, Setting};
use crate::model::Model;
use crate::nmp::views;
use pathlab_policy::{AluaState, GroupState, NoPathRetry, PathId, PolicyConfig, PolicyStatus};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct DeviceView {
    pub name: String,
    /// The host that sees it.
    pub host: String,
    pub display_name: String,
    pub vendor: String,
    pub model: String,
    pub satp: String,
    pub satp_config: String,
    pub psp: String,
    pub psp_config: String,
    pub working_paths: Vec<String>,
    pub groups: Vec<GroupView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GroupView {
    pub priority: i32,
    /// active, enabled or disabled.
    pub state: String,
    pub selector: String,
    pub paths: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PathView {
    pub name: String,
    pub device: String,
    /// The host whose adapter it leaves from.
    pub host: String,
    pub adapter: String,
    pub target: String,
    /// `esxcli storage nmp path list`'s Group State: active, active unoptimized, standby, dead.
    pub group_state: String,
    /// The ALUA state the array reports: AO, ANO, STBY, UNAV.
    pub alua: String,
    pub tpg_id: u32,
    pub rtp_id: u32,
    pub satp_path_config: String,
    pub psp_path_config: String,
    pub up: bool,
}

/// What a Linux host's `multipath -ll` shows beyond the esxcli views: SCSI host numbers and,
/// per map, its features and hardware handler.
#[derive(Debug, Clone, Serialize)]
pub struct LinuxFacts {
    /// Every host's adapters in order: on one host, SCSI host `N` (the `H` of `H:C:T:L`) is
    /// the N-th of that host's (`Description::hosts`).
    pub hosts: Vec<String>,
    /// One per device, in the order of `devices`.
    pub devices: Vec<LinuxDevice>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LinuxDevice {
    /// The array answers ALUA (REPORT TARGET PORT GROUPS): scsi_dh_alua attaches and
    /// multipath-tools' `detect_prio` picks the `alua` prioritizer.
    pub tpgs: bool,
    /// The map queues I/O while no path is left (a dm-multipath policy with `no_path_retry`
    /// `queue` or N; for another policy, what the claim's `no_path_retry` gives a default host).
    pub queue_if_no_path: bool,
    /// The map's features and hardware handler as `multipath -ll` prints them.
    pub features: String,
    pub hwhandler: String,
    /// The multipath-tools hardware table entries that match the array, the winning one first.
    pub hwtable: Vec<String>,
    /// Every setting in force (multipath.conf attributes, or the NVMe iopolicy) and its origin.
    pub settings: Vec<Setting>,
    /// A native NVMe multipath head (`nvme list-subsys` shows it, not a dm map).
    pub nvme_head: bool,
}

/// One host and its adapters, in order: each host's tools see only its own.
#[derive(Debug, Clone, Serialize)]
pub struct HostAdapters {
    pub name: String,
    pub adapters: Vec<String>,
    /// The multipath-tools release its `multipath -ll` follows, when not today's (left out of
    /// descriptions and results otherwise, which stay as they were).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multipath_tools: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Description {
    /// The first host's name (`[host]`).
    pub host: String,
    /// Every host, `[host]` first.
    pub hosts: Vec<HostAdapters>,
    pub time_s: f64,
    pub devices: Vec<DeviceView>,
    pub paths: Vec<PathView>,
    pub linux: LinuxFacts,
}

fn group_state(s: GroupState) -> &'static str {
    match s {
        GroupState::Active => "active",
        GroupState::Enabled => "enabled",
        GroupState::Disabled => "disabled",
    }
}

pub fn describe(m: &Model, now_ns: u64) -> Description {
    let name_of = |id: PathId| m.paths[id.0 as usize].name.to_string();
    let devices = m
        .devices
        .iter()
        .map(|d| {
            let array = &m.arrays[d.array];
            let mut tpgs: Vec<(u32, &str)> =
                d.paths.iter().map(|&p| (m.paths[p].tpg_id, m.paths[p].alua.short_name())).collect();
            tpgs.sort_unstable();
            tpgs.dedup();
            DeviceView {
                name: d.name.to_string(),
                host: m.host_names[d.host].clone(),
                display_name: format!("{} Fibre Channel Disk ({})", array.vendor, d.name),
                vendor: array.vendor.clone(),
                model: array.model.clone(),
                satp: d.satp.to_string(),
                satp_config: views::satp_device_config(&d.satp, &tpgs),
                psp: d.policy_config.name().to_string(),
                psp_config: d.policy.status().render(&name_of),
                working_paths: d.policy.working_paths().into_iter().map(name_of).collect(),
                groups: d
                    .policy
                    .path_groups()
                    .into_iter()
                    .map(|g| GroupView {
                        priority: g.priority,
                        state: group_state(g.state).to_string(),
                        selector: g.selector,
                        paths: g.paths.into_iter().map(name_of).collect(),
                    })
                    .collect(),
            }
        })
        .collect();
    let paths = m
        .paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let d = &m.devices[p.device];
            let seen = m.policy_alua(i);
            let group_state = match (p.up, seen) {
                (false, _) => "dead",
                (true, AluaState::ActiveOptimized) => "active",
                (true, AluaState::ActiveNonOptimized) => "active unoptimized",
                (true, AluaState::Standby) => "standby",
                (true, AluaState::Unavailable) => "unavailable",
            };
            let satp_path_config = views::satp_path_config(&d.satp, p.tpg_id, p.alua.short_name(), p.rtp_id, p.up);
            let current = d.policy.working_paths().first().map(|&id| id.0 as usize) == Some(i);
            let preferred = d.policy.status().preferred() == Some(PathId(i as u32));
            let psp_path_config = views::psp_path_config(d.policy_config.name(), current, preferred);
            let port = &m.ports[p.port];
            PathView {
                name: p.name.to_string(),
                device: d.name.to_string(),
                host: m.host_names[d.host].clone(),
                adapter: m.adapters[p.adapter()].name.clone(),
                target: format!("{}/{}", m.arrays[port.array].name, port.name),
                group_state: group_state.to_string(),
                // A group changing (NVMe) or transitioning (SCSI): SPC-4's T, which `show` prints.
                alua: if p.ana_change || p.transitioning { "T" } else { p.alua.short_name() }.to_string(),
                tpg_id: p.tpg_id,
                rtp_id: p.rtp_id,
                satp_path_config,
                psp_path_config,
                up: p.up,
            }
        })
        .collect();
    let linux = LinuxFacts {
        hosts: m.adapters.iter().map(|a| a.name.clone()).collect(),
        devices: m
            .devices
            .iter()
            .map(|d| {
                let queue_if_no_path = match d.policy_config {
                    PolicyConfig::DmMultipath(_) => {
                        matches!(d.policy.status(), PolicyStatus::DmMultipath { queue_if_no_path: true, .. })
                    }
                    _ => d.linux.multipath.no_path_retry.value != NoPathRetry::Fail,
                };
                LinuxDevice {
                    tpgs: m.arrays[d.array].tpgs,
                    queue_if_no_path,
                    features: claim::features(&d.linux.multipath.features.value, queue_if_no_path),
                    hwhandler: d.linux.multipath.hwhandler.value.clone(),
                    hwtable: d.linux.multipath.entries.iter().map(|e| e.to_string()).collect(),
                    settings: d
                        .linux
                        .settings(&d.policy_config, &d.given)
                        .into_iter()
                        .chain(tag_settings(m, d))
                        .collect(),
                    nvme_head: d.nvme_head(),
                }
            })
            .collect(),
    };
    Description { host: m.host_names[0].clone(), hosts: hosts(m), time_s: now_ns as f64 / 1e9, devices, paths, linux }
}

/// Every host with its adapters, `[host]` first.
pub fn hosts(m: &Model) -> Vec<HostAdapters> {
    m.host_names
        .iter()
        .enumerate()
        .map(|(h, name)| HostAdapters {
            name: name.clone(),
            adapters: m.adapters.iter().filter(|a| a.host == h).map(|a| a.name.clone()).collect(),
            multipath_tools: m.host_multipath_tools[h].clone(),
        })
        .collect()
}

/// An NVMe head's controllers as connected: entries per I/O queue and queues (`model::tags`).
fn tag_settings(m: &Model, d: &crate::model::Device) -> Vec<Setting> {
    let first_nexus = d.paths.first().map(|&p| m.paths[p].nexus);
    match first_nexus.and_then(|n| m.tags.connect_options(n)) {
        Some((queue_size, io_queues)) if d.bio_based => {
            let connect = |name, value: u32| Setting { name, value: value.to_string(), origin: "nvme connect" };
            vec![connect("queue_size", queue_size), connect("nr_io_queues", io_queues)]
        }
        _ => Vec::new(),
    }
}
