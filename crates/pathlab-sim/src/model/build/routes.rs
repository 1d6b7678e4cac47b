//! Routes and the policies' view of them: each path's read and write routes through the arrays,
//! then every device's policy learns its paths, and last that the device is claimed.

use crate::model::Model;
use crate::scenario::schema::ScenarioSpec;
use pathlab_policy::{PathDesc, PathId};

pub(super) fn connect(m: &mut Model, spec: &ScenarioSpec) {
    for pi in 0..m.paths.len() {
        m.set_routes(pi);
        let alua = m.policy_alua(pi);
        let p = &m.paths[pi];
        let desc = PathDesc {
            id: PathId(pi as u32),
            name: &p.name,
            alua,
            preferred: preferred(m, spec, pi),
            target_port_group: p.tpg_id,
            nexus: p.nexus as u32,
            numa_node: m.adapters[p.adapter()].numa_node,
        };
        m.devices[p.device].policy.add_path(&desc);
    }
    for d in &mut m.devices {
        d.policy.claimed(&d.name);
    }
}

/// Whether path `pi` leads to the controller its device names `preferred` (on the device's own
/// array, where `devices::add` checked the name): the model's devices are the scenario's, in order.
fn preferred(m: &Model, spec: &ScenarioSpec, pi: usize) -> bool {
    let p = &m.paths[pi];
    let port = &m.ports[p.port];
    spec.devices[p.device]
        .preferred
        .as_deref()
        .is_some_and(|name| port.array == m.devices[p.device].array && m.controllers[port.controller].name == name)
}
