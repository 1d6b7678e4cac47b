//! Linux NVMe's keep-alive as the kernel runs it, with and without traffic-based keep-alive
//! (TBKAS, a controller attribute: Identify Controller CTRATT bit 6), and when it finds a
//! controller that stopped answering.
//!
//! The kernel (torvalds/linux `drivers/nvme/host/core.c`, as of 6.4 and later):
//! - `nvme_keep_alive_work` runs every `nvme_keep_alive_work_period`: KATO/2, halved again to
//!   KATO/4 when the controller advertises TBKAS (commit ea4d453b9ec9 "nvme: double KA polling
//!   frequency to avoid KATO with TBKAS on", 6.4, in 6.1.y and 6.3.y too). Before it the TBKAS
//!   grid was KATO/2, and before the "Recommended frequency for KATO commands per NVMe 1.4
//!   section 7.12.1" comment the work ran every KATO, TBKAS or not (`queue_delayed_work(nvme_wq,
//!   &ctrl->ka_work, ctrl->kato * HZ)` in both `nvme_keep_alive_end_io` and the TBKAS branch of
//!   `nvme_keep_alive_work` in James Smart's "nvme: prevent warning triggered by
//!   nvme_stop_keep_alive", linux-nvme, 2020-02-10): such kernels find a silent controller
//!   later (up to 2 × KATO, 3 × with TBKAS). The engine runs 6.4's.
//! - Each run sets `ka_last_check_time`; with TBKAS, if `comp_seen` it sends nothing, clears the
//!   flag and runs again a period later (`nvme_queue_keep_alive_work`: from
//!   `ka_last_check_time`, so the grid holds). Otherwise it sends a Keep Alive whose timeout is
//!   KATO (`rq->timeout = ctrl->kato * HZ`); `nvme_keep_alive_end_io` schedules the next run a
//!   period after the send (the round trip subtracted, commit c7275ce6a5fd "nvme: improve
//!   handling of long keep alives", 6.4). An unanswered one times out KATO after it was sent and
//!   the transport's error recovery fails the controller: its I/O goes to another path.
//! - `nvme_complete_rq` sets `comp_seen` only for a command started at or after
//!   `ka_last_check_time` (commit 774a96365147 "nvme: check IO start time when deciding to defer
//!   KA", 6.4): a completion of an older command defers nothing.
//!
//! So a controller silent from `lost`: without TBKAS the first run at or after `lost` sends a
//! keep-alive, found KATO later (`Probe::finds_at`, the grid from time zero). With TBKAS the
//! first run at or after `lost` sends nothing if the controller completed, before `lost`, a
//! command sent since the run before it; the next run then sends it (no completion comes after
//! `lost`). The engine counts completions per host-controller connection (a path's `nexus`,
//! shared by every namespace's path over it), as `comp_seen` is the controller's.
//!
//! The target side: a controller with TBKAS checks for commands at the end of each KATO
//! interval and restarts its timer if it fetched any in it, so a command fetched just after a
//! check keeps it alive until the check after the next: up to 2 × KATO past the last command
//! (NVMe Base 2.1, "Keep Alive Timer", traffic based, Figure 90), where command-based keep-alive
//! expires KATO after the last Keep Alive. Linux's target does exactly that
//! (`drivers/nvme/target/core.c` `nvmet_keep_alive_timer`: rescheduled a whole KATO later when
//! `reset_tbkas`, a command seen since it last ran). So the window in which a lost controller
//! may still execute a write (`StackRules::target_quiesce_ns`, which the hazard count reads) is
//! one KATO longer there (`Model::target_quiesce_ns`). TP4129's hold is 3 × KATO + CQT under
//! TBKAS, 2 × without: the multiple is the controller's, not the host's choice (TP4129, as
//! Linux's implementation reads it: `nvmef_req_hold_timeout_ms`, "3 x KATO for traffic based
//! keepalive and 2 * KATO for command based keepalive", Mohamed Khalfella, "[RFC PATCH v1 2/7]
//! nvmef: Add nvmef_req_hold_timeout_ms() to calculate kato request hold time", linux-nvme,
//! 2025-03-24). So a host setting `tp4129_hold = 2` towards a controller that advertises TBKAS,
//! or `3` towards one that does not (or is not said to: the engine then runs command-based
//! keep-alive), is refused (`Model::check_keep_alive`).

use super::stack::{Stack, TP4129_KATO_MULTIPLES};
use super::Model;
use crate::engine::TimeNs;
use crate::scenario::error::FieldError;
use crate::scenario::schema::ScenarioSpec;

/// How often `nvme_keep_alive_work` runs: KATO/2, or KATO/4 under TBKAS
/// (`nvme_keep_alive_work_period`).
pub fn period_ns(kato_ns: TimeNs, traffic_based: bool) -> TimeNs {
    let half = kato_ns / 2;
    if traffic_based {
        half / 2
    } else {
        half
    }
}

/// When the keep-alive of a controller silent from `lost_ns` times out. `last_sent_ns`: the
/// latest send time of a command the controller completed before `lost_ns` (None: none), read
/// only under TBKAS.
pub fn found_at(kato_ns: TimeNs, traffic_based: bool, lost_ns: TimeNs, last_sent_ns: Option<TimeNs>) -> TimeNs {
    let period = period_ns(kato_ns, traffic_based);
    let first_run = lost_ns.div_ceil(period) * period;
    // `comp_seen` at that run: a completion of a command sent at or after the run before it.
    let deferred = traffic_based && last_sent_ns.is_some_and(|sent| sent >= first_run.saturating_sub(period));
    first_run + if deferred { period } else { 0 } + kato_ns
}

/// How long after the loss a silent controller is found, at the earliest and at the latest over
/// where the loss falls on the grid, under steady I/O (`traffic`: a command sent and completed
/// in every period) or none: what `stall_rule.py` predicts from (exposed to Python).
pub fn detection_range_ns(kato_ns: TimeNs, traffic_based: bool, traffic: bool) -> (TimeNs, TimeNs) {
    let period = period_ns(kato_ns, traffic_based);
    // A loss at a run, and one just after a run; steady I/O completed a command sent just before.
    let on_run = period;
    let after_run = period + 1;
    let sent = |lost: TimeNs| traffic.then(|| lost - 1);
    let earliest = found_at(kato_ns, traffic_based, on_run, sent(on_run)) - on_run;
    let latest = found_at(kato_ns, traffic_based, after_run, sent(after_run)) - after_run + 1;
    (earliest, latest)
}

impl Model {
    /// Whether path `p` runs Linux's traffic-based keep-alive: a Linux NVMe device (whose only
    /// probe, `StackRules::probes[0]`, is its keep-alive) towards a controller that advertises
    /// TBKAS.
    pub fn traffic_based_keep_alive(&self, p: usize) -> bool {
        self.devices[self.paths[p].device].stack.stack == Stack::LinuxNvme && self.advertises_tbkas(p)
    }

    /// Whether the controller path `p` reaches advertises TBKAS (the array's or its own setting).
    fn advertises_tbkas(&self, p: usize) -> bool {
        self.controllers[self.ports[self.paths[p].port].controller].traffic_based_keep_alive == Some(true)
    }

    /// How long after path `p`'s loss its controller may still execute a command it received
    /// (`StackRules::target_quiesce_ns`), one KATO longer where it advertises TBKAS.
    pub fn target_quiesce_ns(&self, p: usize) -> Option<TimeNs> {
        let rules = &self.devices[self.paths[p].device].stack;
        match (rules.target_quiesce_ns, rules.kato_ns) {
            (Some(quiesce), Some(kato)) if self.advertises_tbkas(p) => Some(quiesce.saturating_add(kato)),
            (quiesce, _) => quiesce,
        }
    }

    /// Refuses a `traffic_based_keep_alive` no NVMe device's path reads (it would do nothing),
    /// and a TP4129 hold whose multiple is not the one of a controller an NVMe host's paths
    /// reach: 2 × KATO towards one that advertises TBKAS (TP4129 holds 3 × there), 3 × towards
    /// one that does not (2 ×). `host_fields`: each host's table.
    pub fn check_keep_alive(&self, spec: &ScenarioSpec, host_fields: &[String]) -> Result<(), FieldError> {
        let nvme = |s: Stack| matches!(s, Stack::LinuxNvme | Stack::Spdk);
        let reached = |c: usize| {
            self.paths.iter().any(|p| self.ports[p.port].controller == c && nvme(self.devices[p.device].stack.stack))
        };
        let unread = |field: String| -> FieldError {
            (
                field,
                "read by NVMe hosts (policy nvme or spdk) only; no NVMe device's path reaches it: it would do nothing"
                    .into(),
            )
        };
        let mut first = 0;
        for (ai, a) in spec.arrays.iter().enumerate() {
            let field = format!("arrays.{ai}.traffic_based_keep_alive");
            let controllers = first..first + a.controllers.len().max(1);
            if a.traffic_based_keep_alive.is_some() && !controllers.clone().any(reached) {
                return Err(unread(field));
            }
            for (ci, c) in controllers.clone().enumerate() {
                let own = a.controllers.get(ci).and_then(|cs| cs.traffic_based_keep_alive);
                let field = match own {
                    Some(_) => format!("arrays.{ai}.controllers.{ci}.traffic_based_keep_alive"),
                    None => field.clone(),
                };
                if own.is_some() && !reached(c) {
                    return Err(unread(field));
                }
                let tbkas = self.controllers[c].traffic_based_keep_alive == Some(true);
                let [command_based, traffic_based] = TP4129_KATO_MULTIPLES;
                let wanted = if tbkas { traffic_based } else { command_based };
                let nvme_paths = self
                    .paths
                    .iter()
                    .filter(|p| self.ports[p.port].controller == c && nvme(self.devices[p.device].stack.stack));
                for p in nvme_paths {
                    let host = self.devices[p.device].host;
                    if let Some(k) = spec_host_hold(spec, host).filter(|&k| k != wanted) {
                        let (said, given) = match (tbkas, own.or(a.traffic_based_keep_alive)) {
                            (true, _) => ("advertises", field.clone()),
                            (false, Some(_)) => ("does not advertise", field.clone()),
                            (false, None) => ("is not said to advertise", format!("{field} not given")),
                        };
                        return Err((
                            format!("{}.stack.tp4129_hold", host_fields[host]),
                            format!(
                                "{k}: controller {} of array \"{}\" {said} traffic-based keep-alive ({given}): \
                                 TP4129 holds {wanted} × KATO + CQT there",
                                self.controllers[c].name, a.name
                            ),
                        ));
                    }
                }
            }
            first = controllers.end;
        }
        Ok(())
    }
}

/// The TP4129 multiple host `host` (in `every_host` order) sets.
fn spec_host_hold(spec: &ScenarioSpec, host: usize) -> Option<u32> {
    spec.every_host().get(host).and_then(|(_, h)| h.stack.tp4129_hold)
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: TimeNs = 1_000_000_000;

    #[test]
    fn the_grid_is_kato_over_two_or_over_four_with_tbkas() {
        assert_eq!(period_ns(5 * S, false), 2_500_000_000);
        assert_eq!(period_ns(5 * S, true), 1_250_000_000);
    }

    #[test]
    fn a_completion_since_the_last_run_defers_the_keep_alive_one_period() {
        // KATO 5 s, TBKAS: runs every 1.25 s. Lost at 10.3 s: the run at 11.25 s saw a
        // completion of a command sent at 10.2 s (after the run at 10 s): it sends nothing; the
        // run at 12.5 s sends, unanswered until 17.5 s.
        let lost = 10_300_000_000;
        assert_eq!(found_at(5 * S, true, lost, Some(10_200_000_000)), 17_500_000_000);
        // The command was sent at 9.9 s, before the run at 10 s: no deferral.
        assert_eq!(found_at(5 * S, true, lost, Some(9_900_000_000)), 16_250_000_000);
        assert_eq!(found_at(5 * S, true, lost, None), 16_250_000_000);
        // Without TBKAS the run at 12.5 s sends whatever completed.
        assert_eq!(found_at(5 * S, false, lost, Some(10_200_000_000)), 17_500_000_000);
    }

    #[test]
    fn detection_after_the_loss_spans_one_period() {
        assert_eq!(detection_range_ns(4 * S, false, true), (4 * S, 6 * S));
        assert_eq!(detection_range_ns(4 * S, true, true), (5 * S, 6 * S));
        assert_eq!(detection_range_ns(4 * S, true, false), (4 * S, 5 * S));
    }
}
