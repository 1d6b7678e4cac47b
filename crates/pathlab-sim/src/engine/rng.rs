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
}

/// SplitMix64 finaliser: spreads nearby seeds far apart.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
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
        // 53 random bits, offset by half a step so neither end is reached.
        ((self.0.random::<u64>() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A draw from a distribution, using this stream.
    pub fn sample_f64<D: rand_distr::Distribution<f64>>(&mut self, law: &D) -> f64 {
        law.sample(&mut self.0)
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
}
