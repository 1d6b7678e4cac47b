//! Faults a scenario schedules, resolved to the paths, ports, adapters and devices they hit and
//! checked on the way. Each fault becomes changes at its start and, for those with an end,
//! at its end (a controller reboot: its ports and its LUNs' owner); the engine applies them as events, so that nothing on the per-I/O path
//! looks at the list.

use super::alua_transition::TransitionRule;
use super::names_per_host::{adapter_named, adapters_written, of_one_host, split};
use super::{FieldError, Model};
use crate::engine::rng::Stream;
use crate::engine::TimeNs;
use crate::nmp::SatpKind;
use crate::scenario::bounds;
use crate::scenario::schema::{
    AllPathsDownSpec, AluaStateSpec, CongestionSpec, ControllerFailoverSpec, ControllerRebootSpec, Detection,
    FaultSpec, FlakySpec, LinkSpeedSpec, MarginalSpec, PathDownSpec, PathUpSpec, PortDownSpec, PortUpSpec,
    SiteDownSpec, SlowDrainSpec, SwitchDownSpec,
};
use crate::scenario::units::DurationNs;
use pathlab_policy::{AluaState, HostStack};

/// One change to the model at one time.
#[derive(Clone, Debug)]
pub enum FaultAction {
    /// The paths' own links go down or come back.
    Cut { paths: Vec<usize>, change: LinkChange, detection: Detection },
    /// An array port fails or comes back, with every path through it.
    Port { port: usize, change: LinkChange, detection: Detection },
    /// The array reports a new ALUA state for these paths.
    Alua { paths: Vec<usize>, state: AluaState },
    /// The LUNs' owning controller on `array` becomes `owner`.
    Failover { devices: Vec<usize>, array: usize, owner: usize },
    /// NVMe: these paths' ANA groups enter (`on`) or leave the change state (`sim/ana.rs`).
    AnaChange { paths: Vec<usize>, on: bool },
    /// Commands on these paths start (`Some`) or stop (`None`) ending in error.
    Errors { paths: Vec<usize>, profile: Option<ErrorProfile> },
    /// Responses on these paths take `added_ns` longer (`add`) or no longer do.
    Congestion { paths: Vec<usize>, added_ns: TimeNs, add: bool },
    /// An adapter's link rate changes (bytes per ns).
    LinkRate { adapter: usize, bytes_per_ns: Option<f64> },
    /// The fabric marks these paths marginal (FPIN), or no longer.
    Marginal { paths: Vec<usize>, marginal: bool },
    /// A slow drain on these paths starts (`Some((since, growth per second))`) or ends.
    Drain { paths: Vec<usize>, drain: Option<(TimeNs, TimeNs)> },
    /// Replication groups stop (a site is lost) or resume.
    Replication { groups: Vec<usize>, suspended: bool },
}

/// What a fault does to a link or a port. Outages may overlap (a `switch_down` over a
/// `path_down`): each counts, and the link is back when the last one still open ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkChange {
    /// An outage starts.
    Lose,
    /// An outage with an `until` ends.
    Regain,
    /// `path_up`/`port_up`: back whatever outages are open.
    Restore,
}

impl LinkChange {
    /// The number of outages open after this change, from `open`.
    pub fn applied_to(self, open: u32) -> u32 {
        match self {
            LinkChange::Lose => open + 1,
            LinkChange::Regain => open.saturating_sub(1),
            LinkChange::Restore => 0,
        }
    }
}

#[derive(Clone, Debug)]
pub struct ScheduledFault {
    pub at_ns: TimeNs,
    pub action: FaultAction,
}

/// Errors on a flaky path: every response fails with probability `error_rate`, or only those
/// arriving within bursts of `length_ns` that start every `every_ns` from `since_ns`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorProfile {
    pub error_rate: f64,
    pub since_ns: TimeNs,
    pub burst: Option<(TimeNs, TimeNs)>,
}

impl ErrorProfile {
    /// Whether a response arriving at `now_ns` is an error; draws from the path's fault stream.
    pub fn fails(&self, now_ns: TimeNs, rng: &mut Stream) -> bool {
        let in_burst = self.burst.is_none_or(|(every, length)| (now_ns - self.since_ns) % every < length);
        in_burst && rng.open01() < self.error_rate
    }
}

fn err<T>(field: String, message: impl Into<String>) -> Result<T, FieldError> {
    Err((field, message.into()))
}

/// The paths `written` names (`HOST/` before a runtime name or its start picks that host's).
fn paths_named(model: &Model, written: &str, field: String) -> Result<Vec<usize>, FieldError> {
    let (host, name) = split(written, &model.host_names, &field)?;
    let found = paths_matching(model, name).into_iter().map(|p| (p, model.adapters[model.paths[p].adapter()].host));
    let paths = of_one_host(found.collect(), host, name, &model.host_names, &field, "paths")?;
    if paths.is_empty() {
        let name = written;
        let names: Vec<&str> = model.paths.iter().map(|p| &*p.name).collect();
        return err(
            field,
            format!("no path is named \"{name}\" or starts with \"{name}:\"; paths: {}", names.join(", ")),
        );
    }
    Ok(paths)
}

/// Refuses an ALUA state no stack on these paths would see: a plugin that takes every path as
/// active (VMW_SATP_SYMM, a symmetric array's) or the owner's as active and the others standby
/// reads no reported state, so the fault would change nothing without a word. `unavailable` is
/// seen all the same: the array refuses the I/O.
fn unseen_alua(model: &Model, paths: &[usize], state: AluaState, field: &str) -> Result<(), FieldError> {
    let reads_alua = |&p: &usize| model.devices[model.paths[p].device].path_states == SatpKind::Alua;
    if state == AluaState::Unavailable || paths.iter().any(reads_alua) {
        return Ok(());
    }
    let device = &model.devices[model.paths[paths[0]].device];
    let array = &model.arrays[device.array];
    let written = match state {
        AluaState::ActiveOptimized => "active_optimized",
        AluaState::ActiveNonOptimized => "active_non_optimized",
        AluaState::Standby => "standby",
        AluaState::Unavailable => "unavailable",
    };
    let why = if array.symmetric { format!("array \"{}\" is symmetric and ", array.name) } else { String::new() };
    // What reads the states is the host's own: multipathd's prioritizer on Linux dm, the SATP on
    // ESXi; the other stacks read what the array reports (NVMe's ANA groups, MPIO's and SPDK's).
    let (reader, remedy) = match device.policy_config.host_stack() {
        HostStack::LinuxDm => (
            format!("the prioritizer of {} ({})", device.name, device.linux.multipath.prio.value.name()),
            "the ALUA prioritizer (policy.prio = \"alua\")".to_string(),
        ),
        HostStack::Esxi => {
            (format!("the plugin of {} ({})", device.name, device.satp), "an ALUA plugin (VMW_SATP_ALUA)".to_string())
        }
        _ => (
            format!("the host of {}, whose array reports no ALUA or ANA groups,", device.name),
            format!("an array that reports them (arrays.{}.tpgs = true)", device.array),
        ),
    };
    err(
        format!("{field}.state"),
        format!(
            "\"{written}\": {why}{reader} reads no ALUA state, so the change would go unseen: give these paths' devices \
             {remedy}, or state = \"unavailable\" (the array refuses I/O on them)"
        ),
    )
}

fn port_named(model: &Model, name: &str, field: String) -> Result<usize, FieldError> {
    let key = |p: &super::Port| format!("{}/{}", model.arrays[p.array].name, p.name);
    model.ports.iter().position(|p| key(p) == name).ok_or_else(|| {
        let names: Vec<String> = model.ports.iter().map(key).collect();
        (field, format!("unknown port \"{name}\" (write array/port); ports: {}", names.join(", ")))
    })
}

fn index_named(names: Vec<&str>, name: &str, field: String, what: &str) -> Result<usize, FieldError> {
    names
        .iter()
        .position(|n| *n == name)
        .ok_or_else(|| (field, format!("unknown {what} \"{name}\"; defined: {}", names.join(", "))))
}

/// The paths of `path = …` or of every path through `port = …`: exactly one of the two.
fn target_paths(
    model: &Model,
    path: &Option<String>,
    port: &Option<String>,
    field: &str,
) -> Result<Vec<usize>, FieldError> {
    match (path, port) {
        (Some(name), None) => paths_named(model, name, format!("{field}.path")),
        (None, Some(name)) => {
            let port = port_named(model, name, format!("{field}.port"))?;
            Ok((0..model.paths.len()).filter(|&p| model.paths[p].port == port).collect())
        }
        _ => err(field.to_string(), "name exactly one of `path` or `port`"),
    }
}

/// The changes being scheduled, up to the end of the measurement, each marked when it closes a
/// window.
struct Schedule {
    changes: Vec<(ScheduledFault, bool)>,
    end_ns: TimeNs,
}

impl Schedule {
    /// A change at `at_ns`; dropped at or after the end of the measurement.
    fn at(&mut self, at_ns: TimeNs, action: FaultAction) {
        if at_ns < self.end_ns {
            self.changes.push((ScheduledFault { at_ns, action }, false));
        }
    }

    /// A loss of connection at `at_ns`, ended at `until` if given.
    fn outage(
        &mut self,
        at_ns: TimeNs,
        until: Option<DurationNs>,
        down: FaultAction,
        up: FaultAction,
        field: &str,
    ) -> Result<(), FieldError> {
        if until.is_some_and(|u| u.0 <= at_ns) {
            return err(format!("{field}.until"), "must be after `at`");
        }
        self.at(at_ns, down);
        if let Some(u) = until {
            self.at(u.0, up);
        }
        Ok(())
    }

    /// Several changes at `at_ns` (in order), undone by `up` at `until` if given.
    fn outages(
        &mut self,
        at_ns: TimeNs,
        until: Option<DurationNs>,
        down: Vec<FaultAction>,
        up: Vec<FaultAction>,
        field: &str,
    ) -> Result<(), FieldError> {
        if until.is_some_and(|u| u.0 <= at_ns) {
            return err(format!("{field}.until"), "must be after `at`");
        }
        down.into_iter().for_each(|a| self.at(at_ns, a));
        if let Some(u) = until {
            up.into_iter().for_each(|a| self.at(u.0, a));
        }
        Ok(())
    }

    /// A degradation from `from_ns` to `until`, closed at the end of the measurement at the
    /// latest, so that I/O still in flight then drains on a healthy path. Returns its span.
    fn window(
        &mut self,
        from_ns: TimeNs,
        until: Option<DurationNs>,
        start: FaultAction,
        stop: FaultAction,
        field: &str,
    ) -> Result<(TimeNs, TimeNs), FieldError> {
        let to = match until {
            Some(u) if u.0 <= from_ns => return err(format!("{field}.until"), "must be after `from`"),
            Some(u) => u.0.min(self.end_ns),
            None => self.end_ns,
        };
        if from_ns < self.end_ns {
            self.changes.push((ScheduledFault { at_ns: from_ns, action: start }, false));
            self.changes.push((ScheduledFault { at_ns: to, action: stop }, true));
        }
        Ok((from_ns, to))
    }

    /// The changes in time order; at one instant, windows close before anything else happens
    /// (so that a window starting where another ends on the same path is not undone by it),
    /// and the rest keep the file's order.
    fn into_changes(mut self) -> Vec<ScheduledFault> {
        self.changes.sort_by_key(|(c, closes)| (c.at_ns, !closes));
        self.changes.into_iter().map(|(c, _)| c).collect()
    }
}

/// Windows of one kind may not overlap on one object: which one would hold at the overlap?
fn check_overlap(
    windows: &mut Vec<(usize, TimeNs, TimeNs, usize)>,
    objects: &[usize],
    (from, to): (TimeNs, TimeNs),
    fault: usize,
    what: &str,
    name: impl Fn(usize) -> String,
) -> Result<(), FieldError> {
    for &o in objects {
        if let Some(w) = windows.iter().find(|w| w.0 == o && w.1 < to && from < w.2) {
            return err(format!("faults.{fault}.from"), format!("overlaps faults.{} on {what} {}", w.3, name(o)));
        }
        windows.push((o, from, to, fault));
    }
    Ok(())
}

/// Resolves the scenario's faults; changes at or after `end_ns` (the end of the measurement) are
/// dropped, windows still open then are closed then.
pub fn resolve_faults(specs: &[FaultSpec], model: &Model, end_ns: TimeNs) -> Result<Vec<ScheduledFault>, FieldError> {
    let mut plan = Schedule { changes: Vec::new(), end_ns };
    let mut flaky_windows = Vec::new();
    let mut speed_windows = Vec::new();
    let mut drain_windows = Vec::new();
    let path_name = |p: usize| model.paths[p].name.to_string();
    // The devices' names mapped by the first fault that names a device, not for every
    // simulation with or without one (on 32 hosts × 500 devices × 8 paths, 16,000 names).
    let devices = std::cell::OnceCell::new();
    let device_named = |name: &str, field: String| devices.get_or_init(|| model.device_names()).find(name, &field);
    for (i, spec) in specs.iter().enumerate() {
        let field = format!("faults.{i}");
        match spec {
            FaultSpec::PathDown(PathDownSpec { at, path, until, detection }) => {
                let paths = paths_named(model, path, format!("{field}.path"))?;
                let detection = *detection;
                let up = FaultAction::Cut { paths: paths.clone(), change: LinkChange::Regain, detection };
                plan.outage(at.0, *until, FaultAction::Cut { paths, change: LinkChange::Lose, detection }, up, &field)?;
            }
            FaultSpec::PathUp(PathUpSpec { at, path }) => {
                let paths = paths_named(model, path, format!("{field}.path"))?;
                plan.at(at.0, FaultAction::Cut { paths, change: LinkChange::Restore, detection: Detection::Link });
            }
            FaultSpec::PortDown(PortDownSpec { at, port, until, detection }) => {
                let port = port_named(model, port, format!("{field}.port"))?;
                let detection = *detection;
                let up = FaultAction::Port { port, change: LinkChange::Regain, detection };
                plan.outage(at.0, *until, FaultAction::Port { port, change: LinkChange::Lose, detection }, up, &field)?;
            }
            FaultSpec::PortUp(PortUpSpec { at, port }) => {
                let port = port_named(model, port, format!("{field}.port"))?;
                plan.at(at.0, FaultAction::Port { port, change: LinkChange::Restore, detection: Detection::Link });
            }
            FaultSpec::AllPathsDown(AllPathsDownSpec { at, device, until, detection }) => {
                let paths = match device {
                    None => (0..model.paths.len()).collect(),
                    Some(name) => model.devices[device_named(name, format!("{field}.device"))?].paths.clone(),
                };
                let detection = *detection;
                let up = FaultAction::Cut { paths: paths.clone(), change: LinkChange::Regain, detection };
                plan.outage(at.0, *until, FaultAction::Cut { paths, change: LinkChange::Lose, detection }, up, &field)?;
            }
            FaultSpec::AluaState(AluaStateSpec { at, path, state }) => {
                let paths = paths_named(model, path, format!("{field}.path"))?;
                unseen_alua(model, &paths, *state, &field)?;
                plan.at(at.0, FaultAction::Alua { paths, state: *state });
            }
            FaultSpec::ControllerFailover(ControllerFailoverSpec { at, array, device, owner, ana_change }) => {
                let names = model.arrays.iter().map(|a| a.name.as_str()).collect();
                let a = index_named(names, array, format!("{field}.array"), "array")?;
                if model.arrays[a].symmetric {
                    return err(
                        format!("{field}.array"),
                        format!("\"{array}\" is symmetric: no controller owns a LUN"),
                    );
                }
                let ctrls = &model.arrays[a].controllers;
                let names = ctrls.iter().map(|&c| model.controllers[c].name.as_str()).collect();
                let owner = ctrls[index_named(names, owner, format!("{field}.owner"), "controller")?];
                let on_array = |d: &usize| model.devices[*d].owners.iter().any(|o| o.0 == a);
                let devices: Vec<usize> = match device {
                    None => (0..model.devices.len()).filter(on_array).collect(),
                    Some(name) => {
                        let d = device_named(name, format!("{field}.device"))?;
                        if !on_array(&d) {
                            return err(format!("{field}.device"), format!("\"{name}\" does not live on \"{array}\""));
                        }
                        vec![d]
                    }
                };
                if devices.is_empty() {
                    return err(format!("{field}.array"), format!("no device lives on \"{array}\""));
                }
                match ana_change {
                    None => plan.at(at.0, FaultAction::Failover { devices, array: a, owner }),
                    Some(lasts) => {
                        let paths = paths_on_array(model, &devices, a);
                        let ends = ana_change_end(model, &paths, at.0, *lasts, &format!("{field}.ana_change"))?;
                        plan.at(at.0, FaultAction::AnaChange { paths: paths.clone(), on: true });
                        plan.at(ends, FaultAction::Failover { devices, array: a, owner });
                        plan.at(ends, FaultAction::AnaChange { paths, on: false });
                    }
                }
            }
            FaultSpec::Flaky(FlakySpec { path, port, from, until, error_rate, burst_every, burst_length }) => {
                let paths = target_paths(model, path, port, &field)?;
                if !(0.0..=1.0).contains(error_rate) {
                    return err(format!("{field}.error_rate"), format!("{error_rate} is out of range: allowed 0 to 1"));
                }
                let burst = match (burst_every, burst_length) {
                    (None, None) => None,
                    (Some(every), Some(length)) if length.0 <= every.0 => {
                        bounds::long_enough(length.0, bounds::BURST_LENGTH)
                            .map_err(|m| (format!("{field}.burst_length"), m))?;
                        Some((every.0, length.0))
                    }
                    (Some(_), Some(_)) => return err(format!("{field}.burst_length"), "must be at most burst_every"),
                    _ => {
                        return err(
                            format!("{field}.burst_every"),
                            "give both burst_every and burst_length, or neither",
                        )
                    }
                };
                let profile = ErrorProfile { error_rate: *error_rate, since_ns: from.0, burst };
                let start = FaultAction::Errors { paths: paths.clone(), profile: Some(profile) };
                let stop = FaultAction::Errors { paths: paths.clone(), profile: None };
                let span = plan.window(from.0, *until, start, stop, &field)?;
                check_overlap(&mut flaky_windows, &paths, span, i, "path", path_name)?;
            }
            FaultSpec::Marginal(MarginalSpec { path, port, from, until }) => {
                let paths = target_paths(model, path, port, &field)?;
                let start = FaultAction::Marginal { paths: paths.clone(), marginal: true };
                let stop = FaultAction::Marginal { paths, marginal: false };
                plan.window(from.0, *until, start, stop, &field)?;
            }
            FaultSpec::Congestion(CongestionSpec { path, port, from, until, added_latency }) => {
                let paths = target_paths(model, path, port, &field)?;
                if added_latency.0 == 0 {
                    return err(format!("{field}.added_latency"), "must be above zero");
                }
                let added_ns = added_latency.0;
                let start = FaultAction::Congestion { paths: paths.clone(), added_ns, add: true };
                let stop = FaultAction::Congestion { paths, added_ns, add: false };
                plan.window(from.0, *until, start, stop, &field)?;
            }
            FaultSpec::ControllerReboot(ControllerRebootSpec {
                at,
                array,
                controller,
                until,
                detection,
                ana_change,
            }) => {
                let names = model.arrays.iter().map(|a| a.name.as_str()).collect();
                let a = index_named(names, array, format!("{field}.array"), "array")?;
                let ctrls = &model.arrays[a].controllers;
                let names = ctrls.iter().map(|&c| model.controllers[c].name.as_str()).collect();
                let c = ctrls[index_named(names, controller, format!("{field}.controller"), "controller")?];
                let ports: Vec<usize> = (0..model.ports.len()).filter(|&p| model.ports[p].controller == c).collect();
                let detection = *detection;
                let down = ports.iter().map(|&port| FaultAction::Port { port, change: LinkChange::Lose, detection });
                let up = ports.iter().map(|&port| FaultAction::Port { port, change: LinkChange::Regain, detection });
                let (mut down, mut up): (Vec<_>, Vec<_>) = (down.collect(), up.collect());
                // Its LUNs move to the partner first, so that I/O retried finds them there.
                let partner = ctrls.iter().copied().find(|&o| o != c);
                let owned: Vec<usize> = (0..model.devices.len())
                    .filter(|&d| model.devices[d].owners.iter().any(|&(arr, o)| arr == a && o == c))
                    .collect();
                let takes_over = partner.filter(|_| !model.arrays[a].symmetric && !owned.is_empty());
                let change_field = format!("{field}.ana_change");
                match (takes_over, ana_change) {
                    (Some(partner), None) => {
                        down.insert(0, FaultAction::Failover { devices: owned.clone(), array: a, owner: partner });
                    }
                    // The partner's groups pass through the change state before they take the
                    // LUNs over: no path of theirs is used meanwhile.
                    (Some(partner), Some(lasts)) => {
                        let paths: Vec<usize> = paths_on_array(model, &owned, a)
                            .into_iter()
                            .filter(|&p| model.ports[model.paths[p].port].controller == partner)
                            .collect();
                        let ends = ana_change_end(model, &paths, at.0, *lasts, &change_field)?;
                        if until.is_some_and(|u| u.0 <= ends) {
                            return err(change_field, "must end before `until`");
                        }
                        down.insert(0, FaultAction::AnaChange { paths: paths.clone(), on: true });
                        plan.at(ends, FaultAction::Failover { devices: owned.clone(), array: a, owner: partner });
                        plan.at(ends, FaultAction::AnaChange { paths, on: false });
                    }
                    (None, Some(_)) => {
                        return err(
                            change_field,
                            "no other controller takes this one's LUNs over: nothing changes state",
                        )
                    }
                    (None, None) => {}
                }
                if takes_over.is_some() {
                    up.push(FaultAction::Failover { devices: owned, array: a, owner: c });
                }
                plan.outages(at.0, *until, down, up, &field)?;
            }
            FaultSpec::SwitchDown(SwitchDownSpec { at, fabric, until, detection }) => {
                let names = model.fabric_names.iter().map(String::as_str).collect();
                let f = index_named(names, fabric, format!("{field}.fabric"), "fabric")?;
                let paths: Vec<usize> =
                    (0..model.paths.len()).filter(|&p| model.nexus_fabric[model.paths[p].nexus] == f).collect();
                let detection = *detection;
                let up = FaultAction::Cut { paths: paths.clone(), change: LinkChange::Regain, detection };
                plan.outage(at.0, *until, FaultAction::Cut { paths, change: LinkChange::Lose, detection }, up, &field)?;
            }
            FaultSpec::SiteDown(SiteDownSpec { at, array, until, detection }) => {
                let names = model.arrays.iter().map(|a| a.name.as_str()).collect();
                let a = index_named(names, array, format!("{field}.array"), "array")?;
                let ports: Vec<usize> = (0..model.ports.len()).filter(|&p| model.ports[p].array == a).collect();
                let groups: Vec<usize> =
                    (0..model.replications.len()).filter(|&g| model.replications[g].arrays.contains(&a)).collect();
                let detection = *detection;
                let mut down: Vec<_> =
                    ports.iter().map(|&port| FaultAction::Port { port, change: LinkChange::Lose, detection }).collect();
                let mut up: Vec<_> = ports
                    .iter()
                    .map(|&port| FaultAction::Port { port, change: LinkChange::Regain, detection })
                    .collect();
                down.insert(0, FaultAction::Replication { groups: groups.clone(), suspended: true });
                up.push(FaultAction::Replication { groups, suspended: false });
                plan.outages(at.0, *until, down, up, &field)?;
            }
            FaultSpec::SlowDrain(SlowDrainSpec { adapter, port, from, until, growth }) => {
                let paths = match (adapter, port) {
                    (Some(name), None) => {
                        let a = adapter_named(&model.adapters, &model.host_names, name, &format!("{field}.adapter"))?;
                        (0..model.paths.len()).filter(|&p| model.paths[p].adapter() == a).collect()
                    }
                    _ => target_paths(model, &None, port, &field)
                        .map_err(|(f, m)| (f, m.replace("`path` or `port`", "`adapter` or `port`")))?,
                };
                if growth.0 == 0 {
                    return err(format!("{field}.growth"), "must be above zero");
                }
                let start = FaultAction::Drain { paths: paths.clone(), drain: Some((from.0, growth.0)) };
                let stop = FaultAction::Drain { paths: paths.clone(), drain: None };
                let span = plan.window(from.0, *until, start, stop, &field)?;
                check_overlap(&mut drain_windows, &paths, span, i, "path", path_name)?;
            }
            FaultSpec::LinkSpeed(LinkSpeedSpec { adapter, from, until, speed }) => {
                let a = adapter_named(&model.adapters, &model.host_names, adapter, &format!("{field}.adapter"))?;
                let rate = speed.0 / 1e9;
                let start = FaultAction::LinkRate { adapter: a, bytes_per_ns: Some(rate) };
                let stop = FaultAction::LinkRate { adapter: a, bytes_per_ns: model.adapters[a].bytes_per_ns };
                let span = plan.window(from.0, *until, start, stop, &field)?;
                let written = adapters_written(&model.adapters, &model.host_names);
                check_overlap(&mut speed_windows, &[a], span, i, "adapter", |a| written[a].clone())?;
            }
        }
    }
    Ok(plan.into_changes())
}

/// Paths whose runtime name is `prefix` or starts with `prefix:`.
fn paths_matching(model: &Model, prefix: &str) -> Vec<usize> {
    model
        .paths
        .iter()
        .enumerate()
        .filter(|(_, p)| &*p.name == prefix || p.name.starts_with(&format!("{prefix}:")))
        .map(|(i, _)| i)
        .collect()
}

/// The paths of `devices` through `array`'s ports.
fn paths_on_array(model: &Model, devices: &[usize], array: usize) -> Vec<usize> {
    devices
        .iter()
        .flat_map(|&d| model.devices[d].paths.iter().copied())
        .filter(|&p| model.ports[model.paths[p].port].array == array)
        .collect()
}

/// When an ANA change of `paths` from `at_ns` lasting `lasts_ns` ends (on a SCSI host, an ALUA
/// transition: `model::alua_transition`); refused unless every path's device reads ANA groups
/// or target port groups, on an NVMe stack whose controller reports ANATT or a SCSI stack whose
/// handling of the Transitioning state is modelled.
fn ana_change_end(
    model: &Model,
    paths: &[usize],
    at_ns: TimeNs,
    lasts_ns: DurationNs,
    field: &str,
) -> Result<TimeNs, FieldError> {
    if lasts_ns.0 == 0 {
        return err(field.to_string(), "must be above zero (leave it out for a change at once)");
    }
    for &p in paths {
        let device = &model.devices[model.paths[p].device];
        let stack = device.policy_config.host_stack();
        let port = &model.ports[model.paths[p].port];
        if device.path_states != SatpKind::Alua {
            let array = &model.arrays[port.array];
            if array.tpgs {
                // The array reports them; the host's prioritizer (or SATP) does not read them.
                return err(
                    field.to_string(),
                    format!(
                        "{} does not read the ALUA states array \"{}\" reports (its prioritizer or SATP is not \
                         ALUA's): a change is modelled where the host reads them (prio alua, an ALUA SATP)",
                        device.name, array.name
                    ),
                );
            }
            return err(
                field.to_string(),
                format!("array \"{}\" reports no ANA groups: give it tpgs = true", array.name),
            );
        }
        if !matches!(stack, HostStack::LinuxNvme | HostStack::Spdk) {
            // SCSI: the ALUA Transitioning state, where the stack's handling of it is sourced.
            TransitionRule::of(&device.policy_config, None).map_err(|why| {
                (field.to_string(), format!("{} cannot pass through a transition: {why}", device.name))
            })?;
            continue;
        }
        let controller = &model.controllers[port.controller];
        if controller.anatt_ns.is_none() {
            let array = &model.arrays[port.array];
            return err(
                field.to_string(),
                format!(
                    "controller {} of array \"{}\" reports no ANATT: give the array's anatt (or the controller's), \
                     the Identify Controller value `nvme id-ctrl` prints",
                    controller.name, array.name
                ),
            );
        }
    }
    Ok(at_ns.saturating_add(lasts_ns.0))
}
