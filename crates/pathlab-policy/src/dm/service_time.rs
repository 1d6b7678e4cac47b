//! dm-multipath `service-time` path selector (since 2.6.31; multipath-tools' default).
//!
//! Algorithm (torvalds/linux `drivers/md/dm-ps-service-time.c`, ST_VERSION 0.3.0;
//! `Documentation/admin-guide/device-mapper/dm-service-time.rst`): each path counts its
//! in-flight bytes (`start_io` adds the I/O's size, `end_io` subtracts it) and has a
//! `relative_throughput` rt in 0..=100. The estimated service time of the incoming I/O on a path
//! is `(in_flight + incoming) / rt`; [`compare_load`] decides between two paths exactly as
//! `st_compare_load` does, case by case:
//! 1. equal rt: the smaller in-flight size wins (the incoming size is ignored);
//! 2. equal in-flight size, or either rt is 0: the higher rt wins (a path with rt 0 is used only
//!    when every valid path has rt 0);
//! 3. otherwise `(sz1 + incoming) * rt2` against `(sz2 + incoming) * rt1`, both sizes shifted
//!    right by 7 first when either is at least `SIZE_MAX >> 7` (overflow guard);
//! 4. equal estimates: the higher rt wins.
//!
//! The kernel returns each difference as a C `int`, truncating the 64-bit `size_t` result; we
//! keep that truncation, so that a case-3 difference of 2^32 or more can come out with the
//! wrong sign exactly as it does in the kernel (reachable with rt > 1 and tens of MiB in flight).
//! In-flight sizes are kept in 64 bits (the kernel's `atomic_t` would wrap at 2 GiB in flight).
//!
//! Selection: linear scan of the valid list, a candidate replacing the best only when
//! `compare_load(candidate, best) < 0`, so ties keep the earlier path; the winner moves to the
//! tail, rotating ties as queue-length does. Reinstated paths rejoin at the tail.
//!
//! Parameters: per path `relative_throughput` 0..=100, default 1. multipath-tools never passes
//! it (its table has one per-path arg, the minio), so in practice every rt is 1 and the selector
//! is "fewest in-flight bytes". Info args: in-flight bytes and rt.
//! Tie-break: first in the current list order, rotated by the tail move.

use crate::dm::selector::{DmPathArgs, DmPathSelector, PathLists, Rejoin};
use crate::{HostView, IoDesc, IoDone, PathId, TimeNs};

/// `ST_MAX_INFLIGHT_SIZE`: `(size_t)-1 >> ST_MAX_RELATIVE_THROUGHPUT_SHIFT`.
const MAX_INFLIGHT_SIZE: u64 = u64::MAX >> 7;
/// `ST_MAX_RELATIVE_THROUGHPUT_SHIFT`: 100 < 2^7, so the product cannot overflow after it.
const OVERFLOW_SHIFT: u32 = 7;

/// The kernel's `st_compare_load`: negative when path 1 is better, positive when path 2 is, 0
/// for no difference.
pub(crate) fn compare_load(sz1: u64, rt1: u32, sz2: u64, rt2: u32, incoming: u64) -> i32 {
    // The `as i32` casts are C's size_t/unsigned-to-int conversions: truncation.
    if rt1 == rt2 {
        return sz1.wrapping_sub(sz2) as i32;
    }
    if sz1 == sz2 || rt1 == 0 || rt2 == 0 {
        return rt2.wrapping_sub(rt1) as i32;
    }
    let (mut sz1, mut sz2) = (sz1.wrapping_add(incoming), sz2.wrapping_add(incoming));
    if sz1 >= MAX_INFLIGHT_SIZE || sz2 >= MAX_INFLIGHT_SIZE {
        sz1 >>= OVERFLOW_SHIFT;
        sz2 >>= OVERFLOW_SHIFT;
    }
    let st1 = sz1.wrapping_mul(u64::from(rt2));
    let st2 = sz2.wrapping_mul(u64::from(rt1));
    if st1 != st2 {
        return st1.wrapping_sub(st2) as i32;
    }
    rt2.wrapping_sub(rt1) as i32
}

#[derive(Clone)]
struct StPath {
    relative_throughput: u32,
    in_flight_bytes: u64,
}

#[derive(Clone)]
pub(crate) struct ServiceTime {
    paths: PathLists<StPath>,
}

impl ServiceTime {
    pub fn new() -> Self {
        ServiceTime { paths: PathLists::new() }
    }
}

impl DmPathSelector for ServiceTime {
    fn table(&self) -> String {
        "service-time 0".to_string()
    }

    fn add_path(&mut self, path: &DmPathArgs) {
        let state = StPath { relative_throughput: path.relative_throughput, in_flight_bytes: 0 };
        self.paths.add(path.id, state);
    }

    fn fail_path(&mut self, path: PathId) {
        self.paths.fail(path);
    }

    fn reinstate_path(&mut self, path: PathId) {
        self.paths.reinstate(path, Rejoin::Tail);
    }

    fn select_path(&mut self, io: &IoDesc, _now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        let better = |c: &StPath, b: &StPath| {
            compare_load(c.in_flight_bytes, c.relative_throughput, b.in_flight_bytes, b.relative_throughput, io.bytes)
                < 0
        };
        self.paths.select(better, |_| false)
    }

    fn start_io(&mut self, path: PathId, io: &IoDesc) {
        if let Some(p) = self.paths.state_mut(path) {
            p.in_flight_bytes += io.bytes;
        }
    }

    fn end_io(&mut self, path: PathId, io: &IoDesc, _done: &IoDone) {
        if let Some(p) = self.paths.state_mut(path) {
            p.in_flight_bytes = p.in_flight_bytes.saturating_sub(io.bytes);
        }
    }

    fn adopt_in_flight(&mut self, path: PathId, _ios: u64, bytes: u64) {
        if let Some(p) = self.paths.state_mut(path) {
            p.in_flight_bytes = bytes;
        }
    }

    fn path_info(&self, path: PathId) -> String {
        self.paths.state(path).map(|p| format!("{} {}", p.in_flight_bytes, p.relative_throughput)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dm::selector::test_support::{add_paths, finish, pick};

    #[test]
    fn equal_throughput_compares_in_flight_bytes_only() {
        // Case 1: 8 KiB against 4 KiB in flight: path 2 better by 4096; incoming ignored.
        assert_eq!(compare_load(8192, 1, 4096, 1, 1 << 20), 4096);
        assert_eq!(compare_load(0, 1, 0, 1, 4096), 0);
    }

    #[test]
    fn zero_throughput_loses_to_any_positive_throughput() {
        // Case 2b: an idle rt-0 path against one with 1 MiB in flight and rt 1.
        assert_eq!(compare_load(0, 0, 1 << 20, 1, 4096), 1);
        assert_eq!(compare_load(1 << 20, 3, 0, 0, 4096), -3);
        // Case 2a: same load, the higher rt wins: 1 - 4 as an int.
        assert_eq!(compare_load(4096, 4, 4096, 1, 512), -3);
    }

    #[test]
    fn different_throughputs_compare_estimated_service_times() {
        // Case 3, the doc's 1 GB/s and 4 GB/s paths (rt 1 and 4), a 4 KiB I/O coming:
        // idle rt-1 path: 4096 * 4 = 16384; rt-4 path with 4 KiB queued: 8192 * 1 = 8192.
        assert_eq!(compare_load(0, 1, 4096, 4, 4096), 8192);
        // With 16 KiB queued on the fast path: 16384 against 20480, the idle slow path wins.
        assert_eq!(compare_load(0, 1, 16384, 4, 4096), -4096);
        // Case 4: 16384 both ways, so the higher rt: 4 - 1.
        assert_eq!(compare_load(0, 1, 12288, 4, 4096), 3);
    }

    #[test]
    fn huge_sizes_are_shifted_right_by_seven_before_multiplying() {
        // 2^57 >= SIZE_MAX >> 7: both sizes shift, 2^50 * 1 - 1000 * 100 = 2^50 - 100000,
        // whose low 32 bits are -100000. Unshifted it would have been 2^57 - 12800000.
        assert_eq!(compare_load(1 << 57, 100, 128_000, 1, 0), -100_000);
    }

    #[test]
    fn case_three_differences_are_truncated_to_an_int_like_the_kernel() {
        // 64 MiB on an rt-1 path against 65 MiB on an rt-100 path: the second is far better
        // (0.65 MiB per unit against 64), but 67108864 * 100 - 68157440 = 6642728960 becomes
        // -1947205632 as an int, so the kernel prefers the first path.
        assert_eq!(compare_load(64 << 20, 1, 65 << 20, 100, 0), -1_947_205_632);
    }

    #[test]
    fn selection_prefers_fewest_bytes_and_rotates_ties() {
        let mut s = ServiceTime::new();
        add_paths(&mut s, 3);
        // Idle: a, then b and c (0 bytes beat a's 64 KiB), then a 4 KiB I/O on b ends.
        assert_eq!(pick(&mut s, 65536, 0), 0);
        assert_eq!(pick(&mut s, 4096, 0), 1);
        assert_eq!(pick(&mut s, 4096, 0), 2);
        finish(&mut s, 1, 4096, 0, 100);
        // List [a b c]: b is idle. Then b and c tie at 4 KiB: c comes first in [a c b].
        assert_eq!(pick(&mut s, 4096, 200), 1);
        assert_eq!(pick(&mut s, 4096, 200), 2);
        assert_eq!(s.path_info(PathId(0)), "65536 1");
        assert_eq!(s.path_info(PathId(2)), "8192 1");
    }

    #[test]
    fn a_zero_throughput_path_is_used_only_when_it_is_the_last_one() {
        let mut s = ServiceTime::new();
        s.add_path(&DmPathArgs { id: PathId(0), relative_throughput: 0, cpus: &[] });
        s.add_path(&DmPathArgs { id: PathId(1), relative_throughput: 1, cpus: &[] });
        assert_eq!((0..3).map(|_| pick(&mut s, 1 << 20, 0)).collect::<Vec<_>>(), [1, 1, 1]);
        s.fail_path(PathId(1));
        assert_eq!(pick(&mut s, 4096, 0), 0);
    }
}
