//! The end of a run: the I/O accounting check, and the figures of the measurement window.

use super::{RunError, Simulation};
use crate::engine::TimeNs;
use crate::observe::application::{ApplicationSaw, ApplicationView, FaultSeen};
use crate::observe::host_latency::HostLatency;
use crate::observe::recovery::{logged_times, RunTimeline};
use crate::observe::responses_kept::ResponseScope;
use crate::observe::result::{
    Accounting, AccountingAtEnd, AdapterResult, DeviceRate, DeviceResult, HostEvent, PathResult, RaidGroupResult,
    ReplicationResult, RunFigures, RunResult, StationResult, Summary, WriteCacheResult,
};
use crate::observe::window::Window;
use crate::observe::{describe, devices};
use hdrhistogram::Histogram;
use pathlab_policy::PathId;

impl Simulation {
    /// Lets every I/O in flight finish, fails those that can never finish, checks that every
    /// I/O issued completed or failed exactly once, and returns the results.
    pub fn finish(mut self) -> Result<RunResult, RunError> {
        self.reads(ResponseScope::Devices)?;
        self.drain()?;
        Ok(self.result())
    }

    /// Whether the responses kept are those an end reading `scope` needs.
    fn reads(&self, scope: ResponseScope) -> Result<(), RunError> {
        let kept = self.rec.responses.scope();
        let enough = match scope {
            ResponseScope::Devices => kept == ResponseScope::Devices,
            // One host's run keeps no host histogram: its p99 is the summary's.
            ResponseScope::Hosts => kept != ResponseScope::Summary || self.model.host_names.len() < 2,
            ResponseScope::Summary => true,
        };
        if enough {
            Ok(())
        } else {
            Err(RunError::NotKept(kept))
        }
    }

    /// As [`finish`](Self::finish) (the same drain and check), with only the figures a ranking
    /// over many runs reads: the run's identity, summary and accounting, and with `per_host` each
    /// host's p99 and each device's host, commands a second and mean response, computed as the
    /// full result computes them. No path, adapter, port or interval row, no device's quantile,
    /// status or setup: on 32 hosts × 500 devices × 8 paths those are 128,000 path rows and
    /// 16,000 devices' worth of strings and quantiles per run, of which a ranking reads none.
    pub fn finish_figures(mut self, per_host: bool) -> Result<RunFigures, RunError> {
        self.reads(if per_host { ResponseScope::Hosts } else { ResponseScope::Summary })?;
        self.drain()?;
        Ok(self.figures(per_host))
    }

    /// The end of a run's I/Os: every I/O in flight finished or failed, and the accounting checked.
    fn drain(&mut self) -> Result<(), RunError> {
        self.run_until(self.measure_end());
        // Past the measurement, only what the I/O still alive needs: a host timer after the last
        // I/O has ended (ESXi's path evaluation minutes later) is no part of the run's log.
        while self.ios.live() > 0 && self.step_until(TimeNs::MAX) {}
        for d in 0..self.model.devices.len() {
            self.fail_waiting(d);
        }
        if let Some(e) = self.overloaded.take() {
            return Err(e);
        }
        let n = self.rec.accounting;
        if n.issued != n.completed + n.failed || self.ios.live() != 0 {
            return Err(RunError::Accounting(format!(
                "I/O accounting broken: issued {} but completed {} and failed {} ({} still alive)",
                n.issued,
                n.completed,
                n.failed,
                self.ios.live()
            )));
        }
        Ok(())
    }

    /// The measurement window, from the snapshots taken at its start and end.
    fn window(&self) -> Window<'_> {
        let start = self.at_warmup.as_ref().expect("warm-up snapshot taken");
        let end = self.at_end.as_ref().expect("end snapshot taken");
        Window::new(start, end)
    }

    /// The whole host's figures of the measurement window.
    fn summary(&self, window: &Window) -> Summary {
        let done = self.at_end.as_ref().expect("end snapshot taken").accounting;
        let latency = self.rec.latency.histogram();
        Summary {
            figures: window.guest_figures(self.rec.window_max_ns),
            p50_ms: quantile_ms(&latency, 0.50),
            p90_ms: quantile_ms(&latency, 0.90),
            p99_ms: quantile_ms(&latency, 0.99),
            p999_ms: quantile_ms(&latency, 0.999),
            errors: window.errors(),
            retries: window.retries(),
            failed: self.rec.accounting.failed,
            in_flight: done.issued - done.completed - done.failed,
        }
    }

    /// Every I/O's end, after the drain, and where they stood when the measurement ended.
    fn accounting(&self) -> Accounting {
        let done = self.at_end.as_ref().expect("end snapshot taken").accounting;
        Accounting {
            issued: self.rec.accounting.issued,
            completed: self.rec.accounting.completed,
            failed: self.rec.accounting.failed,
            at_end: AccountingAtEnd {
                completed: done.completed,
                failed: done.failed,
                in_flight: done.issued - done.completed - done.failed,
                oldest_in_flight_s: self.oldest_in_flight_ns as f64 / 1e9,
            },
            retried: self.rec.accounting.retried,
            failovers: self.rec.accounting.failovers,
            peak_in_flight: self.ios.capacity_used() as u64,
        }
    }

    /// Each host's p99 where the run has several hosts (none for one: its p99 is the summary's).
    fn host_latency(&self) -> Vec<HostLatency> {
        let m = &self.model;
        let host_of: Vec<usize> = m.devices.iter().map(|d| d.host).collect();
        self.rec
            .responses
            .host_histograms(&host_of, m.host_names.len())
            .iter()
            .zip(&m.host_names)
            .map(|(h, name)| HostLatency { name: name.clone(), p99_ms: quantile_ms(h, 0.99) })
            .collect()
    }

    fn figures(&self, per_host: bool) -> RunFigures {
        let window = self.window();
        let m = &self.model;
        let rates = |(i, d): (usize, &crate::model::Device)| {
            let figures = window.device(i).figures;
            DeviceRate { host: m.host_names[d.host].clone(), cmds_s: figures.cmds_s, gavg_ms: figures.gavg_ms }
        };
        RunFigures {
            scenario: self.plan.scenario.clone(),
            variant: self.plan.variant.clone(),
            seed: self.plan.seed,
            warmup_s: self.plan.warmup_ns as f64 / 1e9,
            duration_s: self.plan.duration_ns as f64 / 1e9,
            summary: self.summary(&window),
            accounting: self.accounting(),
            hosts: per_host.then(|| describe::hosts(m)),
            host_latency: per_host.then(|| self.host_latency()).filter(|h| !h.is_empty()),
            devices: per_host.then(|| m.devices.iter().enumerate().map(rates).collect()),
            engine_events: self.events.taken(),
        }
    }

    pub(super) fn result(&self) -> RunResult {
        let window = self.window();
        let m = &self.model;
        let latencies =
            self.rec.responses.devices().expect("a full result's run keeps every device's responses (`reads`)");
        let name_of = |id: PathId| m.paths[id.0 as usize].name.to_string();
        let devices = m
            .devices
            .iter()
            .enumerate()
            .map(|(i, d)| (d, window.device(i), i))
            .map(|(d, w, i)| DeviceResult {
                name: d.name.to_string(),
                host: m.host_names[d.host].clone(),
                array: m.arrays[d.array].name.clone(),
                satp: d.satp.to_string(),
                policy: d.policy_config.name().to_string(),
                device_config: d.policy.status().render(&name_of),
                working_paths: d.policy.working_paths().into_iter().map(name_of).collect(),
                dqlen: (!d.bio_based).then_some(d.queue_depth),
                nvme_head: d.nvme_head(),
                actv: w.actv,
                qued: w.qued,
                p99_ms: quantile_ms(&latencies.histogram(i), 0.99),
                hazards: self.hazards[i],
                figures: w.figures,
            })
            .collect();
        let paths = m
            .paths
            .iter()
            .enumerate()
            .map(|(i, p)| PathResult {
                name: p.name.to_string(),
                device: m.devices[p.device].name.to_string(),
                host: m.host_names[m.devices[p.device].host].clone(),
                adapter: m.adapters[p.adapter()].name.clone(),
                target: format!("{}/{}", m.arrays[m.ports[p.port].array].name, m.ports[p.port].name),
                state: if p.up { "active" } else { "dead" }.to_string(),
                alua: p.alua.short_name().to_string(),
                tpg_id: p.tpg_id,
                one_way_us: p.one_way_ns as f64 / 1e3,
                connected: p.connected,
                figures: window.path(i),
            })
            .collect();
        let adapters = m
            .adapters
            .iter()
            .enumerate()
            .map(|(i, a)| (a, window.adapter(i)))
            .map(|(a, w)| AdapterResult {
                name: a.name.clone(),
                host: m.host_names[a.host].clone(),
                aqlen: a.queue_depth,
                actv: w.actv,
                qued: w.qued,
                figures: w.figures,
            })
            .collect();
        let station = |st: usize| {
            let (cmds_s, busy) = window.station(st);
            StationResult {
                name: m.stations[st].name.clone(),
                cmds_s,
                util_pct: 100.0 * busy / f64::from(m.stations[st].servers),
            }
        };
        let ports = m.ports.iter().map(|p| station(p.station)).collect();
        let controllers = m.controllers.iter().filter_map(|c| c.station).map(station).collect();
        let raid_groups = m
            .backends
            .groups
            .iter()
            .map(|g| {
                let per_disk: Vec<StationResult> = (0..g.disks as u8).map(|d| station(g.station(d))).collect();
                RaidGroupResult {
                    name: g.name.clone(),
                    level: format!("{:?}", g.level).to_lowercase(),
                    disks: g.disks,
                    disk_ops_s: per_disk.iter().map(|d| d.cmds_s).sum(),
                    util_pct: per_disk.iter().map(|d| d.util_pct).sum::<f64>() / f64::from(g.disks),
                    read_hits: g.read_hits,
                    read_misses: g.read_misses,
                    destages: g.destages,
                    per_disk,
                }
            })
            .collect();
        let write_caches = m
            .backends
            .caches
            .iter()
            .enumerate()
            .filter_map(|(a, c)| c.as_ref().map(|c| (a, c)))
            .map(|(a, c)| {
                let pct = |bytes: f64| 100.0 * bytes / c.capacity_bytes as f64;
                WriteCacheResult {
                    array: m.arrays[a].name.clone(),
                    size_bytes: c.capacity_bytes,
                    high_watermark_pct: pct(c.high_bytes as f64),
                    low_watermark_pct: pct(c.low_bytes as f64),
                    dirty_pct: pct(window.cache_dirty(a)),
                    forced_waits: c.forced,
                }
            })
            .collect();
        let replication = m
            .replications
            .iter()
            .map(|r| ReplicationResult {
                name: r.name.clone(),
                arrays: r.arrays.map(|a| m.arrays[a].name.clone()),
                writes: r.writes,
                ownership_moves: r.contention.as_ref().map_or([0, 0], |c| c.transfers),
            })
            .collect();
        let events: Vec<HostEvent> = self.log.iter().map(|e| e.to_result(m, self.row_names.devices(m))).collect();
        RunResult {
            scenario: self.plan.scenario.clone(),
            variant: self.plan.variant.clone(),
            seed: self.plan.seed,
            host: m.host_names[0].clone(),
            hosts: describe::hosts(m),
            host_latency: self.host_latency(),
            warmup_s: self.plan.warmup_ns as f64 / 1e9,
            duration_s: self.plan.duration_ns as f64 / 1e9,
            interval_s: self.plan.interval_ns as f64 / 1e9,
            summary: self.summary(&window),
            devices,
            paths,
            adapters,
            ports,
            controllers,
            replication,
            raid_groups,
            write_caches,
            intervals: self.intervals.clone(),
            device_intervals: self.device_intervals.clone(),
            path_intervals: self.path_intervals.clone(),
            adapter_intervals: self.adapter_intervals.clone(),
            application: self.application_view(&events),
            events,
            accounting: self.accounting(),
            engine_events: self.events.taken(),
            setups: devices::setups(m),
        }
    }
}

impl Simulation {
    /// What the application saw: each device's and host's stalls and failed I/Os, and how each
    /// came back from each fault.
    fn application_view(&self, events: &[HostEvent]) -> ApplicationView {
        let m = &self.model;
        let names = self.row_names.devices(m);
        let devices: Vec<ApplicationSaw> = (0..m.devices.len())
            .map(|d| {
                ApplicationSaw::of_device(
                    &m.host_names[m.devices[d].host],
                    &names[d],
                    &m.devices[d].watch,
                    &m.devices[d].failed,
                )
            })
            .collect();
        let hosts = (0..m.host_names.len())
            .map(|h| {
                let of_host: Vec<&ApplicationSaw> =
                    devices.iter().zip(&m.devices).filter(|(_, d)| d.host == h).map(|(a, _)| a).collect();
                ApplicationSaw::of_host(&m.host_names[h], &of_host)
            })
            .collect();
        let windows = &self.plan.fault_windows;
        let seconds = |ns: TimeNs| ns as f64 / 1e9;
        let faults = windows
            .iter()
            .map(|w| FaultSeen {
                kind: w.kind,
                target: w.target.clone(),
                start_s: seconds(w.start_ns),
                end_s: w.end_ns.map(seconds),
            })
            .collect();
        let row_names: Vec<&str> = names.iter().map(String::as_str).collect();
        let timeline = RunTimeline {
            warmup_s: seconds(self.plan.warmup_ns),
            interval_s: seconds(self.plan.interval_ns),
            measure_end_s: seconds(self.measure_end()),
            device_intervals: &self.device_intervals,
            devices: row_names.iter().zip(&m.devices).map(|(n, d)| (*n, d.host)).collect(),
            host_names: &m.host_names,
            path_names: m.paths.iter().map(|p| &*p.name).collect(),
            logged: logged_times(&row_names, events),
            paths_in_use: self.paths_in_use.as_ref(),
        };
        ApplicationView { devices, hosts, faults, recovery: timeline.recoveries(windows) }
    }
}

/// A latency quantile in milliseconds; 0 for an empty histogram.
pub(super) fn quantile_ms<T: hdrhistogram::Counter>(h: &Histogram<T>, q: f64) -> f64 {
    if h.is_empty() {
        0.0
    } else {
        h.value_at_quantile(q) as f64 / 1e6
    }
}
