//! The contract between the dm-multipath core (`dm_multipath.rs`) and its path selectors, after
//! `drivers/md/dm-path-selector.h`, and the `valid_paths` / `failed_paths` lists that the
//! round-robin, queue-length, service-time and historical-service-time selectors keep alike.
//!
//! A selector instance belongs to one priority group and knows only that group's paths. The
//! core calls `fail_path` and `reinstate_path` only on a real change of state, as dm-mpath does.

use crate::positions::PathPositions;
use crate::{HostView, IoDesc, IoDone, PathId, TimeNs};

/// What the dm table gives a selector for one path (`<dev> <per-path args>`).
pub(crate) struct DmPathArgs<'a> {
    pub id: PathId,
    /// service-time's `relative_throughput`, 0..=100.
    pub relative_throughput: u32,
    /// io-affinity's CPU mask, as the list of its CPUs.
    pub cpus: &'a [u32],
}

pub(crate) trait DmPathSelector: Send + dyn_clone::DynClone {
    /// Selector name and table args as `multipath -ll` prints them: `service-time 0`.
    fn table(&self) -> String;
    fn add_path(&mut self, path: &DmPathArgs);
    fn fail_path(&mut self, path: PathId);
    fn reinstate_path(&mut self, path: PathId);
    fn select_path(&mut self, io: &IoDesc, now_ns: TimeNs, host: &dyn HostView) -> Option<PathId>;
    fn start_io(&mut self, _path: PathId, _io: &IoDesc) {}
    fn end_io(&mut self, _path: PathId, _io: &IoDesc, _done: &IoDone) {}
    /// The load `path` carries when this selector takes it over from the table a reload
    /// replaced: its completions will arrive here.
    fn adopt_in_flight(&mut self, _path: PathId, _ios: u64, _bytes: u64) {}
    /// The path's info args as `dmsetup status` prints them (empty when the selector has none).
    fn path_info(&self, path: PathId) -> String;
}

// A boxed selector is `Clone` (as the policies are): a dm table is `Clone`.
dyn_clone::clone_trait_object!(DmPathSelector);

/// Where a reinstated path rejoins the valid list.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rejoin {
    /// round-robin (`list_move`): the next I/O takes it.
    Head,
    /// queue-length, service-time, historical-service-time (`list_move_tail`).
    Tail,
}

/// A selector's paths with their per-path state: the valid ones in list order, which selection
/// reorders, and the failed ones set aside with their state.
#[derive(Clone)]
pub(crate) struct PathLists<T> {
    all: Vec<(PathId, T)>,
    /// Positions in `all`, in `valid_paths` order.
    valid: Vec<usize>,
    /// Positions in `all` by path id.
    positions: PathPositions,
}

impl<T> PathLists<T> {
    pub fn new() -> Self {
        PathLists { all: Vec::new(), valid: Vec::new(), positions: PathPositions::default() }
    }

    /// A new path joins the tail of the valid list (`list_add_tail`).
    pub fn add(&mut self, id: PathId, state: T) {
        self.valid.push(self.all.len());
        self.positions.add(id, self.all.len());
        self.all.push((id, state));
    }

    fn position(&self, id: PathId) -> Option<usize> {
        self.positions.get(id)
    }

    pub fn fail(&mut self, id: PathId) {
        if let Some(pos) = self.position(id) {
            self.valid.retain(|&v| v != pos);
        }
    }

    pub fn reinstate(&mut self, id: PathId, at: Rejoin) {
        let Some(pos) = self.position(id) else { return };
        if self.valid.contains(&pos) {
            return;
        }
        match at {
            Rejoin::Head => self.valid.insert(0, pos),
            Rejoin::Tail => self.valid.push(pos),
        }
    }

    /// Number of valid paths (HST's `valid_count`).
    pub fn valid_count(&self) -> usize {
        self.valid.len()
    }

    pub fn state(&self, id: PathId) -> Option<&T> {
        self.position(id).map(|p| &self.all[p].1)
    }

    pub fn state_mut(&mut self, id: PathId) -> Option<&mut T> {
        self.position(id).map(|p| &mut self.all[p].1)
    }

    /// The kernel's selection loop: walk the valid list in order, the first path becoming the
    /// best and each later one replacing it when `better(candidate, best)`; stop early once
    /// `done(best)`. The winner moves to the tail of the list, so that ties rotate.
    pub fn select(&mut self, mut better: impl FnMut(&T, &T) -> bool, done: impl Fn(&T) -> bool) -> Option<PathId> {
        let mut best: Option<usize> = None;
        for (k, &pos) in self.valid.iter().enumerate() {
            if best.is_none_or(|b| better(&self.all[pos].1, &self.all[self.valid[b]].1)) {
                best = Some(k);
            }
            if best.is_some_and(|b| done(&self.all[self.valid[b]].1)) {
                break;
            }
        }
        let pos = self.valid.remove(best?);
        self.valid.push(pos);
        Some(self.all[pos].0)
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::{DmPathArgs, DmPathSelector};
    use crate::{IdleHost, IoDesc, IoDone, PathId, TimeNs};

    /// Adds paths `0..n` with relative throughput 1 and no CPU.
    pub fn add_paths(s: &mut dyn DmPathSelector, n: u32) {
        for i in 0..n {
            s.add_path(&DmPathArgs { id: PathId(i), relative_throughput: 1, cpus: &[] });
        }
    }

    /// Selects a path for an I/O of `bytes` at `now_ns` and starts it there.
    pub fn pick(s: &mut dyn DmPathSelector, bytes: u64, now_ns: TimeNs) -> u32 {
        let io = IoDesc { bytes, is_write: false, cpu: 0 };
        let path = s.select_path(&io, now_ns, &IdleHost).expect("a valid path");
        s.start_io(path, &io);
        path.0
    }

    /// Ends an I/O of `bytes` on `path` that started at `start_ns`, at `end_ns`.
    pub fn finish(s: &mut dyn DmPathSelector, path: u32, bytes: u64, start_ns: TimeNs, end_ns: TimeNs) {
        let io = IoDesc { bytes, is_write: false, cpu: 0 };
        s.end_io(PathId(path), &io, &IoDone { now_ns: end_ns, latency_ns: end_ns - start_ns, failed: false });
    }
}
