//! The back ends: each array's RAID groups of disks (their stations come after every
//! port and controller station) and its write cache.

use super::values::{err, fraction, shape, unique};
use crate::engine::level::Level;
use crate::model::backend::{self, Backends, DiskModel, RaidGroup, WriteCache};
use crate::model::Station;
use crate::scenario::bounds;
use crate::scenario::error::FieldError;
use crate::scenario::schema::{ArraySpec, RaidLevel, ScenarioSpec};
use std::collections::VecDeque;

/// The RAID groups of one array, their disks appended to the stations.
fn raid_groups(a: &ArraySpec, ai: usize, stations: &mut Vec<Station>, out: &mut Backends) -> Result<(), FieldError> {
    let field = format!("arrays.{ai}");
    unique(a.raid_groups.iter().map(|g| g.name.as_str()), &format!("{field}.raid_groups"))?;
    let array_hit = match &a.cache {
        Some(c) => fraction(c.read_hit, format!("{field}.cache.read_hit"))?,
        None => 0.0,
    };
    for (gi, g) in a.raid_groups.iter().enumerate() {
        let gfield = format!("{field}.raid_groups.{gi}");
        let (least, even) = match g.level {
            RaidLevel::Raid5 => (3, false),
            RaidLevel::Raid6 => (4, false),
            RaidLevel::Raid10 => (2, true),
        };
        if g.disks < least || g.disks > 128 || (even && g.disks % 2 == 1) {
            let what = if even { "an even number of disks" } else { "disks" };
            return err(format!("{gfield}.disks"), format!("{:?} takes {what} from {least} to 128", g.level));
        }
        if g.stripe_element.0 == 0 {
            return err(format!("{gfield}.stripe_element"), "must be above zero");
        }
        let d = &g.disk;
        bounds::within(d.rpm, &bounds::RPM, "3600 to 15000 (the spindle speeds made)")
            .map_err(|m| (format!("{gfield}.disk.rpm"), m))?;
        let rate = d.transfer_rate.0 / 1e9;
        let disk = DiskModel {
            read_seek_ns: d.seek.0 as f64,
            write_seek_ns: d.write_seek.unwrap_or(d.seek).0 as f64,
            seek_shape: shape(d.seek_distribution, d.cv, &format!("{gfield}.disk"))?,
            revolution_ns: 60e9 / f64::from(d.rpm),
            bytes_per_ns: rate,
        };
        let read_hit = match g.read_hit {
            Some(h) => fraction(h, format!("{gfield}.read_hit"))?,
            None => array_hit,
        };
        let first_station = stations.len();
        stations.extend(backend::disk_stations(&format!("{}/{}", a.name, g.name), g.disks, disk));
        out.group_of_disk.extend(std::iter::repeat_n(out.groups.len() as u32, g.disks as usize));
        out.groups.push(RaidGroup {
            name: format!("{}/{}", a.name, g.name),
            array: ai,
            level: g.level,
            first_station,
            disks: g.disks,
            element_bytes: g.stripe_element.0,
            disk,
            read_hit,
            dirty: VecDeque::new(),
            destaging: 0,
            read_hits: 0,
            read_misses: 0,
            destages: 0,
        });
    }
    Ok(())
}

/// The write cache of an array with RAID groups, if it has one.
fn write_cache(a: &ArraySpec, ai: usize, groups: &[RaidGroup]) -> Result<Option<WriteCache>, FieldError> {
    let field = format!("arrays.{ai}.cache");
    let Some(c) = &a.cache else { return Ok(None) };
    if a.raid_groups.is_empty() {
        return err(field, "a cache serves RAID groups: add [[arrays.raid_groups]] or leave the cache out");
    }
    let Some(size) = c.write_size else { return Ok(None) };
    if size.0 == 0 {
        return err(format!("{field}.write_size"), "must be above zero (leave it out for write-through)");
    }
    if c.write_aside.0 == 0 || c.write_aside.0 > size.0 {
        return err(
            format!("{field}.write_aside"),
            format!("allowed above zero up to the write_size ({} bytes)", size.0),
        );
    }
    if c.destage_depth == 0 || c.destage_depth > 64 {
        return err(format!("{field}.destage_depth"), "allowed 1 to 64 (requests per disk)");
    }
    if !(c.high_watermark > 0.0 && c.high_watermark <= 100.0) {
        return err(format!("{field}.high_watermark"), "a percentage above 0, at most 100");
    }
    if !(c.low_watermark >= 0.0 && c.low_watermark <= c.high_watermark) {
        let high = c.high_watermark;
        return err(format!("{field}.low_watermark"), format!("a percentage from 0 to the high watermark ({high})"));
    }
    let share = |pct: f64| (size.0 as f64 * pct / 100.0).round() as u64;
    Ok(Some(WriteCache {
        capacity_bytes: size.0,
        write_aside_bytes: c.write_aside.0,
        destage_depth: c.destage_depth,
        high_bytes: share(c.high_watermark),
        low_bytes: share(c.low_watermark),
        dirty: Level::default(),
        flushing: false,
        waiting: VecDeque::new(),
        forced: 0,
        groups: groups.iter().enumerate().filter(|(_, g)| g.array == ai).map(|(i, _)| i).collect(),
    }))
}

/// Disks after every port and controller station, so that a station index tells a disk.
pub(super) fn backends(spec: &ScenarioSpec, stations: &mut Vec<Station>) -> Result<Backends, FieldError> {
    let mut out = Backends { first_disk_station: stations.len(), ..Backends::default() };
    for (ai, a) in spec.arrays.iter().enumerate() {
        raid_groups(a, ai, stations, &mut out)?;
    }
    for (ai, a) in spec.arrays.iter().enumerate() {
        let cache = write_cache(a, ai, &out.groups)?;
        out.caches.push(cache);
    }
    Ok(out)
}
