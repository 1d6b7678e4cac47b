//! Interval figures: a snapshot of the recorder at every interval boundary, turned into rows
//! for the run, each device, adapter and path.

use super::result::level_mean;
use super::*;

impl Simulation {
    /// The first interval boundary after `t`: every `interval` from the start until the end of
    /// the warm-up, then every `interval` from the end of the warm-up (so that no interval
    /// straddles it), and the end of the measurement.
    pub(super) fn sample_after(&self, t: TimeNs) -> Option<TimeNs> {
        let (warmup, step, end) = (self.plan.warmup_ns, self.plan.interval_ns, self.measure_end());
        if t < warmup {
            return Some(((t / step + 1) * step).min(warmup));
        }
        let next = warmup + ((t - warmup) / step + 1) * step;
        match next < end {
            true => Some(next),
            false => (t < end).then_some(end),
        }
    }

    pub(super) fn sample(&mut self) {
        let snap = self.rec.snapshot(&self.model, self.events.now());
        let prev = std::mem::replace(&mut self.last_sample, snap);
        let snap = &self.last_sample;
        let secs = (snap.time - prev.time) as f64 / 1e9;
        let t_s = snap.time as f64 / 1e9;
        let g = snap.guest.since(&prev.guest);
        self.intervals.push(IntervalRow {
            t_s,
            measured: prev.time >= self.plan.warmup_ns,
            figures: Figures::from_counters(
                &g,
                secs,
                snap.outstanding_area - prev.outstanding_area,
                self.rec.take_interval_max_ns(),
            ),
            errors: g.io.errors,
            retries: g.io.retries,
            failovers: g.io.failovers,
            failed: g.failed,
        });
        let level = |now: &[u128], before: &[u128], i: usize| level_mean(now[i] - before[i], secs);
        let rows = |names: &mut dyn Iterator<Item = String>, now: &[IoCounters], before: &[IoCounters]| {
            names
                .zip(now.iter().zip(before))
                .map(|(name, (n, b))| (name, EsxtopFigures::from_counters(&n.since(b), secs)))
                .collect::<Vec<_>>()
        };
        let devices = rows(&mut self.model.devices.iter().map(|d| d.name.clone()), &snap.devices, &prev.devices);
        for (i, (name, figures)) in devices.into_iter().enumerate() {
            let actv = level(&snap.device_active_area, &prev.device_active_area, i);
            let qued = level(&snap.device_queued_area, &prev.device_queued_area, i);
            self.device_intervals.push(ObjectIntervalRow { t_s, name, actv, qued, figures });
        }
        let adapters = rows(&mut self.model.adapters.iter().map(|a| a.name.clone()), &snap.adapters, &prev.adapters);
        for (i, (name, figures)) in adapters.into_iter().enumerate() {
            let actv = level(&snap.adapter_active_area, &prev.adapter_active_area, i);
            let qued = level(&snap.adapter_queued_area, &prev.adapter_queued_area, i);
            self.adapter_intervals.push(ObjectIntervalRow { t_s, name, actv, qued, figures });
        }
        let paths = rows(&mut self.model.paths.iter().map(|p| p.name.clone()), &snap.paths, &prev.paths);
        for (name, figures) in paths {
            self.path_intervals.push(ObjectIntervalRow { t_s, name, actv: 0.0, qued: 0.0, figures });
        }
    }
}
