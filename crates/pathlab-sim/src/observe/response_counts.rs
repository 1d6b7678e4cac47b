//! Response times counted in hdrhistogram's own buckets by a record of our own, and given back
//! as an `hdrhistogram::Histogram` when a quantile is asked for.
//!
//! `Histogram::saturating_record` costs about 30 instructions (a bounds check that may resize,
//! the bucket's index from the histogram's fields, the minimum and maximum kept up to date); two
//! records per I/O were 3% of the minimal model's instructions. Here the index is hdrhistogram's
//! own arithmetic (`bucket_for`, `sub_bucket_for`, `counts_index`) with its constants known at
//! compile time, and nothing else is kept but the counts and their total. The quantiles are
//! hdrhistogram's: `histogram()` records each bucket's count at the bucket's lowest value into a
//! histogram of the same bounds, which puts every count in the same bucket and gives the same
//! total, and `value_at_quantile` reads only those. So every quantile printed is the same to the
//! bit (the tests below check the bucket of every value and the quantiles against records
//! straight into hdrhistogram).

use hdrhistogram::Histogram;

/// 1 ns to 1 hour: fixed size whatever the run's length.
const LOWEST: u64 = 1;
const HIGHEST: u64 = 3_600_000_000_000;

/// A bucket's count: `u32` where memory counts (a histogram per device), else `u64`; both
/// saturate, as hdrhistogram's counts do.
pub trait Count: hdrhistogram::Counter {
    const MAX: Self;
    fn bump(&mut self);
    /// At most `MAX`: what one `record_n` may add.
    fn clamped(n: u64) -> Self;
}

impl Count for u32 {
    const MAX: u32 = u32::MAX;
    #[inline(always)]
    fn bump(&mut self) {
        *self = self.saturating_add(1);
    }
    fn clamped(n: u64) -> u32 {
        n.min(u64::from(u32::MAX)) as u32
    }
}

impl Count for u64 {
    const MAX: u64 = u64::MAX;
    #[inline(always)]
    fn bump(&mut self) {
        *self = self.saturating_add(1);
    }
    fn clamped(n: u64) -> u64 {
        n
    }
}

/// Responses in buckets of `DIGITS` significant digits, from `LOWEST` to `HIGHEST` ns.
#[derive(Clone)]
pub struct ResponseCounts<C: Count, const DIGITS: u8> {
    counts: Box<[C]>,
    /// Records so far (saturating, as hdrhistogram's total): more than the counts' sum once a
    /// bucket has saturated.
    total: u64,
}

/// Counts in the buckets of `ResponseCounts` and their total, wherever they are kept: a
/// `ResponseCounts`' own, or the buckets a device wrote in `DeviceLatencies`' one allocation
/// (every bucket outside `first..first + counts.len()` is zero).
#[derive(Clone, Copy)]
pub struct CountsView<'a, C> {
    /// The bucket of `counts[0]`.
    pub first: usize,
    pub counts: &'a [C],
    pub total: u64,
}

/// hdrhistogram's `sub_bucket_half_count_magnitude` for `digits` significant digits: the largest
/// value kept at unit resolution is 2 × 10^digits, its sub-buckets the power of two above it.
const fn half_count_magnitude(digits: u8) -> u32 {
    let largest = 2 * 10u64.pow(digits as u32);
    (64 - (largest - 1).leading_zeros()) - 1
}

impl<C: Count, const DIGITS: u8> ResponseCounts<C, DIGITS> {
    /// `LOWEST` is 1: hdrhistogram's unit magnitude is 0.
    const HALF_MAGNITUDE: u32 = half_count_magnitude(DIGITS);
    const HALF_COUNT: u64 = 1 << Self::HALF_MAGNITUDE;
    const SUB_BUCKET_MASK: u64 = (Self::HALF_COUNT << 1) - 1;
    const LEADING_ZERO_BASE: u32 = 64 - Self::HALF_MAGNITUDE - 1;

    /// Where a value past the last bucket goes: hdrhistogram clamps it to `HIGHEST`.
    const CLAMP_INDEX: usize = Self::index(HIGHEST);

    /// hdrhistogram's own count of buckets for these bounds (`distinct_values`: the last power
    /// of two's, `HIGHEST`'s, whole), so that the same values fit.
    pub const BUCKETS: usize = ((Self::CLAMP_INDEX >> Self::HALF_MAGNITUDE) + 1) << Self::HALF_MAGNITUDE;

    pub fn new() -> Self {
        ResponseCounts { counts: vec![C::zero(); Self::BUCKETS].into_boxed_slice(), total: 0 }
    }

    fn empty_histogram() -> Histogram<C> {
        Histogram::new_with_bounds(LOWEST, HIGHEST, DIGITS).expect("valid histogram bounds")
    }

    /// hdrhistogram's `index_for`: the bucket (powers of two above the first) and the place in it.
    #[inline(always)]
    const fn index(value: u64) -> usize {
        let bucket = Self::LEADING_ZERO_BASE - (value | Self::SUB_BUCKET_MASK).leading_zeros();
        let sub_bucket = value >> bucket;
        (((bucket as u64 + 1) << Self::HALF_MAGNITUDE) + sub_bucket - Self::HALF_COUNT) as usize
    }

    /// The lowest value of bucket `index` (hdrhistogram's `value_for`).
    fn value_of(index: usize) -> u64 {
        let index = index as u64;
        let bucket = (index >> Self::HALF_MAGNITUDE) as i64 - 1;
        let sub_bucket = (index & (Self::HALF_COUNT - 1)) + Self::HALF_COUNT;
        match bucket {
            -1 => sub_bucket - Self::HALF_COUNT,
            b => sub_bucket << b,
        }
    }

    /// One response of `value` ns (at least `LOWEST`), as `Histogram::saturating_record`.
    #[inline(always)]
    pub fn record(&mut self, value: u64) {
        self.counts[Self::bucket(value)].bump();
        self.total = self.total.saturating_add(1);
    }

    /// The bucket of a response of `value` ns (at least `LOWEST`; past `HIGHEST`, `HIGHEST`'s).
    #[inline(always)]
    pub fn bucket(value: u64) -> usize {
        let index = Self::index(value);
        if index < Self::BUCKETS {
            index
        } else {
            Self::CLAMP_INDEX
        }
    }

    /// Its counts and their total.
    pub fn view(&self) -> CountsView<'_, C> {
        CountsView { first: 0, counts: &self.counts, total: self.total }
    }

    /// Adds `other`'s responses (the same buckets, counted in any width), saturating as a record
    /// does: a host's responses are its devices' together (`host_latency`).
    pub fn add<O: Count>(&mut self, other: CountsView<'_, O>) {
        for (mine, theirs) in self.counts[other.first..].iter_mut().zip(other.counts.iter()) {
            *mine = C::clamped(mine.as_u64().saturating_add(theirs.as_u64()));
        }
        self.total = self.total.saturating_add(other.total);
    }

    /// Every response recorded, as an hdrhistogram histogram of the same bounds and counts.
    pub fn histogram(&self) -> Histogram<C> {
        Self::histogram_of(self.view())
    }

    /// The responses `view` holds, as an hdrhistogram histogram of the same bounds and counts.
    pub fn histogram_of(view: CountsView<'_, C>) -> Histogram<C> {
        let mut h = Self::empty_histogram();
        let mut saturated = None;
        let buckets = (view.first..).zip(view.counts.iter());
        for (index, &count) in buckets.filter(|(_, &c)| c != C::zero()) {
            h.record_n(Self::value_of(index), count).expect("a bucket's lowest value is in range");
            if count == C::MAX {
                saturated = Some(index);
            }
        }
        // Records a saturated bucket did not keep still count in hdrhistogram's total: added to
        // that bucket, which stays saturated.
        let mut missing = view.total - h.len();
        while let (Some(index), true) = (saturated, missing > 0) {
            let n = C::clamped(missing);
            h.record_n(Self::value_of(index), n).expect("a bucket's lowest value is in range");
            missing -= n.as_u64();
        }
        h
    }
}

impl<C: Count, const DIGITS: u8> Default for ResponseCounts<C, DIGITS> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values across the whole range: small, at each power of two and either side, random.
    fn values() -> Vec<u64> {
        let mut v: Vec<u64> = (1..5000).collect();
        for shift in 0..64 {
            let p = 1u64 << shift;
            v.extend([p.saturating_sub(1).max(1), p, p.saturating_add(1)]);
        }
        let mut x: u64 = 7;
        for _ in 0..20_000 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            v.push((x >> (x % 40)).max(1));
        }
        v.extend([HIGHEST - 1, HIGHEST, HIGHEST + 1, u64::MAX]);
        v
    }

    fn same_buckets_as_hdrhistogram<C: Count, const D: u8>() {
        let template = ResponseCounts::<C, D>::empty_histogram();
        for v in values().into_iter().filter(|&v| v <= template.high()) {
            let index = ResponseCounts::<C, D>::index(v);
            assert_eq!(ResponseCounts::<C, D>::value_of(index), template.lowest_equivalent(v), "value {v}");
        }
    }

    #[test]
    fn as_many_buckets_as_hdrhistogram() {
        assert_eq!(ResponseCounts::<u64, 3>::BUCKETS, ResponseCounts::<u64, 3>::empty_histogram().distinct_values());
        assert_eq!(ResponseCounts::<u32, 2>::BUCKETS, ResponseCounts::<u32, 2>::empty_histogram().distinct_values());
    }

    #[test]
    fn every_value_falls_in_hdrhistograms_bucket() {
        same_buckets_as_hdrhistogram::<u64, 3>();
        same_buckets_as_hdrhistogram::<u32, 2>();
    }

    fn same_quantiles<C: Count, const D: u8>(samples: &[u64]) {
        let mut ours = ResponseCounts::<C, D>::new();
        let mut theirs = ResponseCounts::<C, D>::empty_histogram();
        for &v in samples {
            ours.record(v);
            theirs.saturating_record(v);
        }
        let h = ours.histogram();
        assert_eq!(h.len(), theirs.len());
        for q in [0.0, 0.001, 0.1, 0.25, 0.5, 0.9, 0.99, 0.999, 0.9999, 1.0] {
            assert_eq!(h.value_at_quantile(q), theirs.value_at_quantile(q), "q {q}");
        }
    }

    #[test]
    fn quantiles_are_those_of_records_straight_into_hdrhistogram() {
        let all = values();
        same_quantiles::<u64, 3>(&all);
        same_quantiles::<u32, 2>(&all);
        same_quantiles::<u64, 3>(&[]);
        same_quantiles::<u64, 3>(&[145_000, 145_100, 290_000]);
        // Past the last bucket: clamped to the highest value, as hdrhistogram does.
        same_quantiles::<u64, 3>(&[u64::MAX, 10, u64::MAX - 1]);
    }

    /// Two devices' counts added give the histogram of every response recorded in one.
    #[test]
    fn added_counts_are_those_of_every_record_in_one() {
        let all = values();
        let (first, second) = all.split_at(all.len() / 3);
        let (mut a, mut b) = (ResponseCounts::<u32, 2>::new(), ResponseCounts::<u32, 2>::new());
        let mut both = ResponseCounts::<u64, 2>::new();
        first.iter().for_each(|&v| a.record(v));
        second.iter().for_each(|&v| b.record(v));
        all.iter().for_each(|&v| both.record(v));
        let mut sum = ResponseCounts::<u64, 2>::new();
        sum.add(a.view());
        sum.add(b.view());
        let (h, expected) = (sum.histogram(), both.histogram());
        assert_eq!(h.len(), all.len() as u64);
        for q in [0.0, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0] {
            assert_eq!(h.value_at_quantile(q), expected.value_at_quantile(q), "q {q}");
        }
    }

    #[test]
    fn a_saturated_bucket_keeps_the_total() {
        let mut ours = ResponseCounts::<u32, 2>::new();
        let mut theirs = ResponseCounts::<u32, 2>::empty_histogram();
        let i = ResponseCounts::<u32, 2>::index(1000);
        ours.counts[i] = u32::MAX - 1;
        ours.total = u64::from(u32::MAX) - 1;
        theirs.record_n(1000, u32::MAX - 1).unwrap();
        for v in [1000, 1000, 1000, 5] {
            ours.record(v);
            theirs.saturating_record(v);
        }
        let h = ours.histogram();
        assert_eq!((h.len(), h.count_at(1000)), (u64::from(u32::MAX) + 3, u32::MAX));
        assert_eq!((h.len(), h.count_at(1000)), (theirs.len(), theirs.count_at(1000)));
        for q in [0.0, 0.5, 0.99, 1.0] {
            assert_eq!(h.value_at_quantile(q), theirs.value_at_quantile(q), "q {q}");
        }
    }
}
