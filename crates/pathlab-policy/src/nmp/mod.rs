//! VMware ESXi NMP path selection plugins: round robin, Fixed and MRU.

pub(crate) mod fixed;
pub(crate) mod mru;
pub(crate) mod round_robin;
