//! Seeded random streams, one per purpose and owner, derived from the run's seed. Because the
//! streams that make the workload (arrivals, sizes, read/write, offsets, service quantiles) are
//! owned by the workers and never drawn by policy or fault code, two runs that differ only in
//! policy see the same I/Os (common random numbers).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// What a stream is for; part of its seed so that streams are independent.
#[derive(Clone, Copy, Debug)]
#[repr(u64)]
pub enum Purpose {
    Arrivals = 1,
    Sizes = 2,
    ReadWrite = 3,
    Offsets = 4,
    Service = 5,
    /// Errors on flaky paths: never drawn from the workload's streams, so that the I/Os stay
    /// the same whatever the faults do.
    Faults = 6,
    /// Host pauses: their own stream, so that the I/Os stay the same with or without them.
    HostPauses = 7,
    /// Ports refusing commands (`model::BusyRule`): their own stream, like host pauses.
    Busy = 8,
}

/// SplitMix64 finaliser: spreads nearby seeds far apart.
const fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// 53 random bits as a uniform in the open interval (0, 1), offset by half a step so that
/// neither end is reached: safe for logarithms and quantile functions.
fn open01_from_bits(bits: u64) -> f64 {
    // Through i64: 53 bits convert the same either way, a signed integer in one instruction.
    ((bits >> 11) as i64 as f64 + 0.5) / (1u64 << 53) as f64
}

/// `mix(stage)` of every stage, made at compile time: the per-I/O draw then mixes once.
const STAGE_MIX: [u64; 256] = {
    let mut table = [0; 256];
    let mut stage = 0;
    while stage < 256 {
        table[stage] = mix(stage as u64);
        stage += 1;
    }
    table
};

/// The service quantile of an I/O at one stage of its route: a counter-based draw (SplitMix64
/// of the I/O's key and the stage), so that the stations an I/O meets in series get independent
/// quantiles, while the same I/O meets the same quantiles whatever path a policy chose.
pub fn stage_quantile(key: u64, stage: u8) -> f64 {
    open01_from_bits(mix(key ^ STAGE_MIX[usize::from(stage)]))
}

/// A random stream.
#[derive(Clone, Debug)]
pub struct Stream(Pcg64Mcg);

impl Stream {
    pub fn new(seed: u64, owner: u64, purpose: Purpose) -> Self {
        let key = mix(seed ^ mix(owner.wrapping_mul(64) ^ purpose as u64));
        Stream(Pcg64Mcg::seed_from_u64(key))
    }

    /// Uniform in the open interval (0, 1): safe for logarithms and quantile functions.
    pub fn open01(&mut self) -> f64 {
        open01_from_bits(self.0.random::<u64>())
    }

    /// A draw from a distribution, using this stream.
    pub fn sample_f64<D: rand_distr::Distribution<f64>>(&mut self, law: &D) -> f64 {
        law.sample(&mut self.0)
    }

    /// 64 raw random bits: a key from which counter-based draws are derived.
    pub fn bits(&mut self) -> u64 {
        self.0.random::<u64>()
    }

    /// Uniform integer in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let draw = |s: &mut Stream| (0..4).map(|_| s.open01()).collect::<Vec<_>>();
        let a = draw(&mut Stream::new(7, 0, Purpose::Sizes));
        assert_eq!(a, draw(&mut Stream::new(7, 0, Purpose::Sizes)));
        assert_ne!(a, draw(&mut Stream::new(7, 0, Purpose::Offsets)));
        assert_ne!(a, draw(&mut Stream::new(7, 1, Purpose::Sizes)));
        assert_ne!(a, draw(&mut Stream::new(8, 0, Purpose::Sizes)));
    }

    #[test]
    fn stage_quantiles_are_uniform_and_uncorrelated_between_stages() {
        // Over many keys: each stage's mean is 1/2 and the correlation of consecutive stages
        // is zero within sampling error (1/sqrt(n) = 0.003 at n = 100,000).
        let n = 100_000u64;
        let mut s = Stream::new(3, 0, Purpose::Service);
        let (mut sum0, mut sum1, mut sum01, mut sq0, mut sq1) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for _ in 0..n {
            let key = s.bits();
            let (a, b) = (stage_quantile(key, 0), stage_quantile(key, 1));
            assert!(a > 0.0 && a < 1.0 && b > 0.0 && b < 1.0);
            sum0 += a;
            sum1 += b;
            sum01 += a * b;
            sq0 += a * a;
            sq1 += b * b;
        }
        let n = n as f64;
        let (m0, m1) = (sum0 / n, sum1 / n);
        let corr = (sum01 / n - m0 * m1) / ((sq0 / n - m0 * m0) * (sq1 / n - m1 * m1)).sqrt();
        assert!((m0 - 0.5).abs() < 0.005 && (m1 - 0.5).abs() < 0.005, "means {m0} {m1}");
        assert!(corr.abs() < 0.012, "correlation {corr}");
        assert_eq!(stage_quantile(42, 3), stage_quantile(42, 3));
    }
}
