//! How each device, and each host, came back from each fault: the time until its I/O rate was
//! full again, and the time until the host used the paths it used before (fail back). Both are
//! read after the run from the interval rows, the event log and the paths in use at each
//! interval boundary (`PathsInUse`, kept only on runs with faults).
//!
//! **Back to full rate**, from the fault's start: the full rate is the device's mean rate
//! (commands per second) over the measured intervals that end at or before the fault's start.
//! The rate fell if an interval that ends after the start and begins before the fault's end (a
//! fault's window taken at least one interval long) is below 95% of it; then it is back at the
//! beginning of the first later interval at 95% or more; if it never fell, 0. The resolution is
//! one interval (`run.interval`). `None` when no measured interval precedes the fault, or when the
//! rate was not back by the end of the measurement. A host's row sums its devices' rates.
//!
//! **Failed back**, from the fault's end (faults that end before the measurement does): the
//! paths in use are the policy's working paths (esxcli's `Working Paths`), read at each interval
//! boundary. If they never differed from those at the fault's start at a boundary within the
//! fault, 0 (a change shorter than an interval is missed); else the first boundary at or after
//! the end where they are the same again, brought forward to the device's last logged event
//! between the end and it (the reinstatement that did it). `None` when they were not the same by
//! the end of the run, or the fault lasts to the end. A host's row is its slowest device's.

use super::result::{HostEvent, ObjectIntervalRow};
use crate::engine::TimeNs;
use crate::scenario::fault_windows::FaultWindow;
use serde::Serialize;

/// A rate at least this share of the full rate is full.
pub const FULL_RATE_SHARE: f64 = 0.95;

fn seconds(ns: TimeNs) -> f64 {
    ns as f64 / 1e9
}

/// Each device's paths in use (path indices), recorded when they change between interval
/// boundaries.
#[derive(Debug, Default)]
pub struct PathsInUse {
    /// Per device: (time, paths) at each change, in time order.
    changes: Vec<Vec<(TimeNs, Vec<u32>)>>,
}

impl PathsInUse {
    pub fn new(devices: usize) -> Self {
        PathsInUse { changes: vec![Vec::new(); devices] }
    }

    pub fn see(&mut self, now: TimeNs, device: usize, paths: Vec<u32>) {
        let changes = &mut self.changes[device];
        if changes.last().map(|c| &c.1) != Some(&paths) {
            changes.push((now, paths));
        }
    }

    /// The device's paths in use as last seen at or before `t_s`.
    fn at(&self, device: usize, t_s: f64) -> Option<&[u32]> {
        let seen = self.changes[device].iter().take_while(|c| seconds(c.0) <= t_s);
        seen.last().map(|c| c.1.as_slice())
    }
}

/// How one device (or one host) came back from one fault.
#[derive(Debug, Clone, Serialize)]
pub struct Recovery {
    /// The fault's place among the scenario's `[[faults]]`, from 0.
    pub fault: usize,
    pub kind: &'static str,
    pub target: String,
    pub start_s: f64,
    /// `None` for a moment (a failover, an ALUA change).
    pub end_s: Option<f64>,
    pub host: String,
    /// Empty on the host's row (its devices together).
    pub device: String,
    /// The full rate before the fault (commands per second); `None` without a measured interval
    /// before it.
    pub iops_before: Option<f64>,
    /// The lowest interval rate from the first one below full rate until back to it.
    pub lowest_iops: Option<f64>,
    /// Seconds from the fault's start (see the module's rule).
    pub back_to_full_rate_s: Option<f64>,
    /// The paths in use when the fault started (empty on the host's row).
    pub paths_before: Vec<String>,
    /// Seconds from the fault's end until the same paths were in use again.
    pub failed_back_s: Option<f64>,
}

/// What the recovery rules read from a run.
pub struct RunTimeline<'a> {
    pub warmup_s: f64,
    pub interval_s: f64,
    /// The end of the measurement: a fault lasting to it has no fail back.
    pub measure_end_s: f64,
    /// The device interval rows, each sample's devices in device order.
    pub device_intervals: &'a [ObjectIntervalRow],
    /// Per device: its row name, its host's index.
    pub devices: Vec<(&'a str, usize)>,
    pub host_names: &'a [String],
    pub path_names: Vec<&'a str>,
    /// Per device: the times of its logged events (`HostEvent`), in order.
    pub logged: Vec<Vec<f64>>,
    pub paths_in_use: Option<&'a PathsInUse>,
}

/// Per device (by its row name, in `names`' order), the times the host logged something of it.
pub fn logged_times(names: &[&str], events: &[HostEvent]) -> Vec<Vec<f64>> {
    let index: std::collections::HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut times = vec![Vec::new(); names.len()];
    for e in events {
        if let Some(&d) = index.get(e.device.as_str()) {
            times[d].push(e.t_s);
        }
    }
    times
}

struct RateRecovery {
    before: Option<f64>,
    lowest: Option<f64>,
    back_s: Option<f64>,
    fell: bool,
}

impl RunTimeline<'_> {
    fn samples(&self) -> usize {
        self.device_intervals.len() / self.devices.len().max(1)
    }

    fn end_s(&self, k: usize) -> f64 {
        self.device_intervals[k * self.devices.len()].t_s
    }

    fn begin_s(&self, k: usize) -> f64 {
        if k == 0 {
            0.0
        } else {
            self.end_s(k - 1)
        }
    }

    fn rate(&self, k: usize, devices: &[usize]) -> f64 {
        devices.iter().map(|&d| self.device_intervals[k * self.devices.len() + d].figures.cmds_s).sum()
    }

    /// The rule of back to full rate for these devices' summed rate (the module's text).
    fn rate_recovery(&self, devices: &[usize], start_s: f64, until_s: f64) -> RateRecovery {
        let n = self.samples();
        let before: Vec<f64> = (0..n)
            .filter(|&k| self.begin_s(k) >= self.warmup_s && self.end_s(k) <= start_s)
            .map(|k| self.rate(k, devices))
            .collect();
        if before.is_empty() {
            return RateRecovery { before: None, lowest: None, back_s: None, fell: false };
        }
        let full = before.iter().sum::<f64>() / before.len() as f64;
        let low = |k: usize| self.rate(k, devices) < FULL_RATE_SHARE * full;
        let first_after = (0..n).find(|&k| self.end_s(k) > start_s).unwrap_or(n);
        let Some(fell) = (first_after..n).take_while(|&k| self.begin_s(k) < until_s).find(|&k| low(k)) else {
            return RateRecovery { before: Some(full), lowest: None, back_s: Some(0.0), fell: false };
        };
        let back = (fell + 1..n).find(|&k| !low(k));
        let lowest = (fell..back.unwrap_or(n)).map(|k| self.rate(k, devices)).min_by(f64::total_cmp);
        RateRecovery { before: Some(full), lowest, back_s: back.map(|k| self.begin_s(k) - start_s), fell: true }
    }

    fn logged(&self, d: usize, from_s: f64, to_s: f64) -> impl Iterator<Item = f64> + '_ {
        self.logged[d].iter().copied().filter(move |&t| t >= from_s && t <= to_s)
    }

    /// The paths in use at the fault's start, and the rule of failed back (the module's text).
    fn fail_back(&self, d: usize, start_s: f64, end_s: Option<f64>) -> (Vec<String>, Option<f64>) {
        let Some(log) = self.paths_in_use else { return (Vec::new(), None) };
        let before = log.at(d, start_s);
        let names = before.unwrap_or_default().iter().map(|&p| self.path_names[p as usize].to_string()).collect();
        let Some(end_s) = end_s.filter(|&e| e < self.measure_end_s) else { return (names, None) };
        let n = self.samples();
        let mut within = (0..n).map(|k| self.end_s(k)).filter(|&t| t > start_s && t <= end_s);
        if within.all(|t| log.at(d, t) == before) {
            return (names, Some(0.0));
        }
        let same_again = (0..n).map(|k| self.end_s(k)).find(|&t| t >= end_s && log.at(d, t) == before);
        let back = same_again.map(|t| self.logged(d, end_s, t).last().unwrap_or(t) - end_s);
        (names, back)
    }

    /// A row per fault and device it touched (its rate fell, or the host logged something of it
    /// within the fault), then a row per fault and host of those devices.
    pub fn recoveries(&self, faults: &[FaultWindow]) -> Vec<Recovery> {
        let mut rows = Vec::new();
        for (i, f) in faults.iter().enumerate() {
            let (start_s, end_s) = (seconds(f.start_ns), f.end_ns.map(seconds));
            let until_s = end_s.unwrap_or(start_s).max(start_s + self.interval_s);
            let row =
                |host: usize, device: &str, r: &RateRecovery, paths_before: Vec<String>, failed_back_s| Recovery {
                    fault: i,
                    kind: f.kind,
                    target: f.target.clone(),
                    start_s,
                    end_s,
                    host: self.host_names[host].clone(),
                    device: device.to_string(),
                    iops_before: r.before,
                    lowest_iops: r.lowest,
                    back_to_full_rate_s: r.back_s,
                    paths_before,
                    failed_back_s,
                };
            // Each host with a touched device, and its touched devices' fail backs.
            let mut hosts: Vec<(usize, Vec<Option<f64>>)> = Vec::new();
            for (d, &(name, host)) in self.devices.iter().enumerate() {
                let rate = self.rate_recovery(&[d], start_s, until_s);
                if !rate.fell && self.logged(d, start_s, until_s).next().is_none() {
                    continue;
                }
                let (paths_before, failed_back) = self.fail_back(d, start_s, end_s);
                rows.push(row(host, name, &rate, paths_before, failed_back));
                match hosts.iter_mut().find(|h| h.0 == host) {
                    Some(h) => h.1.push(failed_back),
                    None => hosts.push((host, vec![failed_back])),
                }
            }
            for (host, failed_back) in &hosts {
                let all: Vec<usize> = (0..self.devices.len()).filter(|&d| self.devices[d].1 == *host).collect();
                let rate = self.rate_recovery(&all, start_s, until_s);
                let slowest = failed_back.iter().try_fold(0.0_f64, |m, b| b.map(|b| m.max(b)));
                let ends = end_s.filter(|&e| e < self.measure_end_s);
                rows.push(row(*host, "", &rate, Vec::new(), ends.and(slowest)));
            }
        }
        rows
    }
}
