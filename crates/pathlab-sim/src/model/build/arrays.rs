//! The arrays: controllers, ports, the stations that serve them (a port's or a
//! controller's processing), and an array's own balancing of LUN ownership.

use super::values::{err, shape, unique};
use crate::engine::level::Level;
use crate::model::balance::Balance;
use crate::model::names::Names;
use crate::model::service::ServiceModel;
use crate::model::{Array, BusyRule, Controller, Port, PortData, Station};
use crate::scenario::bounds;
use crate::scenario::error::FieldError;
use crate::scenario::schema::{ArraySpec, BalanceLoad, BalanceSpec, BusySpec, ScenarioSpec, ServiceSpec};
use pathlab_policy::AluaState;
use std::collections::VecDeque;

/// What an array's (or a device's) `non_owner_state` may be.
pub(super) const NON_OWNER_ALLOWED: &str =
    "allowed: active_non_optimized, standby, unavailable (the owner's paths are the optimized ones)";

pub(super) struct ArraySide {
    pub(super) arrays: Vec<Array>,
    pub(super) controllers: Vec<Controller>,
    pub(super) stations: Vec<Station>,
    pub(super) ports: Vec<Port>,
    /// `array/port` names, in port order.
    pub(super) port_keys: Vec<String>,
    /// Each port's relative target port id: its number among its array's ports, from 1.
    pub(super) rtp_ids: Vec<u32>,
}

/// The arrays, their controllers and ports, and the stations that serve them.
pub(super) fn arrays(spec: &ScenarioSpec) -> Result<ArraySide, FieldError> {
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
        rtp_ids: Vec::new(),
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
            let anatt_ns = match c.anatt {
                Some(own) => Some(anatt(own.0, &format!("{field}.controllers.{ci}.anatt"))?),
                None => a.anatt.map(|t| anatt(t.0, &format!("{field}.anatt"))).transpose()?,
            };
            controllers.push(side.controllers.len());
            let traffic_based_keep_alive = c.traffic_based_keep_alive.or(a.traffic_based_keep_alive);
            side.controllers.push(Controller {
                name: c.name.clone(),
                array: ai,
                station: st,
                anatt_ns,
                traffic_based_keep_alive,
            });
        }
        if controllers.is_empty() {
            let anatt_ns = a.anatt.map(|t| anatt(t.0, &format!("{field}.anatt"))).transpose()?;
            controllers.push(side.controllers.len());
            side.controllers.push(Controller {
                name: "CT0".into(),
                array: ai,
                station: None,
                anatt_ns,
                traffic_based_keep_alive: a.traffic_based_keep_alive,
            });
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
            let (commands, data) = port_service(format!("{}/{}", a.name, p.name), service, &sfield)?;
            side.stations.push(commands);
            let station = side.stations.len() - 1;
            let mut lun_stations = Vec::new();
            if let Some(s) = &a.device_service {
                for &lun in &luns {
                    let name = format!("{}/{}/L{lun}", a.name, p.name);
                    side.stations.push(self::station(name, s, &format!("{field}.device_service"))?);
                    lun_stations.push((lun, side.stations.len() - 1));
                }
            }
            side.ports.push(Port {
                name: p.name.clone(),
                array: ai,
                controller,
                station,
                lun_stations,
                data,
                downs: 0,
            });
            side.port_keys.push(format!("{}/{}", a.name, p.name));
            side.rtp_ids.push(pi as u32 + 1);
        }
        if a.non_owner_state == AluaState::ActiveOptimized {
            return err(format!("{field}.non_owner_state"), NON_OWNER_ALLOWED);
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
            implicit_transition_ns: a
                .implicit_transition_time
                .map(|t| implicit_transition(t.0, &format!("{field}.implicit_transition_time")))
                .transpose()?,
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
    bounds::long_enough(b.period.0, bounds::TIMER).map_err(|m| (format!("{field}.balance.period"), m))?;
    if b.max_moves == 0 {
        return err(format!("{field}.balance.max_moves"), "must be at least 1");
    }
    let BalanceLoad::Namespaces = b.load;
    Ok(Balance { period_ns: b.period.0, max_moves: b.max_moves })
}

fn service_model(s: &ServiceSpec, field: &str) -> Result<(ServiceModel, u32), FieldError> {
    bounds::within(s.servers, &bounds::SERVERS, "1 to 1024").map_err(|m| (format!("{field}.servers"), m))?;
    bounds::within(s.per_kib.0, &bounds::PER_KIB_NS, "up to 1s (a port moving 1 KB/s)")
        .map_err(|m| (format!("{field}.per_kib"), m))?;
    if s.fixed.0 == 0 && s.per_kib.0 == 0 {
        return err(format!("{field}.fixed"), "a service time above zero is needed");
    }
    let shape = shape(s.distribution, s.cv, field)?;
    let model = ServiceModel { fixed_ns: s.fixed.0 as f64, per_kib_ns: s.per_kib.0 as f64, shape };
    Ok((model, s.servers))
}

fn station(name: String, s: &ServiceSpec, field: &str) -> Result<Station, FieldError> {
    let (service, servers) = service_model(s, field)?;
    Ok(Station { name, service, servers, busy: Level::default(), commands: 0, queue: VecDeque::new() })
}

/// A port's station serves each command's fixed time; its `per_kib` moves the data, each
/// direction on its own (FC is full duplex, as the host adapters' links are).
fn port_service(name: String, s: &ServiceSpec, field: &str) -> Result<(Station, Option<PortData>), FieldError> {
    let mut commands = station(name, s, field)?;
    let per_kib_ns = std::mem::take(&mut commands.service.per_kib_ns);
    let data = (per_kib_ns > 0.0).then(|| PortData { bytes_per_ns: 1024.0 / per_kib_ns, free_at: [0, 0] });
    Ok((commands, data))
}

/// An IMPLICIT TRANSITION TIME as REPORT TARGET PORT GROUPS reports it: one byte of whole
/// seconds, 0 to 255 (SPC-4, the extended header; 0: none reported).
fn implicit_transition(ns: u64, field: &str) -> Result<u64, FieldError> {
    const SECOND: u64 = 1_000_000_000;
    if !ns.is_multiple_of(SECOND) || ns / SECOND > 255 {
        return err(field.to_string(), "allowed whole seconds from 0s to 255s (one byte of seconds)");
    }
    Ok(ns)
}

/// An ANATT as the controller reports it: one byte of whole seconds, 1 to 255 (Identify
/// Controller `ANATT`, NVMe Base 2.1 figure "Identify Controller Data Structure").
fn anatt(ns: u64, field: &str) -> Result<u64, FieldError> {
    const SECOND: u64 = 1_000_000_000;
    if !ns.is_multiple_of(SECOND) || !(1..=255).contains(&(ns / SECOND)) {
        return err(field.to_string(), "allowed whole seconds from 1s to 255s (ANATT is one byte of seconds)");
    }
    Ok(ns)
}
