//! Each device's responses in the measurement window, for its p99.
//!
//! On a host of many devices a response goes first into a buffer of fifteen held in one cache
//! line per device (as `u32` nanoseconds; one past 4.3 s goes in at once), and the fifteen go into
//! the device's histogram together: the histograms (18 KiB each) are out of the cache there,
//! recording each response touched two or three lines per I/O, the buffer touches one, and the
//! histogram's lines are paid once per fifteen. Seven `u64`s until session 28 (10,000 devices × 1
//! outstanding: 1.6 fewer LL misses per I/O than none, about 15% less wall time); fifteen `u32`s
//! took 10,000 × 8 × 1 about 9% less wall time again and × 10 about 12% (`examples/run`, eight
//! and four pairs, session 28): seven responses touched about 4.2 of a histogram's lines
//! (session 27), and more responses share more of them. 31 in two lines gained nothing more.
//! On a few devices the histograms stay in the cache and the buffer only costs (the minimal model
//! ran about 5% slower with it), so below `BATCHED_FROM` devices each response goes
//! straight in. A histogram's counts do not depend on the order of its records, so the p99 is the
//! same to the bit either way.
//!
//! Every device's counts are one zeroed allocation (`histograms`): the system gives such an
//! allocation as untouched pages, and a device's responses touch the page or two of buckets
//! they fall in, where a box per device was written whole when it was made (18 KiB a device:
//! 281 MiB on the 32-host cluster's 16,000 devices, copied at each run's set-up).
//!
//! Each batched device keeps the range of buckets it has written (`Written`), and whatever reads its
//! counts reads that range: the rest is zero. Reading every device's 4,608 buckets at the end
//! (each host's p99) touched every page of the allocation, 56,000 pages on the cluster that no
//! response had written. A response past the range sets its bucket to 1 without reading it
//! (it is zero): a page's first touch is then a write, one fault where a read then a write
//! took two.

use super::response_counts::{Count, CountsView, ResponseCounts};
use hdrhistogram::Histogram;

/// Responses held per device before they go into its histogram: fifteen `u32`s and a count fill
/// 64 bytes.
const BATCH: usize = 15;

/// Hosts of this many devices or more batch their responses (a judgement between the two
/// measured ends above: 1,000 devices' histograms' working lines, about 200 KB, still fit in a
/// core's L2).
pub(crate) const BATCHED_FROM: usize = 1_000;

#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Pending {
    values: [u32; BATCH],
    len: u32,
}

pub struct DeviceLatencies {
    /// Empty when the host has fewer than `BATCHED_FROM` devices (responses go straight in).
    pending: Vec<Pending>,
    /// Per device (for its p99), `DeviceCounts::BUCKETS` each in device order: 2 significant
    /// digits and 32-bit counts, 18 KiB instead of 270, so that a host of 10,000 devices fits in
    /// memory.
    histograms: Vec<u32>,
    /// Per device: its records so far and the buckets they are in.
    written: Vec<Written>,
}

/// A device's records so far (the histogram's total) and the buckets they went to,
/// `first..=last` (none while `first > last`): every other bucket of the device is zero.
#[derive(Clone, Copy)]
struct Written {
    total: u64,
    first: u32,
    last: u32,
}

impl Written {
    /// A batched device's start: nothing written.
    const NONE: Written = Written { total: 0, first: u32::MAX, last: 0 };
    /// A device whose responses go straight in (fewer than `BATCHED_FROM` devices): every bucket
    /// read at the end, where that is a few pages, and the record per response as short as it
    /// was (the range kept per response cost 9 instructions an I/O on one device).
    const WHOLE: Written = Written { total: 0, first: 0, last: DeviceCounts::BUCKETS as u32 - 1 };
}

pub type DeviceCounts = ResponseCounts<u32, 2>;

impl DeviceLatencies {
    pub fn new(devices: usize) -> Self {
        Self::batched(devices, devices >= BATCHED_FROM)
    }

    fn batched(devices: usize, batched: bool) -> Self {
        DeviceLatencies {
            pending: if batched { vec![Pending::default(); devices] } else { Vec::new() },
            histograms: vec![0; devices * DeviceCounts::BUCKETS],
            written: vec![if batched { Written::NONE } else { Written::WHOLE }; devices],
        }
    }

    /// One response of `device`, in ns (at least 1).
    #[inline]
    pub fn record(&mut self, device: usize, response_ns: u64) {
        let Some(p) = self.pending.get_mut(device) else {
            return self.record_now(device, response_ns);
        };
        // Held as a `u32`: one past 4.3 s goes in with those held.
        let Ok(held) = u32::try_from(response_ns) else {
            let p = *p;
            return self.flush_with(device, &p.values[..p.len as usize], Some(response_ns));
        };
        p.values[p.len as usize] = held;
        p.len += 1;
        if p.len as usize == BATCH {
            let p = *p;
            self.flush_with(device, &p.values, None);
        }
    }

    /// One response of `device` into its histogram, as `ResponseCounts::record` (its range is
    /// the whole histogram).
    #[inline(always)]
    fn record_now(&mut self, device: usize, response_ns: u64) {
        self.histograms[device * DeviceCounts::BUCKETS + DeviceCounts::bucket(response_ns)].bump();
        self.written[device].total = self.written[device].total.saturating_add(1);
    }

    /// The device's held responses into its histogram (`flush_with`).
    fn flush(&mut self, device: usize) {
        let p = self.pending[device];
        self.flush_with(device, &p.values[..p.len as usize], None);
    }

    /// Responses of `device` into its histogram, as `ResponseCounts::record` each, and its range
    /// widened to them: its `held` ones (the holding emptied) and `one_more`.
    #[inline(never)]
    fn flush_with(&mut self, device: usize, held: &[u32], one_more: Option<u64>) {
        self.pending[device].len = 0;
        let counts = &mut self.histograms[device * DeviceCounts::BUCKETS..][..DeviceCounts::BUCKETS];
        let mut written = self.written[device];
        let values = held.iter().map(|&v| u64::from(v)).chain(one_more);
        let mut recorded = 0;
        for value in values {
            recorded += 1;
            let bucket = DeviceCounts::bucket(value);
            let b = bucket as u32;
            if written.first <= b && b <= written.last {
                counts[bucket].bump();
            } else {
                // Outside the range the bucket is zero: set, not read, so that a page's first
                // touch is a write.
                counts[bucket] = 1;
                written.first = written.first.min(b);
                written.last = written.last.max(b);
            }
        }
        written.total = written.total.saturating_add(recorded);
        self.written[device] = written;
    }

    /// Every device's held responses into its histogram (the end of the measurement).
    pub fn flush_all(&mut self) {
        for device in 0..self.pending.len() {
            self.flush(device);
        }
    }

    /// The device's counts, as `histogram` reads them (flushed first: `flush_all`).
    pub fn counts(&self, device: usize) -> CountsView<'_, u32> {
        assert!(
            self.pending.get(device).is_none_or(|p| p.len == 0),
            "device responses are flushed when the measurement ends"
        );
        let Written { total, first, last } = self.written[device];
        let range = if first <= last { first as usize..last as usize + 1 } else { 0..0 };
        let at = device * DeviceCounts::BUCKETS;
        CountsView { first: range.start, counts: &self.histograms[at..][range], total }
    }

    /// The device's histogram; every response recorded must have been flushed (`flush_all`).
    pub fn histogram(&self, device: usize) -> Histogram<u32> {
        DeviceCounts::histogram_of(self.counts(device))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the number of responses (below, at and past a batch), the histogram after the
    /// flush holds exactly what recording each at once gives.
    #[test]
    fn batched_records_give_the_histogram_of_single_records() {
        for n in [0, 1, 14, 15, 16, 29, 30, 31, 100] {
            let mut batched = DeviceLatencies::batched(2, true);
            let mut single = Histogram::<u32>::new_with_bounds(1, 3_600_000_000_000, 2).unwrap();
            for k in 0..n {
                // Every seventeenth past what a `u32` holds (4.3 s): in with those held.
                let long = if k % 17 == 16 { 5_000_000_000 } else { 0 };
                let ns = 1 + (k * 7919 % 1000) * 1000 + k + long;
                batched.record(1, ns);
                single.saturating_record(ns);
            }
            batched.flush_all();
            let h = batched.histogram(1);
            assert_eq!((h.len(), h.max(), h.min()), (single.len(), single.max(), single.min()), "n={n}");
            assert_eq!(h.value_at_quantile(0.99), single.value_at_quantile(0.99), "n={n}");
            assert_eq!(batched.histogram(0).len(), 0);
        }
    }

    /// A device's counts are the buckets from its lowest response's to its highest's, and give
    /// the same histogram as every bucket read (its neighbours' records apart).
    #[test]
    fn a_devices_counts_are_the_range_it_wrote() {
        let mut d = DeviceLatencies::batched(3, true);
        let mut whole = DeviceCounts::new();
        assert_eq!(d.counts(1).counts.len(), 0);
        // A batch and a second one that widens the range both ways.
        let responses = [250_000, 40_000, 9_000_000, 250_000, 1_000_000, 40_000, 40_001, 39_000, 9_500_000, 250_000];
        for ns in responses {
            d.record(1, ns);
            whole.record(ns);
        }
        d.record(0, 5);
        d.record(2, 3_600_000_000_000);
        d.flush_all();
        let view = d.counts(1);
        assert_eq!(view.first, DeviceCounts::bucket(39_000));
        assert_eq!(view.first + view.counts.len(), DeviceCounts::bucket(9_500_000) + 1);
        assert_eq!(view.counts.iter().filter(|&&c| c != 0).count(), 6);
        let (h, expected) = (d.histogram(1), whole.histogram());
        assert_eq!((h.len(), h.min(), h.max()), (10, expected.min(), expected.max()));
        for q in [0.0, 0.25, 0.5, 0.99, 1.0] {
            assert_eq!(h.value_at_quantile(q), expected.value_at_quantile(q), "q {q}");
        }
        let mut host = ResponseCounts::<u64, 2>::new();
        (0..3).for_each(|device| host.add(d.counts(device)));
        assert_eq!(host.histogram().len(), 12);
        assert_eq!(host.histogram().value_at_quantile(1.0), d.histogram(2).value_at_quantile(1.0));
    }

    #[test]
    fn few_devices_record_straight_in_many_batch() {
        let mut few = DeviceLatencies::new(BATCHED_FROM - 1);
        few.record(3, 42);
        assert_eq!(few.histogram(3).len(), 1);
        assert_eq!(few.counts(3).counts.len(), DeviceCounts::BUCKETS);
        let mut many = DeviceLatencies::new(BATCHED_FROM);
        many.record(3, 42);
        assert_eq!(many.written[3].total, 0);
        many.flush_all();
        assert_eq!(many.histogram(3).len(), 1);
    }

    #[test]
    #[should_panic(expected = "flushed")]
    fn an_unflushed_histogram_is_not_read() {
        let mut d = DeviceLatencies::batched(1, true);
        d.record(0, 5);
        d.histogram(0);
    }
}
