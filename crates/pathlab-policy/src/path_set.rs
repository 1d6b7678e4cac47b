//! The bookkeeping every NMP policy keeps of its device's paths: order of discovery, failed or
//! not, and ALUA state. Which paths are usable follows ESXi's VMW_SATP_ALUA rule: active-optimized
//! paths, and active-non-optimized ones only when no optimized path is left or `useANO=1`.

use crate::positions::PathPositions;
use crate::{AluaState, GroupState, PathDesc, PathGroup, PathId};

/// A path as the set keeps it: no name (a policy reads a path's name only as it is added, to
/// find a preferred path; the model keeps the names), so that a device's copy allocates none.
#[derive(Clone, Debug)]
struct Entry {
    id: PathId,
    alua: AluaState,
    failed: bool,
}

/// A device's paths in discovery order. The positions first (`repr(C)`): a completion reads
/// them and nothing else, so a policy that puts its set after its own per-I/O fields keeps
/// them next to those.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct PathSet {
    /// Position of each path by id: a look-up is O(1) however many paths there are.
    positions: PathPositions,
    entries: Vec<Entry>,
    /// Whether any working path is active-optimized.
    has_optimized: bool,
    /// Whether each path may carry I/O, without and with `use_ano`: kept current on every change
    /// so that the per-I/O test is one load, and a scan of the paths reads one dense array.
    usable: [Vec<bool>; 2],
}

impl PathSet {
    pub fn add(&mut self, path: &PathDesc) {
        self.entries.push(Entry { id: path.id, alua: path.alua, failed: false });
        self.positions.add(path.id, self.entries.len() - 1);
        if path.alua == AluaState::ActiveOptimized && !self.has_optimized {
            self.refresh(); // the first optimized path: non-optimized ones stop being usable
        } else {
            let last = self.entries.len() - 1;
            for use_ano in [false, true] {
                let usable = self.compute_usable(last, use_ano);
                self.usable[usize::from(use_ano)].push(usable);
            }
        }
    }

    fn refresh(&mut self) {
        self.has_optimized = self.entries.iter().any(|e| !e.failed && e.alua == AluaState::ActiveOptimized);
        for use_ano in [false, true] {
            self.usable[usize::from(use_ano)] = (0..self.len()).map(|i| self.compute_usable(i, use_ano)).collect();
        }
    }

    fn compute_usable(&self, index: usize, use_ano: bool) -> bool {
        let e = &self.entries[index];
        !e.failed
            && match e.alua {
                AluaState::ActiveOptimized => true,
                AluaState::ActiveNonOptimized => use_ano || !self.has_optimized,
                AluaState::Standby | AluaState::Unavailable => false,
            }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn id(&self, index: usize) -> PathId {
        self.entries[index].id
    }

    /// Position of a path in discovery order.
    pub fn index_of(&self, id: PathId) -> Option<usize> {
        self.positions.get(id)
    }

    pub fn set_failed(&mut self, id: PathId, failed: bool) {
        if let Some(i) = self.index_of(id) {
            self.entries[i].failed = failed;
            self.refresh();
        }
    }

    pub fn set_alua(&mut self, id: PathId, state: AluaState) {
        if let Some(i) = self.index_of(id) {
            self.entries[i].alua = state;
            self.refresh();
        }
    }

    pub fn alua(&self, index: usize) -> AluaState {
        self.entries[index].alua
    }

    /// Whether any working path is active-optimized.
    pub fn has_optimized(&self) -> bool {
        self.has_optimized
    }

    /// Whether the path at `index` may carry I/O now.
    pub fn usable(&self, index: usize, use_ano: bool) -> bool {
        self.usable[usize::from(use_ano)][index]
    }

    /// Whether each path may carry I/O now, by position.
    pub fn usable_flags(&self, use_ano: bool) -> &[bool] {
        &self.usable[usize::from(use_ano)]
    }

    /// The first usable path at or after `start` going round the list.
    pub fn next_usable_from(&self, start: usize, use_ano: bool) -> Option<usize> {
        next_from(self.len(), start, |i| self.usable(i, use_ano))
    }

    /// Indices of every usable path, in discovery order.
    pub fn usable_indices(&self, use_ano: bool) -> Vec<usize> {
        (0..self.len()).filter(|&i| self.usable(i, use_ano)).collect()
    }

    /// Whether the path at `index` is down, whatever its ALUA state.
    pub fn failed(&self, index: usize) -> bool {
        self.entries[index].failed
    }
}

/// Paths a device usually has (2 adapters × 4 array ports, as on the shipped clusters): what a
/// policy's per-path tables are first given room for, so that a device's paths, added one at a
/// time, allocate each table once (a cluster's build is thousands of devices).
pub(crate) const USUAL_PATHS: usize = 8;

/// The first of the indices `0..n` that is `eligible`, walking round from `start`: round robin.
pub fn next_from(n: usize, start: usize, eligible: impl Fn(usize) -> bool) -> Option<usize> {
    rotation(n, start).find(|&i| eligible(i))
}

/// The indices `0..n` walking round from `start`: `(start + k) % n` for k in `0..n`, without a
/// division per step (tens of cycles each, and the policies walk their paths on every I/O).
pub fn rotation(n: usize, start: usize) -> impl Iterator<Item = usize> {
    let start = if start < n { start } else { start % n.max(1) };
    (start..n).chain(0..start)
}

/// The position after `i` among `n` paths, wrapping: `(i + 1) % n`, without the division on
/// the usual step (a division costs tens of cycles, and round robin takes this step per I/O).
#[inline]
pub fn next_in_rotation(i: usize, n: usize) -> usize {
    let next = i + 1;
    if next < n {
        next
    } else {
        next % n.max(1)
    }
}

/// Among the indices `0..n` that are `eligible`, the one with the least `key`; ties go to the
/// first one met walking round from `start`. With `start` fixed at 0 ties go to the first in
/// path order; with `start` just after the last path chosen, equally good paths take turns.
pub fn least_from<K: Ord>(
    n: usize,
    start: usize,
    eligible: impl Fn(usize) -> bool,
    mut key: impl FnMut(usize) -> K,
) -> Option<usize> {
    let mut best: Option<(usize, K)> = None;
    for i in rotation(n, start).filter(|&i| eligible(i)) {
        let k = key(i);
        if best.as_ref().is_none_or(|(_, b)| k < *b) {
            best = Some((i, k));
        }
    }
    best.map(|(i, _)| i)
}

/// The one group of a policy that treats all its paths alike.
pub fn flat_group(paths: &PathSet) -> Vec<PathGroup> {
    let ids = (0..paths.len()).map(|i| paths.id(i)).collect();
    vec![PathGroup { priority: 1, state: GroupState::Active, selector: String::new(), paths: ids }]
}

/// The membership methods of a policy whose path bookkeeping is a `PathSet` in `self.paths`;
/// `path_set_membership!(method)` also calls `self.method()` after every change, for a policy
/// that keeps a copy of what the set says.
macro_rules! path_set_membership {
    ($($after_change:ident)?) => {
        fn fail_path(&mut self, path: PathId) {
            self.paths.set_failed(path, true);
            $(self.$after_change();)?
        }

        fn reinstate_path(&mut self, path: PathId) {
            self.paths.set_failed(path, false);
            $(self.$after_change();)?
        }

        fn set_alua_state(&mut self, path: PathId, state: AluaState) {
            self.paths.set_alua(path, state);
            $(self.$after_change();)?
        }

        fn path_groups(&self) -> Vec<crate::PathGroup> {
            crate::path_set::flat_group(&self.paths)
        }
    };
}
pub(crate) use path_set_membership;
