//! Each fault as a window on the run's timeline, as reports shade it and the run's result
//! measures the recovery from it (`observe::recovery`).

use super::schema::FaultSpec;
use crate::engine::TimeNs;
use serde::Serialize;

/// A fault on the run's timeline, in nanoseconds from the start (warm-up included).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FaultWindow {
    /// As a scenario's `[[faults]]` writes it: `path_down`, `congestion`, ...
    pub kind: &'static str,
    /// What it hits: a path, port, adapter, device or array (an ALUA change and a failover say
    /// to what).
    pub target: String,
    pub start_ns: TimeNs,
    /// `None` for a moment (a path coming back, a failover).
    pub end_ns: Option<TimeNs>,
}

/// The faults in file order. A window without `until` ends where a later `path_up`/`port_up`
/// brings its path or port back, else at `end_ns` (the run's end).
pub fn fault_windows(faults: &[FaultSpec], end_ns: TimeNs) -> Vec<FaultWindow> {
    let windows: Vec<_> = faults.iter().map(|f| f.window()).collect();
    let back_at = |kind: &str, what: &str, from: TimeNs| {
        let up = match kind {
            "path_down" => "path_up",
            "port_down" => "port_up",
            _ => return None,
        };
        windows.iter().filter(|w| w.0 == up && w.1 == what && w.2 > from).map(|w| w.2).min()
    };
    windows
        .iter()
        .map(|(kind, what, from, until, lasts)| FaultWindow {
            kind,
            target: what.clone(),
            start_ns: *from,
            end_ns: lasts.then(|| until.or_else(|| back_at(kind, what, *from)).unwrap_or(end_ns)),
        })
        .collect()
}
