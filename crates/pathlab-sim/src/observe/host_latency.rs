//! Each host's p99: a quantile of the host's own responses, its devices' counts added (the
//! device histograms' buckets, 2 significant digits). A cluster's advice ranks by the worst
//! host's p99; read as the worst device's, it needed every device's own I/Os for a p99 (800 at
//! 8 paths: 64 s of a device doing 12.5 I/O/s on 32 hosts × 500 devices), where the host's own
//! quantile needs the host's (`advisor/run_length.py`'s `HOST_IOS`). The histograms are
//! `responses_kept`'s.

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct HostLatency {
    pub name: String,
    /// The p99 of every response of the host's devices in the measurement window (0 when none).
    pub p99_ms: f64,
}
