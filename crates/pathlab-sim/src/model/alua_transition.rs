//! SCSI ALUA's Transitioning state, the SCSI counterpart of NVMe's ANA change state: while an
//! array moves LUNs between its controllers, the target port groups taking them over answer a
//! command with NOT READY, LOGICAL UNIT NOT ACCESSIBLE, ASYMMETRIC ACCESS STATE TRANSITION
//! (sense key 02h, ASC/ASCQ 04h/0Ah; SPC-4). A `controller_reboot` with `ana_change` on a SCSI
//! host puts the partner's groups in that state for `ana_change` before they take the LUNs over.
//! What each stack does with a command that meets it:
//!
//! - **Linux** (dm-multipath over `scsi_dh_alua`): `scsi_io_completion_action` requeues the
//!   command on its path after `ALUA_TRANSITION_REPREP_DELAY` (1000 ms: "reprep the cmd to use
//!   the ALUA handler's transition timeout. Delay the reprep 1 sec to avoid aggressive retries of
//!   the target in that state", `drivers/scsi/scsi_lib.c`), and `alua_prep_fn` lets it go down
//!   again while the group is transitioning (`drivers/scsi/device_handler/scsi_dh_alua.c`; commit
//!   6056a92ceb2a, "scsi_dh_alua: Properly handle the ALUA transitioning state": "the target is
//!   allowed to stay in this state for the implicit transition timeout without a path failure").
//!   The handler gives the group `transition_tmo`, the IMPLICIT TRANSITION TIME of REPORT TARGET
//!   PORT GROUPS' extended header where the array reports one, else `ALUA_FAILOVER_TIMEOUT` (60
//!   s); past it "Transitioning time exceeded, set port to standby" (`alua_rtpg`), the prep
//!   function fails what goes down the path, and dm-multipath fails the path: its I/O goes to
//!   another path, or to `no_path_retry`. The timeout is counted here from the transition's
//!   start (the handler starts it at its first RTPG after the first 04h/0Ah, within a
//!   `round_jiffies_up` second); multipathd's checker is assumed not to take a failed path back
//!   while it transitions (its TEST UNIT READY meets the same sense), and takes it back at its
//!   next check after the transition ends.
//! - **ESXi** (NMP, `VMW_SATP_ALUA`): a command that ends in an error the SATP may retry is
//!   retried and the path stays on ("the path remains in an on state even after the I/O is
//!   retried indefinitely", `action_OnRetryErrors=off`, the default: Broadcom KB 310442, "ALUA
//!   parameters in ESXi Server"). The retry interval is not published: modelled as held on the
//!   path until the transition ends, then sent again.
//!
//! Windows msdsm, HPP and PowerPath are refused: no source found says what they do.

use crate::engine::TimeNs;
use pathlab_policy::{HostStack, PolicyConfig};

const S: TimeNs = 1_000_000_000;
/// `drivers/scsi/device_handler/scsi_dh_alua.c` `ALUA_FAILOVER_TIMEOUT`: the transition time
/// where the array reports none.
pub const ALUA_FAILOVER_TIMEOUT_NS: TimeNs = 60 * S;
/// `drivers/scsi/scsi_lib.c` `ALUA_TRANSITION_REPREP_DELAY` (1000 ms).
pub const ALUA_TRANSITION_REPREP_DELAY_NS: TimeNs = S;

/// What a SCSI host does with a command its path's group refuses as transitioning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransitionRule {
    /// Linux: sent again down the path `delay_ns` after the refusal comes back; the path is
    /// failed `timeout_ns` after the transition began if it still goes on.
    Requeue { delay_ns: TimeNs, timeout_ns: TimeNs },
    /// ESXi NMP: held on the path until the transition ends.
    Held,
}

impl TransitionRule {
    /// The rule of a device's stack; `implicit_ns` is the array's IMPLICIT TRANSITION TIME where
    /// it reports one. `Err` names why the stack is not modelled.
    pub fn of(policy: &PolicyConfig, implicit_ns: Option<TimeNs>) -> Result<Self, &'static str> {
        match (policy.host_stack(), policy) {
            (HostStack::LinuxDm, _) => Ok(TransitionRule::Requeue {
                delay_ns: ALUA_TRANSITION_REPREP_DELAY_NS,
                timeout_ns: implicit_ns.filter(|&t| t > 0).unwrap_or(ALUA_FAILOVER_TIMEOUT_NS),
            }),
            (HostStack::Esxi, PolicyConfig::Hpp(_) | PolicyConfig::PowerPath(_)) => {
                Err("HPP and PowerPath: no source found says how they handle a transitioning group")
            }
            (HostStack::Esxi, _) => Ok(TransitionRule::Held),
            (HostStack::Windows, _) => Err("Windows msdsm: no source found says how it handles a transitioning group"),
            (HostStack::LinuxNvme | HostStack::Spdk, _) => Err("an NVMe stack has the ANA change state instead"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_waits_the_arrays_implicit_transition_time_else_sixty_seconds() {
        let dm = PolicyConfig::DmMultipath(Default::default());
        let rule = |t| TransitionRule::of(&dm, t).unwrap();
        assert_eq!(rule(None), TransitionRule::Requeue { delay_ns: S, timeout_ns: 60 * S });
        assert_eq!(rule(Some(0)), TransitionRule::Requeue { delay_ns: S, timeout_ns: 60 * S });
        assert_eq!(rule(Some(8 * S)), TransitionRule::Requeue { delay_ns: S, timeout_ns: 8 * S });
        assert_eq!(
            TransitionRule::of(&PolicyConfig::Mpio(Default::default()), None).map(|_| ()).unwrap_err(),
            "Windows msdsm: no source found says how it handles a transitioning group"
        );
    }
}
