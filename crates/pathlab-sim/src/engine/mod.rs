//! The discrete-event kernel: integer-nanosecond time, an event queue that keeps equal-time
//! events in the order they were scheduled, seeded random streams, and the I/O slab.

pub mod dist;
pub mod event_queue;
pub mod fifo;
pub mod level;
pub mod min_heap;
pub mod rng;
pub mod scheduler;
pub mod slab;

/// Simulated time in nanoseconds.
pub type TimeNs = u64;
