//! The config strings `esxcli storage nmp device list` and `esxcli storage nmp path list` print
//! for a device and a path.

use super::claim_rules::{satp_kind, SatpKind};

/// The device's "Storage Array Type Device Config" as `esxcli storage nmp device list` prints it.
pub fn satp_device_config(satp: &str, tpg_states: &[(u32, &str)]) -> String {
    match satp_kind(satp) {
        SatpKind::Alua => {
            let tpgs: String = tpg_states.iter().map(|(id, s)| format!("{{TPG_id={id},TPG_state={s}}}")).collect();
            format!("{{implicit_support=on; explicit_support=off; explicit_allow=on; alua_followover=on; action_OnRetryErrors=off; {tpgs}}}")
        }
        SatpKind::ActiveActive if satp == "VMW_SATP_DEFAULT_AA" => "{action_OnRetryErrors=off}".into(),
        _ => format!("SATP {satp} does not support device configuration."),
    }
}

/// A path's "Storage Array Type Path Config".
pub fn satp_path_config(satp: &str, tpg_id: u32, alua: &str, rtp_id: u32, up: bool) -> String {
    match satp_kind(satp) {
        SatpKind::Alua => format!(
            "{{TPG_id={tpg_id},TPG_state={alua},RTP_id={rtp_id},RTP_health={}}}",
            if up { "UP" } else { "DOWN" }
        ),
        _ => format!("SATP {satp} does not support path configuration."),
    }
}

/// A path's "Path Selection Policy Path Config": Fixed and MRU say whether it is the current and
/// the preferred path; the other PSPs have none.
pub fn psp_path_config(psp: &str, current: bool, preferred: bool) -> String {
    match psp {
        "VMW_PSP_FIXED" | "VMW_PSP_MRU" => {
            let yes = |b: bool| if b { "yes" } else { "no" };
            format!("{{current: {}; preferred: {}}}", yes(current), yes(preferred))
        }
        _ => format!("PSP {psp} does not support path configuration."),
    }
}
