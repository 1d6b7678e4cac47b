//! dm-multipath `queue-length` path selector (since 2.6.31).
//!
//! Algorithm (torvalds/linux `drivers/md/dm-ps-queue-length.c`, QL_VERSION 0.2.0): each path
//! counts its in-flight I/Os (`qlen`: +1 at `start_io`, -1 at `end_io`). Selection walks the
//! valid list in its current order, keeping the first path with a *strictly* smaller `qlen`
//! than the best so far, and stops as soon as the best has `qlen` 0. The winner moves to the
//! tail of the list ("most recently used becomes least preferred", Kumykov's "more evenly
//! distribute ties"): with a, b idle and c busy, a and b alternate instead of a taking it all.
//! A failed path leaves the list; a reinstated one rejoins at the tail.
//!
//! Parameters: none (`repeat_count` is clamped to 1 by the kernel). Info args: the path's
//! in-flight count. Counters are per path *of this map*: other LUNs on the same port are not
//! seen.
//! Tie-break: first in the current list order, which the tail move rotates.

use crate::dm::selector::{DmPathArgs, DmPathSelector, PathLists, Rejoin};
use crate::{HostView, IoDesc, IoDone, PathId, TimeNs};

#[derive(Clone)]
pub(crate) struct QueueLength {
    /// In-flight I/Os per path.
    paths: PathLists<u64>,
}

impl QueueLength {
    pub fn new() -> Self {
        QueueLength { paths: PathLists::new() }
    }
}

impl DmPathSelector for QueueLength {
    fn table(&self) -> String {
        "queue-length 0".to_string()
    }

    fn add_path(&mut self, path: &DmPathArgs) {
        self.paths.add(path.id, 0);
    }

    fn fail_path(&mut self, path: PathId) {
        self.paths.fail(path);
    }

    fn reinstate_path(&mut self, path: PathId) {
        self.paths.reinstate(path, Rejoin::Tail);
    }

    fn select_path(&mut self, _io: &IoDesc, _now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        self.paths.select(|candidate, best| candidate < best, |best| *best == 0)
    }

    fn start_io(&mut self, path: PathId, _io: &IoDesc) {
        if let Some(qlen) = self.paths.state_mut(path) {
            *qlen += 1;
        }
    }

    fn end_io(&mut self, path: PathId, _io: &IoDesc, _done: &IoDone) {
        if let Some(qlen) = self.paths.state_mut(path) {
            *qlen = qlen.saturating_sub(1);
        }
    }

    fn adopt_in_flight(&mut self, path: PathId, ios: u64, _bytes: u64) {
        if let Some(qlen) = self.paths.state_mut(path) {
            *qlen = ios;
        }
    }

    fn path_info(&self, path: PathId) -> String {
        self.paths.state(path).map(u64::to_string).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dm::selector::test_support::{add_paths, finish, pick};

    #[test]
    fn least_loaded_wins_and_the_winner_moves_to_the_tail() {
        let mut s = QueueLength::new();
        add_paths(&mut s, 3);
        // Nothing completes: 0, 1, 2 each stop the scan at qlen 0; then all have 1 and the
        // first of the rotated list [a b c] wins, then b, whose 1 beats a's 2.
        let seq: Vec<u32> = (0..5).map(|_| pick(&mut s, 4096, 0)).collect();
        assert_eq!(seq, [0, 1, 2, 0, 1]);
        assert_eq!(s.path_info(PathId(0)), "2");
        assert_eq!(s.path_info(PathId(2)), "1");
    }

    #[test]
    fn two_idle_paths_share_the_load_while_a_third_is_busy() {
        let mut s = QueueLength::new();
        add_paths(&mut s, 3);
        for _ in 0..3 {
            pick(&mut s, 4096, 0);
        }
        finish(&mut s, 0, 4096, 0, 10);
        finish(&mut s, 1, 4096, 0, 10);
        // c keeps one I/O in flight; a and b alternate (without the tail move a would win all).
        let seq: Vec<u32> = (0..4)
            .map(|_| {
                let p = pick(&mut s, 4096, 20);
                finish(&mut s, p, 4096, 20, 30);
                p
            })
            .collect();
        assert_eq!(seq, [0, 1, 0, 1]);
    }

    #[test]
    fn reinstated_path_rejoins_at_the_tail() {
        let mut s = QueueLength::new();
        add_paths(&mut s, 3);
        s.fail_path(PathId(0));
        s.reinstate_path(PathId(0));
        // List [b c a]: all idle, so b stops the scan.
        assert_eq!(pick(&mut s, 4096, 0), 1);
    }
}
