//! Stations that never make work wait: in the plain plan (`plan.rs`), a station with at least as
//! many servers as I/Os can ever reach it ends its service where the trip back is scheduled.
//!
//! Every I/O at a station holds a command slot of its device (started, not completed: the plain
//! plan has no per-path queue, no NVMe head and no abort), so the I/Os a station can hold at once
//! are at most the queue depths of the devices with a path through it. With that many servers
//! nothing ever queues there, and when the station is the route's last step its end does nothing
//! but schedule the trip back (`route.rs`, `respond`): the I/O's `Complete` is scheduled at once,
//! the service time and the trip later, and the `StationDone` event (a heap push and pop, the
//! dispatch and the ticket's check, about 100 instructions an I/O on 1 × 8 × 32) is not made.
//!
//! The station's busy level (its utilisation is printed) takes the whole service when it starts
//! (`Level::hold`); the warm-up's and the end's snapshots, the only ones whose busy areas are
//! read, take the part still to come off (`take_off_services_to_come`), found from the pending
//! `Complete` events: each one's time less its path's one-way trip is the end of its service.
//!
//! This moves the order of events at equal times, and with it some outputs. The queue runs
//! events due at the same nanosecond in the order they were scheduled; the `Complete` is now
//! scheduled at the service's start, where before it was scheduled at its end (by `respond`, at
//! the `StationDone`). An event due at the same nanosecond and scheduled between the two ran
//! before the `Complete` and now runs after it. It is a tie-break, first scheduled first in both
//! versions, and the output stays the same bytes for the same scenario and seed; but with fixed
//! times, where many events fall on the same nanosecond, it changes the order in which round
//! robin sees completions and so which path later I/Os take. Session 27's review found it on
//! `scripts/engine_outputs/ties.toml` (1 device of queue depth 32, 4 ports of 32 servers,
//! service fixed 20 us, half writes with a write latency of 100 us, 50 us links): per path
//! reads/s and DAVG, the ports' commands/s and round robin's `lastPathIndex` differ from the
//! build before; the summary does not. No shipped scenario takes this shortcut
//! (`scripts/engine_outputs.sh` runs that file by its whole result so that a future change to
//! the order is seen).

use super::known_at_send::trip_out_ns;
use super::{Event, Simulation};
use crate::engine::TimeNs;
use crate::model::Step;
use crate::observe::Snapshot;

impl Simulation {
    /// Per station: whether it never makes work wait (all false outside the plain plan, and where
    /// a device without a queue depth, a bio-based one, has a path through it).
    pub(super) fn stations_that_never_wait(&self) -> Vec<bool> {
        let m = &self.model;
        if !self.plain {
            return vec![false; m.stations.len()];
        }
        // The devices' queue depths that reach each station, each device counted once.
        let mut reach = vec![0u64; m.stations.len()];
        let mut counted_for = vec![usize::MAX; m.stations.len()];
        for path in &m.paths {
            let device = &m.devices[path.device];
            let depth = if device.bio_based { u64::MAX } else { u64::from(device.queue_depth) };
            for &route in &path.routes {
                for step in &m.routes[route as usize] {
                    if let Step::Serve(st) = *step {
                        let st = st as usize;
                        if counted_for[st] != path.device {
                            counted_for[st] = path.device;
                            reach[st] = reach[st].saturating_add(depth);
                        }
                    }
                }
            }
        }
        m.stations.iter().zip(reach).map(|(s, reach)| reach <= u64::from(s.servers)).collect()
    }

    /// Takes the services still to come at the snapshot's time off the busy areas of the stations
    /// that never make work wait (their services were held whole when they started, or when the
    /// command was sent on a route known at the send, `known_at_send.rs`: then a command still
    /// on its way out is taken off the station's commands too).
    pub(super) fn take_off_services_to_come(&self, snapshot: &mut Snapshot) {
        if !self.never_wait_any {
            return;
        }
        let now = self.events.now();
        for (at, event) in self.events.pending() {
            let Event::Complete { io, .. } = *event else { continue };
            let r = self.ios.get(io);
            let Some(&Step::Serve(st)) = self.model.routes[r.route as usize].last() else { continue };
            if !self.never_wait[st as usize] {
                continue;
            }
            let one_way = self.model.paths[r.path as usize].one_way_ns;
            let served_until: TimeNs = at - one_way;
            // Known at the send: its service starts as the command arrives, a trip out after the
            // send (`send_on`); an arrival at the snapshot's very time came after it (the
            // warm-up's and the end's events were scheduled first).
            let mut started = 0;
            if self.known_at_send[r.route as usize].is_some() {
                started = r.dispatched_at.saturating_add(trip_out_ns(r.is_write, one_way));
                if started >= now {
                    snapshot.station_commands[st as usize] -= 1;
                }
            }
            if served_until > now {
                snapshot.station_busy_area[st as usize] -= u128::from(served_until - now.max(started));
            }
        }
    }
}
