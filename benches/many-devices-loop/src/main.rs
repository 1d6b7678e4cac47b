//! A hand-written loop of the scaling benchmark's host, to tell what a host of many devices costs
//! any simulator from what it costs pathlab's engine.
//!
//! The reference loop (`../shared/reference-models/minimal-rust`) has one device and no
//! per-object state beyond its eight servers. `pathlab bench --scaling`'s generated hosts have D
//! devices with N I/Os each in flight, round robin over P paths after every I/O, 50 µs of fabric
//! each way and a port that serves every I/O at once (exponential, mean 20 µs). This loop does
//! exactly that, tightly, and keeps the least a simulator must keep to print pathlab's figures:
//! esxtop's counters per device and per path, one response histogram per device (for its p99,
//! 2 significant digits) and one for all I/O (3 digits), in arrays indexed by device and by path.
//!
//! `cargo run --release --manifest-path benches/many-devices-loop/Cargo.toml -- DEVICES IN_FLIGHT
//! PATHS IOS [KEEP] [QUEUE]` prints the wall time per simulated I/O (set-up apart); `pathlab bench
//! --scaling --loop benches/many-devices-loop` runs it (`all heap`) beside each generated host.
//! To tell what each part costs on many devices:
//! - KEEP: `all` (the default), `counters` (no histogram per device) or `none` (no figure per
//!   device or path: the round-robin position only);
//! - QUEUE: `heap` (the default: one binary heap, as the reference loop) or `lanes` (the
//!   fixed-delay arrivals in a FIFO and only the departures in the heap, as pathlab's event
//!   queue, and the device responses into their histograms seven at a time, as pathlab on hosts
//!   of 1,000 devices or more).
use hdrhistogram::Histogram;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Instant;

const WIRE_NS: u64 = 50_000;
const SERVICE_MEAN_NS: f64 = 20_000.0;

/// xoshiro256** (the reference loop's generator).
struct Rng {
    s: [u64; 4],
}

impl Rng {
    fn new(seed: u64) -> Self {
        let mut z = seed;
        let mut s = [0u64; 4];
        for x in s.iter_mut() {
            z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut r = z;
            r = (r ^ (r >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            r = (r ^ (r >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            *x = r ^ (r >> 31);
        }
        Rng { s }
    }

    fn next_u64(&mut self) -> u64 {
        let r = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        r
    }

    fn expo_ns(&mut self, mean: f64) -> u64 {
        let u = ((self.next_u64() >> 11) as f64 + 1.0) * (1.0 / (1u64 << 53) as f64);
        (-mean * u.ln()) as u64
    }
}

/// esxtop's read counters of one object (the benchmark's I/O are 4 KiB reads).
#[derive(Clone, Copy, Default)]
struct Counters {
    commands: u64,
    bytes: u64,
    latency_ns: u64,
}

#[derive(Clone, Copy, Default)]
struct Device {
    next_path: u32,
    counters: Counters,
}

#[derive(Clone, Copy)]
struct Io {
    device: u32,
    path: u32,
    issued: u64,
}

/// What the loop keeps per device and per path.
#[derive(Clone, Copy, PartialEq)]
enum Keep {
    All,
    Counters,
    Nothing,
}

/// Device responses held before they go into the device's histogram (`lanes`): seven and a
/// count in one cache line, as pathlab held them until session 28 (fifteen `u32`s since).
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Held {
    values: [u64; 7],
    len: u64,
}

/// Time, then order of scheduling (FIFO on ties), then the I/O and whether it is its arrival.
type Event = Reverse<(u64, u64, u32, bool)>;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: many-devices-loop DEVICES IN_FLIGHT PATHS IOS [all|counters|none] [heap|lanes]";
    let number = |i: usize| -> u64 { args.get(i).and_then(|a| a.parse().ok()).expect(usage) };
    let (devices, in_flight, paths, target) = (number(0) as usize, number(1) as usize, number(2) as usize, number(3));
    let keep = match args.get(4).map_or("all", String::as_str) {
        "all" => Keep::All,
        "counters" => Keep::Counters,
        "none" => Keep::Nothing,
        _ => panic!("{usage}"),
    };
    let lanes = match args.get(5).map_or("heap", String::as_str) {
        "heap" => false,
        "lanes" => true,
        _ => panic!("{usage}"),
    };

    let set_up = Instant::now();
    let mut rng = Rng::new(1);
    let mut device = vec![Device::default(); devices];
    let mut path = vec![Counters::default(); devices * paths];
    let mut device_latency: Vec<Histogram<u32>> =
        (0..devices).map(|_| Histogram::new_with_bounds(1, 3_600_000_000_000, 2).unwrap()).collect();
    let mut latency = Histogram::<u64>::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
    let mut ios: Vec<Io> = Vec::with_capacity(devices * in_flight);
    let mut heap: BinaryHeap<Event> = BinaryHeap::with_capacity(2 * devices * in_flight);
    let mut seq = 0u64;
    let set_up = set_up.elapsed();

    let start = Instant::now();
    // Arrivals are a fixed delay after their issue: with `lanes` they wait in a FIFO (its order
    // is their time order), and only departures go to the heap.
    let mut arrivals: VecDeque<(u64, u32)> = VecDeque::with_capacity(if lanes { devices * in_flight } else { 0 });
    let mut held = vec![Held::default(); if lanes { devices } else { 0 }];
    // One I/O on its device's next path: round robin after every I/O.
    let issue = |io: u32, now: u64, ios: &mut [Io], device: &mut [Device]| {
        let d = ios[io as usize].device as usize;
        let dev = &mut device[d];
        let p = d * paths + dev.next_path as usize;
        dev.next_path = if dev.next_path as usize + 1 == paths { 0 } else { dev.next_path + 1 };
        ios[io as usize].path = p as u32;
        ios[io as usize].issued = now;
    };
    for d in 0..devices {
        for _ in 0..in_flight {
            ios.push(Io { device: d as u32, path: 0, issued: 0 });
            let io = ios.len() as u32 - 1;
            issue(io, 0, &mut ios, &mut device);
            if lanes {
                arrivals.push_back((WIRE_NS, io));
            } else {
                heap.push(Reverse((WIRE_NS, seq, io, true)));
                seq += 1;
            }
        }
    }
    let mut done = 0u64;
    loop {
        let next_arrival = arrivals.front().map_or(u64::MAX, |a| a.0);
        let (now, io, arrival) = match heap.peek() {
            Some(&Reverse((t, ..))) if t < next_arrival => {
                let Reverse((t, _, io, arrival)) = heap.pop().expect("peeked");
                (t, io, arrival)
            }
            _ => match arrivals.pop_front() {
                Some((t, io)) => (t, io, true),
                None => break,
            },
        };
        if arrival {
            // The port serves it at once; the response crosses the fabric back.
            let back = now + rng.expo_ns(SERVICE_MEAN_NS) + WIRE_NS;
            heap.push(Reverse((back, seq, io, false)));
            seq += 1;
            continue;
        }
        let record = ios[io as usize];
        let response = (now - record.issued).max(1);
        let d = record.device as usize;
        if keep != Keep::Nothing {
            for c in [&mut device[d].counters, &mut path[record.path as usize]] {
                c.commands += 1;
                c.bytes += 4096;
                c.latency_ns += response;
            }
        }
        if keep == Keep::All {
            if lanes {
                let h = &mut held[d];
                h.values[h.len as usize] = response;
                h.len += 1;
                if h.len == 7 {
                    h.values.iter().for_each(|&v| device_latency[d].saturating_record(v));
                    h.len = 0;
                }
            } else {
                device_latency[d].saturating_record(response);
            }
        }
        latency.saturating_record(response);
        done += 1;
        if done == target {
            break;
        }
        issue(io, now, &mut ios, &mut device);
        if lanes {
            arrivals.push_back((now + WIRE_NS, io));
        } else {
            heap.push(Reverse((now + WIRE_NS, seq, io, true)));
            seq += 1;
        }
    }
    let run = start.elapsed();
    let p99: u64 = device_latency.iter().map(|h| h.value_at_quantile(0.99)).max().unwrap_or(0);
    let commands: u64 = path.iter().map(|c| c.commands).sum();
    println!(
        "devices={devices} in_flight={in_flight} paths={paths} ios={done} ns_per_io={:.1} set_up_s={:.3} \
         mean_us={:.1} worst_device_p99_us={:.1} path_commands={commands}",
        run.as_nanos() as f64 / done as f64,
        set_up.as_secs_f64(),
        latency.mean() / 1000.0,
        p99 as f64 / 1000.0,
    );
}
