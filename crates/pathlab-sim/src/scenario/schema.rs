//! The scenario file, field by field. Every table rejects unknown fields; defaults are the
//! values a user of the real tools would expect when a field is left out.

use super::units::{Bytes, BytesPerSec, DurationNs, Kilometres};
use pathlab_policy::PolicyConfig;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioSpec {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub run: RunSpec,
    pub host: HostSpec,
    pub arrays: Vec<ArraySpec>,
    pub devices: Vec<DeviceSpec>,
    /// Which adapter reaches which array port, and how far away it is.
    pub fabric: Vec<FabricSpec>,
    /// The policy of every device that does not name its own.
    #[serde(default)]
    pub policy: PolicyConfig,
    pub workloads: Vec<WorkloadSpec>,
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    /// Published figures of the base scenario (variants carry their own).
    #[serde(default)]
    pub published: BTreeMap<String, f64>,
    #[serde(default)]
    pub tolerance: BTreeMap<String, f64>,
    /// Where the published figures come from.
    #[serde(default)]
    pub source: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunSpec {
    /// Length of the measurement window, after the warm-up.
    pub duration: DurationNs,
    /// Time simulated before measuring (discarded, like vdbench's first interval).
    pub warmup: DurationNs,
    /// Sampling interval of the time series (esxtop's default delay is 5 s).
    pub interval: DurationNs,
    pub seed: u64,
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            duration: DurationNs(60_000_000_000),
            warmup: DurationNs(0),
            interval: DurationNs(5_000_000_000),
            seed: 1,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    #[serde(default = "default_host_name")]
    pub name: String,
    /// Host CPUs; workers are spread over them in order (worker i submits on CPU i mod cpus).
    #[serde(default = "default_cpus")]
    pub cpus: u32,
    /// NUMA nodes; CPUs are split into equal consecutive blocks, one per node.
    #[serde(default = "default_numa_nodes")]
    pub numa_nodes: u32,
    pub adapters: Vec<AdapterSpec>,
}

fn default_cpus() -> u32 {
    8
}

fn default_numa_nodes() -> u32 {
    1
}

fn default_host_name() -> String {
    "esx01".to_string()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSpec {
    /// `vmhbaN`: the first part of every runtime name through this adapter.
    pub name: String,
    /// Line rate of the adapter's link; left out, data transfer takes no time.
    #[serde(default)]
    pub link_speed: Option<BytesPerSec>,
    /// Commands the adapter accepts at once (esxtop AQLEN).
    #[serde(default = "default_adapter_queue_depth")]
    pub queue_depth: u32,
    /// NUMA node the adapter is attached to.
    #[serde(default)]
    pub numa_node: u32,
}

fn default_adapter_queue_depth() -> u32 {
    4096
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArraySpec {
    pub name: String,
    #[serde(default = "default_vendor")]
    pub vendor: String,
    #[serde(default = "default_model")]
    pub model: String,
    /// Time from the end of port service to the data leaving for a read served from cache.
    #[serde(default)]
    pub read_latency: DurationNs,
    /// Time from the end of port service to the status of a write landing in cache.
    #[serde(default)]
    pub write_latency: DurationNs,
    /// Service of every port that does not give its own.
    #[serde(default)]
    pub service: Option<ServiceSpec>,
    pub ports: Vec<PortSpec>,
}

fn default_vendor() -> String {
    "PATHLAB".to_string()
}

fn default_model() -> String {
    "SIMARRAY".to_string()
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PortSpec {
    pub name: String,
    #[serde(default)]
    pub service: Option<ServiceSpec>,
}

/// A front-end port as a FIFO server: service time = fixed + per_kib × KiB, drawn from the
/// distribution with that mean.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSpec {
    pub fixed: DurationNs,
    #[serde(default)]
    pub per_kib: DurationNs,
    #[serde(default)]
    pub distribution: Distribution,
    /// Coefficient of variation, for `lognormal` only.
    #[serde(default)]
    pub cv: Option<f64>,
    /// I/Os served at once (port processors).
    #[serde(default = "one")]
    pub servers: u32,
}

fn one() -> u32 {
    1
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    #[default]
    Fixed,
    Exponential,
    Lognormal,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceSpec {
    /// Device name as ESXi shows it (`naa.60000970…`).
    pub name: String,
    pub array: String,
    /// LUN number: the `L` of each path's runtime name.
    #[serde(default)]
    pub lun: u32,
    /// Device queue depth (esxtop DQLEN): commands in flight to the array at once; the rest
    /// wait in the kernel (QUED).
    #[serde(default = "default_device_queue_depth")]
    pub queue_depth: u32,
    /// Overrides the scenario's `policy` for this device.
    #[serde(default)]
    pub policy: Option<PolicyConfig>,
}

fn default_device_queue_depth() -> u32 {
    32
}

/// Zoning: every listed adapter reaches every listed port, `latency` (one way) or `distance`
/// away. Target numbers (`T` in runtime names) count each adapter's ports in order of appearance.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricSpec {
    pub adapters: Vec<String>,
    /// Ports as `array/port`.
    pub ports: Vec<String>,
    #[serde(default)]
    pub latency: Option<DurationNs>,
    #[serde(default)]
    pub distance: Option<Kilometres>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSpec {
    #[serde(default)]
    pub name: String,
    /// Devices driven, each by its own worker (like one vdbench SD with its threads).
    pub devices: Vec<String>,
    /// Closed loop: I/Os kept outstanding per device.
    #[serde(default)]
    pub outstanding: Option<u32>,
    /// Open loop: I/Os per second per device.
    #[serde(default)]
    pub rate: Option<f64>,
    #[serde(default)]
    pub arrival: Arrival,
    #[serde(default)]
    pub block_size: Option<Bytes>,
    /// Weighted block-size mix like fio's bssplit: `[["8KiB", 60], ["32KiB", 40]]`.
    #[serde(default)]
    pub bssplit: Option<Vec<(Bytes, u32)>>,
    #[serde(default = "default_read_pct")]
    pub read_pct: f64,
    #[serde(default)]
    pub access: Access,
    /// Span of the offsets.
    #[serde(default = "default_range")]
    pub range: Bytes,
}

fn default_read_pct() -> f64 {
    100.0
}

fn default_range() -> Bytes {
    Bytes(1 << 30)
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    #[default]
    Poisson,
    Uniform,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    #[default]
    Random,
    Sequential,
}

/// A scheduled event on the paths whose runtime names start with `path` (a whole name, or a
/// prefix ending at a `:` such as `vmhba1:C0:T0` or `vmhba2`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "snake_case")]
pub enum FaultSpec {
    PathDown { at: DurationNs, path: String },
    PathUp { at: DurationNs, path: String },
}

/// A named variant: overrides of the base scenario and the figures published for it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariantSpec {
    #[serde(default)]
    pub description: String,
    /// Dotted keys and values, as with `--set`.
    #[serde(default)]
    pub set: toml::Table,
    #[serde(default)]
    pub published: BTreeMap<String, f64>,
    #[serde(default)]
    pub tolerance: BTreeMap<String, f64>,
}

/// Summary figures a scenario may publish (the keys of `summary` in the JSON result).
pub const PUBLISHABLE: &[&str] = &[
    "iops",
    "mbps",
    "resp_ms",
    "read_resp_ms",
    "write_resp_ms",
    "resp_max_ms",
    "resp_stddev_ms",
    "queue_depth",
    "p50_ms",
    "p90_ms",
    "p99_ms",
    "p999_ms",
];
