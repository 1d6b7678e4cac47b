#![allow(clippy::excessive_precision)] // AS241's published coefficients, kept digit for digit
//! Service-time distributions driven by a quantile. Each station of an I/O's route draws its own
//! quantile from the I/O's key (`rng::stage_quantile`) and turns it into a service time here, so
//! the same I/O costs the same at a station whatever path a policy sends it down (common random
//! numbers) while stations in series stay independent.

/// Standard normal quantile, Wichura's AS241 (PPND16), accurate to about 1e-16.
pub fn normal_quantile(p: f64) -> f64 {
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return q * poly(&A, r) / poly(&B, r);
    }
    let r = if q < 0.0 { p } else { 1.0 - p };
    let r = (-r.ln()).sqrt();
    let x = if r <= 5.0 {
        let r = r - 1.6;
        poly(&C, r) / poly(&D, r)
    } else {
        let r = r - 5.0;
        poly(&E, r) / poly(&F, r)
    };
    if q < 0.0 {
        -x
    } else {
        x
    }
}

fn poly(coeffs: &[f64; 8], x: f64) -> f64 {
    coeffs.iter().rev().fold(0.0, |acc, c| acc * x + c)
}

const A: [f64; 8] = [
    3.387_132_872_796_366_5,
    133.141_667_891_784_38,
    1_971.590_950_306_551_3,
    13_731.693_765_509_461,
    45_921.953_931_549_87,
    67_265.770_927_008_7,
    33_430.575_583_588_13,
    2_509.080_928_730_122_7,
];
const B: [f64; 8] = [
    1.0,
    42.313_330_701_600_91,
    687.187_007_492_057_9,
    5_394.196_021_424_751,
    21_213.794_301_586_597,
    39_307.895_800_092_71,
    28_729.085_735_721_943,
    5_226.495_278_852_545,
];
const C: [f64; 8] = [
    1.423_437_110_749_683_5,
    4.630_337_846_156_546,
    5.769_497_221_460_691,
    3.647_848_324_763_204_5,
    1.270_458_252_452_368_4,
    0.241_780_725_177_450_6,
    0.022_723_844_989_269_184,
    7.745_450_142_783_414e-4,
];
const D: [f64; 8] = [
    1.0,
    2.053_191_626_637_759,
    1.676_384_830_183_803_8,
    0.689_767_334_985_1,
    0.148_103_976_427_480_08,
    0.015_198_666_563_616_457,
    5.475_938_084_995_345e-4,
    1.050_750_071_644_416_9e-9,
];
const E: [f64; 8] = [
    6.657_904_643_501_103,
    5.463_784_911_164_114,
    1.784_826_539_917_291_3,
    0.296_560_571_828_504_9,
    0.026_532_189_526_576_124,
    0.001_242_660_947_388_078_4,
    2.711_555_568_743_487_6e-5,
    2.010_334_399_292_288_1e-7,
];
const F: [f64; 8] = [
    1.0,
    0.599_832_206_555_888,
    0.136_929_880_922_735_8,
    0.014_875_361_290_850_615,
    7.868_691_311_456_133e-4,
    1.846_318_317_510_054_8e-5,
    1.421_511_758_316_446e-7,
    2.043_113_151_576_975_6e-15,
];

/// Shape of a service-time distribution with a given mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Fixed,
    Exponential,
    /// Lognormal with this σ of the underlying normal (σ² = ln(1 + cv²)).
    Lognormal {
        sigma: f64,
    },
}

impl Shape {
    pub fn lognormal_with_cv(cv: f64) -> Shape {
        Shape::Lognormal { sigma: (1.0 + cv * cv).ln().sqrt() }
    }

    /// The factor by which quantile `u` (in (0,1)) scales the mean: its own mean is 1.
    pub fn factor(self, u: f64) -> f64 {
        match self {
            Shape::Fixed => 1.0,
            Shape::Exponential => -(1.0 - u).ln(),
            Shape::Lognormal { sigma } => (sigma * normal_quantile(u) - 0.5 * sigma * sigma).exp(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_quantile_matches_known_values() {
        assert!(normal_quantile(0.5).abs() < 1e-15);
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-12);
        assert!((normal_quantile(0.001) + 3.090_232_306_167_813_5).abs() < 1e-12);
        assert!((normal_quantile(1e-10) + 6.361_340_902_404_056).abs() < 1e-9);
    }

    #[test]
    fn factors_have_mean_one() {
        let n = 200_000;
        for shape in [Shape::Fixed, Shape::Exponential, Shape::lognormal_with_cv(0.5)] {
            let mean: f64 = (0..n).map(|i| shape.factor((i as f64 + 0.5) / n as f64)).sum::<f64>() / n as f64;
            assert!((mean - 1.0).abs() < 2e-3, "{shape:?}: {mean}");
        }
    }
}
