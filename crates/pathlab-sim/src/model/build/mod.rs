//! From a parsed scenario to the running model, checking every cross-reference on the way: one
//! file per step, taken in the order `build_model` lists them. Errors name the field by its
//! dotted path, as `--set` would.

mod arrays;
mod backends;
mod claim;
mod devices;
mod fabric;
mod hosts;
mod paths;
mod replication;
mod routes;
mod tag_maps;
mod values;

use super::{HostState, Model};
use crate::model::stack::{check_read, Stack};
use crate::model::tags::TagSets;
use crate::scenario::error::FieldError;
use crate::scenario::schema::ScenarioSpec;
use devices::DeviceScope;

pub fn build_model(spec: &ScenarioSpec) -> Result<Model, FieldError> {
    let hosts = spec.every_host();
    let adapters = hosts::adapters(spec, &hosts)?;
    let mut side = arrays::arrays(spec)?;
    let backends = backends::backends(spec, &mut side.stations)?;
    let host_names: Vec<String> = hosts.iter().map(|(_, h)| h.name.clone()).collect();
    let zoning = fabric::zoning(spec, &adapters, &host_names, &side.port_keys)?;
    let device_names = devices::names(spec, &host_names)?;
    let replication = replication::plan(spec, &side.arrays, &device_names)?;
    let esxcli = claim::Esxcli::parse(spec)?;
    let mut m = Model {
        host_names: host_names.clone(),
        host_multipath_tools: hosts.iter().map(|(_, h)| h.multipath_tools.clone()).collect(),
        host: HostState::new(zoning.nexuses.len(), spec.host.cpus, spec.host.numa_nodes),
        host_pauses: hosts::pauses(&hosts)?,
        host_reaping: hosts
            .iter()
            .map(|(_, h)| crate::model::pause::Reaping { stack_ns: h.stack_time.0, paused_until: 0 })
            .collect(),
        adapters,
        arrays: side.arrays,
        controllers: side.controllers,
        stations: side.stations,
        ports: side.ports,
        paths: Vec::new(),
        devices: Vec::new(),
        routes: Vec::new(),
        route_ids: Default::default(),
        replications: replication.groups,
        backends,
        tags: TagSets::new(zoning.nexuses.len(), spec.host.cpus),
        fabric_names: spec.fabric.iter().enumerate().map(|(i, f)| f.name.clone().unwrap_or(i.to_string())).collect(),
        nexus_fabric: zoning.nexuses.iter().map(|z| z.fabric).collect(),
    };
    let mut scope = DeviceScope::new(spec, &hosts, &device_names, &replication.group_of, &esxcli);
    for (di, d) in spec.devices.iter().enumerate() {
        let policy_field = devices::add(&mut m, &mut scope, di)?;
        paths::discover(&mut m, di, d.lun, &zoning, &side.rtp_ids)?;
        claim::check_preferred(&m, di, &policy_field)?;
        claim::check_path_priorities(&m, di, &policy_field)?;
    }
    for (h, (field, host)) in hosts.iter().enumerate() {
        let mut stacks: Vec<Stack> = m.devices.iter().filter(|d| d.host == h).map(|d| d.stack.stack).collect();
        stacks.sort_by_key(|&s| s as u8);
        if !stacks.is_empty() {
            check_read(&host.stack, &stacks).map_err(|(f, message)| (f.replacen("host", field, 1), message))?;
        }
    }
    let adapter_fields: Vec<String> = hosts
        .iter()
        .flat_map(|(field, h)| (0..h.adapters.len()).map(move |i| format!("{field}.adapters.{i}")))
        .collect();
    m.check_esxi_iscsi(&adapter_fields)?;
    let host_fields: Vec<String> = hosts.iter().map(|(field, _)| field.to_string()).collect();
    m.check_keep_alive(spec, &host_fields)?;
    routes::connect(&mut m, &scope.preferred);
    tag_maps::tag_maps(&mut m, &hosts)?;
    if !m.devices.iter().any(|d| d.policy.reads_host_queues()) {
        m.host.keep_no_nexus_counts();
    }
    Ok(m)
}
