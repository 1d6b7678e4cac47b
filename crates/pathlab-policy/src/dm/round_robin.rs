//! dm-multipath `round-robin` path selector.
//!
//! Algorithm (torvalds/linux `drivers/md/dm-ps-round-robin.c`, RR_VERSION 1.2.0): the group's
//! valid paths form a list in table order; every I/O takes the head of the list and moves it to
//! the tail. `nr_bytes` is ignored. A failed path leaves the list; a reinstated one goes back to
//! the *head* (`list_move`), so the very next I/O takes it, unlike queue-length and
//! service-time, which put it at the tail.
//!
//! Parameters: none. The per-path `repeat_count` is parsed by the kernel but clamped to 1 since
//! the core dropped its repeat counter ("repeat_count > 1 is deprecated"), so every I/O is a new
//! choice. Info args in `dmsetup status`: none.
//! Tie-break: none needed; the list order decides.

use crate::dm::selector::{DmPathArgs, DmPathSelector, PathLists, Rejoin};
use crate::{HostView, IoDesc, PathId, TimeNs};

#[derive(Clone)]
pub(crate) struct RoundRobin {
    paths: PathLists<()>,
}

impl RoundRobin {
    pub fn new() -> Self {
        RoundRobin { paths: PathLists::new() }
    }
}

impl DmPathSelector for RoundRobin {
    fn table(&self) -> String {
        "round-robin 0".to_string()
    }

    fn add_path(&mut self, path: &DmPathArgs) {
        self.paths.add(path.id, ());
    }

    fn fail_path(&mut self, path: PathId) {
        self.paths.fail(path);
    }

    fn reinstate_path(&mut self, path: PathId) {
        self.paths.reinstate(path, Rejoin::Head);
    }

    fn select_path(&mut self, _io: &IoDesc, _now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        self.paths.select(|_, _| false, |_| true)
    }

    fn path_info(&self, _path: PathId) -> String {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dm::selector::test_support::{add_paths, pick};
    use crate::IdleHost;

    #[test]
    fn rotates_in_table_order_and_a_reinstated_path_goes_to_the_head() {
        let mut s = RoundRobin::new();
        add_paths(&mut s, 3);
        // [a b c] -> a, b; fail c: [a b] -> a; reinstate c at the head: [c b a] -> c, b, a.
        let mut seq = vec![pick(&mut s, 4096, 0), pick(&mut s, 4096, 0)];
        s.fail_path(PathId(2));
        seq.push(pick(&mut s, 4096, 0));
        s.reinstate_path(PathId(2));
        seq.extend((0..3).map(|_| pick(&mut s, 4096, 0)));
        assert_eq!(seq, [0, 1, 0, 2, 1, 0]);
    }

    #[test]
    fn no_valid_path_selects_nothing() {
        let mut s = RoundRobin::new();
        add_paths(&mut s, 1);
        s.fail_path(PathId(0));
        let io = IoDesc { bytes: 512, is_write: true, cpu: 0 };
        assert_eq!(s.select_path(&io, 0, &IdleHost), None);
    }
}
