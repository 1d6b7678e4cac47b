//! Routes whose answer is known when the command is sent: in the plain plan (`plan.rs`), a route
//! that is one station that never makes work wait (`never_wait.rs`) ends, for certain, one trip
//! out, one service and one trip back after the send. The I/O's `Complete` is scheduled then, and
//! the command's arrival at the port is no event of its own.
//!
//! Why it is exact. In the plain plan nothing can happen to a command between its send and its
//! arrival (no fault, timeout, refusal or path change is ever scheduled; the path's one-way time
//! is a constant of the model), the station serves it as it arrives (it has a server for every
//! command that can reach it), and the service time is the I/O's own draw
//! (`stage_quantile(service_key, 0)`: a function of the I/O, not of a stream's position), so it
//! is the same drawn at the send as at the arrival. The station's service is held whole at the
//! send (`Station::begin_held` from the arrival to the service's end); the warm-up's and the
//! end's snapshots take off what has not happened yet (`take_off_services_to_come`: a command
//! still on its way out is not counted, and the part of a service still to come is not busy).
//!
//! What it saves (session 28, callgrind at a 1 MiB last level on 10,000 × 8 × 1 of one array, a
//! build with line tables attributing misses to source lines): the arrival's
//! event read the I/O's record and its path's head again, some 60 µs after the send had them,
//! when a host of many devices has long evicted them, and went through a FIFO lane whose slot was
//! out of the cache both when written and when read: about 4.5 of the 14.7 lines an I/O missed.
//!
//! Like `never_wait.rs` it moves the order of events at equal times: the `Complete` takes its
//! sequence number at the send, not at the arrival. An event due at the same nanosecond and
//! scheduled between the two ran before it and now runs after it. Deterministic (first scheduled
//! first in both versions). Where every command takes the same trip out (reads only, or writes
//! only) completions keep their order; with reads and writes mixed (a write's trip out is three
//! one-way times, a read's one) completions due on the same nanosecond, a few in any long run
//! since times are whole nanoseconds, can swap, and with them which path round robin gives later
//! I/Os (`tests/plain_plan.rs`; `scripts/engine_outputs/mixed.toml` and `ties.toml`, compared by
//! their whole results).

use super::{Event, Simulation};
use crate::engine::rng::stage_quantile;
use crate::engine::TimeNs;
use crate::model::Step;

/// From the send to the command's arrival at the port, on a link that is nothing but its
/// one-way time (`send_on`): a read's command; a write's command, transfer-ready and data.
pub(super) fn trip_out_ns(is_write: bool, one_way_ns: TimeNs) -> TimeNs {
    if is_write {
        3 * one_way_ns
    } else {
        one_way_ns
    }
}

impl Simulation {
    /// Per route (`Model::routes`): the station, where the route is one station that never makes
    /// work wait and so known at the send (none outside the plain plan, as `never_wait` is).
    pub(super) fn routes_known_at_send(&self) -> Vec<Option<u32>> {
        let known = |route: &Vec<Step>| match route[..] {
            [Step::Serve(st)] if self.never_wait[st as usize] => Some(st),
            _ => None,
        };
        self.model.routes.iter().map(known).collect()
    }

    /// Sends I/O `io` (a command whose route, known at the send, is station `st`'s service) over
    /// a path of one-way time `one_way_ns`: the station's service is held from its arrival, and
    /// its `Complete` scheduled at the service's end and the trip back.
    #[inline(always)]
    pub(super) fn send_known(&mut self, io: u32, attempt: u32, st: u32, one_way_ns: TimeNs) {
        let r = self.ios.get_mut(io);
        r.stage = 1;
        let (bytes, key) = (r.bytes, r.service_key);
        let arrives = self.events.now().saturating_add(trip_out_ns(r.is_write, one_way_ns));
        let station = &mut self.model.stations[st as usize];
        let service = station.service.sample_ns(bytes, stage_quantile(key, 0));
        // The same sums as the arrival's event and `trip_back` made, so the same times.
        station.begin_held(arrives, arrives.saturating_add(service));
        self.events.at(arrives.saturating_add(service.saturating_add(one_way_ns)), Event::Complete { io, attempt });
    }
}
