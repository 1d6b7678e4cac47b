//! From a parsed scenario to the running model, checking every cross-reference on the way.
//! Errors name the field by its dotted path, as `--set` would.

use super::backend::{self, Backends, DiskModel, RaidGroup, WriteCache};
use super::balance::Balance;
use super::contention::Contention;
use super::names::Names;
use super::pause::HostPauses;
use super::service::ServiceModel;
use super::stack::StackRules;
use super::tags::{TagSets, NVME_DEFAULT_QUEUE_SIZE, NVME_QUEUE_SIZE_RANGE};
use super::{Adapter, Array, BusyRule, Controller, Device, HostState, Model, Outage, Path, Port, Replication, Station};
use crate::engine::dist::Shape;
use crate::engine::level::Level;
use crate::linux;
use crate::nmp::esxcli::{self, EsxcliCommand};
use crate::nmp::{self, ClaimRule};
use crate::scenario::error::FieldError;
use crate::scenario::schema::{
    ArraySpec, BalanceLoad, BalanceSpec, BusySpec, Distribution, HostSpec, PauseSpec, RaidLevel, ScenarioSpec,
    ServiceSpec,
};
use crate::scenario::units::FIBRE_NS_PER_KM;
use pathlab_policy::{AluaState, HostStack, PathDesc, PathId, PolicyConfig};
use std::collections::VecDeque;

fn err<T>(field: impl Into<String>, message: impl Into<String>) -> Result<T, FieldError> {
    Err((field.into(), message.into()))
}

/// Checks that no name in the list is defined twice.
fn unique<'a>(names: impl IntoIterator<Item = &'a str>, field: &str) -> Result<(), FieldError> {
    Names::new(names.into_iter().collect()).unique(field)
}

fn service_model(s: &ServiceSpec, field: &str) -> Result<(ServiceModel, u32), FieldError> {
    if s.servers == 0 {
        return err(format!("{field}.servers"), "must be at least 1");
    }
    if s.fixed.0 == 0 && s.per_kib.0 == 0 {
        return err(format!("{field}.fixed"), "a service time above zero is needed");
    }
    let shape = shape(s.distribution, s.cv, field)?;
    let model = ServiceModel { fixed_ns: s.fixed.0 as f64, per_kib_ns: s.per_kib.0 as f64, shape };
    Ok((model, s.servers))
}

/// The shape of a distribution given with its optional coefficient of variation.
fn shape(distribution: Distribution, cv: Option<f64>, field: &str) -> Result<Shape, FieldError> {
    Ok(match (distribution, cv) {
        // Up to 10: wider tails give draws beyond any run's length (and the clock's range).
        (Distribution::Lognormal, Some(cv)) if cv > 0.0 && cv <= 10.0 => Shape::lognormal_with_cv(cv),
        (Distribution::Lognormal, _) => {
            return err(format!("{field}.cv"), "lognormal needs cv, a coefficient of variation from above 0 to 10")
        }
        (_, Some(_)) => return err(format!("{field}.cv"), "cv applies to the lognormal distribution only"),
        (Distribution::Fixed, None) => Shape::Fixed,
        (Distribution::Exponential, None) => Shape::Exponential,
    })
}

/// Every host with the field path of its table: `[host]` first, then `[[hosts]]` in order. A
/// host's index in this list is its index everywhere in the model.
pub(crate) fn hosts_of(spec: &ScenarioSpec) -> Vec<(String, &HostSpec)> {
    std::iter::once(("host".to_string(), &spec.host))
        .chain(spec.hosts.iter().enumerate().map(|(i, h)| (format!("hosts.{i}"), h)))
        .collect()
}

fn host_pauses(spec: Option<&PauseSpec>, field: &str) -> Result<Option<HostPauses>, FieldError> {
    let Some(p) = spec else { return Ok(None) };
    if p.every.0 == 0 {
        return err(format!("{field}.pauses.every"), "must be above zero");
    }
    if p.duration.0 == 0 {
        return err(format!("{field}.pauses.duration"), "must be above zero");
    }
    let shape = shape(p.distribution, p.cv, &format!("{field}.pauses"))?;
    Ok(Some(HostPauses { mean_gap_ns: p.every.0 as f64, mean_duration_ns: p.duration.0 as f64, shape }))
}

fn station(name: String, s: &ServiceSpec, field: &str) -> Result<Station, FieldError> {
    let (service, servers) = service_model(s, field)?;
    Ok(Station { name, service, servers, busy: Level::default(), commands: 0, queue: VecDeque::new() })
}

fn one_way(latency: Option<u64>, distance: Option<f64>, field: &str) -> Result<u64, FieldError> {
    match (latency, distance) {
        (Some(l), None) => Ok(l),
        (None, Some(d)) if d >= 0.0 => Ok((d * FIBRE_NS_PER_KM).round() as u64),
        (None, Some(_)) => err(format!("{field}.distance"), "must not be negative"),
        (None, None) => err(field, "give the one-way `latency` or the `distance`"),
        (Some(_), Some(_)) => err(field, "give `latency` or `distance`, not both"),
    }
}

fn build_adapters(spec: &ScenarioSpec) -> Result<Vec<Adapter>, FieldError> {
    let hosts = hosts_of(spec);
    unique(hosts.iter().map(|(_, h)| h.name.as_str()), "hosts")?;
    unique(hosts.iter().flat_map(|(_, h)| h.adapters.iter().map(|a| a.name.as_str())), "host.adapters")?;
    let mut adapters = Vec::new();
    for (index, (field, host)) in hosts.iter().enumerate() {
        if host.cpus == 0 {
            return err(format!("{field}.cpus"), "must be at least 1");
        }
        if host.numa_nodes == 0 || host.numa_nodes > host.cpus {
            return err(
                format!("{field}.numa_nodes"),
                format!("allowed 1 to {} (one CPU at least per node)", host.cpus),
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
                || a.name.contains([':', '"', '\\', '(', ')'])
                || a.name.chars().any(char::is_whitespace)
            {
                return err(
                    format!("{at}.name"),
                    format!("\"{}\": an adapter name is one word without : \" \\ ( ) (it is part of runtime names like vmhba1:C0:T0:L1)", a.name),
                );
            }
            if a.queue_depth == 0 {
                return err(format!("{at}.queue_depth"), "must be at least 1");
            }
            if a.numa_node >= host.numa_nodes {
                return err(format!("{at}.numa_node"), format!("allowed 0 to {}", host.numa_nodes - 1));
            }
            let rate = a.link_speed.map(|r| r.0 / 1e9);
            if rate.is_some_and(|r| r <= 0.0 || !r.is_finite()) {
                return err(format!("{at}.link_speed"), "must be above zero");
            }
            adapters.push(Adapter {
                name: a.name.clone(),
                host: index,
                numa_node: a.numa_node,
                queue_depth: a.queue_depth,
                active: Level::default(),
                queued: Level::default(),
                waiting: VecDeque::new(),
                bytes_per_ns: rate,
                tx_free_at: 0,
                rx_free_at: 0,
            });
        }
    }
    Ok(adapters)
}

struct ArraySide {
    arrays: Vec<Array>,
    controllers: Vec<Controller>,
    stations: Vec<Station>,
    ports: Vec<Port>,
    /// `array/port` names, in port order.
    port_keys: Vec<String>,
}

fn build_arrays(spec: &ScenarioSpec) -> Result<ArraySide, FieldError> {
    if spec.arrays.is_empty() {
        return err("arrays", "at least one array is needed");
    }
    unique(spec.arrays.iter().map(|a| a.name.as_str()), "arrays")?;
    let mut side = ArraySide {
        arrays: Vec::new(),
        controllers: Vec::new(),
        stations: Vec::new(),
        ports: Vec::new(),
        port_keys: Vec::new(),
    };
    // Every LUN number a device uses: a port with a `device_service` serves each one's commands
    // in its own FIFO (LUNs on another array never reach it, and cost only an idle station).
    let luns: std::collections::BTreeSet<u32> = spec.devices.iter().map(|d| d.lun).collect();
    for (ai, a) in spec.arrays.iter().enumerate() {
        let field = format!("arrays.{ai}");
        let mut controllers = Vec::new();
        let declared = Names::new(a.controllers.iter().map(|c| c.name.as_str()).collect());
        declared.unique(&format!("{field}.controllers"))?;
        for (ci, c) in a.controllers.iter().enumerate() {
            let st = match &c.service {
                Some(s) => {
                    let name = format!("{}/{}", a.name, c.name);
                    side.stations.push(station(name, s, &format!("{field}.controllers.{ci}.service"))?);
                    Some(side.stations.len() - 1)
                }
                None => None,
            };
            controllers.push(side.controllers.len());
            side.controllers.push(Controller { name: c.name.clone(), array: ai, station: st });
        }
        if controllers.is_empty() {
            controllers.push(side.controllers.len());
            side.controllers.push(Controller { name: "CT0".into(), array: ai, station: None });
        }
        if a.ports.is_empty() {
            return err(format!("{field}.ports"), "an array needs at least one port");
        }
        unique(a.ports.iter().map(|p| p.name.as_str()), &format!("{field}.ports"))?;
        for (pi, p) in a.ports.iter().enumerate() {
            let pfield = format!("{field}.ports.{pi}");
            let controller = match (&p.controller, declared.is_empty()) {
                (None, true) => controllers[0],
                (None, false) => {
                    return err(
                        format!("{pfield}.controller"),
                        format!("name the port's controller: {}", declared.join(", ")),
                    )
                }
                (Some(c), _) => controllers[declared.find(c, &format!("{pfield}.controller"), "controller")?],
            };
            let (sfield, service) = match (&p.service, &a.service) {
                (Some(s), _) => (format!("{pfield}.service"), s),
                (None, Some(s)) => (format!("{field}.service"), s),
                (None, None) => {
                    return err(format!("{pfield}.service"), "no service time: give the port or its array a `service`")
                }
            };
            side.stations.push(station(format!("{}/{}", a.name, p.name), service, &sfield)?);
            let station = side.stations.len() - 1;
            let mut lun_stations = Vec::new();
            if let Some(s) = &a.device_service {
                for &lun in &luns {
                    let name = format!("{}/{}/L{lun}", a.name, p.name);
                    side.stations.push(self::station(name, s, &format!("{field}.device_service"))?);
                    lun_stations.push((lun, side.stations.len() - 1));
                }
            }
            side.ports.push(Port { name: p.name.clone(), array: ai, controller, station, lun_stations, down: false });
            side.port_keys.push(format!("{}/{}", a.name, p.name));
        }
        if a.non_owner_state == AluaState::ActiveOptimized {
            return err(
                format!("{field}.non_owner_state"),
                "allowed: active_non_optimized, standby, unavailable (the owner's paths are the optimized ones)",
            );
        }
        let balance = a.balance.as_ref().map(|b| array_balance(b, a, controllers.len(), &field)).transpose()?;
        side.arrays.push(Array {
            name: a.name.clone(),
            vendor: a.vendor.clone(),
            model: a.model.clone(),
            tpgs: a.tpgs,
            symmetric: a.symmetric,
            read_latency_ns: a.read_latency.0,
            write_latency_ns: a.write_latency.0,
            forward_ns: a.forward_latency.0,
            controllers,
            non_owner: a.non_owner_state,
            balance,
            busy: a.busy.as_ref().map(|b| busy_rule(b, &field)).transpose()?,
        });
    }
    Ok(side)
}

fn busy_rule(b: &BusySpec, field: &str) -> Result<BusyRule, FieldError> {
    if !(b.depth.is_finite() && b.depth > 0.0) {
        return err(format!("{field}.busy.depth"), "must be a number of commands above zero");
    }
    Ok(BusyRule { depth: b.depth, retry_ns: b.retry.0 })
}

/// `[arrays.balance]` of an array with `controllers` controllers, checked.
fn array_balance(b: &BalanceSpec, a: &ArraySpec, controllers: usize, field: &str) -> Result<Balance, FieldError> {
    if a.symmetric || controllers < 2 {
        return err(
            format!("{field}.balance"),
            "balancing moves LUN ownership: it needs an array that is not symmetric, with two controllers or more",
        );
    }
    if b.period.0 == 0 {
        return err(format!("{field}.balance.period"), "must be above zero");
    }
    if b.max_moves == 0 {
        return err(format!("{field}.balance.max_moves"), "must be at least 1");
    }
    let BalanceLoad::Namespaces = b.load;
    Ok(Balance { period_ns: b.period.0, max_moves: b.max_moves })
}

/// A fraction from 0 to 1.
fn fraction(value: f64, field: String) -> Result<f64, FieldError> {
    match (0.0..=1.0).contains(&value) {
        true => Ok(value),
        false => err(field, format!("{value} is not a fraction: allowed 0 to 1")),
    }
}

/// The RAID groups of one array, their disks appended to the stations.
fn raid_groups(a: &ArraySpec, ai: usize, stations: &mut Vec<Station>, out: &mut Backends) -> Result<(), FieldError> {
    let field = format!("arrays.{ai}");
    unique(a.raid_groups.iter().map(|g| g.name.as_str()), &format!("{field}.raid_groups"))?;
    let array_hit = match &a.cache {
        Some(c) => fraction(c.read_hit, format!("{field}.cache.read_hit"))?,
        None => 0.0,
    };
    for (gi, g) in a.raid_groups.iter().enumerate() {
        let gfield = format!("{field}.raid_groups.{gi}");
        let (least, even) = match g.level {
            RaidLevel::Raid5 => (3, false),
            RaidLevel::Raid6 => (4, false),
            RaidLevel::Raid10 => (2, true),
        };
        if g.disks < least || g.disks > 128 || (even && g.disks % 2 == 1) {
            let what = if even { "an even number of disks" } else { "disks" };
            return err(format!("{gfield}.disks"), format!("{:?} takes {what} from {least} to 128", g.level));
        }
        if g.stripe_element.0 == 0 {
            return err(format!("{gfield}.stripe_element"), "must be above zero");
        }
        let d = &g.disk;
        if d.rpm == 0 || d.rpm > 100_000 {
            return err(format!("{gfield}.disk.rpm"), "allowed 1 to 100000");
        }
        let rate = d.transfer_rate.0 / 1e9;
        if rate <= 0.0 || !rate.is_finite() {
            return err(format!("{gfield}.disk.transfer_rate"), "must be above zero");
        }
        let disk = DiskModel {
            read_seek_ns: d.seek.0 as f64,
            write_seek_ns: d.write_seek.unwrap_or(d.seek).0 as f64,
            seek_shape: shape(d.seek_distribution, d.cv, &format!("{gfield}.disk"))?,
            revolution_ns: 60e9 / f64::from(d.rpm),
            bytes_per_ns: rate,
        };
        let read_hit = match g.read_hit {
            Some(h) => fraction(h, format!("{gfield}.read_hit"))?,
            None => array_hit,
        };
        let first_station = stations.len();
        stations.extend(backend::disk_stations(&format!("{}/{}", a.name, g.name), g.disks, disk));
        out.group_of_disk.extend(std::iter::repeat_n(out.groups.len() as u32, g.disks as usize));
        out.groups.push(RaidGroup {
            name: format!("{}/{}", a.name, g.name),
            array: ai,
            level: g.level,
            first_station,
            disks: g.disks,
            element_bytes: g.stripe_element.0,
            disk,
            read_hit,
            dirty: VecDeque::new(),
            destaging: 0,
            read_hits: 0,
            read_misses: 0,
            destages: 0,
        });
    }
    Ok(())
}

/// The write cache of an array with RAID groups, if it has one.
fn write_cache(a: &ArraySpec, ai: usize, groups: &[RaidGroup]) -> Result<Option<WriteCache>, FieldError> {
    let field = format!("arrays.{ai}.cache");
    let Some(c) = &a.cache else { return Ok(None) };
    if a.raid_groups.is_empty() {
        return err(field, "a cache serves RAID groups: add [[arrays.raid_groups]] or leave the cache out");
    }
    let Some(size) = c.write_size else { return Ok(None) };
    if size.0 == 0 {
        return err(format!("{field}.write_size"), "must be above zero (leave it out for write-through)");
    }
    if c.write_aside.0 == 0 || c.write_aside.0 > size.0 {
        return err(
            format!("{field}.write_aside"),
            format!("allowed above zero up to the write_size ({} bytes)", size.0),
        );
    }
    if c.destage_depth == 0 || c.destage_depth > 64 {
        return err(format!("{field}.destage_depth"), "allowed 1 to 64 (requests per disk)");
    }
    if !(c.high_watermark > 0.0 && c.high_watermark <= 100.0) {
        return err(format!("{field}.high_watermark"), "a percentage above 0, at most 100");
    }
    if !(c.low_watermark >= 0.0 && c.low_watermark <= c.high_watermark) {
        let high = c.high_watermark;
        return err(format!("{field}.low_watermark"), format!("a percentage from 0 to the high watermark ({high})"));
    }
    let share = |pct: f64| (size.0 as f64 * pct / 100.0).round() as u64;
    Ok(Some(WriteCache {
        capacity_bytes: size.0,
        write_aside_bytes: c.write_aside.0,
        destage_depth: c.destage_depth,
        high_bytes: share(c.high_watermark),
        low_bytes: share(c.low_watermark),
        dirty: Level::default(),
        flushing: false,
        waiting: VecDeque::new(),
        forced: 0,
        groups: groups.iter().enumerate().filter(|(_, g)| g.array == ai).map(|(i, _)| i).collect(),
    }))
}

/// Disks after every port and controller station, so that a station index tells a disk.
fn build_backends(spec: &ScenarioSpec, stations: &mut Vec<Station>) -> Result<Backends, FieldError> {
    let mut out = Backends { first_disk_station: stations.len(), ..Backends::default() };
    for (ai, a) in spec.arrays.iter().enumerate() {
        raid_groups(a, ai, stations, &mut out)?;
    }
    for (ai, a) in spec.arrays.iter().enumerate() {
        let cache = write_cache(a, ai, &out.groups)?;
        out.caches.push(cache);
    }
    Ok(out)
}

/// (adapter, port, one-way latency) in zoning order.
fn build_fabric(spec: &ScenarioSpec, adapters: &[Adapter], port_keys: &[String]) -> Result<Vec<Zoned>, FieldError> {
    let adapter_names = Names::new(adapters.iter().map(|a| a.name.as_str()).collect());
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
            let a = adapter_names.find(an, &format!("fabric.{fi}.adapters.{k}"), "adapter")?;
            for (k, pn) in f.ports.iter().enumerate() {
                let p = keys.find(pn, &format!("fabric.{fi}.ports.{k}"), "port (write array/port)")?;
                if !zoned.insert((a, p)) {
                    return err(format!("fabric.{fi}"), format!("{an} is zoned to {pn} twice"));
                }
                nexuses.push(Zoned {
                    adapter: a,
                    port: p,
                    one_way_ns: latency,
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
struct Zoned {
    adapter: usize,
    port: usize,
    one_way_ns: u64,
    target: Option<u32>,
}

/// Replication groups, and for each device the group it belongs to.
struct ReplicationPlan {
    groups: Vec<Replication>,
    group_of: Vec<Option<usize>>,
}

fn build_replication(
    spec: &ScenarioSpec,
    arrays: &[Array],
    device_names: &Names,
) -> Result<ReplicationPlan, FieldError> {
    let array_names = Names::new(arrays.iter().map(|a| a.name.as_str()).collect());
    let mut groups = Vec::new();
    let mut of_device = vec![None; device_names.len()];
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
        if bandwidth.is_some_and(|b| b <= 0.0 || !b.is_finite()) {
            return err(format!("{field}.bandwidth"), "must be above zero");
        }
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
        let contention = match &r.contention {
            None => None,
            Some(c) if c.extent.0 == 0 => return err(format!("{field}.contention.extent"), "must be above zero"),
            Some(c) => Some(Contention::new(c.extent.0, c.grant_cost.0)),
        };
        if r.devices.is_empty() {
            return err(format!("{field}.devices"), "name at least one device");
        }
        for (k, d) in r.devices.iter().enumerate() {
            let di = device_names.find(d, &format!("{field}.devices.{k}"), "device")?;
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
        }
        groups.push(Replication {
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

/// The claim rules in force: the user's `satp rule add` commands on top of the system rules.
fn claim_rules(commands: &[(usize, EsxcliCommand)]) -> Result<Vec<ClaimRule>, FieldError> {
    let mut rules = nmp::system_rules();
    for (i, cmd) in commands {
        if let EsxcliCommand::SatpRuleAdd { satp, vendor, model, psp, psp_options, claim_option } = cmd {
            let field = format!("esxcli.{i}");
            if !nmp::SATPS.iter().any(|s| s.0 == satp) {
                let known: Vec<&str> = nmp::SATPS.iter().map(|s| s.0).collect();
                return err(field, format!("unknown SATP \"{satp}\"; allowed: {}", known.join(", ")));
            }
            let tpgs = match claim_option.as_deref() {
                None => None,
                Some("tpgs_on") => Some(true),
                Some("tpgs_off") => Some(false),
                Some(o) => return err(field, format!("claim option \"{o}\"; allowed: tpgs_on, tpgs_off")),
            };
            if let Some(p) = psp {
                nmp::psp_config(p, psp_options.as_deref()).map_err(|m| (field.clone(), m))?;
            }
            rules.push(ClaimRule {
                satp: satp.clone(),
                vendor: vendor.clone(),
                model: model.clone(),
                tpgs,
                psp: psp.clone(),
                psp_options: psp_options.clone(),
                user: true,
            });
        }
    }
    Ok(rules)
}

pub fn build_model(spec: &ScenarioSpec) -> Result<Model, FieldError> {
    let adapters = build_adapters(spec)?;
    let mut side = build_arrays(spec)?;
    let backends = build_backends(spec, &mut side.stations)?;
    let nexuses = build_fabric(spec, &adapters, &side.port_keys)?;
    // Each adapter's ports by target number: as given, or 0, 1, … in order of appearance.
    let mut targets: Vec<Vec<(u32, usize)>> = vec![Vec::new(); adapters.len()];
    for &Zoned { adapter: a, port: p, target, .. } in &nexuses {
        let t = target.unwrap_or(targets[a].len() as u32);
        if targets[a].iter().any(|&(u, _)| u == t) {
            return err("fabric", format!("target number {t} is given twice on adapter {}", adapters[a].name));
        }
        targets[a].push((t, p));
    }
    for ports_of_adapter in &mut targets {
        ports_of_adapter.sort_by_key(|&(t, _)| t);
    }

    if spec.devices.is_empty() {
        return err("devices", "at least one device is needed");
    }
    let device_names = Names::new(spec.devices.iter().map(|d| d.name.as_str()).collect());
    device_names.unique("devices")?;
    let ReplicationPlan { groups: replications, group_of } = build_replication(spec, &side.arrays, &device_names)?;

    let mut commands = Vec::new();
    for (i, line) in spec.esxcli.iter().enumerate() {
        commands.push((i, esxcli::parse(line).map_err(|m| (format!("esxcli.{i}"), m))?));
    }
    let rules = claim_rules(&commands)?;

    let array_names: Vec<String> = side.arrays.iter().map(|a| a.name.clone()).collect();
    let array_names = Names::new(array_names.iter().map(String::as_str).collect());
    let hosts = hosts_of(spec);
    let mut m = Model {
        host_names: hosts.iter().map(|(_, h)| h.name.clone()).collect(),
        host: HostState {
            outstanding: Level::default(),
            nexus_outstanding: vec![0; nexuses.len()],
            cpus: spec.host.cpus,
            numa_nodes: spec.host.numa_nodes,
        },
        host_pauses: hosts.iter().map(|(f, h)| host_pauses(h.pauses.as_ref(), f)).collect::<Result<_, _>>()?,
        host_stack_ns: hosts.iter().map(|(_, h)| h.stack_time.0).collect(),
        adapters,
        arrays: side.arrays,
        controllers: side.controllers,
        stations: side.stations,
        ports: side.ports,
        paths: Vec::new(),
        devices: Vec::new(),
        routes: Vec::new(),
        route_ids: Default::default(),
        replications,
        backends,
        tags: TagSets::new(nexuses.len(), spec.host.cpus),
    };

    // Looked up per path: the zoning's index of an (adapter, port) pair, and each port's
    // relative target port id (its number among its array's ports, from 1).
    let nexus_of: std::collections::HashMap<(usize, usize), usize> =
        nexuses.iter().enumerate().map(|(i, z)| ((z.adapter, z.port), i)).collect();
    let mut per_array = vec![0u32; m.arrays.len()];
    let rtp_ids: Vec<u32> = m
        .ports
        .iter()
        .map(|q| {
            per_array[q.array] += 1;
            per_array[q.array]
        })
        .collect();
    let host_names = Names::new(hosts.iter().map(|(_, h)| h.name.as_str()).collect());
    let mut luns_seen = std::collections::HashSet::new();
    for (di, d) in spec.devices.iter().enumerate() {
        let field = format!("devices.{di}");
        let array = array_names.find(&d.array, &format!("{field}.array"), "array")?;
        let host = match &d.host {
            Some(h) => host_names.find(h, &format!("{field}.host"), "host")?,
            None => 0,
        };
        if d.queue_depth() == 0 {
            return err(format!("{field}.queue_depth"), "must be at least 1");
        }
        if d.owner.is_some() && m.arrays[array].symmetric {
            return err(
                format!("{field}.owner"),
                format!("array \"{}\" is symmetric: every controller serves the LUN, none owns it", d.array),
            );
        }
        if !luns_seen.insert((array, d.lun, host)) {
            return err(
                format!("{field}.lun"),
                format!(
                    "LUN {} is already used on array \"{}\" by host \"{}\": give each device its own number",
                    d.lun, d.array, hosts[host].1.name
                ),
            );
        }
        let raid_group = match &d.raid_group {
            None => None,
            Some(_) if group_of[di].is_some() => {
                return err(
                    format!("{field}.raid_group"),
                    "a replicated device's back end is not modelled: leave it out",
                )
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
        let arrays_of_device: Vec<usize> = match group_of[di] {
            Some(g) => m.replications[g].arrays.to_vec(),
            None => vec![array],
        };
        // The owner is named on the device's own array; on a peer, the controller of that name
        // or else its first.
        let mut owners = Vec::new();
        for &a in &arrays_of_device {
            let ctrls = &m.arrays[a].controllers;
            let names = Names::new(ctrls.iter().map(|&c| m.controllers[c].name.as_str()).collect());
            let owner = match &d.owner {
                Some(o) if a == array => ctrls[names.find(o, &format!("{field}.owner"), "controller")?],
                Some(o) => names.position(o).map_or(ctrls[0], |i| ctrls[i]),
                None => ctrls[0],
            };
            owners.push((a, owner));
        }

        let vendor = &m.arrays[array].vendor;
        let claimed = nmp::claim(&rules, vendor, &m.arrays[array].model, m.arrays[array].tpgs);
        let satp = claimed.map_or("VMW_SATP_DEFAULT_AA".to_string(), |r| r.satp.clone());
        let default_psp = match claimed.and_then(|r| r.psp.as_deref()) {
            Some(psp) => nmp::psp_config(psp, claimed.and_then(|r| r.psp_options.as_deref())),
            None => nmp::psp_config("VMW_PSP_FIXED", None),
        }
        .map_err(|e| ("esxcli".to_string(), e))?;
        let (mut policy_field, mut policy_config, given) = match (&d.policy, &spec.policy) {
            (Some(p), _) => (format!("{field}.policy"), p.config.clone(), p.given.clone()),
            (None, Some(p)) => ("policy".to_string(), p.config.clone(), p.given.clone()),
            (None, None) => ("esxcli".to_string(), default_psp.clone(), Vec::new()),
        };
        // A Linux policy's parameters the scenario leaves out are the claim tables' (multipath-tools'
        // hwtable, the NVMe udev rules), as ESXi's come from its SATP claim rules above.
        let linux = linux::claim::claim(vendor, &m.arrays[array].model, m.arrays[array].tpgs);
        linux.fill(&mut policy_config, &given);
        for (i, cmd) in &commands {
            let target = match cmd {
                EsxcliCommand::DeviceSet { device, .. }
                | EsxcliCommand::RoundRobinSet { device, .. }
                | EsxcliCommand::FixedSet { device, .. } => device,
                EsxcliCommand::SatpRuleAdd { .. } => continue,
            };
            device_names.find(target, &format!("esxcli.{i}"), "device")?;
            if target == &d.name {
                nmp::apply_device_command(cmd, &default_psp, &mut policy_config)
                    .map_err(|e| (format!("esxcli.{i}"), e))?;
                policy_field = format!("esxcli.{i}");
            }
        }
        let policy = policy_config.build().map_err(|e| (format!("{policy_field}.{}", e.field), e.message))?;
        let (host_field, host_spec) = &hosts[host];
        let stack = StackRules::resolve(&policy_config, policy.no_path_action(), &host_spec.stack)
            .map_err(|(f, m)| (f.replacen("host", host_field, 1), m))?;
        let path_states = match policy_config.host_stack() {
            HostStack::LinuxDm => linux.path_states(),
            _ => nmp::satp_kind(&satp),
        };
        m.devices.push(Device {
            name: d.name.clone(),
            host,
            array,
            lun: d.lun,
            queue_depth: d.queue_depth(),
            bio_based: policy_config.host_stack() == HostStack::LinuxNvme,
            active: Level::default(),
            queued: Level::default(),
            queue: VecDeque::new(),
            no_path: VecDeque::new(),
            outage: Outage::None,
            stack,
            satp,
            linux,
            given,
            path_states,
            policy_config,
            policy,
            paths: Vec::new(),
            owners,
            replication: group_of[di],
            raid_group,
        });

        // Discovery order: by adapter, then by target number.
        for (a, ports_of_adapter) in targets.iter().enumerate().filter(|&(a, _)| m.adapters[a].host == host) {
            for &(t, p) in ports_of_adapter {
                let port_array = m.ports[p].array;
                if !arrays_of_device.contains(&port_array) {
                    continue;
                }
                let nexus = *nexus_of.get(&(a, p)).expect("zoned pair");
                let alua = m.reported_alua(di, p);
                let rtp_id = rtp_ids[p];
                let path = Path {
                    name: format!("{}:C0:T{}:L{}", m.adapters[a].name, t, d.lun),
                    device: di,
                    adapter: a,
                    port: p,
                    nexus,
                    one_way_ns: nexuses[nexus].one_way_ns,
                    up: true,
                    failed_at_ns: 0,
                    cut: false,
                    connected: true,
                    errors: None,
                    added_latency_ns: 0,
                    alua,
                    // Symmetric arrays report one target port group (FlashArray, PowerMax); arrays
                    // with LUN ownership one per controller.
                    tpg_id: if m.arrays[port_array].symmetric {
                        m.arrays[port_array].controllers[0] as u32 + 1
                    } else {
                        m.ports[p].controller as u32 + 1
                    },
                    rtp_id,
                    routes: [0, 0],
                };
                m.devices[di].paths.push(m.paths.len());
                m.paths.push(path);
            }
        }
        if m.devices[di].paths.is_empty() {
            return err(
                field,
                format!(
                    "no path: no adapter of host \"{}\" is zoned to a port of array \"{}\"",
                    hosts[host].1.name, d.array
                ),
            );
        }
        if let PolicyConfig::VmwFixed(c) = &m.devices[di].policy_config {
            if let Some(pref) = &c.preferred {
                if !m.devices[di].paths.iter().any(|&i| &m.paths[i].name == pref) {
                    let names: Vec<&str> = m.devices[di].paths.iter().map(|&i| m.paths[i].name.as_str()).collect();
                    return err(
                        format!("{policy_field}.preferred"),
                        format!("\"{pref}\" is not a path of {}; paths: {}", d.name, names.join(", ")),
                    );
                }
            }
        }
    }

    // Routes, then the policies learn their paths.
    for pi in 0..m.paths.len() {
        m.set_routes(pi);
        let alua = m.policy_alua(pi);
        let p = &m.paths[pi];
        let desc = PathDesc {
            id: PathId(pi as u32),
            name: &p.name,
            alua,
            preferred: false,
            target_port_group: p.tpg_id,
            nexus: p.nexus as u32,
            numa_node: m.adapters[p.adapter].numa_node,
        };
        m.devices[p.device].policy.add_path(&desc);
    }
    for d in &mut m.devices {
        d.policy.claimed(&d.name);
    }
    build_tags(&mut m, &hosts)?;
    Ok(m)
}

/// Tag maps for the controllers under Linux NVMe heads, sized by their host's `nvme connect`
/// options (checked on every host, used or not).
fn build_tags(m: &mut Model, hosts: &[(String, &HostSpec)]) -> Result<(), FieldError> {
    let mut options = Vec::new();
    for (field, host) in hosts {
        let queue_size = host.stack.nvme_queue_size.unwrap_or(NVME_DEFAULT_QUEUE_SIZE);
        let (low, high) = NVME_QUEUE_SIZE_RANGE;
        if !(low..=high).contains(&queue_size) {
            return err(
                format!("{field}.stack.nvme_queue_size"),
                format!("{queue_size}: allowed {low}..={high} (nvme connect --queue-size)"),
            );
        }
        let cpus = m.host.cpus;
        let io_queues = host.stack.nvme_io_queues.unwrap_or(cpus);
        if !(1..=cpus).contains(&io_queues) {
            return err(
                format!("{field}.stack.nvme_io_queues"),
                format!("{io_queues}: allowed 1..={cpus}: the kernel makes at most one I/O queue per CPU"),
            );
        }
        options.push((queue_size, io_queues));
    }
    for (p, path) in m.paths.iter().enumerate() {
        let device = &m.devices[path.device];
        if device.bio_based {
            let (queue_size, io_queues) = options[device.host];
            m.tags.add_controller(path.nexus, queue_size, io_queues);
            m.tags.add_path(p, Some(path.nexus));
        } else {
            m.tags.add_path(p, None);
        }
    }
    Ok(())
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
