//! Each device's multipathing as resolved, as typed data for readers outside the simulation
//! (the Python advisor and importer): the policy configuration in force (the scenario's
//! parameters, the rest filled by the stack's defaults, the claim tables and esxcli commands),
//! the policy's status with paths by name, the host stack, and the array's vendor and model.
//! What `describe` prints as text, code reads from here.

use crate::model::Model;
use pathlab_policy::{HostStack, PathId, PolicyConfig, PolicyStatus};
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct DeviceSetup {
    pub name: String,
    /// The host that sees it.
    pub host: String,
    /// The host stack its policy runs in: esxi, linux-dm, linux-nvme, spdk or windows.
    pub stack: &'static str,
    pub array: ArrayIdentity,
    /// The array-type plugin that claimed it, on ESXi.
    pub satp: Option<String>,
    /// Every parameter of the policy in force, tagged by the policy's `name`.
    pub policy: PolicyConfig,
    /// The parameters the scenario gives; the others come from the stack or the claim.
    pub given: Vec<String>,
    pub status: PolicyStatus<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ArrayIdentity {
    pub name: String,
    pub vendor: String,
    pub model: String,
}

/// The name a reader outside the simulation knows a host stack by.
pub fn stack_name(stack: HostStack) -> &'static str {
    match stack {
        HostStack::Esxi => "esxi",
        HostStack::LinuxDm => "linux-dm",
        HostStack::LinuxNvme => "linux-nvme",
        HostStack::Spdk => "spdk",
        HostStack::Windows => "windows",
    }
}

/// Every device's setup now, in the model's order.
pub fn setups(m: &Model) -> Vec<DeviceSetup> {
    let name_of = |id: PathId| m.paths[id.0 as usize].name.to_string();
    m.devices
        .iter()
        .map(|d| {
            let array = &m.arrays[d.array];
            let stack = d.policy_config.host_stack();
            DeviceSetup {
                name: d.name.to_string(),
                host: m.host_names[d.host].clone(),
                stack: stack_name(stack),
                array: ArrayIdentity {
                    name: array.name.clone(),
                    vendor: array.vendor.clone(),
                    model: array.model.clone(),
                },
                satp: (stack == HostStack::Esxi).then(|| d.satp.to_string()),
                policy: d.policy_config.clone(),
                given: d.given.to_vec(),
                status: d.policy.status().named(&name_of),
            }
        })
        .collect()
}
