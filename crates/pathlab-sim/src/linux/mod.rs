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
