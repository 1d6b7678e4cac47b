//! dm-multipath `io-affinity` path selector (Oracle, 2020).
//!
//! Algorithm (torvalds/linux `drivers/md/dm-ps-io-affinity.c`): every path comes with a CPU
//! mask; each CPU of the mask maps to the path unless an earlier path (in table order) already
//! took that CPU: the first mapping wins. An I/O goes down the path mapped to its submitting
//! CPU when that path has not failed. Otherwise (a "map miss" is counted only when the CPU has
//! no mapping at all) the CPUs of the submitting CPU's NUMA node are tried in ascending order,
//! then every mapped CPU in ascending order, and the first non-failed mapped path is taken.
//! No start/end hooks: the selector is blind to load.
//!
//! Parameters: `cpu_map`, one CPU list per path in the device's path order (the dm table's
//! per-path cpumask). The kernel refuses a table in which a path ends up with no CPU; here such
//! a path is simply never chosen. Info args: the selector's map-miss count.
//! Tie-break: none; the CPU map decides.

use std::collections::BTreeMap;

use crate::dm::selector::{DmPathArgs, DmPathSelector};
use crate::{HostView, IoDesc, PathId, TimeNs};

#[derive(Clone)]
pub(crate) struct IoAffinity {
    /// CPU -> path, in ascending CPU order (`path_map`, iterated as `for_each_cpu`).
    path_map: BTreeMap<u32, PathId>,
    failed: Vec<PathId>,
    map_misses: u64,
}

impl IoAffinity {
    pub fn new() -> Self {
        IoAffinity { path_map: BTreeMap::new(), failed: Vec::new(), map_misses: 0 }
    }

    fn usable(&self, path: PathId) -> bool {
        !self.failed.contains(&path)
    }
}

impl DmPathSelector for IoAffinity {
    fn table(&self) -> String {
        "io-affinity 0".to_string()
    }

    fn add_path(&mut self, path: &DmPathArgs) {
        for &cpu in path.cpus {
            self.path_map.entry(cpu).or_insert(path.id);
        }
    }

    fn fail_path(&mut self, path: PathId) {
        self.failed.push(path);
    }

    fn reinstate_path(&mut self, path: PathId) {
        self.failed.retain(|&p| p != path);
    }

    fn select_path(&mut self, io: &IoDesc, _now_ns: TimeNs, host: &dyn HostView) -> Option<PathId> {
        match self.path_map.get(&io.cpu) {
            Some(&path) if self.usable(path) => return Some(path),
            Some(_) => {}
            None => self.map_misses += 1,
        }
        let node = host.cpu_node(io.cpu);
        let same_node = self.path_map.iter().filter(|(&cpu, _)| host.cpu_node(cpu) == node);
        let chosen = same_node.chain(self.path_map.iter()).map(|(_, &path)| path).find(|&path| self.usable(path));
        chosen
    }

    fn path_info(&self, _path: PathId) -> String {
        self.map_misses.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::TestHost;

    fn pick(s: &mut IoAffinity, host: &TestHost, cpu: u32) -> Option<u32> {
        s.select_path(&IoDesc { bytes: 4096, is_write: false, cpu }, 0, host).map(|p| p.0)
    }

    #[test]
    fn each_cpu_uses_its_path_then_one_of_its_node_then_any() {
        // CPUs 0-3 on node 0, 4-7 on node 1. Path 0 takes CPUs 0,1; path 1 asks for 1 (already
        // taken: ignored) and 4; path 2 takes 5.
        let host = TestHost { cpu_nodes: vec![0, 0, 0, 0, 1, 1, 1, 1], ..TestHost::default() };
        let mut s = IoAffinity::new();
        for (i, cpus) in [vec![0, 1], vec![1, 4], vec![5]].iter().enumerate() {
            s.add_path(&DmPathArgs { id: PathId(i as u32), relative_throughput: 1, cpus });
        }
        assert_eq!([0, 1, 4, 5].map(|cpu| pick(&mut s, &host, cpu)), [Some(0), Some(0), Some(1), Some(2)]);
        assert_eq!(s.path_info(PathId(0)), "0");
        // CPU 6 has no mapping (a miss): node 1's mapped CPUs 4, 5 -> path 1.
        assert_eq!(pick(&mut s, &host, 6), Some(1));
        // Path 1 failed: CPU 4 is mapped (no miss) and falls to node 1's CPU 5 -> path 2.
        s.fail_path(PathId(1));
        assert_eq!(pick(&mut s, &host, 4), Some(2));
        // Node 1 all failed: any mapped CPU in order, CPU 0 -> path 0.
        s.fail_path(PathId(2));
        assert_eq!(pick(&mut s, &host, 6), Some(0));
        assert_eq!(s.path_info(PathId(2)), "2");
        s.fail_path(PathId(0));
        assert_eq!(pick(&mut s, &host, 0), None);
    }
}
