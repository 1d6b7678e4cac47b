//! Linux device-mapper multipath: the multipath target with its priority groups
//! (`multipath.rs`) and the kernel's path selectors, one file each.

pub(crate) mod historical_service_time;
pub(crate) mod io_affinity;
pub(crate) mod map_table;
pub(crate) mod multipath;
pub(crate) mod queue_length;
pub(crate) mod round_robin;
pub(crate) mod selector;
pub(crate) mod service_time;
pub mod shaky_paths;
pub(crate) mod weightedpath;
