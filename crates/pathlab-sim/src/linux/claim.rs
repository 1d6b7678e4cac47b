//! A device's claim on a Linux host, and how it fills in the scenario's policy table: a value
//! the table gives wins (it is the admin's multipath.conf or udev rule); every other value is
//! the claim's (the hardware table or udev rule for the array, else the defaults), as
//! multipath-tools' `select_*` and udev would set it.

use super::hwtable::{self, Chosen, MultipathClaim, Prio, FROM_SCENARIO};
use super::nvme_udev::{self, IopolicyRule};
use crate::nmp::SatpKind;
use pathlab_policy::{NvmeIoPolicy, PolicyConfig};
use serde::Serialize;

/// One setting in force on a Linux host and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Setting {
    pub name: &'static str,
    pub value: String,
    pub origin: &'static str,
}

/// What a default Linux host does with an array's LUNs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinuxClaim {
    pub multipath: MultipathClaim,
    /// The udev rule that sets the NVMe iopolicy, if one matches the array's model.
    pub nvme_rule: Option<&'static IopolicyRule>,
}

/// The claim for an array: SCSI `vendor` and `model` (the NVMe subsystem's model too), and
/// whether it reports ALUA target port groups.
pub fn claim(vendor: &str, model: &str, tpgs: bool) -> LinuxClaim {
    LinuxClaim { multipath: hwtable::claim(vendor, model, tpgs), nvme_rule: nvme_udev::rule_for(model) }
}

/// The claim under a scenario's policy: a dm-multipath table's `prio`, `hardware_handler` and
/// `features` win over the hardware table and the kernel, as multipath.conf's `devices` and
/// `multipaths` sections do (the grouping then follows the prioritizer).
pub fn claim_for(vendor: &str, model: &str, tpgs: bool, config: &PolicyConfig) -> LinuxClaim {
    let PolicyConfig::DmMultipath(c) = config else { return claim(vendor, model, tpgs) };
    let mut multipath = hwtable::claim_with_prio(vendor, model, tpgs, c.prio);
    if let Some(handler) = &c.hardware_handler {
        multipath.hwhandler = Chosen { value: handler.clone(), origin: FROM_SCENARIO };
    }
    if let Some(features) = &c.features {
        multipath.features = Chosen { value: features.clone(), origin: FROM_SCENARIO };
    }
    LinuxClaim { multipath, nvme_rule: nvme_udev::rule_for(model) }
}

/// A value as multipath.conf or sysfs writes it (`group_by_prio`, `immediate`, `12`).
fn word<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

impl LinuxClaim {
    pub fn nvme_iopolicy(&self) -> NvmeIoPolicy {
        self.nvme_rule.map_or(nvme_udev::KERNEL_DEFAULT, |r| r.iopolicy)
    }

    /// Sets what `config` has from its defaults only (`given`: the keys the scenario's table
    /// gives) to the claim's values.
    pub fn fill(&self, config: &mut PolicyConfig, given: &[String]) {
        let unset = |key: &str| !given.iter().any(|g| g == key);
        let m = &self.multipath;
        match config {
            PolicyConfig::DmMultipath(c) => {
                if unset("selector") {
                    c.selector = m.selector.value;
                }
                if unset("path_grouping_policy") {
                    c.path_grouping_policy = m.pgpolicy.value;
                }
                if unset("failback") {
                    c.failback = m.failback.value;
                }
                if unset("no_path_retry") {
                    c.no_path_retry = m.no_path_retry.value;
                }
                // The prioritizer in force (the scenario's, or multipathd's fallback from it).
                c.prio = Some(m.prio.value);
                // The handler in force (the scenario's, else the hardware table's or the
                // kernel's): what the map's status prints.
                c.hardware_handler = Some(m.hwhandler.value.clone());
            }
            PolicyConfig::Nvme(c) if unset("iopolicy") => c.iopolicy = self.nvme_iopolicy(),
            _ => {}
        }
    }

    /// How the host's priorities see the paths (the prioritizer's counterpart of an ESXi SATP):
    /// `alua` the array's ALUA states, `const` and `weightedpath` every path alike (their
    /// priorities are not the array's), `emc`, `ontap`, `rdac` and `hp_sw` the paths to the LUN's
    /// owning controller above the others.
    pub fn path_states(&self) -> SatpKind {
        match self.multipath.prio.value {
            Prio::Alua => SatpKind::Alua,
            Prio::Emc | Prio::Ontap | Prio::Rdac | Prio::HpSw => SatpKind::ActivePassive,
            // The policy table refuses the prioritizers not simulated (`map_table.rs`).
            _ => SatpKind::ActiveActive,
        }
    }

    /// Every setting in force for a device under `config`, with its origin: the multipath.conf
    /// attributes (a dm-multipath device's own; for any other device what a default Linux
    /// host's multipathd would set), and the iopolicy of a native NVMe device.
    pub fn settings(&self, config: &PolicyConfig, given: &[String]) -> Vec<Setting> {
        let origin = |key: &str, claimed: &'static str| {
            if given.iter().any(|g| g == key) {
                FROM_SCENARIO
            } else {
                claimed
            }
        };
        let m = &self.multipath;
        let (selector, grouping, failback, no_path_retry) = match config {
            PolicyConfig::DmMultipath(c) => (c.selector, c.path_grouping_policy, c.failback, c.no_path_retry),
            _ => (m.selector.value, m.pgpolicy.value, m.failback.value, m.no_path_retry.value),
        };
        let fixed = |name, value: &str, origin| Setting { name, value: value.to_string(), origin };
        let mut settings = vec![
            Setting {
                name: "path_selector",
                value: format!("{} 0", word(&selector)),
                origin: origin("selector", m.selector.origin),
            },
            Setting {
                name: "path_grouping_policy",
                value: word(&grouping),
                origin: origin("path_grouping_policy", m.pgpolicy.origin),
            },
            fixed("prio", m.prio.value.name(), m.prio.origin),
            fixed("hardware_handler", &m.hwhandler.value, m.hwhandler.origin),
            fixed("features", &m.features.value, m.features.origin),
            Setting { name: "failback", value: word(&failback), origin: origin("failback", m.failback.origin) },
            Setting {
                name: "no_path_retry",
                value: word(&no_path_retry),
                origin: origin("no_path_retry", m.no_path_retry.origin),
            },
            fixed("path_checker", m.checker.value, m.checker.origin),
            fixed("rr_weight", hwtable::DEFAULT_RR_WEIGHT, hwtable::FROM_DEFAULT),
            fixed("rr_min_io_rq", &hwtable::DEFAULT_MINIO_RQ.to_string(), hwtable::FROM_DEFAULT),
        ];
        if let PolicyConfig::Nvme(c) = config {
            let claimed = self.nvme_rule.map_or("nvme_core.iopolicy", |r| r.file);
            settings.push(Setting { name: "iopolicy", value: word(&c.iopolicy), origin: origin("iopolicy", claimed) });
        }
        settings
    }
}

/// The map's features as `multipath -ll` prints them (dm-mpath's `multipath_status`): the
/// table's features with `queue_if_no_path` first while the map queues, preceded by the count
/// of words.
pub fn features(table: &str, queueing: bool) -> String {
    let mut words: Vec<&str> = table.split_whitespace().skip(1).collect();
    if queueing {
        words.insert(0, "queue_if_no_path");
    }
    if words.is_empty() {
        "0".to_string()
    } else {
        format!("{} {}", words.len(), words.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hwtable::FROM_DEFAULT;
    use pathlab_policy::PathGrouping;

    /// dm-mpath's status: the word count, `queue_if_no_path` first, then the table's features.
    #[test]
    fn features_read_as_multipath_ll_prints_them() {
        assert_eq!(features("0", false), "0");
        assert_eq!(features("0", true), "1 queue_if_no_path");
        assert_eq!(features("2 pg_init_retries 50", true), "3 queue_if_no_path pg_init_retries 50");
        assert_eq!(features("2 pg_init_retries 50", false), "2 pg_init_retries 50");
    }

    /// multipath.conf's `prio const` on an ALUA array: every path 1, so the policy sees every
    /// path alike; detect_pgpolicy no longer applies, so the grouping is the table's
    /// (defaults.h `failover` for an unknown array). Handler and features are the table's words.
    #[test]
    fn a_given_prioritizer_handler_and_features_win_over_the_tables() {
        let config: PolicyConfig = toml::from_str(
            "name = \"dm-multipath\"\nprio = \"const\"\nhardware_handler = \"0\"\nfeatures = \"1 retain_attached_hw_handler\"",
        )
        .unwrap();
        let c = claim_for("PATHLAB", "SIMARRAY", true, &config);
        assert_eq!(c.path_states(), SatpKind::ActiveActive);
        assert_eq!((c.multipath.pgpolicy.value, c.multipath.pgpolicy.origin), (PathGrouping::Failover, FROM_DEFAULT));
        let settings = c.settings(&config, &[]);
        let of = |name: &str| settings.iter().find(|s| s.name == name).map(|s| (s.value.as_str(), s.origin)).unwrap();
        assert_eq!(of("prio"), ("const", FROM_SCENARIO));
        assert_eq!(of("hardware_handler"), ("0", FROM_SCENARIO));
        assert_eq!(of("features"), ("1 retain_attached_hw_handler", FROM_SCENARIO));
        // Left out: detection gives alua, the kernel alua, and the groups follow the priorities.
        let table = claim_for("PATHLAB", "SIMARRAY", true, &toml::from_str("name = \"dm-multipath\"").unwrap());
        assert_eq!((table.multipath.prio.value, table.multipath.hwhandler.value.as_str()), (Prio::Alua, "1 alua"));
        assert_eq!(table.multipath.pgpolicy.value, PathGrouping::GroupByPrio);
        // alua named on an array without TPGS: multipathd's emergency fallback to const.
        let alua: PolicyConfig = toml::from_str("name = \"dm-multipath\"\nprio = \"alua\"").unwrap();
        let fallback = claim_for("PATHLAB", "SIMARRAY", false, &alua);
        assert_eq!(
            (fallback.multipath.prio.value, fallback.multipath.prio.origin),
            (Prio::Const, hwtable::FROM_FALLBACK)
        );
    }

    #[test]
    fn the_scenario_wins_and_the_claim_fills_the_rest() {
        let dgc = claim("DGC", "VRAID", true);
        let mut config: PolicyConfig = toml::from_str("name = \"dm-multipath\"\nfailback = \"manual\"").unwrap();
        dgc.fill(&mut config, &["failback".to_string()]);
        let PolicyConfig::DmMultipath(c) = &config else { panic!() };
        assert_eq!(c.failback, pathlab_policy::Failback::Manual, "given: kept");
        assert_eq!(c.no_path_retry, pathlab_policy::NoPathRetry::Retries(60), "left out: the table's");
        let settings = dgc.settings(&config, &["failback".to_string()]);
        let of = |name: &str| settings.iter().find(|s| s.name == name).map(|s| (s.value.as_str(), s.origin)).unwrap();
        assert_eq!(of("failback"), ("manual", FROM_SCENARIO));
        assert_eq!(of("no_path_retry"), ("60", hwtable::FROM_TABLE));
        assert_eq!(of("path_selector"), ("service-time 0", hwtable::FROM_DEFAULT));
        assert_eq!(of("path_grouping_policy"), ("group_by_prio", hwtable::FROM_DEVICE));
        let netapp = claim("NETAPP", "NetApp ONTAP Controller", true);
        let mut nvme: PolicyConfig = toml::from_str("name = \"nvme\"").unwrap();
        netapp.fill(&mut nvme, &[]);
        assert_eq!(nvme, PolicyConfig::Nvme(pathlab_policy::NvmeConfig { iopolicy: NvmeIoPolicy::QueueDepth }));
        let settings = netapp.settings(&nvme, &[]);
        let iopolicy = Setting { name: "iopolicy", value: "queue-depth".into(), origin: "71-nvmf-netapp.rules" };
        assert_eq!(settings.last(), Some(&iopolicy));
    }
}
