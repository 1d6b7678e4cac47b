//! multipathd's shaky-path detection: a path that keeps failing and coming back is not put back
//! in use at once. Two methods (multipath.conf(5), "Shaky paths detection"):
//!
//! - `san_path_err` (opensvc/multipath-tools `multipathd/main.c` `check_path_reinstate_state`):
//!   each time the checker finds a failed path good again it counts a failure; every
//!   `san_path_err_forget_rate` checks that find the path up forget one; once the count
//!   exceeds `san_path_err_threshold` the path is not reinstated until
//!   `san_path_err_recovery_time` seconds have passed since it last failed (strictly more), or
//!   at once when the map has no other active path.
//! - `marginal_path` (`libmultipath/io_err_stat.c`): a path failed twice within
//!   `marginal_path_double_failed_time` seconds is held, and once it looks good, probed with
//!   direct reads for `marginal_path_err_sample_time` seconds; an error rate (per mille) above
//!   `marginal_path_err_rate_threshold` holds it `marginal_path_err_recheck_gap_time` more,
//!   then it is probed again; at or below it, it is reinstated. No other active path: at once.
//!
//! A held path stays failed (`PATH_DELAYED`), or with `marginal_pathgroups` on it is put back
//! in a marginal group of its own until the hold ends. The harness calls [`ShakyPath::failed`]
//! when the path fails and [`ShakyPath::check`] at each checker tick that finds it good, and
//! says what the probes would see. What is ours: checks fall on the checker's fixed grid
//! (multipathd lengthens the interval of a stable path up to `max_polling_interval`, and
//! rechecks a probed path within a second); the probes' error rate is the path's expected
//! error rate when the sample ends, not a count of simulated reads (10 reads a second for at
//! least 120 s).

use crate::TimeNs;

/// The method in force and its settings (seconds as nanoseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShakyCheck {
    SanPathErr { threshold: u64, forget_rate: u64, recovery_ns: TimeNs },
    MarginalPath { double_failed_ns: TimeNs, sample_ns: TimeNs, rate_threshold_permille: u64, recheck_gap_ns: TimeNs },
}

/// What the checker does with a path it finds good.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Reinstate,
    Hold,
}

/// `io_err_stat`'s failure count, or where its probing stands.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Probe {
    /// Failures counted since `since` (0 or 1).
    #[default]
    Idle,
    Counting {
        since: TimeNs,
    },
    /// Held: probe when the path looks good, no earlier than `after`.
    Waiting {
        after: TimeNs,
    },
    /// Probing until `until`.
    Probing {
        until: TimeNs,
    },
}

/// One path's shaky-path state.
#[derive(Clone, Copy, Debug, Default)]
pub struct ShakyPath {
    /// san_path_err: failures counted, checks left before one is forgotten, and since when the
    /// path is held (`dis_reinstate_time`).
    failures: u64,
    forget: u64,
    held_since: Option<TimeNs>,
    /// The path failed since the last check (its checker state was down, not delayed).
    down: bool,
    /// Reinstated at this time: the checks after it, until it fails, found it up.
    up_since: Option<TimeNs>,
    probe: Probe,
}

impl ShakyPath {
    /// The kernel or the checker failed the path at `now_ns`; checks run every `interval_ns`.
    pub fn failed(&mut self, check: &ShakyCheck, now_ns: TimeNs, interval_ns: TimeNs) {
        self.down = true;
        match *check {
            ShakyCheck::SanPathErr { forget_rate, .. } => {
                if let (Some(since), None) = (self.up_since.take(), self.held_since) {
                    // The checks strictly between the reinstatement and this failure.
                    let ticks = now_ns.div_ceil(interval_ns).saturating_sub(since / interval_ns + 1);
                    for _ in 0..ticks {
                        if self.failures == 0 {
                            break;
                        }
                        if self.forget > 0 {
                            self.forget -= 1;
                        } else {
                            self.failures -= 1;
                            self.forget = forget_rate;
                        }
                    }
                }
            }
            ShakyCheck::MarginalPath { double_failed_ns, .. } => {
                self.probe = match self.probe {
                    Probe::Idle => Probe::Counting { since: now_ns },
                    Probe::Counting { since } if now_ns - since > double_failed_ns => Probe::Counting { since: now_ns },
                    // The second failure within the time: hold, probe as soon as it looks good.
                    Probe::Counting { .. } => Probe::Waiting { after: 0 },
                    held => held,
                };
            }
        }
    }

    /// The checker finds the path good at `now_ns` (failed, held, or in the marginal group);
    /// `active_paths` is how many other paths of the map are in use; `probe_error_permille` is
    /// what the probes would see now.
    pub fn check(
        &mut self,
        check: &ShakyCheck,
        now_ns: TimeNs,
        active_paths: usize,
        probe_error_permille: f64,
    ) -> Verdict {
        let verdict = match *check {
            ShakyCheck::SanPathErr { threshold, forget_rate, recovery_ns } => {
                self.san_path_err(now_ns, active_paths, threshold, forget_rate, recovery_ns)
            }
            ShakyCheck::MarginalPath { sample_ns, rate_threshold_permille, recheck_gap_ns, .. } => self.marginal_path(
                now_ns,
                active_paths,
                sample_ns,
                rate_threshold_permille,
                recheck_gap_ns,
                probe_error_permille,
            ),
        };
        self.down = false;
        self.up_since = (verdict == Verdict::Reinstate).then_some(now_ns);
        verdict
    }

    fn san_path_err(
        &mut self,
        now_ns: TimeNs,
        active_paths: usize,
        threshold: u64,
        forget_rate: u64,
        recovery_ns: TimeNs,
    ) -> Verdict {
        if let Some(since) = self.held_since {
            if active_paths == 0 {
                return self.reset();
            }
            // Failed again while held: the recovery time starts over.
            let since = if self.down { now_ns } else { since };
            self.held_since = Some(since);
            return if now_ns - since > recovery_ns { self.reset() } else { Verdict::Hold };
        }
        if !self.down {
            return Verdict::Reinstate;
        }
        if self.failures == 0 {
            self.forget = forget_rate;
        }
        self.failures += 1;
        if self.failures > threshold {
            self.held_since = Some(now_ns);
            Verdict::Hold
        } else {
            Verdict::Reinstate
        }
    }

    fn reset(&mut self) -> Verdict {
        (self.failures, self.forget, self.held_since) = (0, 0, None);
        self.probe = Probe::Idle;
        Verdict::Reinstate
    }

    fn marginal_path(
        &mut self,
        now_ns: TimeNs,
        active_paths: usize,
        sample_ns: TimeNs,
        threshold_permille: u64,
        recheck_gap_ns: TimeNs,
        error_permille: f64,
    ) -> Verdict {
        if let Probe::Probing { until } = self.probe {
            if now_ns < until {
                return Verdict::Hold;
            }
            // `end_io_err_stat`: good enough, or held for the gap; no other path: recover.
            if error_permille <= threshold_permille as f64 || active_paths == 0 {
                return self.reset();
            }
            self.probe = Probe::Waiting { after: until + recheck_gap_ns };
        }
        match self.probe {
            Probe::Idle | Probe::Counting { .. } => Verdict::Reinstate,
            _ if active_paths == 0 => self.reset(),
            Probe::Waiting { after } if now_ns > after || after == 0 => {
                self.probe = Probe::Probing { until: now_ns + sample_ns };
                Verdict::Hold
            }
            Probe::Waiting { .. } | Probe::Probing { .. } => Verdict::Hold,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: TimeNs = 1_000_000_000;

    #[test]
    fn san_path_err_holds_a_path_past_its_threshold_for_the_recovery_time() {
        let check = ShakyCheck::SanPathErr { threshold: 1, forget_rate: 5, recovery_ns: 12 * S };
        let mut p = ShakyPath::default();
        // Fails at 1 s, good at the 5 s check: one failure, not above 1.
        p.failed(&check, S, 5 * S);
        assert_eq!(p.check(&check, 5 * S, 1, 0.0), Verdict::Reinstate);
        // Fails again at once, good at 10 s: two failures, held from 10 s.
        p.failed(&check, 5 * S + 1, 5 * S);
        assert_eq!(p.check(&check, 10 * S, 1, 0.0), Verdict::Hold);
        // Held while 12 s have not passed: 15 s (5), 20 s (10); 25 s (15 > 12) reinstates.
        assert_eq!(p.check(&check, 15 * S, 1, 0.0), Verdict::Hold);
        assert_eq!(p.check(&check, 20 * S, 1, 0.0), Verdict::Hold);
        assert_eq!(p.check(&check, 25 * S, 1, 0.0), Verdict::Reinstate);
        // The count starts over: the next failure is the first.
        p.failed(&check, 26 * S, 5 * S);
        assert_eq!(p.check(&check, 30 * S, 1, 0.0), Verdict::Reinstate);
    }

    #[test]
    fn san_path_err_forgets_one_failure_every_forget_rate_good_checks() {
        let check = ShakyCheck::SanPathErr { threshold: 1, forget_rate: 2, recovery_ns: 60 * S };
        let mut p = ShakyPath::default();
        p.failed(&check, S, 5 * S);
        assert_eq!(p.check(&check, 5 * S, 1, 0.0), Verdict::Reinstate);
        // Up through the checks at 10, 15 and 20 s: the countdown of 2 runs out at the third,
        // which forgets the failure; the next failure is the first again.
        p.failed(&check, 21 * S, 5 * S);
        assert_eq!(p.check(&check, 25 * S, 1, 0.0), Verdict::Reinstate);
        // Up only through 30 and 35 s: the countdown (2) is not spent, so the failure stays.
        p.failed(&check, 36 * S, 5 * S);
        assert_eq!(p.check(&check, 40 * S, 1, 0.0), Verdict::Hold);
    }

    #[test]
    fn a_held_path_comes_back_at_once_when_it_is_the_last_one() {
        let check = ShakyCheck::SanPathErr { threshold: 1, forget_rate: 5, recovery_ns: 60 * S };
        let mut p = ShakyPath::default();
        for t in [S, 6 * S] {
            p.failed(&check, t, 5 * S);
            p.check(&check, t + 4 * S, 1, 0.0);
        }
        assert_eq!(p.check(&check, 15 * S, 1, 0.0), Verdict::Hold);
        assert_eq!(p.check(&check, 20 * S, 0, 0.0), Verdict::Reinstate);
    }

    #[test]
    fn marginal_path_probes_a_twice_failed_path_and_rechecks_after_the_gap() {
        let check = ShakyCheck::MarginalPath {
            double_failed_ns: 60 * S,
            sample_ns: 120 * S,
            rate_threshold_permille: 10,
            recheck_gap_ns: 300 * S,
        };
        let mut p = ShakyPath::default();
        // One failure: reinstated as usual; failures more than 60 s apart start the count over.
        p.failed(&check, S, 5 * S);
        assert_eq!(p.check(&check, 5 * S, 1, 200.0), Verdict::Reinstate);
        p.failed(&check, 70 * S, 5 * S);
        assert_eq!(p.check(&check, 75 * S, 1, 200.0), Verdict::Reinstate);
        // The second within 60 s: held, probed from the next good check for 120 s.
        p.failed(&check, 80 * S, 5 * S);
        assert_eq!(p.check(&check, 85 * S, 1, 200.0), Verdict::Hold);
        assert_eq!(p.check(&check, 200 * S, 1, 200.0), Verdict::Hold);
        // 200 per mille > 10 at 205 s: held until 505 s, then probed again to 630 s.
        assert_eq!(p.check(&check, 205 * S, 1, 200.0), Verdict::Hold);
        assert_eq!(p.check(&check, 505 * S, 1, 0.0), Verdict::Hold);
        assert_eq!(p.check(&check, 510 * S, 1, 0.0), Verdict::Hold);
        assert_eq!(p.check(&check, 630 * S, 1, 0.0), Verdict::Reinstate);
    }
}
