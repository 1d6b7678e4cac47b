//! Coordination of writes to the same data arriving at both arrays of a replicated volume.
//!
//! The mechanism (the cache-coherence of VPLEX Metro, the track locks of SRDF/Metro): every
//! extent (a track; 128 KiB by default, the VMAX3 track size) is owned by one array. A write
//! arriving at the array that owns its extent proceeds and holds the extent until the peer has
//! acknowledged it. A write arriving at the other array asks the owner for the extent over the
//! inter-array link; the owner lets it go once the writes it holds on that extent are done, pays
//! `grant_cost` and sends the grant back. Writes that arrive while ownership is moving wait for
//! it, in order, on their side. So ownership moves once per change of writing array: batches of
//! writes to one array (iops=1000) move it rarely; alternating every I/O (iops=1) moves the hot
//! extents back and forth all the time, and at distance each move costs a round trip.

use crate::engine::TimeNs;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;

/// A deterministic hasher: lookups only, but nothing here depends on a random seed.
type Deterministic = BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

#[derive(Debug, Default)]
pub struct Extent {
    pub owner: u8,
    /// Writes at the owner that hold the extent.
    pub holders: u32,
    /// Side the extent is moving to, once requested.
    pub moving_to: Option<u8>,
    /// The owner received the request and grants as soon as its holders are done.
    pub request_arrived: bool,
    /// Writes waiting for the extent, per side.
    pub waiters: [VecDeque<u32>; 2],
}

pub struct Contention {
    pub extent_bytes: u64,
    pub grant_ns: TimeNs,
    /// (device, extent number) → the extent's id: its index in `extents`, numbered as the
    /// workload first touches it (events carry the id, which keeps them small).
    ids: HashMap<(u32, u64), u32, Deterministic>,
    /// Bounded by the extents the workload touches.
    pub extents: Vec<Extent>,
    /// Ownership moves towards each side.
    pub transfers: [u64; 2],
}

impl Contention {
    pub fn new(extent_bytes: u64, grant_ns: TimeNs) -> Self {
        Contention { extent_bytes, grant_ns, ids: HashMap::default(), extents: Vec::new(), transfers: [0, 0] }
    }

    /// The id of the extent that holds `offset` of `device`, new if the workload never touched it.
    pub fn extent_id(&mut self, device: u32, offset: u64) -> u32 {
        let next = self.extents.len() as u32;
        let id = *self.ids.entry((device, offset / self.extent_bytes)).or_insert(next);
        if id == next {
            self.extents.push(Extent::default());
        }
        id
    }
}
