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
//!
//! Extents belong to the LUN, not to a host's view of it: in a cluster every host has a device
//! entry for the one replicated LUN, and all their writes meet the same tracks. A LUN of a group
//! is known by its name (the NAA both arrays present for it), whichever array of the pair and
//! whatever LUN number a host's entry gives (`lun_of`).

use crate::engine::TimeNs;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;

/// A deterministic hasher: lookups only, but nothing here depends on a random seed.
type Deterministic = BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

/// `lun_of` for a device outside the group (its writes never reach the group's extents).
pub const NOT_IN_GROUP: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
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

#[derive(Clone)]
pub struct Contention {
    pub extent_bytes: u64,
    pub grant_ns: TimeNs,
    /// (LUN, extent number) → the extent's id: its index in `extents`, numbered as the
    /// workload first touches it (events carry the id, which keeps them small).
    ids: HashMap<(u32, u64), u32, Deterministic>,
    /// Each device's LUN in this group (by device index; `NOT_IN_GROUP` for the others): the
    /// devices of one name share one, every host's entry and either array's.
    pub lun_of: Vec<u32>,
    /// Bounded by the extents the workload touches.
    pub extents: Vec<Extent>,
    /// Ownership moves towards each side.
    pub transfers: [u64; 2],
}

impl Contention {
    pub fn new(extent_bytes: u64, grant_ns: TimeNs) -> Self {
        Contention {
            extent_bytes,
            grant_ns,
            ids: HashMap::default(),
            lun_of: Vec::new(),
            extents: Vec::new(),
            transfers: [0, 0],
        }
    }

    /// The id of the extent that holds `offset` of `device`'s LUN, new if no host's writes
    /// touched it.
    pub fn extent_id(&mut self, device: u32, offset: u64) -> u32 {
        let next = self.extents.len() as u32;
        let id = *self.ids.entry((self.lun_of[device as usize], offset / self.extent_bytes)).or_insert(next);
        if id == next {
            self.extents.push(Extent::default());
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use crate::model::build_model;

    /// One SRDF/Metro LUN seen by two hosts: host a's entry on r1 as LUN 1, host b's on r2 as
    /// LUN 7 (R1 and R2 numbers often differ), and host a's LUN 2 besides.
    const CLUSTER: &str = r#"
[run]
duration = "1s"

[host]
name = "a"
adapters = [{ name = "vmhba1" }]

[[hosts]]
name = "b"
adapters = [{ name = "vmhba1" }]

[[arrays]]
name = "r1"
service = { fixed = "20us" }
ports = [{ name = "P0" }]

[[arrays]]
name = "r2"
service = { fixed = "20us" }
ports = [{ name = "P0" }]

[[fabric]]
adapters = ["a/vmhba1", "b/vmhba1"]
ports = ["r1/P0", "r2/P0"]
latency = "2us"

[[devices]]
name = "naa.1"
array = "r1"
lun = 1
host = "a"

[[devices]]
name = "naa.1"
array = "r2"
lun = 7
host = "b"

[[devices]]
name = "naa.2"
array = "r1"
lun = 2
host = "a"

[[replication]]
arrays = ["r1", "r2"]
latency = "250us"
devices = ["a/naa.1", "b/naa.1", "naa.2"]
contention = { extent = "128KiB", grant_cost = "30us" }

[[workloads]]
devices = ["a/naa.1"]
outstanding = 1
"#;

    #[test]
    fn every_hosts_entry_of_one_lun_meets_the_same_extents_on_either_array_and_two_luns_do_not() {
        let scenario = crate::run::load(CLUSTER, "cluster.toml", None, &[], None).unwrap_or_else(|e| panic!("{e}"));
        let mut model = build_model(&scenario.spec).unwrap_or_else(|e| panic!("{e:?}"));
        let device = |host: usize, name: &str| {
            model.devices.iter().position(|d| d.host == host && &*d.name == name).expect("device") as u32
        };
        let (a1, b1, a2) = (device(0, "naa.1"), device(1, "naa.1"), device(0, "naa.2"));
        let c = model.replications[0].contention.as_mut().expect("contention");
        // Host a's write at 8 KiB and host b's at 64 KiB of the one LUN: one 128 KiB track.
        let first = c.extent_id(a1, 8 * 1024);
        assert_eq!(c.extent_id(b1, 64 * 1024), first);
        // The same offset of LUN 2 is a track of its own, and so is the LUN's next track.
        assert_ne!(c.extent_id(a2, 8 * 1024), first);
        assert_ne!(c.extent_id(b1, 128 * 1024), first);
        assert_eq!(c.extents.len(), 3);
    }
}
