//! How ESXi's software iSCSI session and Windows MPIO's path verification find a path that
//! stops answering, one test per timer: the stall (the longest response) is the time from the
//! loss to the host's failover plus the retry's service on the path left, exactly where the
//! probe's grid is known. Also: a host timer due after the run's last I/O is not logged.

mod common;

use common::run_text;
use pathlab_sim::RunResult;

/// One adapter (`vmhba64`, ESXi's software iSCSI adapter when `iscsi` is given) zoned to two
/// ports of one controller, 10 us away; one LUN read by one worker that thinks 1 ms between
/// 4 KiB reads (10 us out, 20 us at the port, 100 us of cache, 10 us back).
fn scenario(policy: &str, adapter: &str, stack: &str, fault: &str, duration: &str) -> String {
    format!(
        r#"
[run]
duration = "{duration}"
interval = "1s"
seed = 5

[host]
adapters = [{{ name = "vmhba64"{adapter} }}]
stack = {{ {stack} }}

[[arrays]]
name = "a"
read_latency = "100us"
write_latency = "100us"
service = {{ fixed = "20us", distribution = "fixed", servers = 4 }}
controllers = [{{ name = "CT0" }}]
ports = [{{ name = "P0", controller = "CT0" }}, {{ name = "P1", controller = "CT0" }}]

[[fabric]]
adapters = ["vmhba64"]
ports = ["a/P0", "a/P1"]
latency = "10us"

[[devices]]
name = "naa.1"
array = "a"
lun = 3

[policy]
{policy}

[[workloads]]
devices = ["naa.1"]
outstanding = 1
block_size = "4KiB"
think_time = "1ms"

[[faults]]
{fault}
"#
    )
}

const LOST: &str = "vmhba64:C0:T0:L3";
const FIXED: &str = "name = \"VMW_PSP_FIXED\"\npreferred = \"vmhba64:C0:T0:L3\"";
const MPIO: &str = "name = \"mpio\"\npolicy = \"round_robin\"";

/// The preferred path is lost at `at`, seen by `detection`.
fn lost(at: &str, detection: &str) -> String {
    format!("kind = \"path_down\"\nat = \"{at}\"\npath = \"{LOST}\"\ndetection = \"{detection}\"")
}

fn run(text: &str) -> RunResult {
    let r = run_text(text, "silent.toml");
    let a = &r.accounting;
    assert_eq!(a.issued, a.completed + a.failed, "each I/O completes or fails exactly once");
    assert_eq!(a.failed, 0);
    r
}

fn failed_at(r: &RunResult) -> Vec<f64> {
    r.events.iter().filter(|e| e.event == "path_failed" && e.path == LOST).map(|e| e.t_s).collect()
}

/// The longest response is `stall_s`, within one I/O's cycle (the I/O lost with the path was
/// sent at most a think time and a service before the loss; its retry adds one service).
fn assert_stall(r: &RunResult, stall_s: f64) {
    let longest = r.summary.figures.resp_max_ms / 1e3;
    assert!((longest - stall_s).abs() < 0.00115, "longest {longest} s, expected {stall_s} s");
}

fn esxi_iscsi(timers: &str) -> String {
    format!(", iscsi = {{ {timers} }}")
}

#[test]
fn esxi_iscsi_noop_out_finds_a_silent_path_then_recovery_timeout_holds_it() {
    // NOP-Outs every NoopOutInterval from time zero: the first after the loss at 1.001 s goes
    // unanswered for NoopOutTimeout; the session then holds the path's I/O RecoveryTimeout,
    // after which the path is dead and the PSP retries the I/O on the other path. Each timer
    // moves the failover by its own amount (ESXi's 30 s command timeout comes later).
    for (timers, failed) in [
        ("noop_out_interval = \"2s\", noop_out_timeout = \"10s\", recovery_timeout = \"3s\"", 2.0 + 10.0 + 3.0),
        ("noop_out_interval = \"4s\", noop_out_timeout = \"10s\", recovery_timeout = \"3s\"", 4.0 + 10.0 + 3.0),
        ("noop_out_interval = \"2s\", noop_out_timeout = \"12s\", recovery_timeout = \"3s\"", 2.0 + 12.0 + 3.0),
        ("noop_out_interval = \"2s\", noop_out_timeout = \"10s\", recovery_timeout = \"5s\"", 2.0 + 10.0 + 5.0),
    ] {
        let text = scenario(FIXED, &esxi_iscsi(timers), "", &lost("1001ms", "timeout"), "18s");
        let r = run(&text);
        assert_eq!(failed_at(&r), [failed], "{timers}");
        assert_stall(&r, failed - 1.001);
    }
}

#[test]
fn esxi_iscsi_defaults_are_vmwares() {
    // NoopOutInterval 15 s, NoopOutTimeout 10 s, RecoveryTimeout 10 s: lost at 1.001 s, the
    // NOP-Out at 15 s times out at 25 s, before the command's own 30 s timeout; held until 35 s.
    let r = run(&scenario(FIXED, &esxi_iscsi(""), "", &lost("1001ms", "timeout"), "36s"));
    assert_eq!(failed_at(&r), [35.0]);
    assert_stall(&r, 35.0 - 1.001);
}

#[test]
fn esxi_iscsi_a_command_timeout_before_the_noop_out_ends_the_wait_first() {
    // The command lost at 1.001 s times out at 6.001 s (io_timeout 5 s), before the NOP-Out at
    // 15 s could find the loss: the path fails then and the I/O goes to the other path.
    let r = run(&scenario(FIXED, &esxi_iscsi(""), "io_timeout = \"5s\"", &lost("1001ms", "timeout"), "8s"));
    assert_stall(&r, 5.0);
}

#[test]
fn esxi_iscsi_a_link_the_host_sees_go_is_held_for_recovery_timeout() {
    let r = run(&scenario(FIXED, &esxi_iscsi("recovery_timeout = \"4s\""), "", &lost("1s", "link"), "6s"));
    assert_eq!(failed_at(&r), [5.0]);
    assert_stall(&r, 4.0);
    // An FC adapter (no `iscsi` table): ESXi fails the path as soon as the link goes.
    let fc = run(&scenario(FIXED, "", "", &lost("1s", "link"), "2s"));
    assert_eq!(failed_at(&fc), [1.0]);
}

#[test]
fn esxi_iscsi_timers_are_checked_and_read_by_esxi_only() {
    let refused = |adapter: &str, policy: &str| {
        let text = scenario(policy, adapter, "", &lost("1s", "link"), "2s");
        pathlab_sim::run::load(&text, "bad.toml", None, &[], None).map(|_| ()).unwrap_err().to_string()
    };
    let short = refused(&esxi_iscsi("noop_out_timeout = \"5s\""), FIXED);
    assert!(
        short.contains(
            "host.adapters.0.iscsi.noop_out_timeout: allowed 10s to 30s in whole seconds (NoopOutTimeout, as esxcli \
             iscsi adapter param set takes it)"
        ),
        "{short}"
    );
    let linux = refused(&esxi_iscsi(""), "name = \"dm-multipath\"");
    assert!(linux.contains("host.adapters.0.iscsi: an ESXi iSCSI adapter's timers, but its paths lead to"), "{linux}");
}

#[test]
fn mpio_path_verification_finds_a_silent_path() {
    // With PathVerifyEnabled, a verification (msdsm's REPORT TARGET PORT GROUPS, 10 s timeout)
    // goes down every path each PathVerificationPeriod from time zero: the first after the
    // loss at 1.001 s goes unanswered 10 s, the path fails and its request is retried after
    // RetryInterval (1 s). Without verification the request waits its disk timeout (20 s here).
    for (verify, failed) in [
        (", path_verify = true, path_verification_period = \"4s\"", 4.0 + 10.0),
        (", path_verify = true, path_verification_period = \"6s\"", 6.0 + 10.0),
    ] {
        let stack = format!("io_timeout = \"20s\"{verify}");
        let r = run(&scenario(MPIO, "", &stack, &lost("1001ms", "timeout"), "18s"));
        assert_eq!(failed_at(&r), [failed], "{verify}");
        assert_stall(&r, failed - 1.001 + 1.0);
    }
    let unverified = run(&scenario(MPIO, "", "io_timeout = \"20s\"", &lost("1001ms", "timeout"), "23s"));
    assert_stall(&unverified, 20.0 + 1.0);
    // A disk timeout shorter than the verification's finds it first.
    let stack = "io_timeout = \"5s\", path_verify = true, path_verification_period = \"4s\"";
    assert_stall(&run(&scenario(MPIO, "", stack, &lost("1001ms", "timeout"), "8s")), 5.0 + 1.0);
}

#[test]
fn a_host_timer_due_after_the_last_io_is_not_logged() {
    // The path answers again at 2 s without a link event: ESXi takes it back at its next path
    // evaluation, 300 s, long after the run's last I/O (at about 3 s): nothing is logged then.
    let fault = format!("{}\nuntil = \"2s\"", lost("1s", "timeout"));
    let r = run(&scenario(FIXED, "", "io_timeout = \"500ms\"", &fault, "3s"));
    let last = r.events.iter().map(|e| e.t_s).fold(0.0, f64::max);
    assert!(last < 3.0, "{:?}", r.events);
    assert!(!r.events.iter().any(|e| e.event == "path_reinstated"), "{:?}", r.events);
}
