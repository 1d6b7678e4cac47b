//! Routes and the policies' view of them: each path's read and write routes through the arrays,
//! then every device's policy learns its paths, and last that the device is claimed.

use crate::model::Model;
use pathlab_policy::{PathDesc, PathId};

/// `preferred`: each device's preferred controller as `devices::add` resolved it (`DeviceScope::preferred`).
pub(super) fn connect(m: &mut Model, preferred: &[Option<usize>]) {
    for pi in 0..m.paths.len() {
        m.set_routes(pi);
        let alua = m.policy_alua(pi);
        let p = &m.paths[pi];
        let desc = PathDesc {
            id: PathId(pi as u32),
            name: &p.name,
            alua,
            // The controller's index is on the device's own array (`devices::add`): a path to
            // a peer array's controller of that name is no path to it.
            preferred: preferred[p.device] == Some(m.ports[p.port].controller),
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

#[cfg(test)]
mod tests {
    use crate::observe::describe::describe;

    /// Two arrays alike, each with controllers A and B (a port to each).
    fn array(name: &str) -> String {
        format!(
            "[[arrays]]\nname = \"{name}\"\ntpgs = true\nsymmetric = false\nservice = {{ fixed = \"20us\" }}\n\
             controllers = [{{ name = \"A\" }}, {{ name = \"B\" }}]\n\
             ports = [{{ name = \"P0\", controller = \"A\" }}, {{ name = \"P1\", controller = \"B\" }}]\n"
        )
    }

    /// A device's `preferred` controller is its own array's: here B of array r1, while the metro
    /// peer r2 has a B too. alua.c adds 80 to the paths of the preferred port group that are not
    /// optimized, so r1's B paths print 90 and r2's B paths stay at 10.
    const METRO: &str = r#"
[[fabric]]
adapters = ["host1"]
ports = ["r1/P0", "r1/P1", "r2/P0", "r2/P1"]
targets = [0, 1, 2, 3]
latency = "5us"
[[devices]]
name = "3600a098038303053453f463045727a41"
array = "r1"
lun = 3
owner = "A"
preferred = "B"
policy = { name = "dm-multipath", path_grouping_policy = "group_by_prio", hardware_handler = "1 alua" }
[[replication]]
name = "metro1"
arrays = ["r1", "r2"]
devices = ["3600a098038303053453f463045727a41"]
latency = "100us"
[[workloads]]
name = "w"
devices = ["3600a098038303053453f463045727a41"]
outstanding = 1
block_size = "8KiB"
read_pct = 100
"#;

    #[test]
    fn the_preferred_controller_is_the_device_s_own_array_s() {
        let head = "name = \"preferred-on-its-own-array\"\n[run]\nduration = \"1s\"\nwarmup = \"0s\"\n\
                    [host]\nname = \"linux01\"\nadapters = [{ name = \"host1\" }]\n";
        let text = format!("{head}{}{}{METRO}", array("r1"), array("r2"));
        let scenario = crate::run::load(&text, "metro.toml", None, &[], None).unwrap();
        let m = super::super::build_model(&scenario.spec).unwrap();
        let groups: Vec<(i32, Vec<String>)> =
            describe(&m, 0).devices[0].groups.iter().map(|g| (g.priority, g.paths.clone())).collect();
        let paths = |targets: &[u32]| targets.iter().map(|t| format!("host1:C0:T{t}:L3")).collect::<Vec<_>>();
        // Targets 0-3 are r1/P0 (A), r1/P1 (B), r2/P0 (A), r2/P1 (B): r1's B non-optimized and
        // preferred (10 + 80), the owner A optimized on both arrays (50), r2's B non-optimized (10).
        assert_eq!(groups, [(90, paths(&[1])), (50, paths(&[0, 2])), (10, paths(&[3]))]);
    }
}
