//! From a parsed scenario to the running model, checking every cross-reference on the way.
//! Errors name the field by its dotted path, as `--set` would.

use super::service::ServiceModel;
use super::{Adapter, Array, Device, HostState, Model, Path, Port};
use crate::engine::dist::Shape;
use crate::scenario::schema::{Distribution, ScenarioSpec, ServiceSpec};
use crate::scenario::units::FIBRE_NS_PER_KM;
use pathlab_policy::{AluaState, PathDesc, PathId, PolicyConfig};
use std::collections::VecDeque;

/// A problem with one field: (dotted path, message).
pub type FieldError = (String, String);

fn err<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, FieldError> {
    Err((field.into(), message.into()))
}

fn find(names: &[&str], wanted: &str, field: &str, what: &str) -> Result<usize, FieldError> {
    names
        .iter()
        .position(|n| *n == wanted)
        .ok_or_else(|| (field.to_string(), format!("unknown {what} \"{wanted}\"; defined: {}", names.join(", "))))
}

fn unique(names: &[&str], field: &str) -> Result<(), FieldError> {
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return err(format!("{field}.{i}.name"), format!("\"{n}\" is defined twice"));
        }
    }
    Ok(())
}

fn service_model(s: &ServiceSpec, field: &str) -> Result<(ServiceModel, u32), FieldError> {
    if s.servers == 0 {
        return err(format!("{field}.servers"), "must be at least 1");
    }
    if s.fixed.0 == 0 && s.per_kib.0 == 0 {
        return err(format!("{field}.fixed"), "a port needs a service time above zero");
    }
    let shape = match (s.distribution, s.cv) {
        (Distribution::Lognormal, Some(cv)) if cv > 0.0 && cv.is_finite() => Shape::lognormal_with_cv(cv),
        (Distribution::Lognormal, _) => {
            return err(format!("{field}.cv"), "lognormal needs cv, a coefficient of variation above 0")
        }
        (_, Some(_)) => return err(format!("{field}.cv"), "cv applies to the lognormal distribution only"),
        (Distribution::Fixed, None) => Shape::Fixed,
        (Distribution::Exponential, None) => Shape::Exponential,
    };
    let model = ServiceModel { fixed_ns: s.fixed.0 as f64, per_kib_ns: s.per_kib.0 as f64, shape };
    Ok((model, s.servers))
}

pub fn build_model(spec: &ScenarioSpec) -> Result<Model, FieldError> {
    if spec.host.cpus == 0 {
        return err("host.cpus", "must be at least 1");
    }
    if spec.host.numa_nodes == 0 || spec.host.numa_nodes > spec.host.cpus {
        return err("host.numa_nodes", format!("allowed 1..={} (one CPU at least per node)", spec.host.cpus));
    }
    if spec.host.adapters.is_empty() {
        return err("host.adapters", "at least one adapter is needed");
    }
    let adapter_names: Vec<&str> = spec.host.adapters.iter().map(|a| a.name.as_str()).collect();
    unique(&adapter_names, "host.adapters")?;
    let mut adapters = Vec::new();
    for (i, a) in spec.host.adapters.iter().enumerate() {
        if a.queue_depth == 0 {
            return err(format!("host.adapters.{i}.queue_depth"), "must be at least 1");
        }
        let rate = a.link_speed.map(|r| r.0 / 1e9);
        if rate.is_some_and(|r| r <= 0.0 || !r.is_finite()) {
            return err(format!("host.adapters.{i}.link_speed"), "must be above zero");
        }
        if a.numa_node >= spec.host.numa_nodes {
            return err(format!("host.adapters.{i}.numa_node"), format!("allowed 0..{}", spec.host.numa_nodes));
        }
        adapters.push(Adapter {
            name: a.name.clone(),
            numa_node: a.numa_node,
            queue_depth: a.queue_depth,
            active: 0,
            waiting: VecDeque::new(),
            bytes_per_ns: rate,
            tx_free_at: 0,
            rx_free_at: 0,
        });
    }

    if spec.arrays.is_empty() {
        return err("arrays", "at least one array is needed");
    }
    let array_names: Vec<&str> = spec.arrays.iter().map(|a| a.name.as_str()).collect();
    unique(&array_names, "arrays")?;
    let mut arrays = Vec::new();
    let mut ports = Vec::new();
    let mut port_keys = Vec::new();
    for (ai, a) in spec.arrays.iter().enumerate() {
        arrays.push(Array {
            name: a.name.clone(),
            vendor: a.vendor.clone(),
            model: a.model.clone(),
            read_latency_ns: a.read_latency.0,
            write_latency_ns: a.write_latency.0,
        });
        if a.ports.is_empty() {
            return err(format!("arrays.{ai}.ports"), "an array needs at least one port");
        }
        let names: Vec<&str> = a.ports.iter().map(|p| p.name.as_str()).collect();
        unique(&names, &format!("arrays.{ai}.ports"))?;
        for (pi, p) in a.ports.iter().enumerate() {
            let (field, service) = match (&p.service, &a.service) {
                (Some(s), _) => (format!("arrays.{ai}.ports.{pi}.service"), s),
                (None, Some(s)) => (format!("arrays.{ai}.service"), s),
                (None, None) => {
                    return err(
                        format!("arrays.{ai}.ports.{pi}.service"),
                        "no service time: give the port or its array a `service`",
                    )
                }
            };
            let (service, servers) = service_model(service, &field)?;
            ports.push(Port { name: p.name.clone(), array: ai, service, servers, busy: 0, queue: VecDeque::new() });
            port_keys.push(format!("{}/{}", a.name, p.name));
        }
    }

    // Nexuses (adapter, port, one-way latency) in zoning order; targets numbered per adapter.
    let port_key_refs: Vec<&str> = port_keys.iter().map(String::as_str).collect();
    let mut nexuses: Vec<(usize, usize, u64)> = Vec::new();
    if spec.fabric.is_empty() {
        return err("fabric", "no zoning: add a [[fabric]] table connecting adapters to ports");
    }
    for (fi, f) in spec.fabric.iter().enumerate() {
        let one_way = match (f.latency, f.distance) {
            (Some(l), None) => l.0,
            (None, Some(d)) if d.0 >= 0.0 => (d.0 * FIBRE_NS_PER_KM).round() as u64,
            (None, Some(_)) => return err(format!("fabric.{fi}.distance"), "must not be negative"),
            (None, None) => return err(format!("fabric.{fi}"), "give the one-way `latency` or the `distance`"),
            (Some(_), Some(_)) => return err(format!("fabric.{fi}"), "give `latency` or `distance`, not both"),
        };
        for (k, an) in f.adapters.iter().enumerate() {
            let a = find(&adapter_names, an, &format!("fabric.{fi}.adapters.{k}"), "adapter")?;
            for (k, pn) in f.ports.iter().enumerate() {
                let p = find(&port_key_refs, pn, &format!("fabric.{fi}.ports.{k}"), "port (write array/port)")?;
                if nexuses.iter().any(|n| n.0 == a && n.1 == p) {
                    return err(format!("fabric.{fi}"), format!("{an} is zoned to {pn} twice"));
                }
                nexuses.push((a, p, one_way));
            }
        }
    }
    let mut targets: Vec<Vec<usize>> = vec![Vec::new(); adapters.len()];
    for &(a, p, _) in &nexuses {
        targets[a].push(p);
    }

    if spec.devices.is_empty() {
        return err("devices", "at least one device is needed");
    }
    let device_names: Vec<&str> = spec.devices.iter().map(|d| d.name.as_str()).collect();
    unique(&device_names, "devices")?;
    let mut devices = Vec::new();
    let mut paths: Vec<Path> = Vec::new();
    for (di, d) in spec.devices.iter().enumerate() {
        let array = find(&array_names, &d.array, &format!("devices.{di}.array"), "array")?;
        if d.queue_depth == 0 {
            return err(format!("devices.{di}.queue_depth"), "must be at least 1");
        }
        let (policy_field, policy_config) = match &d.policy {
            Some(p) => (format!("devices.{di}.policy"), p.clone()),
            None => ("policy".to_string(), spec.policy.clone()),
        };
        let mut policy = policy_config.build().map_err(|e| (format!("{policy_field}.{}", e.field), e.message))?;
        let mut device_paths = Vec::new();
        // Discovery order: by adapter, then by target number.
        for (a, ports_of_adapter) in targets.iter().enumerate() {
            for (t, &p) in ports_of_adapter.iter().enumerate() {
                if ports[p].array != array {
                    continue;
                }
                let nexus = nexuses.iter().position(|n| n.0 == a && n.1 == p).expect("zoned pair");
                let one_way_ns = nexuses[nexus].2;
                let name = format!("{}:C0:T{}:L{}", adapters[a].name, t, d.lun);
                let id = paths.len();
                policy.add_path(&PathDesc {
                    id: PathId(id as u32),
                    name: &name,
                    alua: AluaState::ActiveOptimized,
                    preferred: false,
                    target_port_group: 0,
                    nexus: nexus as u32,
                    numa_node: adapters[a].numa_node,
                });
                paths.push(Path { name, device: di, adapter: a, port: p, nexus, one_way_ns, up: true });
                device_paths.push(id);
            }
        }
        if device_paths.is_empty() {
            return err(
                format!("devices.{di}"),
                format!("no path: no adapter is zoned to a port of array \"{}\"", d.array),
            );
        }
        if let PolicyConfig::VmwFixed(c) = &policy_config {
            if let Some(pref) = &c.preferred {
                if !device_paths.iter().any(|&i| &paths[i].name == pref) {
                    let names: Vec<&str> = device_paths.iter().map(|&i| paths[i].name.as_str()).collect();
                    return err(
                        format!("{policy_field}.preferred"),
                        format!("\"{pref}\" is not a path of {}; paths: {}", d.name, names.join(", ")),
                    );
                }
            }
        }
        devices.push(Device {
            name: d.name.clone(),
            array,
            queue_depth: d.queue_depth,
            active: 0,
            queue: VecDeque::new(),
            no_path: VecDeque::new(),
            policy_config,
            policy,
            paths: device_paths,
        });
    }

    let host =
        HostState { nexus_outstanding: vec![0; nexuses.len()], cpus: spec.host.cpus, numa_nodes: spec.host.numa_nodes };
    Ok(Model { host_name: spec.host.name.clone(), host, adapters, arrays, ports, paths, devices })
}

/// Paths whose runtime name is `prefix` or starts with `prefix:`.
pub fn paths_matching(model: &Model, prefix: &str) -> Vec<usize> {
    model
        .paths
        .iter()
        .enumerate()
        .filter(|(_, p)| p.name == prefix || p.name.starts_with(&format!("{prefix}:")))
        .map(|(i, _)| i)
        .collect()
}
