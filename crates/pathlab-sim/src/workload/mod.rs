//! Workers issue I/O to devices, like vdbench threads on one SD or one VM's outstanding I/Os.
//! A worker owns its random streams, so the I/Os it makes do not depend on what the policy does.

use crate::engine::rng::{Purpose, Stream};
use crate::engine::TimeNs;
use crate::scenario::bounds;
use crate::scenario::error::FieldError;
use crate::scenario::schema::{Access, Arrival, BurstSpec, WorkloadSpec};
use rand_distr::Zipf;

/// How a worker decides when to issue.
#[derive(Clone, Copy, Debug)]
pub enum Loop {
    /// Keep this many I/Os outstanding: a new one is issued when one completes.
    Closed { outstanding: u32 },
    /// Issue at a target rate, whatever is outstanding.
    Open { mean_gap_ns: f64, poisson: bool },
}

/// The attributes of one I/O.
#[derive(Clone, Copy, Debug)]
pub struct IoAttrs {
    pub bytes: u64,
    pub is_write: bool,
    pub offset: u64,
    /// Key of the I/O's service draws: each station of its route turns
    /// `rng::stage_quantile(key, stage)` into a service time.
    pub service_key: u64,
}

#[derive(Clone)]
enum Sizes {
    Fixed(u64),
    /// Sizes with cumulative weights (boxed, not a `Vec`: 16 bytes, so that the worker's first
    /// line has room for the read/write draw's stream).
    Split(Box<[(u64, u64)]>),
}

/// `repr(C)`, aligned to a cache line, with what an I/O of a closed loop that issues again at
/// once reads and writes in its first line: its draws (the service key's and the read/write
/// draw's streams), its sizes, its count in flight, whether offsets are drawn and whether it
/// issues again at once; its device and CPU, the closed loop's think time and the open loop's
/// arrivals in the second, read by an I/O in a record of its own (`Simulation::issue_in`: a
/// record reused keeps its device and CPU) and by the other loops. On a host of many devices the
/// workers do not stay in the cache; the rest (the Zipf law, cursors, the size and offset
/// streams) is read only by the workloads that have them. (The open loop's arrival stream and
/// last arrival were in a third and a fifth line: 0.8 last-level misses an I/O on 4,000 devices
/// at 50 I/O/s each, session 22; the read/write draw's stream was in a third line, read by every
/// I/O of a workload of reads and writes: one L1 miss an I/O on the cluster's 16,000 devices,
/// session 24; the closed loop's mode and think time, the device and the CPU were in the second,
/// one last-level miss an I/O on 10,000 devices, session 27.)
#[repr(C, align(64))]
pub struct Worker {
    service_rng: Stream,
    rw_rng: Stream,
    sizes: Sizes,
    write_fraction: f64,
    pub in_flight: u32,
    /// Whether anything in the model reads an I/O's offset (extent ownership, RAID back ends):
    /// when nothing does, no offset is drawn (its stream serves nothing else).
    offsets_read: bool,
    /// A closed loop without think time: a completion's I/O is followed by the next at once
    /// (`mode` and `think_ns` say so too, in the second line).
    pub reissues_at_once: bool,
    arrivals: Stream,
    pub mode: Loop,
    /// Closed loop: the wait between a completion and the next issue (zero: at once).
    pub think_ns: TimeNs,
    /// Open loop only: the time of the last arrival (bursts need it).
    last_arrival_ns: TimeNs,
    /// Open loop only: bursts on the base rate.
    burst: Option<Box<Bursts>>,
    /// The host CPU its I/O is issued from: workers take the host's CPUs in turn (`build_workers`).
    pub cpu: u32,
    /// Its device's index (a `u32`, as an I/O's record holds it, so that the line has room).
    pub device: u32,
    access: Access,
    range_bytes: u64,
    /// Index of the workload in the scenario (for messages about it).
    pub workload: usize,
    /// Closed loop: wait after a failed I/O before issuing the next. Never zero, or a device
    /// that fails I/O at once would be asked again in no time.
    pub error_backoff_ns: TimeNs,
    /// For `zipf` access: the popularity law over slots of the largest block size.
    zipf: Option<ZipfSlots>,
    /// Sequential access: the next offset of each stream, and the stream whose turn it is.
    cursors: Vec<u64>,
    next_stream: usize,
    size_rng: Stream,
    offset_rng: Stream,
}

// What an I/O of a closed loop that issues again at once reads: the first line; the others
// (and a record of its own), the second too, no more.
const _: () = assert!(std::mem::offset_of!(Worker, reissues_at_once) < 64);
const _: () = assert!(std::mem::offset_of!(Worker, arrivals) == 64);
const _: () = assert!(std::mem::offset_of!(Worker, device) + 4 <= 128);
const _: () = assert!(std::mem::offset_of!(Worker, range_bytes) >= 128);

impl Worker {
    pub fn next_io(&mut self) -> IoAttrs {
        let bytes = match &self.sizes {
            Sizes::Fixed(b) => *b,
            Sizes::Split(cum) => {
                let total = cum.last().map_or(1, |c| c.1);
                let pick = self.size_rng.below(total);
                cum.iter().find(|c| pick < c.1).map_or(cum[0].0, |c| c.0)
            }
        };
        // All reads or all writes: no draw (the stream serves nothing else).
        let is_write = match self.write_fraction {
            0.0 => false,
            1.0 => true,
            f => self.rw_rng.open01() < f,
        };
        let offset = if self.offsets_read { self.draw_offset(bytes) } else { 0 };
        IoAttrs { bytes, is_write, offset, service_key: self.service_rng.bits() }
    }

    /// The offset of an I/O of `bytes`, by the workload's access. A call of its own: inlined,
    /// the access (in the worker's second line) could be read ahead of `offsets_read`'s test by
    /// every I/O, as a path's error profile was ahead of its flag's (session 26).
    #[inline(never)]
    fn draw_offset(&mut self, bytes: u64) -> u64 {
        match self.access {
            Access::Random => self.offset_rng.below((self.range_bytes / bytes).max(1)) * bytes,
            Access::Zipf => {
                let z = self.zipf.as_ref().expect("zipf access has its law");
                z.offset(self.offset_rng.sample_f64(&z.law))
            }
            Access::Sequential => {
                let k = self.next_stream;
                self.next_stream = (k + 1) % self.cursors.len();
                let slice = self.range_bytes / self.cursors.len() as u64;
                let start = k as u64 * slice;
                if self.cursors[k] + bytes > start + slice {
                    self.cursors[k] = start;
                }
                let o = self.cursors[k];
                self.cursors[k] += bytes;
                o
            }
        }
    }

    /// Time to the next open-loop arrival.
    pub fn next_gap_ns(&mut self) -> TimeNs {
        let gap = match (self.mode, &self.burst) {
            (Loop::Open { mean_gap_ns, .. }, Some(b)) => {
                b.gap_ns(self.last_arrival_ns, 1e9 / mean_gap_ns, self.arrivals.open01())
            }
            (Loop::Open { mean_gap_ns, poisson: true }, None) => {
                (-self.arrivals.open01().ln() * mean_gap_ns).round() as TimeNs
            }
            (Loop::Open { mean_gap_ns, poisson: false }, None) => mean_gap_ns.round() as TimeNs,
            (Loop::Closed { .. }, _) => 0,
        };
        self.last_arrival_ns += gap;
        gap
    }
}

/// A Poisson stream whose rate is the base plus `extra_per_s` during the first `length_ns` of
/// every `period_ns` (a modulated Poisson process, drawn exactly by walking the rate's steps).
#[derive(Clone, Copy, Debug)]
struct Bursts {
    extra_per_s: f64,
    length_ns: f64,
    period_ns: f64,
}

impl Bursts {
    fn from_spec(b: &BurstSpec, field: impl Fn(&str) -> String) -> Result<Self, FieldError> {
        bounds::within(b.rate, &bounds::RATE, bounds::RATE_WORDS).map_err(|m| (field("burst.rate"), m))?;
        if !(b.duty > 0.0 && b.duty < 1.0) {
            return Err((field("burst.duty"), format!("{} is out of range: allowed above 0 and below 1", b.duty)));
        }
        bounds::long_enough(b.length.0, bounds::BURST_LENGTH).map_err(|m| (field("burst.length"), m))?;
        let length_ns = b.length.0 as f64;
        Ok(Bursts { extra_per_s: b.rate, length_ns, period_ns: length_ns / b.duty })
    }

    /// Time from `from_ns` to the next arrival, for the uniform draw `u`: an exponential amount
    /// of "rate × time" spent step by step.
    fn gap_ns(&self, from_ns: TimeNs, base_per_s: f64, u: f64) -> TimeNs {
        let mut need = -u.ln();
        let mut t = from_ns as f64;
        // The rate repeats every period, so any whole number of periods holds the same amount:
        // a gap spanning many periods (a low base rate, short bursts) skips them at once.
        let per_period = (base_per_s * self.period_ns + self.extra_per_s * self.length_ns) / 1e9;
        if need > per_period {
            let whole = (need / per_period).floor();
            need -= whole * per_period;
            t += whole * self.period_ns;
        }
        loop {
            let phase = t % self.period_ns;
            let (rate, step_end) = if phase < self.length_ns {
                (base_per_s + self.extra_per_s, t - phase + self.length_ns)
            } else {
                (base_per_s, t - phase + self.period_ns)
            };
            let available = rate * (step_end - t) / 1e9;
            if need <= available {
                t += need / rate * 1e9;
                break;
            }
            need -= available;
            t = step_end;
        }
        (t.round() as TimeNs).saturating_sub(from_ns)
    }
}

/// Zipf popularity over the slots of a range: rank 1 is the most popular slot. Ranks are
/// scattered over the range by a multiplicative permutation, so that popular slots are not all
/// at its start.
#[derive(Clone)]
struct ZipfSlots {
    law: Zipf<f64>,
    slots: u64,
    slot_bytes: u64,
    stride: u64,
}

impl ZipfSlots {
    fn new(slots: u64, slot_bytes: u64, theta: f64) -> Option<Self> {
        let law = Zipf::new(slots as f64, theta).ok()?;
        // A stride coprime with the slot count makes rank → slot a permutation.
        let mut stride = 2_654_435_761 % slots.max(1);
        while gcd(stride, slots) != 1 {
            stride += 1;
        }
        Some(ZipfSlots { law, slots, slot_bytes, stride })
    }

    fn offset(&self, rank: f64) -> u64 {
        let r = (rank as u64).clamp(1, self.slots) - 1;
        ((u128::from(r) * u128::from(self.stride)) % u128::from(self.slots)) as u64 * self.slot_bytes
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// One worker per (workload, device), numbered in file order; `device_index` resolves names
/// (`HOST/NAME` or a name alone), its error at the field given.
/// `offsets_read`: whether the model reads I/Os' offsets (else none is drawn); `cpus`: the host's
/// CPUs, which the workers take in turn.
pub fn build_workers(
    specs: &[WorkloadSpec],
    device_index: impl Fn(&str, &str) -> Result<usize, FieldError>,
    seed: u64,
    offsets_read: bool,
    cpus: u32,
) -> Result<Vec<Worker>, FieldError> {
    let mut workers = Vec::new();
    if specs.is_empty() {
        return Err(("workloads".into(), "at least one workload is needed".into()));
    }
    for (wi, w) in specs.iter().enumerate() {
        let field = |f: &str| format!("workloads.{wi}.{f}");
        let mode = match (w.outstanding, w.rate) {
            (Some(0), None) => return Err((field("outstanding"), "must be at least 1".into())),
            (Some(n), None) => Loop::Closed { outstanding: n },
            (None, Some(r)) => {
                let r = bounds::within(r, &bounds::RATE, bounds::RATE_WORDS).map_err(|m| (field("rate"), m))?;
                Loop::Open { mean_gap_ns: 1e9 / r, poisson: w.arrival == Arrival::Poisson }
            }
            _ => {
                return Err((
                    field("outstanding"),
                    "give exactly one of `outstanding` (closed loop) or `rate` (open loop)".into(),
                ))
            }
        };
        if !(0.0..=100.0).contains(&w.read_pct) {
            return Err((field("read_pct"), format!("{} is out of range: allowed 0 to 100", w.read_pct)));
        }
        let sizes = match (&w.block_size, &w.bssplit) {
            (Some(_), Some(_)) => return Err((field("bssplit"), "give `block_size` or `bssplit`, not both".into())),
            (Some(b), None) => Sizes::Fixed(
                bounds::within(b.0, &bounds::BLOCK_BYTES, bounds::BLOCK_WORDS).map_err(|m| (field("block_size"), m))?,
            ),
            (None, None) => Sizes::Fixed(8192),
            (None, Some(split)) => {
                let mut cum = Vec::new();
                let mut total = 0;
                for (k, (size, weight)) in split.iter().enumerate() {
                    let at = format!("workloads.{wi}.bssplit.{k}");
                    bounds::within(size.0, &bounds::BLOCK_BYTES, bounds::BLOCK_WORDS).map_err(|m| (at.clone(), m))?;
                    if *weight == 0 {
                        return Err((at, "a weight must be above zero".into()));
                    }
                    total += u64::from(*weight);
                    cum.push((size.0, total));
                }
                if cum.is_empty() {
                    return Err((field("bssplit"), "needs at least one [size, weight] pair".into()));
                }
                Sizes::Split(cum.into_boxed_slice())
            }
        };
        let largest = match &sizes {
            Sizes::Fixed(b) => *b,
            Sizes::Split(cum) => cum.iter().map(|c| c.0).max().unwrap_or(0),
        };
        if w.range.0 < largest {
            return Err((field("range"), "must hold at least one block".into()));
        }
        if w.devices.is_empty() {
            return Err((field("devices"), "name at least one device".into()));
        }
        if w.error_backoff.0 == 0 {
            return Err((field("error_backoff"), "must be above zero".into()));
        }
        let zipf = match (w.access, w.zipf_theta) {
            (Access::Zipf, Some(theta)) if theta > 0.0 && theta.is_finite() => {
                let law = ZipfSlots::new(w.range.0 / largest, largest, theta);
                Some(law.ok_or_else(|| (field("zipf_theta"), "no Zipf law for this range and exponent".to_string()))?)
            }
            (Access::Zipf, _) => {
                return Err((field("zipf_theta"), "zipf access needs zipf_theta above 0 (fio uses 1.2)".into()))
            }
            (_, Some(_)) => return Err((field("zipf_theta"), "applies to access = \"zipf\" only".into())),
            (_, None) => None,
        };
        let burst = match (w.burst, mode) {
            (None, _) => None,
            (Some(b), Loop::Open { poisson: true, .. }) => Some(Box::new(Bursts::from_spec(&b, field)?)),
            (Some(_), _) => {
                return Err((
                    field("burst"),
                    "bursts go on an open-loop Poisson base: give `rate` and arrival = \"poisson\"".into(),
                ))
            }
        };
        let streams = match (w.streams, w.access) {
            (None, _) => 1,
            (Some(n), Access::Sequential) if bounds::STREAMS.contains(&n) && w.range.0 / u64::from(n) >= largest => n,
            (Some(_), Access::Sequential) => {
                return Err((
                    field("streams"),
                    "1 to 65536, and each stream's slice of the range must hold a block".into(),
                ))
            }
            (Some(_), _) => return Err((field("streams"), "applies to access = \"sequential\" only".into())),
        };
        let slice = w.range.0 / u64::from(streams);
        for (k, name) in w.devices.iter().enumerate() {
            let device = device_index(name, &format!("workloads.{wi}.devices.{k}"))?;
            let owner = workers.len() as u64;
            workers.push(Worker {
                workload: wi,
                device: u32::try_from(device).expect("a device's index fits an I/O's record"),
                mode,
                burst: burst.clone(),
                last_arrival_ns: 0,
                in_flight: 0,
                cpu: workers.len() as u32 % cpus,
                error_backoff_ns: w.error_backoff.0,
                think_ns: w.think_time.0,
                reissues_at_once: matches!(mode, Loop::Closed { .. }) && w.think_time.0 == 0,
                sizes: sizes.clone(),
                write_fraction: 1.0 - w.read_pct / 100.0,
                access: w.access,
                range_bytes: w.range.0,
                offsets_read,
                zipf: zipf.clone(),
                cursors: (0..u64::from(streams)).map(|k| k * slice).collect(),
                next_stream: 0,
                arrivals: Stream::new(seed, owner, Purpose::Arrivals),
                size_rng: Stream::new(seed, owner, Purpose::Sizes),
                rw_rng: Stream::new(seed, owner, Purpose::ReadWrite),
                offset_rng: Stream::new(seed, owner, Purpose::Offsets),
                service_rng: Stream::new(seed, owner, Purpose::Service),
            });
        }
    }
    Ok(workers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worker(extra: &str) -> Result<Worker, FieldError> {
        let text = format!("devices = [\"d\"]\noutstanding = 1\nblock_size = \"8KiB\"\nrange = \"1MiB\"\n{extra}");
        let spec: WorkloadSpec = toml::from_str(&text).expect("valid workload");
        build_workers(&[spec], |_, _| Ok(0), 1, true, 1).map(|mut w| w.remove(0))
    }

    #[test]
    fn sequential_streams_take_turns_each_in_its_own_slice() {
        let mut w = worker("access = \"sequential\"\nstreams = 4").unwrap();
        let offsets: Vec<u64> = (0..8).map(|_| w.next_io().offset).collect();
        let q = 256 * 1024; // 1 MiB in four slices
        assert_eq!(offsets, [0, q, 2 * q, 3 * q, 8192, q + 8192, 2 * q + 8192, 3 * q + 8192]);
        // each stream wraps at the end of its own slice: its 33rd I/O (32 blocks of 8 KiB fit)
        let wrapped: Vec<u64> = (0..4 * 31).map(|_| w.next_io().offset).skip(4 * 30).collect();
        assert_eq!(wrapped, [0, q, 2 * q, 3 * q]);
    }

    #[test]
    fn one_stream_is_plain_sequential_access() {
        let mut w = worker("access = \"sequential\"").unwrap();
        let offsets: Vec<u64> = (0..129).map(|_| w.next_io().offset).collect();
        assert_eq!(offsets[..3], [0, 8192, 16384]);
        assert_eq!(offsets[128], 0); // 128 blocks of 8 KiB fill 1 MiB
    }

    #[test]
    fn streams_are_refused_off_sequential_access_or_too_thin() {
        assert_eq!(worker("streams = 2").err().unwrap().0, "workloads.0.streams");
        assert_eq!(worker("access = \"sequential\"\nstreams = 200").err().unwrap().0, "workloads.0.streams");
    }

    #[test]
    fn a_gap_spanning_many_burst_periods_is_drawn_at_once_and_exactly() {
        // 1 I/O/s of base and 1 more during the first 1 µs of every 2 µs: 3e-6 I/Os a period.
        // A unit of "rate x time" (u = 1/e) takes 333,333 whole periods (0.999999), then the
        // last 1e-6 at 2 I/O/s inside the next burst: 500 ns.
        let b = Bursts { extra_per_s: 1.0, length_ns: 1_000.0, period_ns: 2_000.0 };
        let gap = b.gap_ns(0, 1.0, (-1.0f64).exp());
        assert!(gap.abs_diff(666_666_500) <= 1, "{gap}");
        // At the lowest rates allowed, the same draw spans 3.3e11 periods (7.7 days) and still
        // returns at once, 500 ns into the burst after them.
        let slow = Bursts { extra_per_s: 1e-6, ..b }.gap_ns(0, 1e-6, (-1.0f64).exp());
        assert!(slow.abs_diff(666_666_666_666_500) <= 1_000, "{slow}");
    }
}
