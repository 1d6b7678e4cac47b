//! A Linux host's claim tables in one home, as `nmp/` is ESXi's: multipath-tools' hardware table
//! for dm-multipath (`hwtable.rs`) and the vendors' udev rules for NVMe native multipath
//! (`nvme_udev.rs`), and how their values fill what a scenario's policy table leaves out
//! (`claim.rs`).

pub mod claim;
pub mod hwtable;
pub mod nvme_udev;

/// The multipath-tools releases whose `multipath -ll` printing differs from today's, as
/// `[host] multipath_tools` takes them (what differs: `output/multipath.py`, which reads this
/// list through the bindings): 0.4.8, the bracket layout with summed group priorities; 0.4.9,
/// today's layout with averaged ones (`prio=-1` under `-l`); both before the emc prioritizer's
/// 4/1 (0.5.0).
pub const MULTIPATH_TOOLS: &[&str] = &["0.4.8", "0.4.9"];

/// Whether `release` (a `MULTIPATH_TOOLS` name, `major.minor.patch`) is older than `than`: what a
/// check of a feature's first release compares, so it stays right when a newer release is listed.
pub fn release_before(release: &str, than: (u32, u32, u32)) -> bool {
    let mut parts = release.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let mut next = || parts.next().unwrap_or(0);
    (next(), next(), next()) < than
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_compare_by_their_numbers() {
        assert!(release_before("0.4.8", (0, 5, 0)) && release_before("0.4.9", (0, 5, 0)));
        assert!(!release_before("0.5.0", (0, 5, 0)) && !release_before("0.15.0", (0, 5, 0)));
        assert!(release_before("0.9.9", (0, 10, 0)));
    }
}
