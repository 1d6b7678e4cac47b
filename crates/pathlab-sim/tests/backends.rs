//! Disk back ends against queueing theory, with every expected value derived here from the
//! component figures: a Seagate Cheetah 15K.7 (average seek 3.4 ms read, 3.9 ms write;
//! 15,000 rpm, so one revolution is 4 ms and the mean rotational latency 2 ms; 204 MB/s
//! outer-zone media rate) in RAID groups behind a port whose own time is negligible.

mod common;

use common::*;
use pathlab_sim::{run, RunResult};

const READ_SEEK_MS: f64 = 3.4;
const WRITE_SEEK_MS: f64 = 3.9;
const REVOLUTION_MS: f64 = 60_000.0 / 15_000.0;
const MEDIA_BYTES_PER_MS: f64 = 204e6 / 1e3;
const BLOCK: f64 = 8192.0;
/// The port's fixed service, paid once per I/O.
const PORT_MS: f64 = 0.001;

/// One disk operation on average: seek, half a revolution, the transfer.
fn service_ms(seek_ms: f64) -> f64 {
    seek_ms + REVOLUTION_MS / 2.0 + BLOCK / MEDIA_BYTES_PER_MS
}

/// One array, one port, one LUN on a RAID group; `group`, `cache` and `load` are TOML.
fn scenario(group: &str, cache: &str, load: &str, policy: &str) -> String {
    format!(
        r#"
[run]
duration = "20s"
warmup = "2s"
interval = "1s"
seed = 5

[host]
adapters = [{{ name = "vmhba1", queue_depth = 4096 }}]

[[arrays]]
name = "a"
read_latency = "200us"
write_latency = "100us"
service = {{ fixed = "1us" }}
ports = [{{ name = "P0" }}, {{ name = "P1" }}]
{cache}

[[arrays.raid_groups]]
name = "rg0"
{group}
disk = {{ seek = "3.4ms", write_seek = "3.9ms", rpm = 15000, transfer_rate = "204MB/s" }}

[[fabric]]
adapters = ["vmhba1"]
ports = ["a/P0", "a/P1"]
latency = "0us"

[[devices]]
name = "naa.1"
array = "a"
raid_group = "rg0"
queue_depth = 256

[policy]
{policy}

[[workloads]]
devices = ["naa.1"]
block_size = "8KiB"
range = "10GiB"
{load}
"#
    )
}

const RR1: &str = "name = \"VMW_PSP_RR\"\ntype = \"iops\"\niops = 1";
const RAID5: &str = "level = \"raid5\"\ndisks = 5";

fn run(text: &str) -> RunResult {
    common::run_text(text, "backends.toml")
}

#[test]
fn one_disk_at_low_load_answers_in_seek_plus_half_a_revolution_plus_transfer() {
    // One I/O at a time: nothing queues, so each read costs the port and one disk operation.
    let r = run(&scenario(RAID5, "", "outstanding = 1\nread_pct = 100", RR1));
    let expected = PORT_MS + service_ms(READ_SEEK_MS);
    assert!(close(r.summary.figures.resp_ms, expected, 0.02), "{} against {expected}", r.summary.figures.resp_ms);
    let g = &r.raid_groups[0];
    assert_eq!((g.read_hits, g.level.as_str(), g.disks), (0, "raid5", 5));
    // The disks were busy exactly while a read was on them: utilisation = X × S / disks.
    let util = r.summary.figures.iops * service_ms(READ_SEEK_MS) / 1e3 / 5.0 * 100.0;
    assert!(close(g.util_pct, util, 0.03), "{} against {util}", g.util_pct);
}

#[test]
fn a_raid5_group_saturates_at_its_disks_over_the_mean_service_on_random_reads() {
    // Closed loop far deeper than the disks (128 I/Os on 5 disks): every disk always has work,
    // so the group completes disks / S reads per second.
    let r = run(&scenario(RAID5, "", "outstanding = 128\nread_pct = 100", RR1));
    let expected = 5.0 / service_ms(READ_SEEK_MS) * 1e3;
    assert!(close(r.summary.figures.iops, expected, 0.02), "{} against {expected}", r.summary.figures.iops);
    // Not quite always: a balanced closed network of K exponential stations and N customers
    // keeps each busy N / (N + K - 1) of the time (128 / 132 = 97%); the disks' service, which
    // varies less than an exponential, does better.
    assert!(r.raid_groups[0].util_pct > 97.0, "{}", r.raid_groups[0].util_pct);
}

#[test]
fn raid5_small_writes_cost_four_disk_operations_without_a_write_cache() {
    // Write-through: each write reads old data and old parity, then writes both: two read
    // operations and two write operations, spread over all five disks by the rotating parity.
    let r = run(&scenario(RAID5, "", "outstanding = 128\nread_pct = 0", RR1));
    let per_write_ms = 2.0 * service_ms(READ_SEEK_MS) + 2.0 * service_ms(WRITE_SEEK_MS);
    let expected = 5.0 / per_write_ms * 1e3;
    let f = &r.summary.figures;
    assert!(close(f.iops, expected, 0.02), "{} against {expected}", f.iops);
    assert!(close(r.raid_groups[0].disk_ops_s, 4.0 * f.iops, 0.01), "{} ops/s", r.raid_groups[0].disk_ops_s);
    // RAID-1/0 with the same disks: two writes, one per side of a mirror pair.
    let r = run(&scenario("level = \"raid10\"\ndisks = 4", "", "outstanding = 128\nread_pct = 0", RR1));
    let expected = 4.0 / (2.0 * service_ms(WRITE_SEEK_MS)) * 1e3;
    assert!(close(r.summary.figures.iops, expected, 0.02), "{} against {expected}", r.summary.figures.iops);
}

/// A write cache of `size` with FLARE's default watermarks. It flushes with 32 destage requests
/// per disk: deep enough that the disks never wait for flushing work (with 4, a group of 5
/// holds 20 requests, and like a closed network of 20 customers on 5 stations its disks idle
/// about a tenth of the time).
fn cache(size: &str) -> String {
    format!("cache = {{ write_size = \"{size}\", high_watermark = 80, low_watermark = 60, destage_depth = 32 }}")
}

#[test]
fn a_burst_below_the_high_watermark_is_absorbed_at_cache_latency() {
    // 1,000 writes a second for 20 s after 2 s of warm-up: 22,000 × 8 KiB = 180 MB, below the
    // 80% high watermark of a 256 MiB cache (215 MB). No flushing starts, no disk is used, and
    // every write answers in the port's time plus the cache's 100 us.
    let r = run(&scenario(RAID5, &cache("256MiB"), "rate = 1000\narrival = \"uniform\"\nread_pct = 0", RR1));
    let f = &r.summary.figures;
    assert!(close(f.write_resp_ms, PORT_MS + 0.1, 1e-3), "{}", f.write_resp_ms);
    assert!(close(f.resp_max_ms, PORT_MS + 0.1, 1e-3), "{}", f.resp_max_ms);
    let (g, c) = (&r.raid_groups[0], &r.write_caches[0]);
    assert_eq!((g.destages, g.disk_ops_s, c.forced_waits), (0, 0.0, 0));
    // Dirty data grows linearly: its mean over the window is its level at the window's middle.
    let middle = 1000.0 * 12.0 * BLOCK / (256.0 * 1048576.0) * 100.0;
    assert!(close(c.dirty_pct, middle, 0.02), "{} against {middle}", c.dirty_pct);
}

#[test]
fn writes_above_the_destage_rate_fill_the_cache_and_then_wait_for_the_disks() {
    // Four writes at a time would be acknowledged 40,000 times a second from cache; the group
    // destages 5 / (2 S_read + 2 S_write) writes a second. The 4 MiB cache fills within the
    // warm-up, and from then on every write waits for a destage to free room (forced
    // flushing): the rate is the destage rate, the response N / X by Little's law, disk time.
    let r = run(&scenario(RAID5, &cache("4MiB"), "outstanding = 4\nread_pct = 0", RR1));
    let destage_rate = 5.0 / (2.0 * service_ms(READ_SEEK_MS) + 2.0 * service_ms(WRITE_SEEK_MS)) * 1e3;
    let f = &r.summary.figures;
    assert!(close(f.iops, destage_rate, 0.03), "{} against {destage_rate}", f.iops);
    assert!(close(f.write_resp_ms, 4.0 / destage_rate * 1e3, 0.03), "{}", f.write_resp_ms);
    let c = &r.write_caches[0];
    assert!(c.dirty_pct > 99.0 && c.forced_waits > 0, "{c:?}");
}

#[test]
fn below_the_destage_rate_the_dirty_share_cycles_between_the_watermarks() {
    // 100 writes a second against a destage rate of about 220: the 64 MiB cache fills to its
    // 80% high watermark (6,554 writes, 66 s), flushes down to 60%, fills again, and so on. Both
    // slopes are straight lines, so the dirty share averages the midpoint, 70%, less half the
    // overshoot at the bottom: the destages in flight at the low watermark (at most 32 per
    // disk, 1.25 MiB, 2% of the cache) still finish. No write ever waits.
    let load = "rate = 100\narrival = \"uniform\"\nread_pct = 0";
    let mut text = scenario(RAID5, &cache("64MiB"), load, RR1);
    text = text.replace("duration = \"20s\"", "duration = \"120s\"").replace("warmup = \"2s\"", "warmup = \"70s\"");
    let r = run(&text);
    let c = &r.write_caches[0];
    assert!(c.dirty_pct > 68.5 && c.dirty_pct < 70.5, "{}", c.dirty_pct);
    assert_eq!(c.forced_waits, 0);
    assert!(close(r.summary.figures.resp_max_ms, PORT_MS + 0.1, 1e-3), "{}", r.summary.figures.resp_max_ms);
    // Every write is destaged once: over the window, the disks did four operations per write.
    assert!(close(r.raid_groups[0].disk_ops_s, 4.0 * 100.0, 0.05), "{}", r.raid_groups[0].disk_ops_s);
}

#[test]
fn reads_hit_the_cache_at_the_given_ratio_and_the_same_ios_hit_whatever_the_path() {
    let hit = "cache = { read_hit = 0.3 }";
    let rr1000 = "name = \"VMW_PSP_RR\"\ntype = \"iops\"\niops = 1000";
    let one = run(&scenario(RAID5, hit, "outstanding = 1\nread_pct = 100", RR1));
    let other = run(&scenario(RAID5, hit, "outstanding = 1\nread_pct = 100", rr1000));
    let g = &one.raid_groups[0];
    let share = g.read_hits as f64 / (g.read_hits + g.read_misses) as f64;
    assert!((share - 0.3).abs() < 0.015, "{share}");
    // One I/O at a time: each response depends on the I/O alone (its hit draw, its seek and
    // rotation), not on the path, so the two policies see the same responses.
    assert_eq!((g.read_hits, g.read_misses), (other.raid_groups[0].read_hits, other.raid_groups[0].read_misses));
    assert_eq!(one.summary.figures.resp_ms, other.summary.figures.resp_ms);
    assert!(one.paths[1].figures.cmds_s > 0.0 && other.paths[1].figures.cmds_s > 0.0);
    // Mean: 70% misses at disk time, 30% hits at 200 us.
    let expected = PORT_MS + 0.7 * service_ms(READ_SEEK_MS) + 0.3 * 0.2;
    assert!(close(one.summary.figures.resp_ms, expected, 0.03), "{} against {expected}", one.summary.figures.resp_ms);
}

#[test]
fn every_io_completes_or_fails_once_with_back_ends_and_a_failing_path() {
    // A mixed load through the cache with a path cut mid-run (timeout detection, so I/Os wait
    // at the disks and in the cache while their attempts are given up and retried).
    let fault = "[[faults]]\nkind = \"path_down\"\nat = \"5s\"\nuntil = \"9s\"\npath = \"vmhba1:C0:T0\"\ndetection = \"timeout\"";
    let load = format!("outstanding = 64\nread_pct = 60\n\n{fault}");
    let text = scenario(RAID5, &cache("4MiB"), &load, RR1);
    let r = run(&text);
    let a = &r.accounting;
    assert_eq!(a.issued, a.completed + a.failed);
    assert!(a.retried > 0 && r.raid_groups[0].destages > 0, "{a:?}");
    // Same seed, same bytes.
    assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&run(&text)).unwrap());
}

fn load_error(text: &str) -> String {
    match run::load(text, "backends.toml", None, &[], None) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_back_end_fields_are_refused_with_their_path() {
    let base = scenario(RAID5, &cache("4MiB"), "outstanding = 1", RR1);
    let cases = [
        ("disks = 5", "disks = 2", "arrays.0.raid_groups.0.disks", "from 3 to 128"),
        ("level = \"raid5\"", "level = \"raid7\"", "arrays.0.raid_groups.0.level", "raid5"),
        ("rpm = 15000", "rpm = 0", "arrays.0.raid_groups.0.disk.rpm", "0 is out of range: allowed 3600 to 15000"),
        ("high_watermark = 80", "high_watermark = 120", "arrays.0.cache.high_watermark", "at most 100"),
        ("low_watermark = 60", "low_watermark = 90", "arrays.0.cache.low_watermark", "high watermark (80)"),
        ("raid_group = \"rg0\"", "raid_group = \"rg9\"", "devices.0.raid_group", "its groups: rg0"),
        ("write_size = \"4MiB\"", "write_size = \"4MiB\", flush = 1", "arrays.0.cache", "unknown field `flush`"),
        (
            "write_size = \"4MiB\"",
            "write_size = \"1TB\"",
            "arrays.0.cache.write_size",
            "more than 4000000 writes of 8192",
        ),
        (
            "seek = \"3.4ms\"",
            "seek = \"3.4ms\", cv = 0.5",
            "arrays.0.raid_groups.0.disk.cv",
            "lognormal distribution only",
        ),
    ];
    for (old, new, field, message) in cases {
        assert!(base.contains(old), "{old}");
        let e = load_error(&base.replacen(old, new, 1));
        assert!(e.contains(field) && e.contains(message), "{e}");
    }
    let e = load_error(&base.replace(
        "{ write_size = \"4MiB\", high_watermark = 80, low_watermark = 60, destage_depth = 32 }",
        "{ read_hit = 1.5 }",
    ));
    assert!(e.contains("arrays.0.cache.read_hit") && e.contains("allowed 0 to 1"), "{e}");
}
