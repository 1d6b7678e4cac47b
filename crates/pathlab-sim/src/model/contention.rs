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
//! entry for the one replicated LUN, and all their writes meet the same tracks (`LunKey`).

use super::Device;
use crate::engine::TimeNs;
use std::collections::{HashMap, VecDeque};
use std::hash::BuildHasherDefault;

/// A deterministic hasher: lookups only, but nothing here depends on a random seed.
type Deterministic = BuildHasherDefault<std::collections::hash_map::DefaultHasher>;

/// The LUN whose tracks an extent is: the array the scenario defines it on and its number
/// there. Each host's device entry for one LUN (a cluster: same array, same LUN, one entry per
/// host) has the same key; two LUNs never do (the build refuses a LUN twice on one host).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LunKey {
    pub array: u32,
    pub lun: u32,
}

impl LunKey {
    pub fn of(device: &Device) -> Self {
        LunKey { array: device.array as u32, lun: device.lun }
    }
}

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
    /// (LUN, extent number) → the extent's id: its index in `extents`, numbered as the
    /// workload first touches it (events carry the id, which keeps them small).
    ids: HashMap<(LunKey, u64), u32, Deterministic>,
    /// Bounded by the extents the workload touches.
    pub extents: Vec<Extent>,
    /// Ownership moves towards each side.
    pub transfers: [u64; 2],
}

impl Contention {
    pub fn new(extent_bytes: u64, grant_ns: TimeNs) -> Self {
        Contention { extent_bytes, grant_ns, ids: HashMap::default(), extents: Vec::new(), transfers: [0, 0] }
    }

    /// The id of the extent that holds `offset` of `lun`, new if no host's writes touched it.
    pub fn extent_id(&mut self, lun: LunKey, offset: u64) -> u32 {
        let next = self.extents.len() as u32;
        let id = *self.ids.entry((lun, offset / self.extent_bytes)).or_insert(next);
        if id == next {
            self.extents.push(Extent::default());
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::{Contention, LunKey};
    use crate::model::build_model;

    /// Two hosts that both see LUN 1 of array r1 (one device entry each, as a cluster scenario
    /// gives them), and host a's LUN 2 besides.
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

[[fabric]]
adapters = ["a/vmhba1", "b/vmhba1"]
ports = ["r1/P0"]
latency = "2us"

[[devices]]
name = "naa.1"
array = "r1"
lun = 1
host = "a"

[[devices]]
name = "naa.1"
array = "r1"
lun = 1
host = "b"

[[devices]]
name = "naa.2"
array = "r1"
lun = 2
host = "a"

[[workloads]]
devices = ["a/naa.1"]
outstanding = 1
"#;

    #[test]
    fn every_hosts_device_of_one_lun_meets_the_same_extents_and_two_luns_do_not() {
        let scenario = crate::run::load(CLUSTER, "cluster.toml", None, &[], None).unwrap_or_else(|e| panic!("{e}"));
        let model = build_model(&scenario.spec).unwrap_or_else(|e| panic!("{e:?}"));
        let key = |host: usize, lun: u32| {
            let d = model.devices.iter().find(|d| d.host == host && d.lun == lun).expect("device");
            LunKey::of(d)
        };
        let mut c = Contention::new(128 * 1024, 30_000);
        // Host a's write at 8 KiB and host b's at 64 KiB of LUN 1: one 128 KiB track.
        let a_lun1 = c.extent_id(key(0, 1), 8 * 1024);
        assert_eq!(c.extent_id(key(1, 1), 64 * 1024), a_lun1);
        // The same offset of LUN 2 is a track of its own, and so is LUN 1's next track.
        let a_lun2 = c.extent_id(key(0, 2), 8 * 1024);
        assert_ne!(a_lun2, a_lun1);
        assert_ne!(c.extent_id(key(1, 1), 128 * 1024), a_lun1);
        assert_eq!(c.extents.len(), 3);
    }
}
