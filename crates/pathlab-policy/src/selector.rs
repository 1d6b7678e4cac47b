//! A device's policy as a harness holds it. ESXi's round robin, the policy of most scenarios,
//! is held as itself, so that its per-I/O calls (`select_path`, `start_io`, `end_io`) are direct
//! calls the compiler can inline into the harness's loop; every other policy is called through
//! the `PathSelector` trait. Anything else the harness asks goes through the trait for all.

use crate::{HostView, IoDesc, IoDone, PathId, PathSelector, TimeNs, VmwPspRr};
use std::ops::{Deref, DerefMut};

// Round robin held inline on purpose: boxing it would put back the pointer hop per I/O (a cache
// miss on hosts of many devices) that this type removes; a device holds one either way.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub enum Selector {
    RoundRobin(VmwPspRr),
    Other(Box<dyn PathSelector>),
}

// No larger than round robin: the variant's tag is a niche of its fields, not a word before them,
// so round robin's per-I/O fields lead the selector (a device record aligns them: `VmwPspRr`).
const _: () = assert!(std::mem::size_of::<Selector>() == std::mem::size_of::<VmwPspRr>());

impl Selector {
    /// `PathSelector::preload`: round robin's own (its per-I/O line, the current path's lane, the
    /// latency type's sampler), the others' through the trait.
    #[inline(always)]
    pub fn preload(&self) -> u64 {
        match self {
            Selector::RoundRobin(p) => p.preload(),
            Selector::Other(p) => p.preload(),
        }
    }

    /// Whether the policy reads the host's commands outstanding per I_T nexus
    /// (`PathSelector::reads_host_queues`): round robin reads nothing of the host; of the others
    /// PowerPath, MPIO, NVMe and RNBD do (their least-queue choices).
    pub fn reads_host_queues(&self) -> bool {
        match self {
            Selector::RoundRobin(_) => false,
            Selector::Other(p) => p.reads_host_queues(),
        }
    }

    #[inline]
    pub fn select_path(&mut self, io: &IoDesc, now_ns: TimeNs, host: &dyn HostView) -> Option<PathId> {
        match self {
            Selector::RoundRobin(p) => p.select_path(io, now_ns, host),
            Selector::Other(p) => p.select_path(io, now_ns, host),
        }
    }

    #[inline]
    pub fn start_io(&mut self, path: PathId, io: &IoDesc, now_ns: TimeNs) {
        match self {
            Selector::RoundRobin(p) => p.start_io(path, io, now_ns),
            Selector::Other(p) => p.start_io(path, io, now_ns),
        }
    }

    #[inline]
    pub fn end_io(&mut self, path: PathId, io: &IoDesc, done: &IoDone) {
        match self {
            Selector::RoundRobin(p) => p.end_io(path, io, done),
            Selector::Other(p) => p.end_io(path, io, done),
        }
    }
}

impl Deref for Selector {
    type Target = dyn PathSelector;

    fn deref(&self) -> &Self::Target {
        match self {
            Selector::RoundRobin(p) => p,
            Selector::Other(p) => p.as_ref(),
        }
    }
}

impl DerefMut for Selector {
    fn deref_mut(&mut self) -> &mut Self::Target {
        match self {
            Selector::RoundRobin(p) => p,
            Selector::Other(p) => p.as_mut(),
        }
    }
}
