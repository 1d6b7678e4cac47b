//! Interval figures: a snapshot of the recorder at every interval boundary, turned into rows
//! for the run, each device, adapter and path.

use super::Simulation;
use crate::engine::TimeNs;
use crate::model::names_per_host::{adapters_written, written_where_shared};
use crate::model::Model;
use crate::observe::result::{IntervalRow, ObjectIntervalRow};
use crate::observe::window::{ObjectWindow, Window};
use crate::observe::Snapshot;
use std::cell::OnceCell;

/// The names interval rows give devices, adapters and paths, and events their device: alone, or
/// `HOST/NAME` when another host has the name (every ESXi host has a `vmhba1`, and so a
/// `vmhba1:C0:T0:L1`; hosts sharing a LUN each have its NAA), as a scenario writes it.
pub(super) struct RowNames {
    devices: OnceCell<Vec<String>>,
    adapters: OnceCell<Vec<String>>,
    paths: OnceCell<Vec<String>>,
}

/// Written when first asked for: a run that makes no row of a kind writes none of its names (a
/// cluster's ranking run makes no path row, and 32 hosts × 500 devices × 8 paths have 128,000
/// paths whose names took a tenth of a second to write each run).
impl RowNames {
    pub(super) fn new() -> Self {
        RowNames { devices: OnceCell::new(), adapters: OnceCell::new(), paths: OnceCell::new() }
    }

    pub(super) fn devices(&self, m: &Model) -> &[String] {
        self.devices.get_or_init(|| written_where_shared(m.devices.iter().map(|d| (&*d.name, d.host)), &m.host_names))
    }

    fn adapters(&self, m: &Model) -> &[String] {
        self.adapters.get_or_init(|| adapters_written(&m.adapters, &m.host_names))
    }

    fn paths(&self, m: &Model) -> &[String] {
        self.paths.get_or_init(|| {
            written_where_shared(m.paths.iter().map(|p| (&*p.name, m.adapters[p.adapter()].host)), &m.host_names)
        })
    }
}

impl Simulation {
    /// The same simulation building no interval rows per path (`RunPlan::path_intervals`): set
    /// before it runs, as it takes the simulation by value.
    pub fn without_path_intervals(mut self) -> Self {
        self.plan.path_intervals = false;
        self
    }

    /// The counters an interval's sample needs: without the paths' when no path row is built.
    /// The stations' busy areas are taken as they stand: no interval row reads them (only the
    /// warm-up's and the end's snapshots do, `result.rs`), so the services still to come at a
    /// station that never makes work wait (`never_wait.rs`) are not taken off here.
    fn sample_snapshot(&self) -> Snapshot {
        match self.plan.path_intervals {
            true => self.rec.snapshot(&self.model, self.events.now()),
            false => self.rec.snapshot_without_paths(&self.model, self.events.now()),
        }
    }

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

    /// Each device's paths in use now, on a run with faults (`observe::recovery`).
    pub(super) fn see_paths_in_use(&mut self) {
        let Some(seen) = self.paths_in_use.as_mut() else { return };
        let now = self.events.now();
        for (d, device) in self.model.devices.iter().enumerate() {
            seen.see(now, d, device.policy.working_paths().into_iter().map(|p| p.0).collect());
        }
    }

    pub(super) fn sample(&mut self) {
        self.see_paths_in_use();
        let snap = self.sample_snapshot();
        let prev = std::mem::replace(&mut self.last_sample, snap);
        let window = Window::new(&prev, &self.last_sample);
        let t_s = self.last_sample.time as f64 / 1e9;
        let g = window.guest();
        self.intervals.push(IntervalRow {
            t_s,
            measured: prev.time >= self.plan.warmup_ns,
            figures: window.guest_figures(self.rec.take_interval_max_ns()),
            errors: g.io.errors,
            retries: g.io.retries,
            failovers: g.io.failovers,
            failed: g.failed,
        });
        let m = &self.model;
        for i in 0..m.devices.len() {
            let ObjectWindow { actv, qued, figures } = window.device(i);
            let name = self.row_names.devices(m)[i].clone();
            self.device_intervals.push(ObjectIntervalRow { t_s, name, actv, qued, figures });
        }
        for i in 0..m.adapters.len() {
            let ObjectWindow { actv, qued, figures } = window.adapter(i);
            let name = self.row_names.adapters(m)[i].clone();
            self.adapter_intervals.push(ObjectIntervalRow { t_s, name, actv, qued, figures });
        }
        if !self.plan.path_intervals {
            return;
        }
        for i in 0..m.paths.len() {
            let figures = window.path(i);
            let name = self.row_names.paths(m)[i].clone();
            self.path_intervals.push(ObjectIntervalRow { t_s, name, actv: 0.0, qued: 0.0, figures });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::run;

    /// Without path intervals the samples build no row per path (rather than the result dropping
    /// them at the end) and copy no path's counters, and every other row and figure is the same
    /// (the paths' figures of the window from its own snapshots).
    #[test]
    fn without_path_intervals_no_path_row_is_built() {
        let text = include_str!("../../../../scenarios/bench-minimal.toml");
        let short = [("run.warmup".to_string(), "100ms".into()), ("run.interval".to_string(), "50ms".into())];
        let s = run::load(text, "bench-minimal.toml", None, &short, None).unwrap();
        let end = s.spec.run.warmup.0 + 200_000_000;
        let mut with = run::simulation(&s).unwrap();
        let mut without = run::simulation(&s).unwrap().without_path_intervals();
        with.run_until(end);
        without.run_until(end);
        assert_eq!(with.path_intervals.len(), 6 * 8, "six samples of eight paths");
        assert!(without.path_intervals.is_empty());
        let rows = |s: &super::Simulation| {
            serde_json::to_string(&(&s.intervals, &s.device_intervals, &s.adapter_intervals)).unwrap()
        };
        assert_eq!(rows(&with), rows(&without));
        assert!(without.last_sample.paths.is_empty());
        let mut with = with.finish().unwrap();
        with.path_intervals.clear();
        let json = |r| serde_json::to_string(&r).unwrap();
        assert_eq!(json(with), json(without.finish().unwrap()));
    }
}
