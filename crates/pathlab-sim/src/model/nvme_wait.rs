//! NVMe: how long a namespace's I/O with no usable path keeps waiting for its controllers, and
//! what the host does about an ANA group that stays in the change state. The engine applies
//! them in `sim/nvme_head.rs` and `sim/ana.rs`.
//!
//! - **Linux** (`drivers/nvme/host/multipath.c`): `nvme_ns_head_submit_bio` queues a bio that
//!   finds no usable path while `nvme_available_path` finds a controller live, resetting or
//!   connecting whose `NVME_CTRL_FAILFAST_EXPIRED` is not set, whatever its ANA state; else the
//!   bio fails. A controller the host lost is connecting until `ctrl_loss_tmo` deletes it;
//!   `fast_io_fail_tmo` (`nvme connect --fast_io_fail_tmo`, default off: `NVMF_DEF_FAIL_FAST_TMO`
//!   -1 in `fabrics.h`) sets the flag that long after the controller went from resetting to
//!   connecting (`nvme_start_failfast_work`, `nvme_failfast_work` in `core.c`), and a controller
//!   live again clears it. `delayed_removal_secs` keeps the head queueing past the deletion.
//!   `nvme_read_ana_log` arms the controller's ANATT timer for 2 × ANATT whenever a group is in
//!   the change state ("We also double the ANATT value to provide some slack for transports or
//!   AEN processing overhead"); `nvme_anatt_timeout` then resets the controller
//!   (`nvme_reset_ctrl`), which reads the ANA log again once live, and fails no I/O.
//! - **SPDK** (`module/bdev/nvme/bdev_nvme.c`): an I/O that finds no path is retried every 1 s
//!   while `any_io_path_may_become_available` finds a path whose qpair is connected or whose
//!   controller is not failed; `fast_io_fail_timeout_sec` (default 0: off) fails a controller at
//!   the first failed reconnect attempt at least that long after its reset started
//!   (`bdev_nvme_check_fast_io_fail_timeout`, checked when a reset attempt fails; attempts follow
//!   every `reconnect_delay_sec`), and `bdev_nvme_check_io_error_resiliency_params` refuses it
//!   below `reconnect_delay_sec` or above `ctrlr_loss_timeout_sec`. `_nvme_ns_set_ana_state`
//!   starts an ANATT timer (1 × ANATT) when a namespace enters the change or inaccessible
//!   state; when it runs out the path no longer counts (`ana_transition_timedout`).
//!
//! Not modelled: SPDK's 1 s retry poll (a waiting I/O fails when the rule says, not at the next
//! poll), SPDK's ANATT timer in the inaccessible state, Linux's ANATT timer shared by every
//! namespace of a controller (each path has its own here), the time a reset takes.

use super::stack::Stack;
use crate::engine::TimeNs;
use crate::scenario::error::FieldError;
use crate::scenario::schema::StackSpec;

/// What the ANATT timer does when a group is still in the change state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnattRule {
    /// Linux: after 2 × ANATT the controller is reset (what it held is retried) and, if it
    /// answers, the timer runs again while the group is still changing.
    ResetController,
    /// SPDK: after ANATT the path no longer keeps I/O waiting.
    GiveUpPath,
}

impl AnattRule {
    /// The timer's length for a controller that reports `anatt_ns`.
    pub fn after(self, anatt_ns: TimeNs) -> TimeNs {
        match self {
            AnattRule::ResetController => 2 * anatt_ns,
            AnattRule::GiveUpPath => anatt_ns,
        }
    }
}

/// An NVMe device's wait for its controllers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ControllerWait {
    /// How long after the host fails a controller it stops keeping I/O waiting (its
    /// `fast_io_fail_tmo`, its deletion at `ctrl_loss_tmo` plus the head's delayed removal);
    /// `None`: never.
    pub after_failure_ns: Option<TimeNs>,
    pub anatt: AnattRule,
}

impl ControllerWait {
    /// The rule of `stack` (None but for NVMe stacks), from the resolved reconnect delay and
    /// controller loss timeout (`None`: never) and `[host.stack] fast_io_fail_tmo`.
    pub fn resolve(
        stack: Stack,
        spec: &StackSpec,
        reconnect_ns: TimeNs,
        loss_ns: Option<TimeNs>,
        delayed_removal_ns: TimeNs,
    ) -> Result<Option<ControllerWait>, FieldError> {
        let fast = spec.fast_io_fail_tmo.map(|d| d.0);
        let field = || "host.stack.fast_io_fail_tmo".to_string();
        let after_failure_ns = match stack {
            Stack::LinuxNvme => {
                let removed = loss_ns.map(|l| l.saturating_add(delayed_removal_ns));
                match fast {
                    Some(f) if loss_ns.is_none_or(|l| f < l) => Some(f),
                    _ => removed,
                }
            }
            Stack::Spdk => match fast {
                None => loss_ns,
                Some(0) => {
                    return Err((field(), "0 is SPDK's \"off\" (fast_io_fail_timeout_sec 0): leave it out".into()))
                }
                Some(f) if f < reconnect_ns => {
                    return Err((
                        field(),
                        "below reconnect_delay: SPDK refuses it (bdev_nvme_check_io_error_resiliency_params)".into(),
                    ))
                }
                Some(f) if loss_ns.is_some_and(|l| f > l) => {
                    return Err((
                        field(),
                        "above controller_loss_timeout: SPDK refuses it \
                         (bdev_nvme_check_io_error_resiliency_params)"
                            .into(),
                    ))
                }
                // Checked when a reconnect attempt fails: the first at or after it.
                Some(f) => {
                    let on_grid = f.div_ceil(reconnect_ns) * reconnect_ns;
                    Some(loss_ns.map_or(on_grid, |l| on_grid.min(l)))
                }
            },
            _ => return Ok(None),
        };
        let anatt = if stack == Stack::Spdk { AnattRule::GiveUpPath } else { AnattRule::ResetController };
        Ok(Some(ControllerWait { after_failure_ns, anatt }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::units::DurationNs;

    const S: TimeNs = 1_000_000_000;

    fn fast(seconds: u64) -> StackSpec {
        StackSpec { fast_io_fail_tmo: Some(DurationNs(seconds * S)), ..Default::default() }
    }

    #[test]
    fn linux_fails_at_fast_io_fail_tmo_when_it_comes_before_the_controllers_deletion() {
        let none = ControllerWait::resolve(Stack::LinuxNvme, &StackSpec::default(), 10 * S, Some(600 * S), 30 * S);
        assert_eq!(none.unwrap().unwrap().after_failure_ns, Some(630 * S));
        let wait = ControllerWait::resolve(Stack::LinuxNvme, &fast(20), 10 * S, Some(600 * S), 30 * S);
        assert_eq!(
            wait.unwrap().unwrap(),
            ControllerWait { after_failure_ns: Some(20 * S), anatt: AnattRule::ResetController }
        );
        // Past the deletion it changes nothing (the kernel only warns).
        let late = ControllerWait::resolve(Stack::LinuxNvme, &fast(900), 10 * S, Some(600 * S), 0);
        assert_eq!(late.unwrap().unwrap().after_failure_ns, Some(600 * S));
        assert_eq!(AnattRule::ResetController.after(10 * S), 20 * S);
    }

    #[test]
    fn spdk_fails_at_the_first_reconnect_attempt_past_fast_io_fail_and_refuses_what_spdk_refuses() {
        let wait = ControllerWait::resolve(Stack::Spdk, &fast(25), 10 * S, None, 0).unwrap().unwrap();
        assert_eq!(wait, ControllerWait { after_failure_ns: Some(30 * S), anatt: AnattRule::GiveUpPath });
        assert_eq!(
            ControllerWait::resolve(Stack::Spdk, &StackSpec::default(), 10 * S, None, 0)
                .unwrap()
                .unwrap()
                .after_failure_ns,
            None
        );
        for (spec, loss) in [(fast(0), None), (fast(5), None), (fast(40), Some(30 * S))] {
            let err = ControllerWait::resolve(Stack::Spdk, &spec, 10 * S, loss, 0).unwrap_err();
            assert_eq!(err.0, "host.stack.fast_io_fail_tmo");
        }
        assert_eq!(AnattRule::GiveUpPath.after(10 * S), 10 * S);
        assert_eq!(ControllerWait::resolve(Stack::LinuxDm, &fast(5), 10 * S, None, 0).unwrap(), None);
    }
}
