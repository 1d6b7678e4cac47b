//! The registration list: every built-in policy once, with the name a scenario writes. The
//! config enum, validation, construction, names, host stacks and the catalogue all come from it,
//! so adding a policy is one file (its config implementing [`Registered`]) and one line here.

use crate::dm::multipath::DmMultipathConfig;
use crate::gated_least_load::GatedLeastLoadConfig;
use crate::hpp::HppConfig;
use crate::mpio::MpioConfig;
use crate::nmp::fixed::FixedConfig;
use crate::nmp::mru::MruConfig;
use crate::nmp::round_robin::RoundRobinConfig;
use crate::nvme::NvmeConfig;
use crate::nvme_latency::NvmeLatencyConfig;
use crate::params::{PolicyError, PolicySpec};
use crate::powerpath::PowerPathConfig;
use crate::registered::{HostStack, Registered};
use crate::rnbd::RnbdConfig;
use crate::spdk::SpdkConfig;
use crate::Selector;
use serde::{Deserialize, Serialize};

/// One policy in the catalogue shown by `pathlab policies`.
#[derive(Debug)]
pub struct CatalogEntry {
    pub name: &'static str,
    pub spec: &'static PolicySpec,
    /// Each parameter's default in the spec's order, as the user would write it: read from the
    /// config's `Default`, or the spec's `unset` wording where the default is no value.
    pub defaults: Vec<String>,
}

impl CatalogEntry {
    fn of<C: Registered>(name: &'static str) -> CatalogEntry {
        let values = toml::Value::try_from(C::default()).expect("a policy config serializes to a TOML table");
        let defaults = C::SPEC.params.iter().map(|p| default_text(values.get(p.name), p.unset)).collect();
        CatalogEntry { name, spec: C::SPEC, defaults }
    }
}

/// A default value as a scenario writes it; `unset` where the config holds no value.
fn default_text(value: Option<&toml::Value>, unset: Option<&'static str>) -> String {
    match value {
        None => unset.unwrap_or_default().to_string(),
        Some(toml::Value::Array(items)) if items.is_empty() => unset.unwrap_or_default().to_string(),
        Some(toml::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

macro_rules! register_policies {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $config:ty,)*) => {
        /// Every built-in policy with its parameters, as written in a scenario file:
        /// `policy = { name = "VMW_PSP_RR", type = "iops", iops = 1 }`.
        #[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
        #[serde(tag = "name")]
        // One per device, read when the device's policy is built, never on the I/O path: its
        // size costs nothing, and boxing dm-multipath's (the largest) would only add a deref.
        #[allow(clippy::large_enum_variant)]
        pub enum PolicyConfig {
            $($(#[$doc])* #[serde(rename = $name)] $variant($config),)*
        }

        impl PolicyConfig {
            /// Checks every parameter against the range the real stack accepts.
            pub fn validate(&self) -> Result<(), PolicyError> {
                match self {
                    $(PolicyConfig::$variant(c) => c.validate(),)*
                }
            }

            /// A fresh policy instance for one device.
            pub fn build(&self) -> Result<Selector, PolicyError> {
                self.validate()?;
                Ok(match self {
                    $(PolicyConfig::$variant(c) => c.selector(),)*
                })
            }

            /// The policy's name as the stack spells it.
            pub fn name(&self) -> &'static str {
                match self {
                    $(PolicyConfig::$variant(_) => $name,)*
                }
            }

            /// The host stack the policy runs in.
            pub fn host_stack(&self) -> HostStack {
                match self {
                    $(PolicyConfig::$variant(_) => <$config as Registered>::HOST,)*
                }
            }
        }

        /// The catalogue shown by `pathlab policies`: every policy, its parameters, defaults
        /// and ranges, in registration order.
        pub fn catalog() -> Vec<CatalogEntry> {
            vec![$(CatalogEntry::of::<$config>($name),)*]
        }

        #[cfg(test)]
        fn check_every_config() {
            $(tests::check_config::<$config>($name);)*
        }
    };
}

register_policies! {
    VmwRoundRobin = "VMW_PSP_RR" => RoundRobinConfig,
    VmwFixed = "VMW_PSP_FIXED" => FixedConfig,
    VmwMru = "VMW_PSP_MRU" => MruConfig,
    Hpp = "HPP" => HppConfig,
    /// pathlab's own policy.
    GatedLeastLoad = "gated-least-load" => GatedLeastLoadConfig,
    DmMultipath = "dm-multipath" => DmMultipathConfig,
    Nvme = "nvme" => NvmeConfig,
    /// The latency iopolicies under review upstream (not in a released kernel).
    NvmeLatency = "nvme-latency" => NvmeLatencyConfig,
    Spdk = "spdk" => SpdkConfig,
    Mpio = "mpio" => MpioConfig,
    PowerPath = "powerpath" => PowerPathConfig,
    /// RNBD/RTRS path selection (Linux RDMA block device).
    Rnbd = "rnbd" => RnbdConfig,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig::VmwRoundRobin(RoundRobinConfig::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key the config serializes is a listed parameter, and every listed parameter has a
    /// default the catalogue can show: a field added to a config without its parameter spec, or
    /// an `unset` wording left on a parameter that now has a value, fails here.
    pub(super) fn check_config<C: Registered>(name: &str) {
        let values = toml::Value::try_from(C::default()).unwrap();
        let table = values.as_table().unwrap();
        for key in table.keys() {
            assert!(C::SPEC.params.iter().any(|p| p.name == key), "{name}: field {key} is not in its SPEC");
        }
        for p in C::SPEC.params {
            let value = table.get(p.name);
            let has_value = value.is_some_and(|v| v.as_array().is_none_or(|a| !a.is_empty()));
            assert_eq!(has_value, p.unset.is_none(), "{name}.{}: unset wording iff no default value", p.name);
        }
    }

    #[test]
    fn catalogue_and_configs_agree() {
        check_every_config();
    }

    /// A config written back and read again is the same config, so `Serialize` and the
    /// scenario reader spell every value alike (the catalogue's defaults are what a scenario
    /// would write).
    #[test]
    fn every_default_round_trips_through_a_scenario_table() {
        for entry in catalog() {
            let mut table = toml::map::Map::new();
            table.insert("name".into(), toml::Value::String(entry.name.into()));
            let config: PolicyConfig = toml::Value::Table(table).try_into().unwrap();
            let written = toml::Value::try_from(&config).unwrap();
            let read: PolicyConfig = written.try_into().unwrap();
            assert_eq!(read, config, "{}", entry.name);
        }
    }

    /// A policy that says it reads no host queues (`PathSelector::reads_host_queues`) makes the
    /// same choices on an idle host and on one whose nexuses carry other devices' commands; the
    /// engine then keeps no such counts for it. The busy host is seen: some policy that says it
    /// reads them chooses otherwise there.
    #[test]
    fn a_policy_that_reads_no_host_queues_chooses_alike_whatever_they_hold() {
        use crate::test_support::{add_paths_with, complete, io, issue, TestHost};
        use crate::{HostView, IdleHost, PathSelector};
        let busy = TestHost { nexus_load: vec![40, 0, 7, 300], ..TestHost::default() };
        let build = |name: &str| -> Selector {
            let table = toml::map::Map::from_iter([("name".into(), toml::Value::String(name.into()))]);
            let config: PolicyConfig = toml::Value::Table(table).try_into().unwrap();
            config.build().unwrap()
        };
        let choices = |host: &dyn HostView, name: &str| -> Vec<u32> {
            let mut policy = build(name);
            let p: &mut dyn PathSelector = &mut *policy;
            add_paths_with(p, 4, |_, _| {});
            p.claimed("naa.1");
            let mut in_flight = std::collections::VecDeque::new();
            let mut chosen = Vec::new();
            for k in 0..400u64 {
                let now = k * 1_000;
                let one = io(4096 << (k % 3), (k % 4) as u32);
                let path = issue(p, host, &one, now);
                chosen.push(path);
                in_flight.push_back((path, one, now));
                // Four or five outstanding, completed oldest first.
                if in_flight.len() > 4 + (k % 2) as usize {
                    let (path, one, start) = in_flight.pop_front().unwrap();
                    complete(p, path, &one, start, now + 500);
                }
            }
            chosen
        };
        let mut seen_reading = false;
        for entry in catalog() {
            let reads = build(entry.name).reads_host_queues();
            let alike = choices(&IdleHost, entry.name) == choices(&busy, entry.name);
            assert!(reads || alike, "{} says it reads no host queues but chooses otherwise on a busy host", entry.name);
            seen_reading |= reads && !alike;
        }
        assert!(seen_reading, "no policy reading host queues chose otherwise: the busy host is not seen");
    }

    #[test]
    fn names_are_unique() {
        let names: Vec<&str> = catalog().iter().map(|e| e.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
    }
}
