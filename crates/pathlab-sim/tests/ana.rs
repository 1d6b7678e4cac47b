//! NVMe's ANA change state and ANATT, and NVMe's and SPDK's `fast_io_fail_tmo`: each timer
//! against the stall or the failure time its rule gives (`model::nvme_wait`), exactly, with every
//! I/O completing or failing once.

mod common;

use common::run_text;
use pathlab_sim::{run, RunResult};

/// An NVMe/TCP host: two adapters, each reaching port P0 (controller CT0, the namespace's
/// owner) and P1 (CT1) of one array reporting ANA groups, 10 us away; four workers each with one
/// read outstanding and 1 ms of think time (a read takes 0.15 ms on P0, 0.55 ms on P1).
fn scenario(policy: &str, anatt: &str, stack: &str, faults: &str) -> String {
    format!(
        r#"
[run]
duration = "8s"
interval = "500ms"
seed = 3

[host]
adapters = [{{ name = "vmhba1" }}, {{ name = "vmhba2" }}]
stack = {{ {stack} }}

[[arrays]]
name = "a"
read_latency = "100us"
write_latency = "100us"
service = {{ fixed = "20us", distribution = "fixed", servers = 4 }}
tpgs = true
forward_latency = "200us"
{anatt}
controllers = [{{ name = "CT0" }}, {{ name = "CT1" }}]
ports = [{{ name = "P0", controller = "CT0" }}, {{ name = "P1", controller = "CT1" }}]

[[fabric]]
adapters = ["vmhba1", "vmhba2"]
ports = ["a/P0", "a/P1"]
latency = "10us"

[[devices]]
name = "ns1"
array = "a"
lun = 3

[policy]
name = "{policy}"

[[workloads]]
devices = ["ns1"]
outstanding = 4
block_size = "4KiB"
read_pct = 100
think_time = "1ms"

{faults}
"#
    )
}

fn run(policy: &str, anatt: &str, stack: &str, faults: &str) -> RunResult {
    let r = run_text(&scenario(policy, anatt, stack, faults), "ana.toml");
    let a = &r.accounting;
    assert_eq!(a.issued, a.completed + a.failed, "each I/O completes or fails exactly once");
    r
}

const CT0_PATHS: [&str; 2] = ["vmhba1:C0:T0:L3", "vmhba2:C0:T0:L3"];
const CT1_PATHS: [&str; 2] = ["vmhba1:C0:T1:L3", "vmhba2:C0:T1:L3"];

fn times(r: &RunResult, event: &str, path: &str) -> Vec<f64> {
    r.events.iter().filter(|e| e.event == event && e.path == path).map(|e| e.t_s).collect()
}

/// The device's longest stall is `expected` seconds, within one I/O's cycle (a think time and
/// a read on P1: the first I/O that waits was issued up to 1.15 ms after the change began).
fn assert_stall(r: &RunResult, expected: f64) {
    let stall = r.application.devices[0].longest_stall_s;
    assert!((stall - expected).abs() < 0.00115, "stall {stall} s, expected {expected} s");
}

fn first_failed(r: &RunResult) -> Option<f64> {
    r.application.devices[0].first_failed_s
}

/// The namespace moves to CT1 at 1 s through the change state for `lasts`: every path of it
/// on the array is in the change state meanwhile.
fn transition(lasts: &str) -> String {
    format!(
        "[[faults]]\nkind = \"controller_failover\"\nat = \"1s\"\narray = \"a\"\nowner = \"CT1\"\nana_change = \"{lasts}\"\n"
    )
}

const ANATT_1S: &str = "anatt = \"1s\"";
const ANATT_2S: &str = "anatt = \"2s\"";

#[test]
fn linux_holds_io_through_an_ana_change_shorter_than_twice_anatt_and_resets_nothing() {
    let r = run("nvme", ANATT_2S, "", &transition("3s"));
    for p in CT0_PATHS.iter().chain(&CT1_PATHS) {
        assert_eq!(times(&r, "ana_change", p), [1.0, 4.0], "{p}");
        assert!(times(&r, "anatt_reset", p).is_empty(), "{p}");
    }
    // No path is usable for 3 s; the I/O waits (its controllers are live) and goes to CT1.
    assert_stall(&r, 3.0);
    assert_eq!((r.accounting.failed, first_failed(&r)), (0, None));
}

#[test]
fn linux_resets_the_controller_every_twice_anatt_of_a_change_that_never_ends_and_fails_nothing() {
    // ANATT 1 s: each controller is reset at 3, 5 and 7 s (the next would be after the run's 8 s);
    // the I/O waits to the end of the run.
    let r = run("nvme", ANATT_1S, "", &transition("100s"));
    for p in CT0_PATHS.iter().chain(&CT1_PATHS) {
        assert_eq!(times(&r, "anatt_reset", p), [3.0, 5.0, 7.0], "{p}");
    }
    let saw = &r.application.devices[0];
    assert_eq!(saw.stall_to_s, None);
    assert_eq!((r.accounting.at_end.failed, r.accounting.at_end.in_flight), (0, 4));
    // The four waiting when the measurement ends fail only as the run drains.
    assert_eq!(saw.failed_ios, 4);
    assert!(saw.first_failed_s.is_some_and(|t| t >= 8.0), "{:?}", saw.first_failed_s);
}

#[test]
fn linux_keeps_one_anatt_timer_per_controller_which_a_later_change_pushes_back() {
    // ns1's groups enter the change state at 1 s, ns2's (another namespace over the same
    // controllers) at 2 s, neither ending; ANATT 1 s. Linux has one timer per controller, which
    // each read of its ANA log that finds a group changing sets 2 x ANATT on (mod_timer,
    // drivers/nvme/host/multipath.c nvme_read_ana_log): set at 1 s for 3 s, pushed to 4 s at 2 s.
    // Its reset is the controller's, over both namespaces, and sets it again: 4 and 6 s (8 s is
    // the run's end). One timer per path would have reset ns1's paths at 3, 5 and 7 s.
    let moved = |device: &str, at: &str| {
        format!(
            "[[faults]]\nkind = \"controller_failover\"\nat = \"{at}\"\narray = \"a\"\ndevice = \"{device}\"\n\
             owner = \"CT1\"\nana_change = \"100s\"\n"
        )
    };
    let ns2 = "[[devices]]\nname = \"ns2\"\narray = \"a\"\nlun = 4\n";
    let r = run("nvme", ANATT_1S, "", &format!("{}{}{ns2}", moved("ns1", "1s"), moved("ns2", "2s")));
    let ns2_paths = CT0_PATHS.iter().chain(&CT1_PATHS).map(|p| p.replace(":L3", ":L4"));
    for p in CT0_PATHS.iter().map(|p| p.to_string()).chain(CT1_PATHS.iter().map(|p| p.to_string())).chain(ns2_paths) {
        assert_eq!(times(&r, "anatt_reset", &p), [4.0, 6.0], "{p}");
    }
    assert_eq!(r.accounting.at_end.failed, 0);
}

#[test]
fn spdk_gives_a_path_up_after_anatt_in_the_change_state_and_fails_what_waits() {
    let r = run("spdk", ANATT_2S, "", &transition("100s"));
    for p in CT0_PATHS.iter().chain(&CT1_PATHS) {
        assert_eq!(times(&r, "anatt_expired", p), [3.0], "{p}");
    }
    // Every path given up at 3 s: what waits fails then, and new I/O at once.
    assert_eq!(first_failed(&r), Some(3.0));
    assert!(r.accounting.failed >= 4, "{}", r.accounting.failed);
}

#[test]
fn a_controller_reboot_through_the_change_state_stalls_io_until_the_partner_takes_over() {
    let faults = "[[faults]]\nkind = \"controller_reboot\"\nat = \"1s\"\nuntil = \"6s\"\narray = \"a\"\n\
                  controller = \"CT0\"\nana_change = \"2s\"\n";
    let r = run("nvme", ANATT_2S, "", faults);
    for p in CT0_PATHS {
        assert_eq!(times(&r, "path_failed", p), [1.0], "{p}");
    }
    for p in CT1_PATHS {
        assert_eq!(times(&r, "ana_change", p), [1.0, 3.0], "{p}");
        let alua: Vec<(f64, String)> =
            r.events.iter().filter(|e| e.event == "alua" && e.path == p).map(|e| (e.t_s, e.detail.clone())).collect();
        assert_eq!(alua, [(3.0, "AO".to_string()), (6.0, "ANO".to_string())], "{p}");
    }
    assert_stall(&r, 2.0);
    assert_eq!(r.accounting.failed, 0);
}

fn all_down() -> String {
    "[[faults]]\nkind = \"all_paths_down\"\nat = \"1s\"\nuntil = \"7s\"\ndetection = \"link\"\n".to_string()
}

#[test]
fn linux_fast_io_fail_tmo_fails_io_without_a_path_before_ctrl_loss_tmo() {
    // Off (the default): the controllers reconnect for 600 s; nothing fails within the run.
    let off = run("nvme", "", "", &all_down());
    assert_eq!(first_failed(&off), None);
    let on = run("nvme", "", "fast_io_fail_tmo = \"3s\"", &all_down());
    assert_eq!(first_failed(&on), Some(4.0));
    // ctrl_loss_tmo first: the controllers are deleted at 3 s.
    let lost = run("nvme", "", "fast_io_fail_tmo = \"3s\", controller_loss_timeout = \"2s\"", &all_down());
    assert_eq!(first_failed(&lost), Some(3.0));
}

#[test]
fn spdk_fast_io_fail_timeout_fails_io_at_the_first_reconnect_attempt_after_it() {
    // Reconnects every 2 s from the loss at 1 s: the attempt at 5 s is the first 3 s on.
    let r = run("spdk", "", "reconnect_delay = \"2s\", fast_io_fail_tmo = \"3s\"", &all_down());
    assert_eq!(first_failed(&r), Some(5.0));
}

/// CT0's port is lost at 1 s while the namespace moves to CT1 through the change state until 6 s.
fn lost_during_a_change() -> String {
    format!(
        "[[faults]]\nkind = \"port_down\"\nat = \"1s\"\nport = \"a/P0\"\ndetection = \"link\"\n{}",
        transition("5s")
    )
}

#[test]
fn a_live_controller_in_the_change_state_keeps_linux_io_waiting_past_fast_io_fail_tmo() {
    let r = run("nvme", ANATT_2S, "fast_io_fail_tmo = \"2s\"", &lost_during_a_change());
    for p in CT0_PATHS {
        assert_eq!(times(&r, "path_failed", p), [1.0], "{p}");
    }
    // CT0's fast_io_fail runs out at 3 s, but CT1 is live: the I/O waits for it until 6 s.
    assert_stall(&r, 5.0);
    assert_eq!(first_failed(&r), None);
}

#[test]
fn spdk_waits_for_the_last_path_to_be_given_up() {
    // CT1's paths given up at 3 s (ANATT 2 s); CT0's at 5 s (fast_io_fail 4 s from 1 s, on the
    // 2 s reconnect grid): what waits fails at the later.
    let stack = "reconnect_delay = \"2s\", fast_io_fail_tmo = \"4s\"";
    let r = run("spdk", ANATT_2S, stack, &lost_during_a_change());
    assert_eq!(times(&r, "anatt_expired", CT1_PATHS[0]), [3.0]);
    assert_eq!(first_failed(&r), Some(5.0));
}

#[test]
fn older_linux_kato_grace_keeps_the_target_executing_past_a_tp4129_hold() {
    // Writes; CT0's port lost at 1 s, seen. TP4129 holds them 2 x KATO + CQT = 4.5 s: past the
    // target's KATO + CQT (2.5 s), so no hazard; with the 10 s grace older kernels sent in
    // Connect the target may execute them until 13.5 s, after the retry.
    let writes = |stack: &str| {
        let text = scenario("nvme", "", stack, "[[faults]]\nkind = \"port_down\"\nat = \"1s\"\nport = \"a/P0\"\n")
            .replace("read_pct = 100", "read_pct = 0");
        run_text(&text, "ana.toml")
    };
    let hold = "keep_alive_timeout = \"2s\", command_quiesce_time = \"500ms\", tp4129_hold = 2";
    assert_eq!(writes(hold).devices[0].hazards, 0);
    let grace = writes(&format!("{hold}, kato_grace = \"10s\""));
    assert!(grace.devices[0].hazards > 0, "{}", grace.devices[0].hazards);
}

/// ESXi holds on the path what a transitioning target port group refuses (SCSI's counterpart of
/// the change state: `model::alua_transition`). A link of that path that drops and comes back
/// during the transition, before the host notices, ends its own hold and not the transition's:
/// the I/O waits for the transition's end as the rest does (it used to be sent down the path
/// again at the link's return and panic as a held path's command refused).
#[test]
fn esxi_holds_through_a_transition_a_link_blip_on_the_taking_over_path_included() {
    let blip = "[[faults]]\nkind = \"path_down\"\nat = \"1500ms\"\nuntil = \"1600ms\"\npath = \"vmhba2:C0:T1:L3\"\n\
                detection = \"timeout\"\n";
    let reboot = "[[faults]]\nkind = \"controller_reboot\"\nat = \"1s\"\nuntil = \"7s\"\narray = \"a\"\n\
                  controller = \"CT0\"\nana_change = \"3s\"\n";
    for path in CT1_PATHS {
        let r = run("VMW_PSP_RR", "", "", &format!("{reboot}\n{}", blip.replace(CT1_PATHS[1], path)));
        assert_eq!((times(&r, "link_down", path), times(&r, "link_up", path)), (vec![1.5], vec![1.6]));
        assert_stall(&r, 3.0);
        assert_eq!(r.accounting.failed, 0);
    }
}

fn refused(text: &str) -> (String, String) {
    match run::load(text, "ana.toml", None, &[], None) {
        Ok(s) => match run::simulation(&s) {
            Ok(_) => panic!("accepted"),
            Err(e) => (e.field.clone(), e.message.clone()),
        },
        Err(e) => (e.field.clone(), e.message.clone()),
    }
}

#[test]
fn bad_anatt_and_ana_change_settings_name_the_field_and_what_is_allowed() {
    let half = refused(&scenario("nvme", "anatt = \"1500ms\"", "", ""));
    assert_eq!(half.0, "arrays.0.anatt");
    assert!(half.1.contains("whole seconds from 1s to 255s"), "{}", half.1);
    let none = refused(&scenario("nvme", "", "", &transition("3s")));
    assert_eq!(none.0, "faults.0.ana_change");
    assert!(none.1.contains("reports no ANATT"), "{}", none.1);
    // A SCSI stack passes through ALUA's Transitioning state where its handling is sourced.
    // An array that reports the states, to a host whose prioritizer does not read them.
    let constant = refused(&scenario("dm-multipath\"\nprio = \"const", ANATT_2S, "", &transition("3s")));
    assert_eq!(
        constant,
        (
            "faults.0.ana_change".to_string(),
            "ns1 does not read the ALUA states array \"a\" reports (its prioritizer or SATP is not ALUA's): \
             a change is modelled where the host reads them (prio alua, an ALUA SATP)"
                .to_string()
        )
    );
    let mpio = refused(&scenario("mpio", ANATT_2S, "", &transition("3s")));
    assert!(mpio.1.contains("cannot pass through a transition: Windows msdsm"), "{}", mpio.1);
    let spdk = refused(&scenario("spdk", "", "reconnect_delay = \"5s\", fast_io_fail_tmo = \"2s\"", ""));
    assert_eq!(spdk.0, "host.stack.fast_io_fail_tmo");
    let after = "[[faults]]\nkind = \"controller_reboot\"\nat = \"1s\"\nuntil = \"2s\"\narray = \"a\"\n\
                 controller = \"CT0\"\nana_change = \"2s\"\n";
    assert_eq!(refused(&scenario("nvme", ANATT_2S, "", after)).1, "must end before `until`");
}
