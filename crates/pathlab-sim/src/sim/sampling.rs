//! Interval figures: a snapshot of the recorder at every interval boundary, turned into rows
//! for the run, each device, adapter and path.

use super::Simulation;
use crate::engine::TimeNs;
use crate::observe::result::{IntervalRow, ObjectIntervalRow};
use crate::observe::window::{ObjectWindow, Window};

impl Simulation {
    /// The same simulation building no interval rows per path (`RunPlan::path_intervals`): set
    /// before it runs, as it takes the simulation by value.
    pub fn without_path_intervals(mut self) -> Self {
        self.plan.path_intervals = false;
        self
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

    pub(super) fn sample(&mut self) {
        let snap = self.rec.snapshot(&self.model, self.events.now());
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
        for (i, d) in m.devices.iter().enumerate() {
            let ObjectWindow { actv, qued, figures } = window.device(i);
            self.device_intervals.push(ObjectIntervalRow { t_s, name: d.name.clone(), actv, qued, figures });
        }
        for (i, a) in m.adapters.iter().enumerate() {
            let ObjectWindow { actv, qued, figures } = window.adapter(i);
            self.adapter_intervals.push(ObjectIntervalRow { t_s, name: a.name.clone(), actv, qued, figures });
        }
        if !self.plan.path_intervals {
            return;
        }
        for (i, p) in m.paths.iter().enumerate() {
            let figures = window.path(i);
            self.path_intervals.push(ObjectIntervalRow { t_s, name: p.name.clone(), actv: 0.0, qued: 0.0, figures });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::run;

    /// Without path intervals the samples build no row per path (rather than the result dropping
    /// them at the end), and every other row is the same.
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
    }
}
