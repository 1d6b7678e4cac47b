//! ESXi's Native Multipathing plumbing around the policies: SATP claim rules (which array-type
//! plugin claims a device and which path selection policy it gets by default) and the esxcli
//! commands that change them.

use super::esxcli::EsxcliCommand;
use pathlab_policy::{FixedConfig, MruConfig, PolicyConfig, Registered, RoundRobinConfig, RrType};

/// How an array-type plugin treats the paths of a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatpKind {
    /// Reads the ALUA states the array reports (VMW_SATP_ALUA, VMW_SATP_ALUA_CX).
    Alua,
    /// Every path is active (VMW_SATP_DEFAULT_AA, VMW_SATP_SYMM and the other arrays' plugins
    /// whose default PSP is Fixed or round robin).
    ActiveActive,
    /// Only the owning controller's paths are active, the others standby (VMW_SATP_CX,
    /// VMW_SATP_DEFAULT_AP, VMW_SATP_LSI, VMW_SATP_MSA).
    ActivePassive,
}

/// The SATPs an ESXi host lists, with how each treats paths and its default PSP (the PSP a
/// device gets when no claim rule names one): `esxcli storage nmp satp list` as the vSphere 6.7
/// Storage guide prints it ("Display SATPs for the Host"; ESXi 7 and 8 list the same). VMware
/// gives MRU to the plugins of active/passive arrays (MSA, LSI, CX, DEFAULT_AP: MRU does not move
/// I/O back and forth between controllers), Fixed or round robin to active/active ones (SVC,
/// EqualLogic, Invista/VPLEX, EVA, Symmetrix); `VMW_SATP_LOCAL` claims a host's own disks.
pub const SATPS: &[(&str, SatpKind, &str)] = &[
    ("VMW_SATP_ALUA", SatpKind::Alua, "VMW_PSP_MRU"),
    ("VMW_SATP_ALUA_CX", SatpKind::Alua, "VMW_PSP_RR"),
    ("VMW_SATP_DEFAULT_AA", SatpKind::ActiveActive, "VMW_PSP_FIXED"),
    ("VMW_SATP_SYMM", SatpKind::ActiveActive, "VMW_PSP_RR"),
    ("VMW_SATP_SVC", SatpKind::ActiveActive, "VMW_PSP_FIXED"),
    ("VMW_SATP_EQL", SatpKind::ActiveActive, "VMW_PSP_FIXED"),
    ("VMW_SATP_INV", SatpKind::ActiveActive, "VMW_PSP_FIXED"),
    ("VMW_SATP_EVA", SatpKind::ActiveActive, "VMW_PSP_FIXED"),
    ("VMW_SATP_LOCAL", SatpKind::ActiveActive, "VMW_PSP_FIXED"),
    ("VMW_SATP_CX", SatpKind::ActivePassive, "VMW_PSP_MRU"),
    ("VMW_SATP_DEFAULT_AP", SatpKind::ActivePassive, "VMW_PSP_MRU"),
    ("VMW_SATP_LSI", SatpKind::ActivePassive, "VMW_PSP_MRU"),
    ("VMW_SATP_MSA", SatpKind::ActivePassive, "VMW_PSP_MRU"),
];

pub const PSPS: &[&str] = &["VMW_PSP_RR", "VMW_PSP_FIXED", "VMW_PSP_MRU"];

pub fn satp_kind(name: &str) -> SatpKind {
    SATPS.iter().find(|s| s.0 == name).map_or(SatpKind::ActiveActive, |s| s.1)
}

/// The PSP a device claimed by `satp` gets when its claim rule names none (Fixed for a plugin
/// pathlab does not know, as VMW_SATP_DEFAULT_AA gives).
pub fn default_psp(satp: &str) -> &'static str {
    SATPS.iter().find(|s| s.0 == satp).map_or("VMW_PSP_FIXED", |s| s.2)
}

/// A claim rule: which SATP claims devices of a vendor / model / ALUA support, with which
/// default PSP and options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimRule {
    pub satp: String,
    pub vendor: Option<String>,
    pub model: Option<String>,
    /// `Some(true)`: only arrays reporting TPGS (`tpgs_on`); `Some(false)`: only those not.
    pub tpgs: Option<bool>,
    pub psp: Option<String>,
    pub psp_options: Option<String>,
    pub user: bool,
}

fn rule(
    satp: &str,
    vendor: Option<&str>,
    model: Option<&str>,
    tpgs: Option<bool>,
    psp: &str,
    options: Option<&str>,
) -> ClaimRule {
    ClaimRule {
        satp: satp.into(),
        vendor: vendor.map(Into::into),
        model: model.map(Into::into),
        tpgs,
        psp: Some(psp.into()),
        psp_options: options.map(Into::into),
        user: false,
    }
}

/// The system rules pathlab knows, after the defaults an ESXi 6.7/7.0 host lists
/// (`esxcli storage nmp satp list` / `satp rule list`; research/policies.md §4.1).
pub fn system_rules() -> Vec<ClaimRule> {
    vec![
        rule("VMW_SATP_SYMM", Some("EMC"), Some("SYMMETRIX"), None, "VMW_PSP_RR", None),
        rule("VMW_SATP_ALUA_CX", Some("DGC"), None, Some(true), "VMW_PSP_RR", None),
        rule("VMW_SATP_CX", Some("DGC"), None, Some(false), "VMW_PSP_MRU", None),
        // ESXi 6.0 P05 / 6.5 U1 and later ship a rule for Pure FlashArray with iops=1.
        rule("VMW_SATP_ALUA", Some("PURE"), Some("FlashArray"), Some(true), "VMW_PSP_RR", Some("iops=1")),
        rule("VMW_SATP_ALUA", None, None, Some(true), "VMW_PSP_MRU", None),
        rule("VMW_SATP_DEFAULT_AA", None, None, Some(false), "VMW_PSP_FIXED", None),
    ]
}

/// `-M` may be an exact model or a pattern anchored with `^` and ending in `*`.
fn matches_text(pattern: &Option<String>, value: &str) -> bool {
    match pattern {
        None => true,
        Some(p) => {
            let p = p.trim_start_matches('^');
            match p.strip_suffix('*') {
                Some(prefix) => value.starts_with(prefix),
                None => p == value,
            }
        }
    }
}

impl ClaimRule {
    fn matches(&self, vendor: &str, model: &str, tpgs: bool) -> bool {
        matches_text(&self.vendor, vendor) && matches_text(&self.model, model) && self.tpgs.is_none_or(|t| t == tpgs)
    }

    /// Vendor and model rules come before vendor-only rules, which come before generic ones
    /// (ESXi looks at vendor/model rules before the default ones).
    fn specificity(&self) -> u8 {
        u8::from(self.vendor.is_some()) + u8::from(self.model.is_some())
    }
}

/// The rule that claims a device: the most specific match; among equals, user rules before
/// system rules, then the earliest added.
pub fn claim<'a>(rules: &'a [ClaimRule], vendor: &str, model: &str, tpgs: bool) -> Option<&'a ClaimRule> {
    rules
        .iter()
        .enumerate()
        .filter(|(_, r)| r.matches(vendor, model, tpgs))
        .min_by_key(|(i, r)| (std::cmp::Reverse(r.specificity()), !r.user, *i))
        .map(|(_, r)| r)
}

/// A PSP by name with its options (`iops=1`, `policy=latency`, `useANO=1`, comma separated).
pub fn psp_config(psp: &str, options: Option<&str>) -> Result<PolicyConfig, String> {
    match psp {
        "VMW_PSP_RR" => {
            let mut c = RoundRobinConfig::default();
            for item in options.unwrap_or("").split([',', ';']).map(str::trim).filter(|s| !s.is_empty()) {
                let (key, value) =
                    item.split_once('=').ok_or_else(|| format!("PSP option \"{item}\" is not key=value"))?;
                let num = || value.parse::<u64>().map_err(|_| format!("PSP option {key} needs a whole number"));
                match key {
                    "iops" => (c.limit_type, c.iops) = (RrType::Iops, num()?),
                    "bytes" => (c.limit_type, c.bytes) = (RrType::Bytes, num()?),
                    "useANO" => c.use_ano = num()? != 0,
                    "samplingCycles" => c.num_sampling_cycles = num()?,
                    "latencyEvalTime" => c.latency_eval_time = num()?,
                    "policy" => c.limit_type = rr_type(value)?,
                    _ => return Err(format!("unknown PSP option \"{key}\" for VMW_PSP_RR; allowed: policy, iops, bytes, useANO, samplingCycles, latencyEvalTime")),
                }
            }
            Ok(PolicyConfig::VmwRoundRobin(c))
        }
        "VMW_PSP_FIXED" | "VMW_PSP_MRU" if options.is_some_and(|o| !o.is_empty()) => {
            Err(format!("{psp} takes no PSP options"))
        }
        "VMW_PSP_FIXED" => Ok(PolicyConfig::VmwFixed(FixedConfig::default())),
        "VMW_PSP_MRU" => Ok(PolicyConfig::VmwMru(MruConfig {})),
        _ => Err(format!("unknown PSP \"{psp}\"; allowed: {}", PSPS.join(", "))),
    }
}

fn rr_type(value: &str) -> Result<RrType, String> {
    match value {
        "rr" | "default" => Ok(RrType::Default),
        "iops" => Ok(RrType::Iops),
        "bytes" => Ok(RrType::Bytes),
        "latency" => Ok(RrType::Latency),
        _ => Err(format!("round robin type \"{value}\"; allowed: default, iops, bytes, latency")),
    }
}

/// Applies a per-device command to that device's (SATP default PSP, current PSP) pair.
pub fn apply_device_command(
    cmd: &EsxcliCommand,
    default: &PolicyConfig,
    current: &mut PolicyConfig,
) -> Result<(), String> {
    match cmd {
        EsxcliCommand::DeviceSet { default: true, .. } => *current = default.clone(),
        EsxcliCommand::DeviceSet { psp: Some(psp), .. } => *current = psp_config(psp, None)?,
        EsxcliCommand::RoundRobinSet {
            limit_type,
            iops,
            bytes,
            use_ano,
            num_sampling_cycles,
            latency_eval_time,
            ..
        } => {
            let PolicyConfig::VmwRoundRobin(c) = current else {
                return Err(format!("the device's PSP is {}, not VMW_PSP_RR", current.name()));
            };
            if let Some(t) = limit_type {
                c.limit_type = rr_type(t)?;
            }
            c.iops = iops.unwrap_or(c.iops);
            c.bytes = bytes.unwrap_or(c.bytes);
            c.use_ano = use_ano.unwrap_or(c.use_ano);
            c.num_sampling_cycles = num_sampling_cycles.unwrap_or(c.num_sampling_cycles);
            c.latency_eval_time = latency_eval_time.unwrap_or(c.latency_eval_time);
            c.validate().map_err(|e| format!("--{}: {}", e.field.replace('_', "-"), e.message))?;
        }
        EsxcliCommand::FixedSet { path, .. } => {
            let PolicyConfig::VmwFixed(c) = current else {
                return Err(format!("the device's PSP is {}, not VMW_PSP_FIXED", current.name()));
            };
            c.preferred = Some(path.clone());
        }
        EsxcliCommand::SatpRuleAdd { .. } | EsxcliCommand::DeviceSet { .. } => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(
        satp: &str,
        vendor: Option<&str>,
        model: Option<&str>,
        tpgs: Option<bool>,
        psp: &str,
        options: Option<&str>,
    ) -> ClaimRule {
        ClaimRule { user: true, ..rule(satp, vendor, model, tpgs, psp, options) }
    }

    #[test]
    fn claim_rules_match_most_specific_first_then_user_before_system() {
        let mut rules = system_rules();
        let symm = claim(&rules, "EMC", "SYMMETRIX", false).unwrap();
        assert_eq!((symm.satp.as_str(), symm.psp.as_deref()), ("VMW_SATP_SYMM", Some("VMW_PSP_RR")));
        let generic = claim(&rules, "ACME", "BOX", true).unwrap();
        assert_eq!((generic.satp.as_str(), generic.psp.as_deref()), ("VMW_SATP_ALUA", Some("VMW_PSP_MRU")));
        assert_eq!(claim(&rules, "ACME", "BOX", false).unwrap().satp, "VMW_SATP_DEFAULT_AA");
        assert_eq!(claim(&rules, "DGC", "VRAID", false).unwrap().satp, "VMW_SATP_CX");
        assert_eq!(claim(&rules, "DGC", "VRAID", true).unwrap().satp, "VMW_SATP_ALUA_CX");
        // A user rule for the same vendor and model wins over the system rule; a claim option
        // that does not match keeps it out.
        rules.push(user("VMW_SATP_SYMM", Some("EMC"), Some("SYMMETRIX"), None, "VMW_PSP_RR", Some("iops=1")));
        rules.push(user("VMW_SATP_ALUA", Some("ACME"), Some("^BO*"), Some(false), "VMW_PSP_RR", None));
        assert_eq!(claim(&rules, "EMC", "SYMMETRIX", false).unwrap().psp_options.as_deref(), Some("iops=1"));
        assert_eq!(claim(&rules, "ACME", "BOX", true).unwrap().psp.as_deref(), Some("VMW_PSP_MRU"));
        assert_eq!(claim(&rules, "ACME", "BOX", false).unwrap().psp.as_deref(), Some("VMW_PSP_RR"));
    }

    #[test]
    fn psp_options_build_the_policy() {
        let PolicyConfig::VmwRoundRobin(c) = psp_config("VMW_PSP_RR", Some("iops=1")).unwrap() else { panic!() };
        assert_eq!((c.limit_type, c.iops), (RrType::Iops, 1));
        let PolicyConfig::VmwRoundRobin(c) = psp_config("VMW_PSP_RR", Some("policy=latency,useANO=1")).unwrap() else {
            panic!()
        };
        assert_eq!((c.limit_type, c.use_ano), (RrType::Latency, true));
        assert!(psp_config("VMW_PSP_RR", Some("iopz=1")).unwrap_err().contains("unknown PSP option"));
        assert!(psp_config("VMW_PSP_XX", None).unwrap_err().contains("allowed: VMW_PSP_RR"));
    }

    #[test]
    fn device_commands_change_only_what_they_name() {
        let default = psp_config("VMW_PSP_MRU", None).unwrap();
        let mut current = default.clone();
        let set_rr = EsxcliCommand::DeviceSet { device: "d".into(), psp: Some("VMW_PSP_RR".into()), default: false };
        apply_device_command(&set_rr, &default, &mut current).unwrap();
        let rr_set = |iops: u64| EsxcliCommand::RoundRobinSet {
            device: "d".into(),
            limit_type: Some("iops".into()),
            iops: Some(iops),
            bytes: None,
            use_ano: None,
            num_sampling_cycles: None,
            latency_eval_time: None,
        };
        let iops1 = rr_set(1);
        apply_device_command(&iops1, &default, &mut current).unwrap();
        let PolicyConfig::VmwRoundRobin(c) = &current else { panic!() };
        assert_eq!((c.limit_type, c.iops, c.bytes), (RrType::Iops, 1, 10_485_760));
        let bad = rr_set(0);
        assert!(apply_device_command(&bad, &default, &mut current)
            .unwrap_err()
            .starts_with("--iops: 0 is out of range"));
        let reset = EsxcliCommand::DeviceSet { device: "d".into(), psp: None, default: true };
        apply_device_command(&reset, &default, &mut current).unwrap();
        assert_eq!(current, default);
        assert!(apply_device_command(&iops1, &default, &mut current).unwrap_err().contains("not VMW_PSP_RR"));
    }
}
