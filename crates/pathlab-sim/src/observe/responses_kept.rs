//! Which responses a run keeps beside its summary's, by what its end will read
//! (`ResponseScope`): every device's (its p99 in the full result), each host's (a cluster's
//! ranking reads each host's p99 and no device's), or none (a figures-only run).
//!
//! A device's histogram is 18 KiB out of the cache on a host of many devices: on the 32-host
//! cluster's 16,000 devices its record was a last-level miss every seven responses and a page's
//! first touch a device, in runs whose end then added them up per host. A host's histogram is
//! the sum of its devices' (a histogram's counts do not depend on how its records are grouped),
//! so recording each response straight into its host's gives each host's p99 to the bit, from 32
//! histograms that stay in the cache.

use super::device_latency::DeviceLatencies;
use super::response_counts::ResponseCounts;
use hdrhistogram::Histogram;

/// What a run's end reads of its responses beyond the summary's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseScope {
    /// Every device's p99 (the full result).
    Devices,
    /// Each host's p99 on a run of several hosts (`finish_figures` with per-host rows).
    Hosts,
    /// Nothing beyond the summary (`finish_figures` without per-host rows).
    Summary,
}

/// A host's responses: 2 significant digits as a device's, 64-bit counts as the devices' sum.
pub type HostCounts = ResponseCounts<u64, 2>;

/// The responses kept for the scope.
pub enum KeptResponses {
    Devices(DeviceLatencies),
    /// Each host's, in host order.
    Hosts(Vec<HostCounts>),
    Summary,
}

impl KeptResponses {
    /// For `scope`, on `devices` devices of `hosts` hosts; one host's p99 is the summary's, so a
    /// run of one host keeps none for `Hosts`.
    pub fn new(scope: ResponseScope, devices: usize, hosts: usize) -> Self {
        match scope {
            ResponseScope::Devices => KeptResponses::Devices(DeviceLatencies::new(devices)),
            ResponseScope::Hosts if hosts >= 2 => KeptResponses::Hosts(vec![HostCounts::new(); hosts]),
            ResponseScope::Hosts | ResponseScope::Summary => KeptResponses::Summary,
        }
    }

    pub fn scope(&self) -> ResponseScope {
        match self {
            KeptResponses::Devices(_) => ResponseScope::Devices,
            KeptResponses::Hosts(_) => ResponseScope::Hosts,
            KeptResponses::Summary => ResponseScope::Summary,
        }
    }

    /// One response of `device` on `host` (the caller has it at hand: the completion's adapter's),
    /// in ns (at least 1).
    #[inline]
    pub fn record(&mut self, device: usize, host: usize, response_ns: u64) {
        match self {
            KeptResponses::Devices(latencies) => latencies.record(device, response_ns),
            KeptResponses::Hosts(counts) => counts[host].record(response_ns),
            KeptResponses::Summary => {}
        }
    }

    /// The measurement ended: responses held back go into their histograms.
    pub fn flush_all(&mut self) {
        if let KeptResponses::Devices(latencies) = self {
            latencies.flush_all();
        }
    }

    /// The device latencies, where every device's are kept.
    pub fn devices(&self) -> Option<&DeviceLatencies> {
        match self {
            KeptResponses::Devices(latencies) => Some(latencies),
            _ => None,
        }
    }

    /// Each host's responses in one histogram, hosts in order (`host_of`: each device's host;
    /// every device's kept: their counts added per host); none for a run of one host, whose p99
    /// is the summary's, nor where none are kept.
    pub fn host_histograms(&self, host_of: &[usize], hosts: usize) -> Vec<Histogram<u64>> {
        match self {
            KeptResponses::Devices(latencies) if hosts >= 2 => {
                let mut counts = vec![HostCounts::new(); hosts];
                for (device, &host) in host_of.iter().enumerate() {
                    counts[host].add(latencies.counts(device));
                }
                counts.iter().map(HostCounts::histogram).collect()
            }
            KeptResponses::Hosts(counts) => counts.iter().map(HostCounts::histogram).collect(),
            KeptResponses::Devices(_) | KeptResponses::Summary => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each host's histogram recorded straight is the one its devices' histograms add up to:
    /// every count, the total, and the p99 to the bit (hosts of 1,000 devices and more batch
    /// their devices' responses, fewer do not: both checked).
    #[test]
    fn a_hosts_own_histogram_is_its_devices_added() {
        for devices in [6, 1_500] {
            let host_of: Vec<usize> = (0..devices).map(|d| d % 3).collect();
            let mut per_device = KeptResponses::new(ResponseScope::Devices, devices, 3);
            let mut per_host = KeptResponses::new(ResponseScope::Hosts, devices, 3);
            for k in 0..20_000u64 {
                let device = (k * 7_919 % devices as u64) as usize;
                let ns = 1 + (k * 104_729 % 5_000_000) * (1 + k % 7);
                per_device.record(device, host_of[device], ns);
                per_host.record(device, host_of[device], ns);
            }
            per_device.flush_all();
            per_host.flush_all();
            let added = per_device.host_histograms(&host_of, 3);
            let own = per_host.host_histograms(&host_of, 3);
            assert_eq!(added.len(), 3);
            for (a, o) in added.iter().zip(&own) {
                assert_eq!(a, o, "{devices} devices");
                assert_eq!(a.len(), o.len());
                assert_eq!(a.value_at_quantile(0.99), o.value_at_quantile(0.99));
            }
        }
    }

    /// A run of one host keeps no host histogram (its p99 is the summary's), and a figures-only
    /// run keeps none at all.
    #[test]
    fn one_host_and_figures_only_keep_nothing_beyond_the_summary() {
        assert_eq!(KeptResponses::new(ResponseScope::Hosts, 2, 1).scope(), ResponseScope::Summary);
        let mut none = KeptResponses::new(ResponseScope::Summary, 2, 2);
        none.record(1, 1, 5);
        assert!(none.host_histograms(&[0, 1], 2).is_empty());
        assert!(none.devices().is_none());
    }
}
