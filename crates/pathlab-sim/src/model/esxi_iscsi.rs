//! ESXi's software iSCSI session timers, set per adapter as `esxcli iscsi adapter param set`
//! does, and how they find a lost path: the NOP-Out ping finds a connection that stopped
//! answering, the session holds its I/O `RecoveryTimeout` while it tries to log in again, and
//! then its paths are dead and NMP's PSP retries the I/O on another path (`Found::Fail`).
//!
//! VMware's words for each timer [vSphere 8.0 Storage, "Configuring Advanced Parameters for
//! iSCSI" (GUID-7FCA31F2-FA13-4BFD-8057-5A36DC3FBC14)]: No-Op Interval, "the time interval
//! between NOP-Out requests sent from your iSCSI initiator to an iSCSI target"; No-Op Timeout,
//! "the amount of time that can lapse before your host receives a NOP-In message"; Recovery
//! Timeout, "the amount of time that can lapse while a session recovery is performed". The
//! defaults and the ranges `esxcli` accepts are those ESXi's iSCSI host-profile plugin checks
//! (`ISCSI_DEFAULT_NOOPOUTINTERVAL 15`, `ISCSI_MIN_… 1`, `ISCSI_MAX_… 60`; NOOPOUTTIMEOUT 10,
//! 10, 30; RECOVERYTIMEOUT 10, 1, 120), and `esxcli iscsi adapter param get` prints the same in
//! its Default, Min and Max columns (`NoopOutInterval 15 15 1 60`, `NoopOutTimeout 10 10 10 30`,
//! `RecoveryTimeout 10 10 1 120` on an ESXi 5.0 software adapter, quoted in
//! elatov/elatov.github.io, "VCAP5-DCA Objective 6.4 – Troubleshoot Storage Performance and
//! Connectivity", 2013-01).
//!
//! A NOP-Out is sent on a grid from time zero (VMware documents a fixed interval, unlike
//! open-iscsi, which pings only after that long without receiving anything). A link the host
//! sees go (the vmknic's uplink down) ends the connection at once: the session holds its I/O
//! `RecoveryTimeout` the same way. Commands sent before the NOP-Out finds the loss still time out
//! at the stack's I/O timeout (30 s) if that comes first; once the session is recovering they
//! wait for the recovery's end.

use super::stack::{Found, Probe, Stack};
use super::Model;
use crate::engine::TimeNs;
use crate::scenario::error::FieldError;
use crate::scenario::schema::EsxiIscsiSpec;
use crate::scenario::units::DurationNs;

const SECOND_NS: TimeNs = 1_000_000_000;

/// `NoopOutInterval`: default, lowest and highest, in seconds.
pub const NOOP_OUT_INTERVAL_S: (u64, u64, u64) = (15, 1, 60);
/// `NoopOutTimeout`: default, lowest and highest, in seconds.
pub const NOOP_OUT_TIMEOUT_S: (u64, u64, u64) = (10, 10, 30);
/// `RecoveryTimeout`: default, lowest and highest, in seconds.
pub const RECOVERY_TIMEOUT_S: (u64, u64, u64) = (10, 1, 120);

/// An ESXi iSCSI adapter's session: how a loss on its paths is found and held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EsxiIscsi {
    pub noop: Probe,
    pub recovery_ns: TimeNs,
}

impl EsxiIscsi {
    /// The adapter's `iscsi` table (`at` its field path), checked against ESXi's ranges.
    pub fn resolve(spec: &EsxiIscsiSpec, at: &str) -> Result<EsxiIscsi, FieldError> {
        let value = |given: Option<DurationNs>, (default, low, high): (u64, u64, u64), key: &str, name: &str| {
            let ns = given.map_or(default * SECOND_NS, |d| d.0);
            if !ns.is_multiple_of(SECOND_NS) || !(low * SECOND_NS..=high * SECOND_NS).contains(&ns) {
                return Err((
                    format!("{at}.iscsi.{key}"),
                    format!("allowed {low}s to {high}s in whole seconds ({name}, as esxcli iscsi adapter param set takes it)"),
                ));
            }
            Ok(ns)
        };
        let interval = value(spec.noop_out_interval, NOOP_OUT_INTERVAL_S, "noop_out_interval", "NoopOutInterval")?;
        let timeout = value(spec.noop_out_timeout, NOOP_OUT_TIMEOUT_S, "noop_out_timeout", "NoopOutTimeout")?;
        let recovery_ns = value(spec.recovery_timeout, RECOVERY_TIMEOUT_S, "recovery_timeout", "RecoveryTimeout")?;
        let held = Found::Fail { hold_ns: recovery_ns };
        Ok(EsxiIscsi { noop: Probe { every_ns: interval, timeout_ns: timeout, then: held }, recovery_ns })
    }
}

impl Model {
    /// What the host does about a loss path `p`'s link reports, and the probes that find one it
    /// does not: its adapter's iSCSI session's where it has one, else its device's stack's.
    pub fn loss_rules(&self, p: usize) -> (Found, [Option<Probe>; 2]) {
        let path = &self.paths[p];
        match self.adapters[path.adapter()].esxi_iscsi {
            Some(session) => (Found::Fail { hold_ns: session.recovery_ns }, [Some(session.noop), None]),
            None => {
                let rules = &self.devices[path.device].stack;
                (rules.on_link_loss, rules.probes)
            }
        }
    }

    /// Refuses an `iscsi` table on an adapter whose paths lead to a device of another stack
    /// than ESXi (Linux's iSCSI timers are `[host.stack]`'s): it would do nothing there.
    pub fn check_esxi_iscsi(&self, adapter_fields: &[String]) -> Result<(), FieldError> {
        for path in &self.paths {
            let stack = self.devices[path.device].stack.stack;
            if self.adapters[path.adapter()].esxi_iscsi.is_some() && stack != Stack::Esxi {
                return Err((
                    format!("{}.iscsi", adapter_fields[path.adapter()]),
                    format!(
                        "an ESXi iSCSI adapter's timers, but its paths lead to {} ({stack:?}): on Linux give \
                         [host.stack] noop_out_interval, noop_out_timeout and replacement_timeout",
                        self.devices[path.device].name
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vmware_defaults_and_ranges() {
        let d = EsxiIscsi::resolve(&EsxiIscsiSpec::default(), "host.adapters.0").unwrap();
        let s = SECOND_NS;
        let noop = Probe { every_ns: 15 * s, timeout_ns: 10 * s, then: Found::Fail { hold_ns: 10 * s } };
        assert_eq!(d, EsxiIscsi { noop, recovery_ns: 10 * s });
        // Lost at 16 s: the NOP-Out at 30 s goes unanswered until 40 s; held until 50 s.
        assert_eq!(d.noop.finds_at(16 * s), 40 * s);
        let short = EsxiIscsiSpec { noop_out_timeout: Some(DurationNs(5 * s)), ..Default::default() };
        let err = EsxiIscsi::resolve(&short, "host.adapters.1").unwrap_err();
        assert_eq!(err.0, "host.adapters.1.iscsi.noop_out_timeout");
        assert_eq!(
            err.1,
            "allowed 10s to 30s in whole seconds (NoopOutTimeout, as esxcli iscsi adapter param set takes it)"
        );
        let long = EsxiIscsiSpec { recovery_timeout: Some(DurationNs(121 * s)), ..Default::default() };
        assert_eq!(EsxiIscsi::resolve(&long, "a").unwrap_err().0, "a.iscsi.recovery_timeout");
        let fraction = EsxiIscsiSpec { noop_out_interval: Some(DurationNs(1_500_000_000)), ..Default::default() };
        assert_eq!(EsxiIscsi::resolve(&fraction, "a").unwrap_err().0, "a.iscsi.noop_out_interval");
    }
}
