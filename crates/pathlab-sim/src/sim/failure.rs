//! Faults and what the host does about them: failing and taking back paths, commands that end
//! in error or time out, the retry of their I/O, and the I/O of a device that has no usable
//! path. Which stack does what, and when, is `model::stack`; this is the mechanism.
//!
//! Counting: an *error* is a command that ended badly on a path (aborted because the host
//! failed the path, timed out, or answered with an error status); a *retry* is the I/O queued
//! again after it (on the device) and issued again (on the path it goes down); a *failover* is
//! a retry issued on another path than the one that erred, counted on the path it left.

use super::{Event, IoState, Simulation, NEVER_SENT};
use crate::engine::TimeNs;
use crate::model::fault::FaultAction;
use crate::model::stack::{Found, NoPath, OnPathError, Reinstate, SCSI_UNCONFIRMED_ABORT};
use crate::model::{Device, Model, Outage, Step};
use crate::observe::result::HostEvent;
use crate::scenario::schema::Detection;
use crate::workload::Loop;
use pathlab_policy::{AluaState, IoDone, PathId};

/// Whether an I/O `abandon` gives up has already been taken out of its adapter's or path's
/// queue (`abort_commands` empties them in one pass).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dequeued {
    Already,
    No,
}

/// `Event::Detect`'s step for the end of a blocked path's hold.
pub(super) const HOLD_ENDS: u8 = u8::MAX;

/// Something the host saw, for the run's event log.
#[derive(Clone, Copy, Debug)]
pub(super) enum Seen {
    LinkDown,
    LinkUp,
    PathFailed,
    PathReinstated,
    Alua(AluaState),
    NoPath,
    GaveUp,
    PathRestored,
    Marginal,
    NotMarginal,
    /// The array moved the LUN to this controller (its own balancing).
    OwnerMoved(usize),
    /// multipathd holds the path failed: it keeps failing and coming back.
    PathDelayed,
    /// NVMe: the path's ANA group enters (`true`) or leaves the change state.
    AnaChange(bool),
    /// Linux NVMe: ANATT ran out twice over in the change state: the controller is reset.
    AnattReset,
    /// SPDK: ANATT ran out in the change state: the path no longer keeps I/O waiting.
    AnattExpired,
    /// Linux SCSI: the path's group transitioned past scsi_dh_alua's timeout: set standby.
    TransitionTimedOut,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct LogEntry {
    t_ns: TimeNs,
    device: usize,
    path: Option<usize>,
    seen: Seen,
}

impl LogEntry {
    /// The event as a result gives it, its device named as the interval rows name it.
    pub(super) fn to_result(self, m: &Model, devices: &[String]) -> HostEvent {
        let (event, detail) = match self.seen {
            Seen::OwnerMoved(c) => ("owner_moved", m.controllers[c].name.as_str()),
            Seen::LinkDown => ("link_down", ""),
            Seen::LinkUp => ("link_up", ""),
            Seen::PathFailed => ("path_failed", ""),
            Seen::PathReinstated => ("path_reinstated", ""),
            Seen::Alua(state) => ("alua", state.short_name()),
            Seen::NoPath => ("no_path", ""),
            Seen::GaveUp => ("gave_up", ""),
            Seen::PathRestored => ("path_restored", ""),
            Seen::Marginal => ("marginal", ""),
            Seen::NotMarginal => ("not_marginal", ""),
            Seen::PathDelayed => ("path_delayed", ""),
            Seen::AnaChange(on) => ("ana_change", if on { "start" } else { "end" }),
            Seen::AnattReset => ("anatt_reset", ""),
            Seen::AnattExpired => ("anatt_expired", ""),
            Seen::TransitionTimedOut => ("transition_timeout", ""),
        };
        HostEvent {
            t_s: self.t_ns as f64 / 1e9,
            device: devices[self.device].clone(),
            path: self.path.map_or_else(String::new, |p| m.paths[p].name.to_string()),
            event: event.to_string(),
            detail: detail.to_string(),
        }
    }
}

impl Simulation {
    pub(super) fn note(&mut self, device: usize, path: Option<usize>, seen: Seen) {
        self.log.push(LogEntry { t_ns: self.events.now(), device, path, seen });
    }

    pub(super) fn note_path(&mut self, p: usize, seen: Seen) {
        self.note(self.model.paths[p].device, Some(p), seen);
    }

    pub(super) fn apply_fault(&mut self, index: usize) {
        // Out of the simulation while it is applied, which changes the simulation.
        let faults = std::mem::take(&mut self.faults);
        match &faults[index].action {
            FaultAction::Cut { paths, change, detection } => {
                for &p in paths {
                    let path = &mut self.model.paths[p];
                    path.cuts = change.applied_to(path.cuts);
                    self.connection_changed(p, *detection);
                }
            }
            FaultAction::Port { port, change, detection } => {
                let downs = &mut self.model.ports[*port].downs;
                *downs = change.applied_to(*downs);
                for p in 0..self.model.paths.len() {
                    if self.model.paths[p].port == *port {
                        self.connection_changed(p, *detection);
                    }
                }
            }
            FaultAction::Alua { paths, state } => {
                for &p in paths {
                    let seen_before = self.model.policy_alua(p);
                    self.update_alua(p, *state, seen_before);
                    let d = self.model.paths[p].device;
                    self.wake_waiting(d);
                    self.dispatch_device(d);
                }
            }
            FaultAction::Failover { devices, array, owner } => self.failover(devices, *array, *owner),
            FaultAction::AnaChange { paths, on } => self.ana_change(paths, *on),
            FaultAction::Marginal { paths, marginal } => {
                for &p in paths {
                    let d = self.model.paths[p].device;
                    self.model.devices[d].policy.set_marginal(PathId(p as u32), *marginal);
                    self.note_path(p, if *marginal { Seen::Marginal } else { Seen::NotMarginal });
                    self.dispatch_device(d);
                }
            }
            FaultAction::Errors { paths, profile } => {
                paths.iter().for_each(|&p| self.model.paths[p].set_errors(*profile))
            }
            FaultAction::Congestion { paths, added_ns, add } => {
                paths.iter().for_each(|&p| self.model.paths[p].add_latency(*added_ns, *add))
            }
            FaultAction::Drain { paths, drain } => paths.iter().for_each(|&p| self.model.paths[p].set_drain(*drain)),
            FaultAction::Replication { groups, suspended } => {
                groups.iter().for_each(|&g| self.model.replications[g].suspended = *suspended)
            }
            FaultAction::LinkRate { adapter, bytes_per_ns } => {
                self.model.adapters[*adapter].bytes_per_ns = *bytes_per_ns
            }
        }
        self.faults = faults;
    }

    /// The path's link or port changed. A loss the link reports is handled as the stack does
    /// (`StackRules::on_link_loss`: at once, or after holding the path's I/O); one it does not
    /// report is found by the stack's probes or by a command's timeout, whichever comes first; a
    /// loss at time zero is the state the run starts in, failed already. A path that works again
    /// is taken back when the stack would notice.
    fn connection_changed(&mut self, p: usize, detection: Detection) {
        let path = &self.model.paths[p];
        let connected = path.cuts == 0 && self.model.ports[path.port].downs == 0;
        if connected == path.connected {
            return;
        }
        let now = self.events.now();
        let path = &mut self.model.paths[p];
        path.connected = connected;
        if !connected {
            path.lost_at_ns = Some(now);
            path.reset_at_ns = None;
            path.losses += 1;
        }
        let loss = path.losses;
        self.note_path(p, if connected { Seen::LinkUp } else { Seen::LinkDown });
        let rules = self.model.devices[self.model.paths[p].device].stack;
        if connected && rules.target_quiesce_ns == Some(SCSI_UNCONFIRMED_ABORT) {
            // The nexus logs in again: the target has let go of what the loss left it.
            self.model.paths[p].reset_at_ns = Some(now);
        }
        if connected {
            if self.model.paths[p].blocked {
                // The port is back before the hold ran out: what it held is sent again.
                self.model.paths[p].blocked = false;
                self.abort_commands(p);
            }
            if !self.model.paths[p].up {
                let silent = rules.silent_reinstate.filter(|_| detection == Detection::Timeout);
                self.schedule_reinstate(p, silent);
            }
        } else if now == 0 {
            // Lost when the run starts (an imported listing's failed path): the host has
            // already found it and failed it.
            self.host_fail_path(p, true);
        } else if detection == Detection::Link {
            self.found(p, self.model.loss_rules(p).0, loss);
        } else {
            for (step, probe) in self.model.loss_rules(p).1.iter().enumerate() {
                if let Some(probe) = probe {
                    let at = self.probe_finds_at(p, step, *probe);
                    self.events.at(at, Event::Detect { path: p as u32, loss, step: step as u8 });
                }
            }
        }
    }

    /// The host has found that path `p` lost its connection: it fails the path at once or after
    /// holding its I/O, or fails it for new I/O only.
    fn found(&mut self, p: usize, what: Found, loss: u32) {
        match what {
            Found::Fail { hold_ns: 0 } => self.host_fail_path(p, true),
            Found::Fail { hold_ns } => {
                if !self.model.paths[p].blocked && self.model.paths[p].up {
                    self.model.paths[p].blocked = true;
                    self.events.after(hold_ns, Event::Detect { path: p as u32, loss, step: HOLD_ENDS });
                }
            }
            Found::FailNewIo => self.host_fail_path(p, false),
        }
    }

    /// A detection timer of path `p` runs out; nothing happens if the loss it was for is over.
    pub(super) fn detect(&mut self, p: usize, loss: u32, step: u8) {
        let path = &self.model.paths[p];
        if path.connected || path.losses != loss {
            return;
        }
        if step == HOLD_ENDS {
            self.model.paths[p].blocked = false;
            return self.host_fail_path(p, true);
        }
        if let Some(probe) = self.model.loss_rules(p).1[usize::from(step)] {
            self.found(p, probe.then, loss);
        }
    }

    /// The host failed path `p`, which works: it takes it back at its checker's next tick, its
    /// next reconnect attempt, or at once, by its stack; or by `silent`, for a path back
    /// without a link event.
    pub(super) fn schedule_reinstate(&mut self, p: usize, silent: Option<Reinstate>) {
        let path = &self.model.paths[p];
        let rule = silent.unwrap_or(self.model.devices[path.device].stack.reinstate);
        let at = rule.at(path.failed_at_ns, self.events.now());
        if at == self.events.now() {
            self.host_reinstate_path(p);
        } else {
            self.events.at(at, Event::Reinstate { path: p as u32 });
        }
    }

    /// The checker (or a reconnect attempt) looks at a path the host failed, or holds.
    pub(super) fn checker_sees(&mut self, p: usize) {
        // A transitioning group refuses the checker's command too (`alua_transition.rs`).
        if self.model.paths[p].connected && !self.model.paths[p].transitioning && !self.shaky_check(p) {
            self.host_reinstate_path(p);
        }
    }

    /// The host stops using path `p`: the policy is told, and (`abort`) every command on the
    /// path is aborted and retried, ahead of the I/Os that never left the kernel.
    pub(super) fn host_fail_path(&mut self, p: usize, abort: bool) {
        if !self.model.paths[p].up {
            // Failed for new I/O already (the checker): a lost command's timeout ends the rest.
            if abort && !self.model.paths[p].connected {
                self.abort_commands(p);
            }
            return;
        }
        let path = &mut self.model.paths[p];
        path.up = false;
        path.failed_at_ns = self.events.now();
        let d = path.device;
        self.model.devices[d].policy.fail_path(PathId(p as u32));
        self.note_path(p, Seen::PathFailed);
        self.controllers_changed(d);
        self.shaky_failed(p);
        if abort {
            self.abort_commands(p);
        }
        if self.model.paths[p].connected {
            self.schedule_reinstate(p, None);
        }
        self.dispatch_device(d);
    }

    /// Every command on path `p` is aborted and its I/O retried (or held, `retry_or_hold`).
    pub(super) fn abort_commands(&mut self, p: usize) {
        let (d, a) = (self.model.paths[p].device, self.model.paths[p].adapter());
        let aborted: Vec<u32> = self
            .ios
            .iter_mut()
            .filter(|(_, r)| {
                r.path as usize == p
                    && matches!(
                        r.state,
                        IoState::InFlight | IoState::WaitAdapter | IoState::WaitTag | IoState::WaitPath
                    )
            })
            .map(|(i, _)| i)
            .collect();
        // The adapter's and the path's queues give up this path's I/Os in one pass each (one
        // pass per I/O was quadratic in a long queue).
        let ios = &self.ios;
        self.model.adapters[a].waiting.retain(|&w| ios.get(w).path as usize != p);
        self.model.paths[p].waiting.clear();
        // Those still waiting for a tag or for the path's own queue leave first, so that the
        // tags and slots the others free do not send them down the failed path.
        let (waiting, started): (Vec<u32>, Vec<u32>) =
            aborted.iter().partition(|&&io| matches!(self.ios.get(io).state, IoState::WaitTag | IoState::WaitPath));
        for io in waiting.into_iter().chain(started) {
            self.abandon(io, Dequeued::Already);
        }
        for &io in aborted.iter().rev() {
            self.retry_or_hold(io, p);
        }
        self.dispatch_adapter(a);
        self.dispatch_device(d);
    }

    /// `io` erred on path `p` and will be retried: at once, after the stack's retry delay
    /// (MPIO's RetryInterval), or, when the path lost its connection and the stack holds such
    /// I/O (TP4129), after the hold (TP8028's cross-controller reset ends it once another
    /// controller confirms).
    fn retry_or_hold(&mut self, io: u32, p: usize) {
        let d = self.model.paths[p].device;
        let rules = self.model.devices[d].stack;
        let now = self.events.now();
        let lost_hold = rules.failover_hold.filter(|_| !self.model.paths[p].connected).map(|hold| {
            match self.confirming_round_trip(p).filter(|_| hold.ccr) {
                Some(trip) if trip < hold.hold_ns => {
                    let reset = self.model.paths[p].reset_at_ns.get_or_insert(now + trip);
                    (*reset).max(now)
                }
                _ => now + hold.hold_ns,
            }
        });
        // MPIO retries a failed request only after its RetryInterval.
        let until = match (lost_hold, rules.retry_delay_ns) {
            (None, 0) => return self.requeue(io, p),
            (hold, delay) => hold.unwrap_or(now).max(now + delay),
        };
        let r = self.ios.get_mut(io);
        r.state = IoState::Queued;
        r.retry_of = p as u32;
        self.rec.io_requeued(&mut self.model, d);
        self.model.devices[d].queued.add(now, 1);
        if self.held[p].last().is_none_or(|&(_, t)| t != until) {
            self.events.at(until, Event::Release { path: p as u32 });
        }
        self.held[p].push((io, until));
    }

    /// TP8028: the round trip of a cross-controller reset sent down a working path of the
    /// device to another controller than path `p`'s; `None` if there is none.
    fn confirming_round_trip(&self, p: usize) -> Option<TimeNs> {
        let m = &self.model;
        let controller = m.ports[m.paths[p].port].controller;
        m.devices[m.paths[p].device]
            .paths
            .iter()
            .map(|&q| &m.paths[q])
            .filter(|q| q.connected && q.up && m.ports[q.port].controller != controller)
            .map(|q| 2 * q.one_way_ns)
            .min()
    }

    /// The held I/O of path `p` whose hold is over goes back to the front of its device's
    /// queue, oldest first.
    pub(super) fn release_held(&mut self, p: usize) {
        let now = self.events.now();
        let (due, kept): (Vec<_>, Vec<_>) = self.held[p].iter().partition(|&&(_, t)| t <= now);
        self.held[p] = kept;
        let d = self.model.paths[p].device;
        for &(io, _) in due.iter().rev() {
            self.model.devices[d].queue_push_front(io);
        }
        self.dispatch_device(d);
    }

    pub(super) fn host_reinstate_path(&mut self, p: usize) {
        if self.model.paths[p].up {
            return;
        }
        self.model.paths[p].up = true;
        let d = self.model.paths[p].device;
        self.model.devices[d].policy.reinstate_path(PathId(p as u32));
        self.note_path(p, Seen::PathReinstated);
        self.ana_reconnected(p);
        self.controllers_changed(d);
        self.wake_waiting(d);
        self.dispatch_device(d);
    }

    /// The array now reports `state` for path `p`. The policy hears of it through the SATP,
    /// when the state it sees (`seen_before` until now) changes.
    fn update_alua(&mut self, p: usize, state: AluaState, seen_before: AluaState) {
        if self.model.paths[p].alua != state {
            self.model.paths[p].alua = state;
            self.note_path(p, Seen::Alua(state));
        }
        let seen = self.model.policy_alua(p);
        if seen != seen_before {
            self.model.devices[self.model.paths[p].device].policy.set_alua_state(PathId(p as u32), seen);
        }
    }

    /// Controller `owner` takes over the devices' LUNs on `array`: their paths there get new
    /// ALUA states and new routes. I/O already on the old routes finishes on them.
    pub(super) fn failover(&mut self, devices: &[usize], array: usize, owner: usize) {
        for &d in devices {
            let m = &self.model;
            let paths: Vec<usize> =
                m.devices[d].paths.iter().copied().filter(|&p| m.ports[m.paths[p].port].array == array).collect();
            let seen_before: Vec<AluaState> = paths.iter().map(|&p| m.policy_alua(p)).collect();
            let owners = &mut self.model.devices[d].owners;
            owners.iter_mut().filter(|o| o.0 == array).for_each(|o| o.1 = owner);
            for (&p, before) in paths.iter().zip(seen_before) {
                self.model.set_routes(p);
                let reported = self.model.reported_alua(d, self.model.paths[p].port);
                self.update_alua(p, reported, before);
            }
            self.wake_waiting(d);
            self.dispatch_device(d);
        }
    }

    /// The host gives up the command of `io` on its path: its adapter slot (or its place in
    /// the adapter's queue), its hold on an extent and the policy's count of it go, and the
    /// error is counted. The array may still be working on it; a command that never left the
    /// host is marked so (`NEVER_SENT`), for the hazard count.
    fn abandon(&mut self, io: u32, dequeued: Dequeued) {
        let now = self.events.now();
        let r = *self.ios.get(io);
        let (d, p) = (r.device as usize, r.path as usize);
        let a = self.model.paths[p].adapter();
        let queued_here = dequeued == Dequeued::No;
        match r.state {
            IoState::InFlight => {
                self.release_slot(p);
                self.release_tag(io);
            }
            IoState::WaitAdapter => {
                let adapter = &mut self.model.adapters[a];
                if queued_here {
                    adapter.waiting.retain(|&w| w != io);
                }
                adapter.queued.add(now, -1);
                self.release_tag(io);
            }
            IoState::WaitTag => {
                let slot = self.tag_slot(io).expect("only an NVMe head's I/O waits for a tag");
                self.model.tags.leave(slot, io);
            }
            IoState::WaitPath if queued_here => self.model.paths[p].waiting.retain(|&w| w != io),
            IoState::WaitPath => {}
            other => unreachable!("abandon: an I/O {other:?} has no command on a path"),
        }
        if r.state != IoState::InFlight {
            self.ios.get_mut(io).dispatched_at = NEVER_SENT;
        }
        self.release_extent(io);
        // (An I/O given up unsent twice in a row no longer knows its last send: 0.)
        let done = IoDone { now_ns: now, latency_ns: now.saturating_sub(r.dispatched_at), failed: true };
        self.model.devices[d].policy.end_io(PathId(p as u32), &r.desc(), &done);
        // A request still waiting for its tag or its path's slot was counted as queued (by
        // `queue_push_back`, or by `place` for one just issued); a started one holds its path's slot.
        if matches!(r.state, IoState::WaitTag | IoState::WaitPath) {
            self.model.devices[d].queued.add(now, -1);
        } else {
            self.model.devices[d].active.add(now, -1);
            self.leave_path(d, p);
        }
        self.rec.command_error(&mut self.model, d, p, a);
    }

    /// `io` goes back to the front of its device's queue, to be retried.
    fn requeue(&mut self, io: u32, from: usize) {
        let r = self.ios.get_mut(io);
        r.state = IoState::Queued;
        r.retry_of = from as u32;
        let d = r.device as usize;
        self.rec.io_requeued(&mut self.model, d);
        let device = &mut self.model.devices[d];
        device.queued.add(self.events.now(), 1);
        device.queue_push_front(io);
    }

    /// A retry of an I/O that erred on path `from` is issued on path `to`. A write whose first
    /// copy reached the target before `from` lost its connection, retried elsewhere before the
    /// target has surely stopped executing it (`StackRules::target_quiesce_ns` after the loss,
    /// a confirmed cross-controller reset, or on SCSI the path's new login), is a hazard: the
    /// first copy could land after the retry.
    pub(super) fn count_retry(&mut self, d: usize, from: usize, to: usize, write_sent_at: Option<TimeNs>) {
        let on = |p: usize| (p, self.model.paths[p].adapter());
        let (from_pair, to_pair) = (on(from), on(to));
        self.rec.retry_issued(&mut self.model, d, from_pair, to_pair);
        let (Some(sent), Some(lost), Some(quiesce)) =
            (write_sent_at, self.model.paths[from].lost_at_ns, self.model.target_quiesce_ns(from))
        else {
            return;
        };
        let now = self.events.now();
        let reset = self.model.paths[from].reset_at_ns.is_some_and(|t| t <= now);
        if from != to && sent < lost && now < lost.saturating_add(quiesce) && !reset {
            self.hazards[d] += 1;
        }
    }

    /// `io` fails for good: the application sees the error, and a closed-loop worker issues
    /// its next I/O after its backoff.
    fn fail_io(&mut self, io: u32) {
        let r = self.ios.get(io);
        let w = r.worker as usize;
        let device = &mut self.model.devices[r.device as usize];
        self.rec.io_failed(&mut device.watch, &mut device.failed, self.events.now());
        self.retire(io);
        if self.issuing && matches!(self.workers[w].mode, Loop::Closed { .. }) {
            let at = self.events.now() + self.workers[w].error_backoff_ns;
            self.events.at(at, Event::Reissue { worker: w as u32 });
        }
    }

    /// The command of `io` ended in error on its path: an error status, or the host's timeout.
    /// The I/O is retried unless it has used up its stack's retries. The path is failed if it
    /// is really down (the stack's probe of it fails too) or if the stack fails a path on any
    /// error (dm).
    pub(super) fn command_error(&mut self, io: u32) {
        let r = *self.ios.get(io);
        let (d, p) = (r.device as usize, r.path as usize);
        self.abandon(io, Dequeued::No);
        let rules = self.model.devices[d].stack;
        let errors = r.errors.saturating_add(1);
        self.ios.get_mut(io).errors = errors;
        if rules.max_retries.is_some_and(|max| u32::from(errors) > max) {
            self.fail_io(io);
        } else {
            self.retry_or_hold(io, p);
        }
        if !self.model.paths[p].connected || rules.on_error == OnPathError::FailPath {
            self.host_fail_path(p, true);
        }
        self.dispatch_adapter(self.model.paths[p].adapter());
        self.dispatch_device(d);
    }

    /// The response of `io` reaches the host on a faulty path: lost if the path has lost its
    /// connection (the host's timeout will end the command), an error status if the array
    /// rejected it (its route ends in `Reject`: sent while the LUN was inaccessible there), or
    /// an error status at the path's error rate. True when the I/O does not complete now.
    pub(super) fn faulty_response(&mut self, io: u32, p: usize) -> bool {
        let path = &self.model.paths[p];
        if path.blocked {
            // Held by the blocked path until the host fails it.
            return true;
        }
        if !path.connected {
            let r = self.ios.get(io);
            let timeout = self.model.devices[path.device].stack.io_timeout_ns;
            let at = (r.dispatched_at + timeout).max(self.events.now());
            self.events.at(at, Event::Timeout { io, attempt: r.attempt });
            return true;
        }
        let now = self.events.now();
        let rejected = self.model.routes[self.ios.get(io).route as usize].last() == Some(&Step::Reject);
        let fails = rejected || path.errors().is_some_and(|e| e.fails(now, &mut self.fault_rng[p]));
        if fails {
            self.command_error(io);
        }
        fails
    }

    /// The policy has no usable path for the device's next I/O. By the stack's rule what is
    /// queued waits for a path (until the stack gives up), or fails at once.
    pub(super) fn no_usable_path(&mut self, d: usize) {
        if self.model.devices[d].outage == Outage::None {
            self.note(d, None, Seen::NoPath);
            let outage = match self.model.devices[d].stack.no_path {
                NoPath::Fail => Outage::GivenUp,
                NoPath::Queue { give_up_after_ns } => {
                    self.outages += 1;
                    let episode = self.outages;
                    let give_up_at = match self.model.devices[d].stack.controllers {
                        // NVMe: while a controller may return, counted from their failures.
                        Some(wait) => self.controllers_give_up_at(d, wait),
                        None => give_up_after_ns.map(|wait| self.events.now().saturating_add(wait)),
                    };
                    if let Some(at) = give_up_at {
                        self.events.at(at, Event::GiveUp { device: d as u32, episode });
                    }
                    Outage::Waiting { episode }
                }
            };
            self.model.devices[d].outage = outage;
        }
        match &mut self.model.devices[d] {
            Device { outage: Outage::GivenUp, .. } => self.fail_waiting(d),
            device => device.queue_onto_no_path(),
        }
    }

    /// The device has had no path as long as its stack waits: what waits fails, and so will
    /// new I/O until a path is back.
    pub(super) fn give_up(&mut self, d: usize, episode: u32) {
        if self.model.devices[d].outage != (Outage::Waiting { episode }) {
            return;
        }
        self.model.devices[d].outage = Outage::GivenUp;
        self.note(d, None, Seen::GaveUp);
        self.fail_waiting(d);
    }

    /// The policy found a path again for a device that had none.
    pub(super) fn path_restored(&mut self, d: usize) {
        self.model.devices[d].outage = Outage::None;
        self.note(d, None, Seen::PathRestored);
    }

    /// Every I/O waiting in the device's queues fails.
    pub(super) fn fail_waiting(&mut self, d: usize) {
        loop {
            let device = &mut self.model.devices[d];
            let Some(io) = device.no_path.pop_front().or_else(|| device.queue_pop_front()) else {
                return;
            };
            device.queued.add(self.events.now(), -1);
            self.fail_io(io);
        }
    }

    /// I/O waiting for a path goes back to the front of its device's queue, to try again.
    pub(super) fn wake_waiting(&mut self, d: usize) {
        let device = &mut self.model.devices[d];
        if device.no_path.is_empty() {
            return;
        }
        let waiting = std::mem::take(&mut device.no_path);
        device.queue_behind(waiting);
    }
}
