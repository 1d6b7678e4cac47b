//! Each stack's detection and recovery timers (`[host.stack]`) against the stall they give, one
//! test per timer: the stall (the event log's times relative to the fault, the longest response)
//! is the detection time plus the retry path's service, exactly where the stack's grid is known.
//! Also the write hazard TP4129's hold exists for, and the failure kinds that take several paths
//! at once (controller reboot, switch loss, site loss) or slow them (slow drain).

mod common;

use common::run_text;
use pathlab_sim::{run, RunResult};

/// Two adapters, each its own fabric (`A`: vmhba1, `B`: vmhba2), zoned to ports P0 (controller
/// CT0, the LUN's owner) and P1 (CT1) of one ALUA array, 10 us away; one LUN. A read costs
/// 10 us out, 20 us at the port, 100 us of cache, 10 us back (P1 adds 200 us of forwarding
/// each way); each of the `outstanding` workers thinks 1 ms between I/Os, so that runs of
/// seconds stay cheap.
struct Setup {
    policy: &'static str,
    stack: String,
    faults: String,
    duration: &'static str,
    read_pct: u32,
    outstanding: u32,
    /// Each adapter's queue depth (the scenario's default when `None`).
    adapter_depth: Option<u32>,
    /// More lines of the array's table.
    array: &'static str,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            policy: "name = \"dm-multipath\"",
            stack: String::new(),
            faults: String::new(),
            duration: "8s",
            read_pct: 100,
            outstanding: 4,
            adapter_depth: None,
            array: "",
        }
    }
}

impl Setup {
    fn text(&self) -> String {
        format!(
            r#"
[run]
duration = "{duration}"
interval = "500ms"
seed = 3

[host]
adapters = [{{ name = "vmhba1"{depth} }}, {{ name = "vmhba2"{depth} }}]
stack = {{ {stack} }}

[[arrays]]
name = "a"
read_latency = "100us"
write_latency = "100us"
service = {{ fixed = "20us", distribution = "fixed", servers = 4 }}
tpgs = true
forward_latency = "200us"
controllers = [{{ name = "CT0" }}, {{ name = "CT1" }}]
ports = [{{ name = "P0", controller = "CT0" }}, {{ name = "P1", controller = "CT1" }}]
{array}

[[fabric]]
name = "A"
adapters = ["vmhba1"]
ports = ["a/P0", "a/P1"]
latency = "10us"

[[fabric]]
name = "B"
adapters = ["vmhba2"]
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
outstanding = {outstanding}
block_size = "4KiB"
read_pct = {read_pct}
think_time = "1ms"

{faults}
"#,
            duration = self.duration,
            stack = self.stack,
            policy = self.policy,
            outstanding = self.outstanding,
            read_pct = self.read_pct,
            faults = self.faults,
            array = self.array,
            depth = self.adapter_depth.map_or(String::new(), |d| format!(", queue_depth = {d}")),
        )
    }

    fn run(&self) -> RunResult {
        let r = run_text(&self.text(), "timers.toml");
        let a = &r.accounting;
        assert_eq!(a.issued, a.completed + a.failed, "each I/O completes or fails exactly once");
        r
    }
}

/// The optimized paths (through P0).
const P0_1: &str = "vmhba1:C0:T0:L3";
const P0_2: &str = "vmhba2:C0:T0:L3";

fn fault(lines: &str) -> String {
    format!("[[faults]]\n{lines}\n")
}

/// Both optimized paths lose their connection at `at`, seen by the link or not.
fn p0_down(at: &str, detection: &str) -> String {
    fault(&format!("kind = \"port_down\"\nat = \"{at}\"\nport = \"a/P0\"\ndetection = \"{detection}\""))
}

fn times(r: &RunResult, event: &str, path: &str) -> Vec<f64> {
    r.events.iter().filter(|e| e.event == event && e.path == path).map(|e| e.t_s).collect()
}

/// The longest response of the run (s).
fn longest_s(r: &RunResult) -> f64 {
    r.summary.figures.resp_max_ms / 1e3
}

/// The stall: the longest response is the time from the loss to its detection, within one
/// I/O's cycle (1.15 ms: the first I/O sent down the lost path starts at most a think time and a
/// service after the loss; the retry adds P1's 0.55 ms).
fn assert_stall(r: &RunResult, expected_s: f64) {
    let longest = longest_s(r);
    assert!((longest - expected_s).abs() < 0.00115, "longest {longest} s, expected {expected_s} s");
}

fn stack(lines: &[&str]) -> String {
    lines.join(", ")
}

#[test]
fn fc_fast_io_fail_tmo_holds_a_lost_port_then_fails_its_io_over() {
    for (fast_io_fail, failed_at) in [("2s", 3.0), ("4s", 5.0)] {
        let setup = Setup {
            stack: stack(&[&format!("fast_io_fail_tmo = \"{fast_io_fail}\"")]),
            faults: p0_down("1s", "link"),
            ..Setup::default()
        };
        let r = setup.run();
        assert_eq!(times(&r, "link_down", P0_1), [1.0]);
        assert_eq!(times(&r, "path_failed", P0_1), [failed_at], "{fast_io_fail}");
        assert_stall(&r, failed_at - 1.0);
        assert_eq!(r.accounting.failed, 0);
    }
}

#[test]
fn a_loss_when_the_run_starts_is_failed_already() {
    // An imported listing's failed path: no hold, whatever the stack.
    let r = Setup { faults: p0_down("0s", "link"), duration: "1s", ..Setup::default() }.run();
    assert_eq!(times(&r, "path_failed", P0_1), [0.0]);
    assert!(longest_s(&r) < 0.001);
}

#[test]
fn fc_dev_loss_tmo_fails_io_over_when_it_comes_before_fast_io_fail_tmo() {
    let setup = Setup {
        stack: stack(&["fast_io_fail_tmo = \"5s\"", "dev_loss_tmo = \"1500ms\""]),
        faults: p0_down("1s", "link"),
        ..Setup::default()
    };
    let r = setup.run();
    assert_eq!(times(&r, "path_failed", P0_2), [2.5]);
    assert_stall(&r, 1.5);
}

#[test]
fn fc_a_port_back_within_fast_io_fail_tmo_resumes_what_it_held() {
    let faults = fault("kind = \"port_down\"\nat = \"1s\"\nuntil = \"2s\"\nport = \"a/P0\"");
    let r = Setup { stack: stack(&["fast_io_fail_tmo = \"3s\""]), faults, ..Setup::default() }.run();
    assert!(times(&r, "path_failed", P0_1).is_empty(), "the port came back before the hold ran out");
    // What the port held is sent again when it comes back: the stall is the 1 s outage.
    assert_stall(&r, 1.0);
}

#[test]
fn dm_checker_finds_a_silent_path_at_its_next_check_plus_checker_timeout() {
    // Healthy paths are checked every max_polling_interval from time zero; the check after the
    // loss at 1 s goes unanswered for checker_timeout. The commands already on the path wait
    // for their own timeout (6 s): dm's fail_path does not abort them.
    for (max_polling, failed_at) in [("2s", 3.0), ("4s", 5.0)] {
        let setup = Setup {
            stack: stack(&[
                "io_timeout = \"6s\"",
                "checker_interval = \"1s\"",
                &format!("max_polling_interval = \"{max_polling}\""),
                "checker_timeout = \"1s\"",
            ]),
            faults: p0_down("1s", "timeout"),
            ..Setup::default()
        };
        let r = setup.run();
        assert_eq!(times(&r, "path_failed", P0_1), [failed_at], "{max_polling}");
        assert_stall(&r, 6.0);
    }
}

#[test]
fn dm_no_path_retry_n_waits_n_checker_intervals() {
    let faults = fault("kind = \"all_paths_down\"\nat = \"1s\"");
    let policy = "name = \"dm-multipath\"\nno_path_retry = 3";
    let stack = stack(&["checker_interval = \"1500ms\"", "fast_io_fail_tmo = \"0s\""]);
    let r = Setup { policy, stack, faults, duration: "2s", ..Setup::default() }.run();
    // From the first I/O that finds no path (just after the loss at 1 s): 3 × 1.5 s.
    let (no_path, gave_up) = (times(&r, "no_path", ""), times(&r, "gave_up", ""));
    assert!((no_path[0] - 1.0) < 0.00115, "{no_path:?}");
    assert!((gave_up[0] - no_path[0] - 4.5).abs() < 1e-9, "{gave_up:?}");
    assert_eq!(r.accounting.failed, 4);
}

#[test]
fn iscsi_nop_out_finds_a_silent_connection_then_replacement_timeout_holds_it() {
    // NOP-Outs every 2 s from time zero: the one at 2 s after the loss at 1.001 s goes
    // unanswered for 1 s; the session then holds its I/O for replacement_timeout.
    for (replacement, failed_at) in [("2s", 5.0), ("3s", 6.0)] {
        let setup = Setup {
            stack: stack(&[
                "scsi_transport = \"iscsi\"",
                "noop_out_interval = \"2s\"",
                "noop_out_timeout = \"1s\"",
                &format!("replacement_timeout = \"{replacement}\""),
            ]),
            faults: p0_down("1001ms", "timeout"),
            ..Setup::default()
        };
        let r = setup.run();
        assert_eq!(times(&r, "path_failed", P0_1), [failed_at], "{replacement}");
        assert_stall(&r, failed_at - 1.001);
    }
}

#[test]
fn iscsi_noop_out_interval_and_timeout_move_the_detection() {
    let setup = Setup {
        stack: stack(&[
            "scsi_transport = \"iscsi\"",
            "noop_out_interval = \"3s\"",
            "noop_out_timeout = \"500ms\"",
            "fast_io_fail_tmo = \"1s\"",
        ]),
        faults: p0_down("1s", "timeout"),
        ..Setup::default()
    };
    let r = setup.run();
    // The NOP at 3 s, unanswered until 3.5 s, then replacement_timeout = fast_io_fail_tmo 1 s.
    assert_eq!(times(&r, "path_failed", P0_1), [4.5]);
    assert_stall(&r, 3.5);
}

#[test]
fn iscsi_a_connection_the_link_reports_lost_is_held_for_replacement_timeout() {
    let setup = Setup {
        stack: stack(&["scsi_transport = \"iscsi\"", "replacement_timeout = \"1500ms\""]),
        faults: p0_down("1s", "link"),
        ..Setup::default()
    };
    let r = setup.run();
    assert_eq!(times(&r, "path_failed", P0_1), [2.5]);
    assert_stall(&r, 1.5);
}

#[test]
fn nvme_keep_alive_finds_a_silent_controller_within_kato_after_its_next_send() {
    // KATO 2 s: a keep-alive every 1 s from time zero; the one at 2 s after the loss at 1.3 s
    // times out at 4 s, before io_timeout (30 s); the controller's I/O goes to the other path.
    for (kato, failed_at) in [("2s", 4.0), ("4s", 6.0)] {
        let setup = Setup {
            policy: "name = \"nvme\"",
            stack: stack(&[&format!("keep_alive_timeout = \"{kato}\"")]),
            faults: p0_down("1300ms", "timeout"),
            ..Setup::default()
        };
        let r = setup.run();
        assert_eq!(times(&r, "path_failed", P0_1), [failed_at], "{kato}");
        assert_stall(&r, failed_at - 1.3);
    }
}

/// Linux's traffic-based keep-alive (`model/keep_alive.rs`): with TBKAS its work runs every
/// KATO/4 and sends nothing where the controller completed a command sent since the run before;
/// a silent controller is found KATO after the first run that saw no completion. The stall is
/// that detection less the loss, the I/O then retried on CT1.
#[test]
fn nvme_traffic_based_keep_alive_defers_the_keep_alive_one_period_while_completions_arrive() {
    // (KATO, loss, TBKAS or not, when vmhba1's path to P0, which carries the I/O, is failed,
    // and when vmhba2's, which carries none (numa: one path), is).
    let cases = [
        // KATO 5 s: runs every 2.5 s without TBKAS: the one at 2.5 s sends, unanswered until
        // 7.5 s. With TBKAS every 1.25 s: the run at 2.5 s saw completions of commands sent
        // since 1.25 s and sends nothing; the run at 3.75 s sends: 8.75 s. The idle connection's
        // run at 2.5 s sends: 7.5 s.
        ("5s", "1300ms", false, 7.5, 7.5),
        ("5s", "1300ms", true, 8.75, 7.5),
        // KATO 2 s, lost at 1.6 s: every 1 s, the run at 2 s: 4 s; every 500 ms with TBKAS,
        // the run at 2 s saw completions, the run at 2.5 s sends: 4.5 s (idle: 4 s).
        ("2s", "1600ms", false, 4.0, 4.0),
        ("2s", "1600ms", true, 4.5, 4.0),
    ];
    for (kato, lost, tbkas, busy_failed, idle_failed) in cases {
        let setup = Setup {
            policy: "name = \"nvme\"",
            stack: stack(&[&format!("keep_alive_timeout = \"{kato}\"")]),
            faults: p0_down(lost, "timeout"),
            duration: "10s",
            array: if tbkas { "traffic_based_keep_alive = true" } else { "" },
            ..Setup::default()
        };
        let r = setup.run();
        let case = format!("KATO {kato}, lost at {lost}, TBKAS {tbkas}");
        assert_eq!(times(&r, "path_failed", P0_1), [busy_failed], "{case}");
        assert_eq!(times(&r, "path_failed", P0_2), [idle_failed], "{case}");
        let lost_s = if lost == "1300ms" { 1.3 } else { 1.6 };
        assert_stall(&r, busy_failed - lost_s);
        assert_eq!(r.accounting.failed, 0, "{case}: every I/O completes on CT1");
    }
}

#[test]
fn a_controller_with_traffic_based_keep_alive_may_execute_a_write_one_kato_longer() {
    // KATO 2 s, CQT 0, writes; CT0 silent from 1.6009 s (each worker's write in flight). Without TBKAS
    // the keep-alive sent at 2 s times out at 4 s, when the controller's own timer (KATO after
    // the last Keep Alive, before the loss) has run out (3.6009 s): the writes retried then are
    // safe. With TBKAS the host finds it at 4.5 s, but the controller checks for commands once
    // per KATO and may run 2 × KATO past the last one it fetched (NVMe Base 2.1, Figure 90;
    // nvmet_keep_alive_timer): until 5.6009 s, so the writes retried at 4.5 s are hazards.
    let writes = |tbkas: bool| {
        Setup {
            policy: "name = \"nvme\"",
            stack: stack(&["keep_alive_timeout = \"2s\""]),
            faults: p0_down("1600900us", "timeout"),
            array: if tbkas { "traffic_based_keep_alive = true" } else { "" },
            read_pct: 0,
            duration: "5s",
            ..Setup::default()
        }
        .run()
    };
    let (command_based, traffic_based) = (writes(false), writes(true));
    assert_eq!(times(&command_based, "path_failed", P0_1), [4.0]);
    assert_eq!(command_based.devices[0].hazards, 0);
    assert_eq!(times(&traffic_based, "path_failed", P0_1), [4.5]);
    let hazards = traffic_based.devices[0].hazards;
    let first = traffic_based.paths.iter().find(|q| q.name == P0_1).unwrap().figures.failovers;
    assert!(hazards > 0 && hazards == first, "each write in flight on CT0, once: {hazards} of {first}");
}

#[test]
fn tp4129_holds_three_kato_towards_a_controller_that_advertises_tbkas() {
    let setup = |hold: u32| Setup {
        policy: "name = \"nvme\"",
        stack: stack(&["keep_alive_timeout = \"2s\"", &format!("tp4129_hold = {hold}")]),
        faults: p0_down("1s", "link"),
        array: "traffic_based_keep_alive = true",
        read_pct: 0,
        ..Setup::default()
    };
    let error = |setup: Setup| run::load(&setup.text(), "timers.toml", None, &[], None).map(|_| ()).unwrap_err();
    let refused = error(setup(2)).to_string();
    let expected = "host.stack.tp4129_hold: 2: controller CT0 of array \"a\" advertises traffic-based keep-alive \
                    (arrays.0.traffic_based_keep_alive): TP4129 holds 3 × KATO + CQT there";
    assert!(refused.contains(expected), "{refused}");
    // On a host whose devices are not NVMe it would do nothing.
    let dm = Setup { array: "traffic_based_keep_alive = false", ..Setup::default() };
    let refused = error(dm).to_string();
    assert!(refused.contains("arrays.0.traffic_based_keep_alive: read by NVMe hosts (policy nvme or spdk) only"));
    // The writes in flight on CT0 wait 3 × KATO (+ CQT 0) from the loss the link reports at 1 s.
    assert_stall(&setup(3).run(), 6.0);
    // Towards a controller without it TP4129 holds 2 × KATO + CQT: 3 is refused, whether the
    // array says so or says nothing (the engine runs command-based keep-alive then).
    let command_based = |array: &'static str| error(Setup { array, ..setup(3) }).to_string();
    let expected = "host.stack.tp4129_hold: 3: controller CT0 of array \"a\" does not advertise traffic-based \
                    keep-alive (arrays.0.traffic_based_keep_alive): TP4129 holds 2 × KATO + CQT there";
    let refused = command_based("traffic_based_keep_alive = false");
    assert!(refused.contains(expected), "{refused}");
    let expected = "host.stack.tp4129_hold: 3: controller CT0 of array \"a\" is not said to advertise \
                    traffic-based keep-alive (arrays.0.traffic_based_keep_alive not given): TP4129 holds 2 × KATO + CQT \
                    there";
    let refused = command_based("");
    assert!(refused.contains(expected), "{refused}");
}

/// An NVMe host writing through a controller whose link goes at 1 s: Linux fails the I/O over
/// at once; the target may still execute what it held until its keep-alive timer (KATO 2 s)
/// and its quiesce time (CQT 500 ms) have run out, at 3.5 s.
fn nvme_writes(extra: &[&str]) -> RunResult {
    let mut lines = vec!["keep_alive_timeout = \"2s\"", "command_quiesce_time = \"500ms\""];
    lines.extend_from_slice(extra);
    let setup = Setup {
        policy: "name = \"nvme\"",
        stack: stack(&lines),
        faults: p0_down("1s", "link"),
        read_pct: 0,
        duration: "8s",
        ..Setup::default()
    };
    setup.run()
}

#[test]
fn writes_retried_while_their_first_copy_may_land_are_hazards_and_tp4129_holds_them_out() {
    let at_once = nvme_writes(&[]);
    // Every write in flight on the lost controller is retried at 1 s, well inside its window.
    let hazards = at_once.devices[0].hazards;
    assert!(hazards > 0, "{hazards}");
    // The port's paths fail one after the other at 1 s: what vmhba1's held is retried on
    // vmhba2's, then again on CT1's. Only the first retry counts: the second copy was sent
    // after the loss and never reached CT0.
    let first = at_once.paths.iter().find(|q| q.name == P0_1).unwrap().figures.failovers;
    assert_eq!(hazards, first, "each write in flight on the lost controller, once");
    // TP4129's hold, 2 × KATO + CQT = 4.5 s from the loss, outlasts the target's 2.5 s.
    let held = nvme_writes(&["tp4129_hold = 2"]);
    assert_eq!(held.devices[0].hazards, 0);
    assert_stall(&held, 4.5);
    // TP8028: CT1 confirms the reset of CT0 after one round trip (20 us): the hold ends then,
    // and nothing of CT0's can land after it.
    let ccr = nvme_writes(&["tp4129_hold = 2", "ccr = true"]);
    assert_eq!(ccr.devices[0].hazards, 0);
    assert!(longest_s(&ccr) < 0.001, "{}", longest_s(&ccr));
}

#[test]
fn scsi_writes_aborted_on_a_lost_path_are_hazards_until_the_path_logs_in_again() {
    // dm over FC: CT0's port lost at 1 s is held for fast_io_fail_tmo (500 ms), then its
    // commands are aborted unconfirmed (the abort cannot reach the target) and retried on CT1.
    let writes = |faults: String| {
        let setup = Setup {
            stack: stack(&["fast_io_fail_tmo = \"500ms\""]),
            faults,
            read_pct: 0,
            duration: "3s",
            outstanding: 32,
            ..Setup::default()
        };
        setup.run()
    };
    let lost = writes(p0_down("1s", "link"));
    // Each of the 32 writers has one write at a time: each counts at most once.
    let hazards = lost.devices[0].hazards;
    assert!((1..=32).contains(&hazards), "{hazards}");
    // Back at 1.2 s, before the hold ends: the paths log in again, the abort is confirmed.
    let back = writes(fault("kind = \"port_down\"\nat = \"1s\"\nuntil = \"1200ms\"\nport = \"a/P0\""));
    assert_eq!(back.devices[0].hazards, 0);
    // A command timed out on a path that still answers (a slow drain) is aborted there: no hazard.
    let drain = "kind = \"slow_drain\"\nfrom = \"1s\"\nuntil = \"2s\"\nadapter = \"vmhba1\"\ngrowth = \"1s\"";
    let setup = Setup {
        stack: stack(&["io_timeout = \"300ms\""]),
        faults: fault(drain),
        read_pct: 0,
        duration: "3s",
        ..Setup::default()
    };
    let drained = setup.run();
    assert!(drained.accounting.failovers > 0, "{:?}", drained.accounting);
    assert_eq!(drained.devices[0].hazards, 0);
}

#[test]
fn esxi_path_eval_time_takes_back_a_path_that_returns_unannounced() {
    // P0's paths stop answering at 1 s (found by the 1 s I/O timeout) and answer again at 3 s
    // with no link event: ESXi finds them alive at its next path evaluation, on a grid of
    // Disk.PathEvalTime from time zero; a return the link reports is taken at once.
    let policy = "name = \"VMW_PSP_FIXED\"\npreferred = \"vmhba1:C0:T0:L3\"";
    let back = |detection: &str, eval: &str| {
        let faults = fault(&format!(
            "kind = \"port_down\"\nat = \"1s\"\nuntil = \"3s\"\nport = \"a/P0\"\ndetection = \"{detection}\""
        ));
        let stack = format!("io_timeout = \"1s\"{eval}");
        let r = Setup { policy, stack, faults, duration: "6s", ..Setup::default() }.run();
        times(&r, "path_reinstated", P0_1)
    };
    assert_eq!(back("timeout", ", path_eval_time = \"4s\""), [4.0]);
    assert_eq!(back("timeout", ", path_eval_time = \"5s\""), [5.0]);
    // The default, 300 s, falls after the run's last I/O: not logged.
    assert_eq!(back("timeout", ""), Vec::<f64>::new());
    assert_eq!(back("link", ", path_eval_time = \"5s\""), [3.0]);
}

#[test]
fn mpio_path_verification_takes_back_a_path_that_returns_unannounced() {
    // As ESXi's path evaluation: with PathVerifyEnabled, on a grid of PathVerificationPeriod;
    // without, at once (as on a PnP arrival).
    let back = |verify: &str| {
        let faults =
            fault("kind = \"port_down\"\nat = \"1s\"\nuntil = \"3s\"\nport = \"a/P0\"\ndetection = \"timeout\"");
        let setup = Setup {
            policy: "name = \"mpio\"\npolicy = \"round_robin\"",
            stack: format!("io_timeout = \"1s\"{verify}"),
            faults,
            duration: "6s",
            ..Setup::default()
        };
        times(&setup.run(), "path_reinstated", P0_1)
    };
    assert_eq!(back(", path_verify = true, path_verification_period = \"4s\""), [4.0]);
    assert_eq!(back(", path_verify = true, path_verification_period = \"5s\""), [5.0]);
    assert_eq!(back(", path_verify = true"), Vec::<f64>::new());
    assert_eq!(back(""), [3.0]);
}

#[test]
fn a_write_that_never_left_the_host_is_no_hazard() {
    // One command per adapter at a time (queue_depth 1), 32 writers: when CT0's link goes at
    // 1 s, each adapter has at most one write in flight to it and the rest wait in the host.
    // Only those in flight reached CT0 and can land late; the waiting ones never left.
    let setup = Setup {
        policy: "name = \"nvme\"",
        stack: stack(&["keep_alive_timeout = \"2s\""]),
        faults: p0_down("1s", "link"),
        read_pct: 0,
        duration: "2s",
        outstanding: 32,
        adapter_depth: Some(1),
        ..Setup::default()
    };
    let r = setup.run();
    let hazards = r.devices[0].hazards;
    assert!((1..=2).contains(&hazards), "{hazards}");
}

#[test]
fn overlapping_outages_each_count_and_the_link_is_back_when_the_last_ends() {
    // The path's own link is down from 1 s to 8 s; its fabric A is lost from 1.5 s to 3 s.
    // The switch coming back at 3 s does not bring back the path cut until 8 s.
    let faults = [
        fault(&format!("kind = \"path_down\"\nat = \"1s\"\nuntil = \"8s\"\npath = \"{P0_1}\"")),
        fault("kind = \"switch_down\"\nat = \"1500ms\"\nuntil = \"3s\"\nfabric = \"A\""),
        // An array port lost twice over: a port_down and a controller reboot.
        fault("kind = \"port_down\"\nat = \"2s\"\nuntil = \"6s\"\nport = \"a/P1\""),
        fault("kind = \"controller_reboot\"\nat = \"2500ms\"\nuntil = \"4s\"\narray = \"a\"\ncontroller = \"CT1\""),
    ]
    .concat();
    let r = Setup { policy: "name = \"VMW_PSP_RR\"", faults, duration: "9s", ..Setup::default() }.run();
    assert_eq!(times(&r, "link_down", P0_1), [1.0]);
    assert_eq!(times(&r, "link_up", P0_1), [8.0]);
    // The other path of fabric A is lost with it from 1.5 s and back at 3 s (its port P1 is
    // down from 2 s until 6 s, through the reboot from 2.5 s to 4 s).
    let t1 = "vmhba1:C0:T1:L3";
    assert_eq!(times(&r, "link_down", t1), [1.5]);
    assert_eq!(times(&r, "link_up", t1), [6.0]);
    assert_eq!(times(&r, "link_up", "vmhba2:C0:T1:L3"), [6.0]);
}

#[test]
fn a_command_a_slow_drain_holds_past_the_io_timeout_times_out() {
    // vmhba1's responses wait 1 s more for each second from 1 s: a command sent at 2 s would
    // be answered at 3 s, at the I/O timeout (1 s). From then on the host aborts what waits
    // longer at its timeout, dm fails the path and retries on vmhba2.
    let faults = fault("kind = \"slow_drain\"\nfrom = \"1s\"\nuntil = \"4s\"\nadapter = \"vmhba1\"\ngrowth = \"1s\"");
    let r = Setup { stack: stack(&["io_timeout = \"1s\""]), faults, duration: "5s", ..Setup::default() }.run();
    // The first command sent after 2 s (less the 0.27 ms it spends before its response) is
    // failed 1 s after its send; the policy keeps the slow path's share small, so it may be
    // sent a few ms after 2 s.
    let failed = times(&r, "path_failed", P0_1);
    assert!((2.9997..3.02).contains(&failed[0]), "{failed:?}");
    assert!(r.summary.errors > 0);
    // The stall is the timeout and the retry on vmhba2, not the drain's 3 s.
    assert_stall(&r, 1.0);
    assert_eq!(r.accounting.failed, 0);
}

#[test]
fn mpio_retries_a_failed_request_after_its_retry_interval() {
    // A command lost at 1 s times out after 500 ms; its retry waits RetryInterval (1 s).
    for (interval, stall) in [("", 1.5), (", retry_interval = \"300ms\"", 0.8)] {
        let setup = Setup {
            policy: "name = \"mpio\"\npolicy = \"round_robin\"",
            stack: format!("io_timeout = \"500ms\"{interval}"),
            faults: p0_down("1s", "timeout"),
            duration: "3s",
            ..Setup::default()
        };
        let r = setup.run();
        assert_stall(&r, stall);
    }
    // Each I/O's retries: a path failing every command fails the I/O after retry_count + 1 tries.
    let flaky = fault("kind = \"flaky\"\nfrom = \"0s\"\nport = \"a/P0\"");
    let policy = "name = \"VMW_PSP_FIXED\"\npreferred = \"vmhba1:C0:T0:L3\"";
    let r =
        Setup { policy, stack: stack(&["retry_count = 0"]), faults: flaky, duration: "1s", ..Setup::default() }.run();
    assert!(r.accounting.failed > 0 && r.accounting.retried == 0, "{:?}", r.accounting);
}

#[test]
fn a_controller_reboot_moves_its_luns_to_the_partner_and_back() {
    let faults =
        fault("kind = \"controller_reboot\"\nat = \"1s\"\nuntil = \"3s\"\narray = \"a\"\ncontroller = \"CT0\"");
    let r = Setup { policy: "name = \"nvme\"", faults, duration: "15s", ..Setup::default() }.run();
    for p in [P0_1, P0_2] {
        assert_eq!(times(&r, "link_down", p), [1.0]);
        assert_eq!(times(&r, "path_failed", p), [1.0]);
        assert_eq!(times(&r, "link_up", p), [3.0]);
        // NVMe reconnects every 10 s from the loss.
        assert_eq!(times(&r, "path_reinstated", p), [11.0]);
    }
    let alua = |path: &str| -> Vec<(f64, String)> {
        r.events.iter().filter(|e| e.event == "alua" && e.path == path).map(|e| (e.t_s, e.detail.clone())).collect()
    };
    // CT1's paths become optimized while CT0 is away, and non-optimized again when it is back.
    assert_eq!(alua("vmhba1:C0:T1:L3"), [(1.0, "AO".to_string()), (3.0, "ANO".to_string())]);
    assert_eq!(r.accounting.failed, 0);
}

#[test]
fn a_switch_loss_takes_every_path_of_its_fabric() {
    let faults = fault("kind = \"switch_down\"\nat = \"1s\"\nuntil = \"2s\"\nfabric = \"A\"");
    let r = Setup { policy: "name = \"VMW_PSP_RR\"", faults, duration: "3s", ..Setup::default() }.run();
    let failed: Vec<&str> = r.events.iter().filter(|e| e.event == "path_failed").map(|e| e.path.as_str()).collect();
    assert_eq!(failed, ["vmhba1:C0:T0:L3", "vmhba1:C0:T1:L3"]);
    assert_eq!(times(&r, "path_reinstated", "vmhba1:C0:T1:L3"), [2.0]);
}

#[test]
fn a_slow_drain_grows_each_response_by_its_growth_per_second() {
    // 2 ms more per second on P0 from 1 s: a read completing at 2.5 s waits 3 ms more.
    let faults = fault("kind = \"slow_drain\"\nfrom = \"1s\"\nuntil = \"3s\"\nport = \"a/P0\"\ngrowth = \"2ms\"");
    let policy = "name = \"VMW_PSP_FIXED\"\npreferred = \"vmhba1:C0:T0:L3\"";
    let r = Setup { policy, faults, duration: "4s", outstanding: 1, ..Setup::default() }.run();
    let davg = |t: f64| r.path_intervals.iter().find(|i| i.name == P0_1 && (i.t_s - t).abs() < 1e-9).unwrap();
    let base = davg(1.0).figures.davg_ms;
    // Over (2.5 s, 3 s] the drain adds 3 to 4 ms, 3.5 ms on average.
    let grown = davg(3.0).figures.davg_ms - base;
    assert!((grown - 3.5).abs() < 0.05, "{grown}");
    assert!((davg(4.0).figures.davg_ms - base).abs() < 0.001, "back to normal after the drain");
    assert_eq!(r.accounting.failed, 0);
}

#[test]
fn every_new_failure_kind_keeps_each_io_completing_or_failing_exactly_once() {
    let faults = [
        fault("kind = \"controller_reboot\"\nat = \"300ms\"\nuntil = \"900ms\"\narray = \"a\"\ncontroller = \"CT0\""),
        fault("kind = \"switch_down\"\nat = \"1s\"\nuntil = \"1400ms\"\nfabric = \"B\"\ndetection = \"timeout\""),
        fault("kind = \"slow_drain\"\nfrom = \"200ms\"\nuntil = \"1600ms\"\nadapter = \"vmhba1\"\ngrowth = \"5ms\""),
        fault("kind = \"controller_reboot\"\nat = \"1500ms\"\narray = \"a\"\ncontroller = \"CT1\"\ndetection = \"timeout\""),
    ]
    .concat();
    // Each stack with its own timers short, and each of its ways to hold I/O.
    let dm = "io_timeout = \"150ms\", checker_interval = \"100ms\", fast_io_fail_tmo = \"50ms\"";
    let dm_iscsi = ", scsi_transport = \"iscsi\", noop_out_interval = \"50ms\", noop_out_timeout = \"20ms\"";
    let nvme = "io_timeout = \"150ms\", reconnect_delay = \"100ms\", keep_alive_timeout = \"100ms\"";
    let nvme_holds = ["", ", tp4129_hold = 2", ", tp4129_hold = 2, ccr = true"];
    let cases: Vec<(&str, String)> = [
        ("name = \"VMW_PSP_RR\"", vec!["io_timeout = \"150ms\"".to_string()]),
        ("name = \"dm-multipath\"\nno_path_retry = \"queue\"", vec![dm.to_string(), format!("{dm}{dm_iscsi}")]),
        ("name = \"dm-multipath\"", vec![dm.to_string(), format!("{dm}{dm_iscsi}")]),
        ("name = \"nvme\"", nvme_holds.iter().map(|h| format!("{nvme}{h}")).collect()),
        ("name = \"spdk\"", nvme_holds.iter().map(|h| format!("{nvme}{h}")).collect()),
        ("name = \"mpio\"", vec!["io_timeout = \"150ms\"".to_string()]),
    ]
    .into_iter()
    .flat_map(|(policy, stacks)| stacks.into_iter().map(move |st| (policy, st)))
    .collect();
    for (policy, hold) in cases {
        let setup = Setup {
            policy,
            stack: hold.clone(),
            faults: faults.clone(),
            duration: "2s",
            read_pct: 50,
            ..Setup::default()
        };
        let r = setup.run();
        assert!(r.accounting.completed > 1000 && r.summary.errors > 0, "{policy} {hold}: {:?}", r.accounting);
    }
}

#[test]
fn a_site_loss_takes_an_arrays_ports_and_stops_its_replication() {
    let text = |faults: &str| {
        format!(
            r#"
[run]
duration = "3s"
interval = "500ms"
seed = 3

[host]
adapters = [{{ name = "vmhba1" }}]

[[arrays]]
name = "r1"
symmetric = true
read_latency = "100us"
write_latency = "100us"
service = {{ fixed = "20us", distribution = "fixed" }}
ports = [{{ name = "P0" }}]

[[arrays]]
name = "r2"
symmetric = true
read_latency = "100us"
write_latency = "100us"
service = {{ fixed = "20us", distribution = "fixed" }}
ports = [{{ name = "P0" }}]

[[fabric]]
adapters = ["vmhba1"]
ports = ["r1/P0", "r2/P0"]
latency = "10us"

[[devices]]
name = "naa.1"
array = "r1"
lun = 1

[[replication]]
name = "metro"
arrays = ["r1", "r2"]
devices = ["naa.1"]
latency = "1ms"

[policy]
name = "VMW_PSP_RR"

[[workloads]]
devices = ["naa.1"]
outstanding = 1
block_size = "4KiB"
read_pct = 0
think_time = "1ms"

{faults}
"#
        )
    };
    let r = run_text(&text(&fault("kind = \"site_down\"\nat = \"1s\"\nuntil = \"2s\"\narray = \"r2\"")), "site.toml");
    assert_eq!(r.accounting.issued, r.accounting.completed + r.accounting.failed);
    assert_eq!(times(&r, "path_failed", "vmhba1:C0:T1:L1"), [1.0]);
    let resp = |t: f64| r.intervals.iter().find(|i| (i.t_s - t).abs() < 1e-9).unwrap().figures.write_resp_ms;
    // A write replicated costs two 1 ms trips and r2's 100 us more; without the peer, none.
    assert!((resp(1.0) - resp(1.5) - 2.1).abs() < 0.01, "{} then {}", resp(1.0), resp(1.5));
    assert!((resp(3.0) - resp(1.0)).abs() < 0.01, "replication resumes");
}

#[test]
fn bad_timers_name_the_field_and_what_is_allowed() {
    let error = |stack: &str, policy: &'static str| {
        let text = Setup { stack: stack.to_string(), policy, ..Setup::default() }.text();
        run::load(&text, "timers.toml", None, &[], None).map(|_| ()).unwrap_err().to_string()
    };
    let nvme = "name = \"nvme\"";
    let dm = "name = \"dm-multipath\"";
    let cases = [
        ("tp4129_hold = 4", nvme, "host.stack.tp4129_hold: 4: allowed 2 or 3 (multiples of KATO)"),
        ("ccr = true", nvme, "host.stack.ccr: ends the TP4129 hold early: give tp4129_hold too"),
        (
            "scsi_transport = \"iscsi\", replacement_timeout = \"5s\", fast_io_fail_tmo = \"5s\"",
            dm,
            "host.stack.replacement_timeout: multipathd sets the iSCSI session's replacement_timeout to \
             fast_io_fail_tmo: give one of the two",
        ),
        (
            "max_polling_interval = \"1s\"",
            dm,
            "host.stack.max_polling_interval: must be at least the checker interval (polling_interval)",
        ),
        ("keep_alive_timeout = \"0s\"", nvme, "host.stack.keep_alive_timeout: "),
        ("retry_count = 300", nvme, "host.stack.retry_count: 300: allowed 0 to 255"),
        ("scsi_transport = \"sas\"", dm, "host.stack.scsi_transport: unknown value `sas`, expected `fc` or `iscsi`"),
        // Another stack's settings would do nothing.
        (
            "tp4129_hold = 2",
            dm,
            "host.stack.tp4129_hold: read by NVMe (policy nvme or spdk) only; this host's devices are on Linux \
             dm-multipath: it would do nothing",
        ),
        (
            "fast_io_fail_tmo = \"5s\"",
            "name = \"VMW_PSP_RR\"",
            "host.stack.fast_io_fail_tmo: read by Linux dm-multipath and NVMe (policy dm-multipath, nvme or spdk) \
             only; this host's devices are on ESXi: it would do nothing",
        ),
        (
            "noop_out_interval = \"2s\"",
            dm,
            "host.stack.noop_out_interval: read by Linux dm-multipath over iSCSI (policy dm-multipath, scsi_transport \
             = \"iscsi\") only; this host's devices are on Linux dm-multipath: it would do nothing",
        ),
        ("retry_count = 2", dm, "host.stack.retry_count: read by ESXi, NVMe and Windows MPIO"),
    ];
    for (stack, policy, expected) in cases {
        let message = error(stack, policy);
        assert!(message.contains(expected), "{stack}: {message}");
    }
}
