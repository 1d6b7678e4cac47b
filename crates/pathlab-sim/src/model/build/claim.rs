//! The claim: which plugin and policy each device gets. ESXi's claim rules (the system's and the
//! user's `satp rule add`) give the SATP and its default PSP; the scenario's policy, then the
//! esxcli device commands, replace it; a Linux policy's parameters the scenario leaves out come
//! from the Linux claim tables; the host stack's failure rules follow from the policy.

use super::values::err;
use crate::linux::{self, claim::LinuxClaim};
use crate::model::names_per_host::NamesPerHost;
use crate::model::stack::StackRules;
use crate::model::{Array, Model};
use crate::nmp::esxcli::{self, EsxcliCommand};
use crate::nmp::{self, ClaimRule, SatpKind};
use crate::scenario::error::FieldError;
use crate::scenario::schema::{HostSpec, ScenarioSpec};
use pathlab_policy::{HostStack, PolicyConfig, Prioritizer, Selector};
use std::sync::Arc;

/// The scenario's esxcli commands, parsed, and the claim rules in force.
pub(super) struct Esxcli {
    commands: Vec<(usize, EsxcliCommand)>,
    rules: Vec<ClaimRule>,
}

impl Esxcli {
    pub(super) fn parse(spec: &ScenarioSpec) -> Result<Esxcli, FieldError> {
        let mut commands = Vec::new();
        for (i, line) in spec.esxcli.iter().enumerate() {
            commands.push((i, esxcli::parse(line).map_err(|m| (format!("esxcli.{i}"), m))?));
        }
        let rules = claim_rules(&commands)?;
        Ok(Esxcli { commands, rules })
    }
}

/// What a device's claim gives it.
pub(super) struct Claim {
    pub(super) satp: String,
    pub(super) linux: Arc<LinuxClaim>,
    pub(super) given: Vec<String>,
    pub(super) path_states: SatpKind,
    pub(super) policy_config: PolicyConfig,
    pub(super) policy: Selector,
    pub(super) stack: StackRules,
    /// The field that set the policy last, where errors in its parameters point.
    pub(super) policy_field: String,
}

/// The Linux claim tables' answer for each array's vendor, model and ALUA support, under a
/// policy that is not dm-multipath's (which the answer then does not read): matched once an
/// array, not once a device (the tables' patterns were a fourteenth of a cluster's build), and
/// shared by its devices.
#[derive(Default)]
pub(super) struct LinuxClaims(Vec<((String, String, bool), Arc<LinuxClaim>)>);

impl LinuxClaims {
    fn claim(&mut self, array: &Array, config: &PolicyConfig) -> Arc<LinuxClaim> {
        let (vendor, model, tpgs) = (array.vendor.as_str(), array.model.as_str(), array.tpgs);
        if matches!(config, PolicyConfig::DmMultipath(_)) {
            return Arc::new(linux::claim::claim_for(vendor, model, tpgs, config));
        }
        if let Some((_, known)) = self.0.iter().find(|((v, m, t), _)| v == vendor && m == model && *t == tpgs) {
            return Arc::clone(known);
        }
        let claimed = Arc::new(linux::claim::claim(vendor, model, tpgs));
        self.0.push(((vendor.to_string(), model.to_string(), tpgs), Arc::clone(&claimed)));
        claimed
    }
}

/// The claim of device `di` on `array`, seen by `host` (its field path and table).
pub(super) fn claim(
    spec: &ScenarioSpec,
    di: usize,
    array: &Array,
    host: &(String, &HostSpec),
    esxcli: &Esxcli,
    device_names: &NamesPerHost,
    linux_claims: &mut LinuxClaims,
) -> Result<Claim, FieldError> {
    let d = &spec.devices[di];
    let field = format!("devices.{di}");
    let vendor = &array.vendor;
    let claimed = nmp::claim(&esxcli.rules, vendor, &array.model, array.tpgs);
    let satp = claimed.map_or("VMW_SATP_DEFAULT_AA".to_string(), |r| r.satp.clone());
    // A rule without a PSP gives the SATP's own default (`satp rule add -s VMW_SATP_ALUA_CX -V DGC`: round robin).
    let default_psp = match claimed.and_then(|r| r.psp.as_deref()) {
        Some(psp) => nmp::psp_config(psp, claimed.and_then(|r| r.psp_options.as_deref())),
        None => nmp::psp_config(nmp::default_psp(&satp), None),
    }
    .map_err(|e| ("esxcli".to_string(), e))?;
    let (mut policy_field, mut policy_config, given) = match (&d.policy, &spec.policy) {
        (Some(p), _) => (format!("{field}.policy"), p.config.clone(), p.given.clone()),
        (None, Some(p)) => ("policy".to_string(), p.config.clone(), p.given.clone()),
        (None, None) => ("esxcli".to_string(), default_psp.clone(), Vec::new()),
    };
    // A Linux policy's parameters the scenario leaves out are the claim tables' (multipath-tools'
    // hwtable, the NVMe udev rules), as ESXi's come from its SATP claim rules above.
    let linux = linux_claims.claim(array, &policy_config);
    linux.fill(&mut policy_config, &given);
    for (i, cmd) in &esxcli.commands {
        let target = match cmd {
            EsxcliCommand::DeviceSet { device, .. }
            | EsxcliCommand::RoundRobinSet { device, .. }
            | EsxcliCommand::FixedSet { device, .. } => device,
            EsxcliCommand::SatpRuleAdd { .. } => continue,
        };
        // A NAA alone sets it on every host that has it: one command run on each host of a cluster.
        if device_names.on_every_host(target, &format!("esxcli.{i}"))?.contains(&di) {
            nmp::apply_device_command(cmd, &default_psp, &mut policy_config).map_err(|e| (format!("esxcli.{i}"), e))?;
            policy_field = format!("esxcli.{i}");
        }
    }
    let policy = policy_config.build().map_err(|e| (format!("{policy_field}.{}", e.field), e.message))?;
    let (host_field, host_spec) = host;
    let stack = StackRules::resolve(&policy_config, policy.no_path_action(), &host_spec.stack)
        .map_err(|(f, m)| (f.replacen("host", host_field, 1), m))?;
    let path_states = match policy_config.host_stack() {
        HostStack::LinuxDm => linux.path_states(),
        _ => nmp::satp_kind(&satp),
    };
    Ok(Claim { satp, linux, given, path_states, policy_config, policy, stack, policy_field })
}

/// A Fixed policy's preferred path, once the device's paths are known, is one of them.
pub(super) fn check_preferred(m: &Model, di: usize, policy_field: &str) -> Result<(), FieldError> {
    let device = &m.devices[di];
    if let PolicyConfig::VmwFixed(c) = &device.policy_config {
        if let Some(pref) = &c.preferred {
            if !device.paths.iter().any(|&i| *m.paths[i].name == **pref) {
                let names: Vec<&str> = device.paths.iter().map(|&i| &*m.paths[i].name).collect();
                return err(
                    format!("{policy_field}.preferred"),
                    format!("\"{pref}\" is not a path of {}; paths: {}", device.name, names.join(", ")),
                );
            }
        }
    }
    Ok(())
}

/// weightedpath's priorities name paths of the device: a name that is not one would give its path
/// nothing and the path meant 0, without a word. And the prioritizer is in the host's release:
/// multipath-tools added it in 0.5.0 (c7057579, 2011), after the releases `[host]
/// multipath_tools` names.
/// multipath-tools' first release with the weightedpath prioritizer (0.5.0, c7057579).
const WEIGHTEDPATH_SINCE: (u32, u32, u32) = (0, 5, 0);

pub(super) fn check_path_priorities(m: &Model, di: usize, policy_field: &str) -> Result<(), FieldError> {
    let device = &m.devices[di];
    if let PolicyConfig::DmMultipath(c) = &device.policy_config {
        let release = m.host_multipath_tools[device.host].as_deref();
        let older = release.filter(|r| crate::linux::release_before(r, WEIGHTEDPATH_SINCE));
        if let (Some(Prioritizer::Weightedpath), Some(release)) = (c.prio, older) {
            return err(
                format!("{policy_field}.prio"),
                format!(
                    "weightedpath is not in multipath-tools {release} (the host's multipath_tools): it came in 0.5.0"
                ),
            );
        }
        let mut named = c.path_priorities.iter().flat_map(|given| given.keys());
        if let Some(name) = named.find(|n| !device.paths.iter().any(|&i| *m.paths[i].name == **n)) {
            let names: Vec<&str> = device.paths.iter().map(|&i| &*m.paths[i].name).collect();
            return err(
                format!("{policy_field}.path_priorities"),
                format!("\"{name}\" is not a path of {}; paths: {}", device.name, names.join(", ")),
            );
        }
    }
    Ok(())
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
