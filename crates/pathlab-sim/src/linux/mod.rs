//! A Linux host's claim tables in one home, as `nmp/` is ESXi's: multipath-tools' hardware table
//! for dm-multipath (`hwtable.rs`) and the vendors' udev rules for NVMe native multipath
//! (`nvme_udev.rs`), and how their values fill what a scenario's policy table leaves out
//! (`claim.rs`).

pub mod claim;
pub mod hwtable;
pub mod nvme_udev;
