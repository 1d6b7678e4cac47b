//! The storage network as the engine runs it: host adapters, fabric nexuses, array ports,
//! devices and their paths. Built from a checked scenario; holds state, formats nothing.

mod build;
pub mod service;

pub use build::{build_model, paths_matching, FieldError};

use crate::engine::TimeNs;
use pathlab_policy::{HostView, PathSelector, PolicyConfig};
use service::ServiceModel;
use std::collections::VecDeque;

/// The host beyond one device, as policies may see it: load per I_T nexus across devices, and
/// the CPU topology.
pub struct HostState {
    pub nexus_outstanding: Vec<u32>,
    pub cpus: u32,
    pub numa_nodes: u32,
}

impl HostView for HostState {
    fn nexus_outstanding(&self, nexus: u32) -> u32 {
        self.nexus_outstanding[nexus as usize]
    }

    fn cpu_node(&self, cpu: u32) -> u32 {
        cpu * self.numa_nodes / self.cpus
    }

    fn node_distance(&self, from: u32, to: u32) -> u32 {
        // The ACPI SLIT convention Linux reports: 10 local, 20 remote (two-socket hosts).
        if from == to {
            10
        } else {
            20
        }
    }
}

/// A host bus adapter (vmhbaN) with its command slots and its link.
pub struct Adapter {
    pub name: String,
    pub numa_node: u32,
    /// Esxtop AQLEN.
    pub queue_depth: u32,
    pub active: u32,
    /// I/Os that have a path but wait for an adapter slot.
    pub waiting: VecDeque<u32>,
    /// Bytes per nanosecond; `None`: transfers take no time.
    pub bytes_per_ns: Option<f64>,
    /// When the host→array and array→host directions of the link are next free.
    pub tx_free_at: TimeNs,
    pub rx_free_at: TimeNs,
}

impl Adapter {
    /// Puts `bytes` on one direction of the link no earlier than `ready`; returns when the last
    /// byte arrives. The link is a FIFO server whose service time is the serialisation time.
    pub fn transfer(free_at: &mut TimeNs, bytes_per_ns: Option<f64>, ready: TimeNs, bytes: u64) -> TimeNs {
        match bytes_per_ns {
            None => ready,
            Some(rate) => {
                let start = ready.max(*free_at);
                let end = start + (bytes as f64 / rate).round() as TimeNs;
                *free_at = end;
                end
            }
        }
    }
}

pub struct Array {
    pub name: String,
    pub vendor: String,
    pub model: String,
    pub read_latency_ns: TimeNs,
    pub write_latency_ns: TimeNs,
}

/// An array front-end port: a FIFO queue in front of `servers` identical servers.
pub struct Port {
    pub name: String,
    pub array: usize,
    pub service: ServiceModel,
    pub servers: u32,
    pub busy: u32,
    /// I/Os waiting: (slot, attempt, service time fixed at arrival).
    pub queue: VecDeque<(u32, u32, TimeNs)>,
}

/// A path: adapter → fabric → array port → LUN, with its ESXi runtime name.
pub struct Path {
    pub name: String,
    pub device: usize,
    pub adapter: usize,
    pub port: usize,
    /// Index of the (adapter, port) pair in the zoning: shared by every device's path over it.
    pub nexus: usize,
    /// One-way fabric latency.
    pub one_way_ns: TimeNs,
    pub up: bool,
}

pub struct Device {
    pub name: String,
    pub array: usize,
    /// Esxtop DQLEN.
    pub queue_depth: u32,
    /// Commands issued to a path and not completed (esxtop ACTV).
    pub active: u32,
    /// Waiting in the kernel for a device slot (esxtop QUED), retries first.
    pub queue: VecDeque<u32>,
    /// Waiting because no path is usable.
    pub no_path: VecDeque<u32>,
    pub policy_config: PolicyConfig,
    /// Knows paths by their index in the path table (`PathId(i)`).
    pub policy: Box<dyn PathSelector>,
    /// This device's paths in discovery order (indices into the path table).
    pub paths: Vec<usize>,
}

/// Everything the engine needs to run, built once per run.
pub struct Model {
    pub host_name: String,
    pub host: HostState,
    pub adapters: Vec<Adapter>,
    pub arrays: Vec<Array>,
    pub ports: Vec<Port>,
    pub paths: Vec<Path>,
    pub devices: Vec<Device>,
}
