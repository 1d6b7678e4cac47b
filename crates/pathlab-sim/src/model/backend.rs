//! Disk back ends: RAID groups of disks behind an array's cache.
//!
//! A disk is a FIFO `Station` whose service time is a seek, a rotational latency and the media
//! transfer (the datasheet's three figures). A LUN is laid out over its group in stripe
//! elements; the element an I/O's offset falls in names the disk that serves a read miss, and
//! a small write costs the RAID write penalty (Patterson, Gibson, Katz, "A Case for Redundant
//! Arrays of Inexpensive Disks", SIGMOD 1988: a RAID-5 small write reads old data and old parity
//! and writes both, 4 disk operations over 2 disks; mirrors write both sides). Large I/Os are
//! not split over elements: the disk of the first element serves the whole transfer.
//!
//! The write cache follows FLARE's flushing (EMC CLARiiON Best Practices for Performance and
//! Availability, R28-R30; EMC KB "What should the high/low watermark cache settings be"): writes
//! are acknowledged from cache; when the dirty share reaches the high watermark the array
//! flushes (destages) to the disks until it is back at the low watermark; when the cache is
//! full a write waits for a destage to free room (forced flushing), so its response becomes
//! disk time. Idle flushing (of LUNs with no I/O) is not modelled: a benchmark's LUNs are never
//! idle. Reads of data still dirty in the write cache are not treated as hits.

use super::Station;
use crate::engine::dist::Shape;
use crate::engine::level::Level;
use crate::engine::TimeNs;
use crate::scenario::schema::RaidLevel;
use crate::scenario::units::MAX_DURATION_NS;
use std::collections::VecDeque;

/// Route stages are small numbers (a route has a handful of steps); the back end's own draws
/// use stages from here on, so that they are independent of every station's.
pub const HIT_STAGE: u8 = 100;
/// Each disk operation of an I/O draws a seek and a rotation quantile at
/// `DISK_STAGE + 2 * op` and the next stage.
pub const DISK_STAGE: u8 = 104;

/// A disk from its datasheet.
#[derive(Clone, Copy, Debug)]
pub struct DiskModel {
    pub read_seek_ns: f64,
    pub write_seek_ns: f64,
    pub seek_shape: Shape,
    /// One revolution: the rotational latency is uniform over it (mean half of it).
    pub revolution_ns: f64,
    pub bytes_per_ns: f64,
}

impl DiskModel {
    pub fn mean_ns(&self, bytes: u64, is_write: bool) -> f64 {
        let seek = if is_write { self.write_seek_ns } else { self.read_seek_ns };
        seek + self.revolution_ns / 2.0 + bytes as f64 / self.bytes_per_ns
    }

    /// Service of one operation from its seek and rotation quantiles.
    pub fn sample_ns(&self, bytes: u64, is_write: bool, seek_q: f64, rotation_q: f64) -> TimeNs {
        let seek = if is_write { self.write_seek_ns } else { self.read_seek_ns };
        let t =
            seek * self.seek_shape.factor(seek_q) + self.revolution_ns * rotation_q + bytes as f64 / self.bytes_per_ns;
        t.min(MAX_DURATION_NS as f64).round() as TimeNs
    }
}

/// Disk operations of one back-end request, in phases: every operation of a phase runs at once
/// (each on its own disk) and the next phase starts when the last of them is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiskOps {
    /// Disks (positions in the group) of each operation.
    pub disks: [u8; 3],
    /// Operations per phase (1 to 3).
    pub width: u8,
    /// Phases: 1 (a read, a mirrored write) or 2 (read old data and parity, then write).
    pub phases: u8,
}

impl DiskOps {
    /// Whether the operations of `phase` write (the last phase of a write).
    pub fn writes(&self, is_write: bool, phase: u8) -> bool {
        is_write && phase + 1 == self.phases
    }
}

#[derive(Clone)]
pub struct RaidGroup {
    pub name: String,
    pub array: usize,
    pub level: RaidLevel,
    /// Its disks are the stations `first_station .. first_station + disks`.
    pub first_station: usize,
    pub disks: u32,
    pub element_bytes: u64,
    pub disk: DiskModel,
    pub read_hit: f64,
    /// Writes acknowledged from cache and not yet destaged: (offset, service key, bytes).
    pub dirty: VecDeque<(u64, u64, u64)>,
    /// Destage requests on its disks now.
    pub destaging: u32,
    /// Reads served from cache and from disk, and destage requests finished.
    pub read_hits: u64,
    pub read_misses: u64,
    pub destages: u64,
}

impl RaidGroup {
    /// Data disks per stripe.
    fn data_disks(&self) -> u64 {
        u64::from(self.disks)
            - match self.level {
                RaidLevel::Raid5 => 1,
                RaidLevel::Raid6 => 2,
                RaidLevel::Raid10 => u64::from(self.disks) / 2,
            }
    }

    /// Where the element holding `offset` lives: (its stripe, its data disk, the first parity
    /// disk). Parity rotates one disk per stripe, right to left (the left-symmetric layout).
    fn place(&self, offset: u64) -> (u64, u8, u8) {
        let n = u64::from(self.disks);
        let element = offset / self.element_bytes;
        let (stripe, k) = (element / self.data_disks(), element % self.data_disks());
        match self.level {
            RaidLevel::Raid10 => (stripe, (2 * k) as u8, 0),
            RaidLevel::Raid5 | RaidLevel::Raid6 => {
                let parity = n - 1 - stripe % n;
                let first_data = parity + if self.level == RaidLevel::Raid5 { 1 } else { 2 };
                (stripe, ((first_data + k) % n) as u8, parity as u8)
            }
        }
    }

    /// The disk operations of a read miss or a write (write-through or destage) at `offset`.
    /// A RAID-1/0 read goes to the mirror side given by `mirror` (0 or 1).
    pub fn ops(&self, offset: u64, is_write: bool, mirror: u8) -> DiskOps {
        let n = self.disks as u8;
        let (_, data, parity) = self.place(offset);
        match (self.level, is_write) {
            (RaidLevel::Raid10, false) => DiskOps { disks: [data + mirror, 0, 0], width: 1, phases: 1 },
            (_, false) => DiskOps { disks: [data, 0, 0], width: 1, phases: 1 },
            (RaidLevel::Raid10, true) => DiskOps { disks: [data, data + 1, 0], width: 2, phases: 1 },
            (RaidLevel::Raid5, true) => DiskOps { disks: [data, parity, 0], width: 2, phases: 2 },
            (RaidLevel::Raid6, true) => DiskOps { disks: [data, parity, (parity + 1) % n], width: 3, phases: 2 },
        }
    }

    /// The station of disk `position`.
    pub fn station(&self, position: u8) -> usize {
        self.first_station + usize::from(position)
    }
}

/// One array's write cache (FLARE: one cache mirrored between the SPs).
#[derive(Clone)]
pub struct WriteCache {
    pub capacity_bytes: u64,
    /// Writes larger than this bypass the cache and go straight to the disks.
    pub write_aside_bytes: u64,
    /// Destage requests in flight per disk of a group while flushing.
    pub destage_depth: u32,
    pub high_bytes: u64,
    pub low_bytes: u64,
    /// Dirty bytes: written by hosts, not yet on disk.
    pub dirty: Level,
    /// Between reaching the high watermark and getting back to the low one.
    pub flushing: bool,
    /// Writes waiting for room (forced flushing): (I/O, attempt, RAID group).
    pub waiting: VecDeque<(u32, u32, u32)>,
    /// Writes that had to wait for room.
    pub forced: u64,
    /// The RAID groups it flushes to.
    pub groups: Vec<usize>,
}

impl WriteCache {
    /// Whether a write of `bytes` fits now (no earlier write is waiting for room).
    pub fn has_room(&self, bytes: u64) -> bool {
        self.waiting.is_empty() && self.dirty.value() + bytes <= self.capacity_bytes
    }
}

/// Whom a back-end request works for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// An I/O's read miss or write-through: the route goes on when the request is done.
    Io { io: u32, attempt: u32 },
    /// A destage of dirty data: frees room in the cache when done.
    Destage,
}

/// A request on a RAID group's disks, in its phases.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    pub owner: Owner,
    pub group: u32,
    pub ops: DiskOps,
    pub is_write: bool,
    pub bytes: u64,
    /// The service key of the I/O whose data it moves: its draws are that I/O's.
    pub key: u64,
    pub phase: u8,
    /// Operations of the current phase not finished yet.
    pub pending: u8,
}

/// Disks and caches of every array, beside the model's stations.
#[derive(Clone, Default)]
pub struct Backends {
    pub groups: Vec<RaidGroup>,
    /// Write caches, by array (`None`: no write cache, or no RAID group).
    pub caches: Vec<Option<WriteCache>>,
    /// Disk stations are the stations from this index on.
    pub first_disk_station: usize,
    /// Each disk station's group.
    pub group_of_disk: Vec<u32>,
}

impl Backends {
    pub fn is_disk(&self, station: usize) -> bool {
        station >= self.first_disk_station && !self.group_of_disk.is_empty()
    }
}

/// The disks of a group as stations: one server each, FIFO, service set per operation.
pub fn disk_stations(group: &str, disks: u32, model: DiskModel) -> impl Iterator<Item = Station> + '_ {
    (0..disks).map(move |d| Station {
        name: format!("{group}/disk{d}"),
        // The disk's own figures decide each operation; this mean is for displays.
        service: super::service::ServiceModel {
            fixed_ns: model.mean_ns(0, false),
            per_kib_ns: 1024.0 / model.bytes_per_ns,
            shape: Shape::Fixed,
        },
        servers: 1,
        busy: Level::default(),
        commands: 0,
        queue: VecDeque::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(level: RaidLevel, disks: u32) -> RaidGroup {
        let disk = DiskModel {
            read_seek_ns: 3.4e6,
            write_seek_ns: 3.9e6,
            seek_shape: Shape::Fixed,
            revolution_ns: 4e6,
            bytes_per_ns: 0.2,
        };
        RaidGroup {
            name: "rg".into(),
            array: 0,
            level,
            first_station: 0,
            disks,
            element_bytes: 64 * 1024,
            disk,
            read_hit: 0.0,
            dirty: VecDeque::new(),
            destaging: 0,
            read_hits: 0,
            read_misses: 0,
            destages: 0,
        }
    }

    #[test]
    fn raid5_rotates_parity_and_spreads_data_over_every_disk() {
        // 4+1: stripe 0 has parity on disk 4 and data on 0..3; stripe 1 parity on 3, data on
        // 4, 0, 1, 2; after five stripes every disk held parity once and data four times.
        let g = group(RaidLevel::Raid5, 5);
        let e = 64 * 1024;
        assert_eq!(g.ops(0, true, 0), DiskOps { disks: [0, 4, 0], width: 2, phases: 2 });
        assert_eq!(g.ops(3 * e, false, 0).disks[0], 3);
        assert_eq!(g.ops(4 * e, true, 0).disks[..2], [4, 3]);
        assert_eq!(g.ops(5 * e, false, 0).disks[0], 0);
        let mut data = [0; 5];
        let mut parity = [0; 5];
        for el in 0..20 {
            let ops = g.ops(el * e, true, 0);
            data[usize::from(ops.disks[0])] += 1;
            parity[usize::from(ops.disks[1])] += 1;
            assert_ne!(ops.disks[0], ops.disks[1]);
        }
        assert_eq!((data, parity), ([4; 5], [4; 5]));
        // Inside one element: the same disk.
        assert_eq!(g.ops(e - 8192, false, 0), g.ops(0, false, 0));
    }

    #[test]
    fn raid6_writes_data_and_both_parities_and_raid10_both_mirrors() {
        let g = group(RaidLevel::Raid6, 6);
        let ops = g.ops(0, true, 0);
        assert_eq!((ops.width, ops.phases), (3, 2));
        assert_eq!(ops.disks, [1, 5, 0]);
        let g = group(RaidLevel::Raid10, 8);
        // Four pairs: element 5 is on pair 1 (disks 2 and 3), stripe 1.
        let e = 64 * 1024;
        assert_eq!(g.ops(5 * e, true, 0), DiskOps { disks: [2, 3, 0], width: 2, phases: 1 });
        assert_eq!(g.ops(5 * e, false, 1).disks[0], 3);
    }

    #[test]
    fn disk_service_is_seek_plus_rotation_plus_transfer() {
        let g = group(RaidLevel::Raid5, 5);
        // 8 KiB at 200 MB/s is 40.96 us; half a revolution of 4 ms is 2 ms.
        assert!((g.disk.mean_ns(8192, false) - 5_440_960.0).abs() < 1.0);
        assert_eq!(g.disk.sample_ns(8192, true, 0.5, 0.25), 3_900_000 + 1_000_000 + 40_960);
    }
}
