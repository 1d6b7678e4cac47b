//! dm-multipath `historical-service-time` path selector (HST, Linux 5.8, Google).
//!
//! Algorithm (torvalds/linux `drivers/md/dm-ps-historical-service-time.c`, HST_VERSION 0.1.1),
//! in the kernel's fixed point with 10 fractional bits (`FIXED_1` = 1024), times in ns:
//! - Per path: `hst`, an EWMA of measured service time (fixed point, starts at 1024 = 1 ns),
//!   `outstanding` I/Os, `last_finish` and `stale_after` (both start at 0).
//! - Weights: `weights[i] = base_weight^(i+1)` by the kernel's rounding fixed-point power, for
//!   i in 0..63, and `weights[63] = 0`. A sample of service time `st` uses
//!   `weights[clamp(st >> 24, 0, 63)]` (buckets of 2^24 ns, about 16.8 ms): the longer the I/O
//!   took, the less the history counts; from about 1.06 s on the history is dropped.
//! - `end_io`: the I/O's start is taken as `last_finish` if that is later ("pretend the
//!   submission happened serially"), `last_finish = now`, `st = now - start` (0 if negative);
//!   `hst = (hst * w + min(st * 1024, MAX) * (1024 - w) + 512) >> 10`; then
//!   `stale_after = last_finish + valid_count * (hst >> 10)`.
//! - `compare(p1, p2, now)` (negative: p1 better):
//!   1. unless the larger hst exceeds `threshold_multiplier` times the smaller, fewest
//!      outstanding wins (`out1 - out2`);
//!   2. if either path is idle and stale (`stale_after < now`), or both are idle:
//!      `(p2 idle ? stale1 : 0) - (p1 idle ? stale2 : 0)`: the most stale idle path wins, an
//!      idle stale path beats a busy one (one probe I/O to a path that looked slow);
//!   3. estimate: equal outstanding compares hst; otherwise `(1 + out) * hst`, both hst shifted
//!      right by 10 first when either outstanding reaches 1024;
//!   4. a winner that is stale is limited to equal usage (`out1 - out2` again), else ±1.
//! - Selection: one `now` for the whole scan of the valid list, a candidate replacing the best
//!   when `compare(candidate, best) < 0`; the winner moves to the tail. Because equal estimates
//!   return -1, an exactly-equal *later* candidate replaces the earlier one (unlike
//!   queue-length and service-time, where ties keep the earlier path).
//!
//! Parameters (selector args `[base_weight [threshold_multiplier]]`): `base_weight` 0..=1023,
//! default 972 (about 0.95; 0 ignores history); `threshold_multiplier` 0..=4294967295, default 0
//! (0 and 1 have no effect). The table prints `historical-service-time 2 <weights[0]> <tm>`;
//! info args per path: hst, outstanding, stale_after. The kernel's unsigned arithmetic wraps;
//! ours does too, so that its decisions are reproduced bit for bit.

use crate::dm::selector::{DmPathArgs, DmPathSelector, PathLists, Rejoin};
use crate::{HostView, IoDesc, IoDone, PathId, TimeNs};

const FIXED_SHIFT: u32 = 10;
const FIXED_1: u64 = 1 << FIXED_SHIFT;
const FIXED_MAX: u64 = u64::MAX >> FIXED_SHIFT;
/// Past this many outstanding I/Os the estimate shifts hst down to avoid overflow.
const MAX_INFLIGHT: u64 = FIXED_1;
const BUCKET_SHIFT: u32 = 24;
const WEIGHT_COUNT: usize = 64;
pub(crate) const DEFAULT_BASE_WEIGHT: u32 = 972;

/// The kernel's `fixed_power`: x^n in fixed point, rounding at every multiplication.
fn fixed_power(mut x: u64, n: u32) -> u64 {
    let half = 1 << (FIXED_SHIFT - 1);
    let mut result = FIXED_1;
    let mut n = n;
    while n != 0 {
        if n & 1 == 1 {
            result = (result * x + half) >> FIXED_SHIFT;
        }
        n >>= 1;
        if n != 0 {
            x = (x * x + half) >> FIXED_SHIFT;
        }
    }
    result
}

/// The kernel's `fixed_ema`: `last * weight + next * (1 - weight)`, rounded.
fn fixed_ema(last: u64, next: u64, weight: u64) -> u64 {
    let sum = last.wrapping_mul(weight).wrapping_add(next.wrapping_mul(FIXED_1 - weight));
    sum.wrapping_add(1 << (FIXED_SHIFT - 1)) >> FIXED_SHIFT
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HstPath {
    hst: u64,
    outstanding: u64,
    last_finish: u64,
    stale_after: u64,
}

#[derive(Clone)]
pub(crate) struct HistoricalServiceTime {
    paths: PathLists<HstPath>,
    weights: [u64; WEIGHT_COUNT],
    threshold_multiplier: u32,
}

impl HistoricalServiceTime {
    /// `base_weight` must be below 1024 (checked by the config).
    pub fn new(base_weight: u32, threshold_multiplier: u32) -> Self {
        let mut weights = [0; WEIGHT_COUNT];
        for (i, w) in weights.iter_mut().take(WEIGHT_COUNT - 1).enumerate() {
            *w = fixed_power(u64::from(base_weight), i as u32 + 1);
        }
        HistoricalServiceTime { paths: PathLists::new(), weights, threshold_multiplier }
    }

    fn weight(&self, service_time_ns: u64) -> u64 {
        self.weights[(service_time_ns >> BUCKET_SHIFT).min(WEIGHT_COUNT as u64 - 1) as usize]
    }
}

/// The kernel's `hst_compare`: negative when p1 is better, positive when p2 is, 0 for no
/// difference.
fn compare(threshold_multiplier: u32, p1: &HstPath, p2: &HstPath, now: u64) -> i64 {
    let (mut hst1, mut hst2) = (p1.hst, p2.hst);
    let (out1, out2) = (p1.outstanding, p2.outstanding);
    let (stale1, stale2) = (p1.stale_after, p2.stale_after);
    let tm = u64::from(threshold_multiplier);
    let over_threshold = if hst1 > hst2 { hst1 > tm.wrapping_mul(hst2) } else { hst2 > tm.wrapping_mul(hst1) };
    let out_diff = (out1 as i64).wrapping_sub(out2 as i64);
    if !over_threshold {
        return out_diff;
    }
    let (idle1, idle2) = (out1 == 0, out2 == 0);
    if (idle1 && stale1 < now) || (idle2 && stale2 < now) || (idle1 && idle2) {
        let a = if idle2 { stale1 as i64 } else { 0 };
        let b = if idle1 { stale2 as i64 } else { 0 };
        return a.wrapping_sub(b);
    }
    let p2_better = if out1 == out2 {
        hst1 > hst2
    } else {
        if out1 >= MAX_INFLIGHT || out2 >= MAX_INFLIGHT {
            hst1 >>= FIXED_SHIFT;
            hst2 >>= FIXED_SHIFT;
        }
        (1 + out1).wrapping_mul(hst1) > (1 + out2).wrapping_mul(hst2)
    };
    let winner_stale = if p2_better { stale2 < now } else { stale1 < now };
    match (winner_stale, p2_better) {
        (true, _) => out_diff,
        (false, true) => 1,
        (false, false) => -1,
    }
}

impl DmPathSelector for HistoricalServiceTime {
    fn table(&self) -> String {
        format!("historical-service-time 2 {} {}", self.weights[0], self.threshold_multiplier)
    }

    fn add_path(&mut self, path: &DmPathArgs) {
        let state = HstPath { hst: FIXED_1, outstanding: 0, last_finish: 0, stale_after: 0 };
        self.paths.add(path.id, state);
    }

    fn fail_path(&mut self, path: PathId) {
        self.paths.fail(path);
    }

    fn reinstate_path(&mut self, path: PathId) {
        self.paths.reinstate(path, Rejoin::Tail);
    }

    fn select_path(&mut self, _io: &IoDesc, now_ns: TimeNs, _host: &dyn HostView) -> Option<PathId> {
        let tm = self.threshold_multiplier;
        self.paths.select(|c, b| compare(tm, c, b, now_ns) < 0, |_| false)
    }

    fn start_io(&mut self, path: PathId, _io: &IoDesc) {
        if let Some(p) = self.paths.state_mut(path) {
            p.outstanding += 1;
        }
    }

    fn end_io(&mut self, path: PathId, _io: &IoDesc, done: &IoDone) {
        let valid_count = self.paths.valid_count() as u64;
        let Some(&p) = self.paths.state(path) else { return };
        let now = done.now_ns;
        let start = done.now_ns.saturating_sub(done.latency_ns).max(p.last_finish);
        let st = now.saturating_sub(start);
        let hst = fixed_ema(p.hst, st.saturating_mul(FIXED_1).min(FIXED_MAX), self.weight(st));
        let updated = HstPath {
            hst,
            outstanding: p.outstanding.saturating_sub(1),
            last_finish: now,
            stale_after: now.wrapping_add(valid_count.wrapping_mul(hst >> FIXED_SHIFT)),
        };
        if let Some(p) = self.paths.state_mut(path) {
            *p = updated;
        }
    }

    fn adopt_in_flight(&mut self, path: PathId, ios: u64, _bytes: u64) {
        if let Some(p) = self.paths.state_mut(path) {
            p.outstanding = ios;
        }
    }

    fn path_info(&self, path: PathId) -> String {
        self.paths.state(path).map(|p| format!("{} {} {}", p.hst, p.outstanding, p.stale_after)).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dm::selector::test_support::{add_paths, finish, pick};

    fn hst(base_weight: u32, threshold_multiplier: u32, n: u32) -> HistoricalServiceTime {
        let mut s = HistoricalServiceTime::new(base_weight, threshold_multiplier);
        add_paths(&mut s, n);
        s
    }

    #[test]
    fn weight_table_is_the_kernels_rounded_powers_of_972() {
        let s = HistoricalServiceTime::new(DEFAULT_BASE_WEIGHT, 0);
        // 972: (1024*972 + 512) >> 10 = 972; squared: (972*972 + 512) >> 10 = 923, then
        // (1024*923 + 512) >> 10 = 923; cube 876, fourth power 832; the last bucket is 0.
        assert_eq!(&s.weights[..4], &[972, 923, 876, 832]);
        assert_eq!(s.weights[63], 0);
        assert_eq!(s.table(), "historical-service-time 2 972 0");
        // 40 ms is bucket 40000000 >> 24 = 2.
        assert_eq!(s.weight(40_000_000), 876);
    }

    #[test]
    fn estimate_after_two_completions_matches_the_kernels_fixed_point() {
        let mut s = hst(DEFAULT_BASE_WEIGHT, 0, 2);
        assert_eq!(pick(&mut s, 4096, 0), 0);
        // 1st: start 0, end 100 us: st = 100000, bucket 0, w = 972;
        // hst = (1024*972 + 102400000*52 + 512) >> 10 = 5325795840 >> 10 = 5200972;
        // stale_after = 100000 + 2 * (5200972 >> 10 = 5079) = 110158.
        finish(&mut s, 0, 4096, 0, 100_000);
        assert_eq!(s.path_info(PathId(0)), "5200972 0 110158");
        // 2nd: issued at 50 us, before the 1st finished, so it counts from 100 us:
        // st = 300000 - 100000 = 200000; hst = (5200972*972 + 204800000*52 + 512) >> 10
        // = 15705148896 >> 10 = 15336860; stale_after = 300000 + 2 * 14977 = 329954.
        s.start_io(PathId(0), &IoDesc { bytes: 4096, is_write: false, cpu: 0 });
        finish(&mut s, 0, 4096, 50_000, 300_000);
        assert_eq!(s.path_info(PathId(0)), "15336860 0 329954");
    }

    #[test]
    fn a_long_sample_weighs_history_less() {
        let mut s = hst(DEFAULT_BASE_WEIGHT, 0, 1);
        pick(&mut s, 4096, 0);
        // 40 ms: w = weights[2] = 876; (1024*876 + 40960000000*148 + 512) >> 10 = 5920000876.
        finish(&mut s, 0, 4096, 0, 40_000_000);
        assert_eq!(s.path_info(PathId(0)), "5920000876 0 45781250");
    }

    /// Paths 0 and 1 each complete one I/O: path 0 took 10 us and ended at `end0`, path 1 took
    /// 1 ms and ended at 1 ms.
    fn fast_and_slow(end0: u64) -> HistoricalServiceTime {
        let mut s = hst(DEFAULT_BASE_WEIGHT, 0, 2);
        let io = IoDesc { bytes: 4096, is_write: false, cpu: 0 };
        s.start_io(PathId(0), &io);
        s.start_io(PathId(1), &io);
        finish(&mut s, 0, 4096, end0 - 10_000, end0);
        finish(&mut s, 1, 4096, 0, 1_000_000);
        s
    }

    #[test]
    fn an_idle_path_gets_one_probe_once_it_is_stale() {
        // hst0 = (1024*972 + 10240000*52 + 512) >> 10 = 520972, fresh until 1000000 + 2*508;
        // hst1 = (1024*972 + 1024000000*52 + 512) >> 10 = 52000972, fresh until
        // 1000000 + 2*50782 = 1101564.
        let mut s = fast_and_slow(1_000_000);
        assert_eq!(s.path_info(PathId(0)), "520972 0 1001016");
        assert_eq!(s.path_info(PathId(1)), "52000972 0 1101564");
        // Both idle: the staler one (path 0) wins, and it is then busy and fresh: estimates
        // (1+1)*520972 against (1+0)*52000972 keep it.
        assert_eq!(pick(&mut s, 4096, 1_000_500), 0);
        // At 1.2 ms path 1 is idle and stale: one probe goes to it despite its estimate.
        assert_eq!(pick(&mut s, 4096, 1_200_000), 1);
    }

    #[test]
    fn a_stale_winner_is_limited_to_equal_usage() {
        // Path 0 finished at 10 us (stale since 11016) and has one I/O outstanding; path 1 is
        // idle and fresh. The estimate favours path 0, but it is stale, so outstanding counts
        // decide: 1 against 0, path 1.
        let mut s = fast_and_slow(10_000);
        s.start_io(PathId(0), &IoDesc { bytes: 4096, is_write: false, cpu: 0 });
        assert_eq!(s.path_info(PathId(0)), "520972 1 11016");
        assert_eq!(pick(&mut s, 4096, 1_050_000), 1);
    }

    #[test]
    fn equal_estimates_go_to_the_later_candidate() {
        let mut s = hst(DEFAULT_BASE_WEIGHT, 0, 2);
        // Same history on both, then one I/O outstanding on each, all fresh.
        for p in 0..2 {
            pick(&mut s, 4096, 0);
            finish(&mut s, p, 4096, 0, 100_000);
        }
        assert_eq!(pick(&mut s, 4096, 100_000), 0);
        assert_eq!(pick(&mut s, 4096, 100_000), 1);
        // The list is now [0 1]: equal (1+1)*hst, so 1 replaces 0, then [0 1] again.
        assert_eq!(pick(&mut s, 4096, 100_001), 1);
        let mut q = crate::dm::queue_length::QueueLength::new();
        add_paths(&mut q, 2);
        pick(&mut q, 4096, 0);
        pick(&mut q, 4096, 0);
        assert_eq!(pick(&mut q, 4096, 0), 0, "queue-length keeps the earlier path on a tie");
    }

    /// One I/O at a time over three paths of 100 us and one of 400 us, their averages already
    /// there (a sample equal to the average leaves it unchanged: `(h*w + h*(1024-w) + 512) >> 10`
    /// is `h`), all last finished at 0; each I/O is chosen `gap_ns` after the previous one ended.
    /// Returns the paths chosen.
    fn one_at_a_time(gap_ns: u64, count: usize) -> Vec<u32> {
        let mut s = hst(DEFAULT_BASE_WEIGHT, 0, 4);
        let service = [100_000, 100_000, 100_000, 400_000];
        for (p, &ns) in service.iter().enumerate() {
            let state = s.paths.state_mut(PathId(p as u32)).expect("added");
            state.hst = ns * FIXED_1;
            state.stale_after = 4 * ns;
        }
        let mut now = 0;
        (0..count)
            .map(|_| {
                let p = pick(&mut s, 4096, now);
                let end = now + service[p as usize];
                finish(&mut s, p, 4096, now, end);
                assert_eq!(s.paths.state(PathId(p)).map(|x| x.hst), Some(service[p as usize] * FIXED_1));
                now = end + gap_ns;
                p
            })
            .collect()
    }

    /// `n` choices of the fast paths taking turns in `order`.
    fn turns(order: [u32; 3], n: usize) -> Vec<u32> {
        order.iter().copied().cycle().take(n).collect()
    }

    #[test]
    fn at_depth_one_the_stalest_idle_path_wins_whatever_its_service_time() {
        // Every choice finds every path idle, so `hst_compare` returns stale1 - stale2: fresh
        // until last_finish + 4 * hst. No gap: the fast paths take turns, each fresh until 200 us
        // after the current time (finished 200 us ago, + 400), and the slow one, fresh until
        // 1.6 ms, is first in the list from the fourth choice on, so it wins its tie at 1.4 ms:
        // 14 fast I/Os, then the slow one (finished at 1.8 ms, fresh to 3.4 ms), then 14 more.
        let expected = [turns([0, 1, 2], 14), vec![3], turns([2, 0, 1], 14), vec![3]].concat();
        assert_eq!(one_at_a_time(0, 30), expected);
    }

    #[test]
    fn the_hosts_time_between_ios_counts_in_the_staleness_race() {
        // 100 us between an I/O's end and the next choice (the host's time): each fast I/O
        // takes 200 us of the clock, so the slow path's 1.6 ms comes round sooner. At 1.6 ms
        // path 2 (finished at 1.1 ms, fresh to 1.5 ms) beats it; at 1.8 ms it is the stalest
        // (path 0 fresh to 1.7 ms, 1 to 1.9 ms, 2 to 2.1 ms): 9 fast, then the slow one (ends at
        // 2.2 ms, fresh to 3.8 ms); from 2.4 ms the fast paths 0, 1, 2 in turn until 4.0 ms,
        // where its 3.8 ms beats path 2's 3.9 ms: 8 fast per slow from then on, 1/9.
        let expected = [turns([0, 1, 2], 9), vec![3], turns([0, 1, 2], 8), vec![3]].concat();
        assert_eq!(one_at_a_time(100_000, 19), expected);
    }

    #[test]
    fn below_the_threshold_paths_count_as_equal_and_outstanding_decides() {
        // Path 0: 100 us ending at 300 us (hst 5200972, fresh until 310158); path 1: 300 us
        // (hst (1024*972 + 307200000*52 + 512) >> 10 = 15600972, fresh until 330470); path 0
        // has one I/O outstanding. 15600972 is 3x 5200972.
        let setup = |threshold| {
            let mut s = hst(DEFAULT_BASE_WEIGHT, threshold, 2);
            let io = IoDesc { bytes: 4096, is_write: false, cpu: 0 };
            s.start_io(PathId(0), &io);
            s.start_io(PathId(1), &io);
            finish(&mut s, 0, 4096, 200_000, 300_000);
            finish(&mut s, 1, 4096, 0, 300_000);
            s.start_io(PathId(0), &io);
            s
        };
        // No threshold: (1+1)*5200972 < (1+0)*15600972, path 0.
        assert_eq!(pick(&mut setup(0), 4096, 300_000), 0);
        // Threshold 4: 3x is not different enough, so fewer outstanding wins: path 1.
        let mut s = setup(4);
        assert_eq!(s.path_info(PathId(1)), "15600972 0 330470");
        assert_eq!(pick(&mut s, 4096, 300_000), 1);
    }
}
