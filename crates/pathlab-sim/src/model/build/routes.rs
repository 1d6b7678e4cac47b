//! Routes and the policies' view of them: each path's read and write routes through the arrays,
//! then every device's policy learns its paths, and last that the device is claimed.

use crate::model::Model;
use pathlab_policy::{PathDesc, PathId};

pub(super) fn connect(m: &mut Model) {
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
            numa_node: m.adapters[p.adapter()].numa_node,
        };
        m.devices[p.device].policy.add_path(&desc);
    }
    for d in &mut m.devices {
        d.policy.claimed(&d.name);
    }
}
