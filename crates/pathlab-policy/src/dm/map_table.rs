//! What multipath.conf sets of a map's table besides the grouping and selector: the prioritizer
//! (`prio`), the kernel's hardware handler and the table's features, checked against what
//! multipath-tools accepts.
//!
//! Source: opensvc/multipath-tools 0.14.3: the prioritizer names are the files of
//! `libmultipath/prioritizers/`; the handlers are the kernel's `scsi_dh` modules (`alua`,
//! `rdac`, `emc`, `hp_sw`) and NVMe's `ana`, written as dm-mpath's table and `multipath -ll`
//! print them (`1 alua`, `0` for none); features are `N word...`, N the count of words
//! (`dm-mpath.c` `parse_features`).

use crate::params::PolicyError;
use serde::{Deserialize, Serialize};

/// A prioritizer: how multipathd gives each path its priority.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Prioritizer {
    /// From the ALUA state the array reports (`prioritizers/alua.c`): 50, 10, 1, 0.
    Alua,
    Ana,
    /// Every path 1.
    Const,
    Datacore,
    /// CLARiiON: the LUN's owning storage processor above the other (`prioritizers/emc.c`).
    Emc,
    Hds,
    /// HP MSA/EVA of active/passive controllers: a path the LUN's controller answers 4, a standby
    /// one 2 (`prioritizers/hp_sw.c`: HP_PATH_ACTIVE, HP_PATH_STANDBY).
    HpSw,
    Iet,
    /// ONTAP: paths to the owning node above the proxy paths (`prioritizers/ontap.c`).
    Ontap,
    PathLatency,
    Random,
    /// LSI/NetApp E-Series and the arrays they build (IBM DS, Dell MD, SGI, Sun): a bit for the
    /// controller owning the volume (2), for the preferred path (4) or a secondary one (1), and for
    /// I/O shipping (8) (`prioritizers/rdac.c`, inquiry page 0xC9).
    Rdac,
    Sysfs,
    /// Each path's priority from the admin's patterns (`prioritizers/weightedpath.c`):
    /// `weightedpath.rs`, the priorities given per path.
    Weightedpath,
}

/// The prioritizers the simulation runs; the others are refused rather than run as another.
pub const SIMULATED_PRIORITIZERS: &[Prioritizer] = &[
    Prioritizer::Const,
    Prioritizer::Alua,
    Prioritizer::Emc,
    Prioritizer::Ontap,
    Prioritizer::Rdac,
    Prioritizer::HpSw,
    Prioritizer::Weightedpath,
];

/// Their names, as `prio` takes them (the parameter's choices).
pub const SIMULATED_PRIORITIZER_NAMES: &[&str] = &{
    let mut names = [""; SIMULATED_PRIORITIZERS.len()];
    let mut i = 0;
    while i < SIMULATED_PRIORITIZERS.len() {
        names[i] = SIMULATED_PRIORITIZERS[i].name();
        i += 1;
    }
    names
};

/// `hardware_handler` values, as printed: none, then the handlers with their count.
pub const HARDWARE_HANDLERS: &[&str] = &["0", "1 alua", "1 rdac", "1 emc", "1 hp_sw", "1 ana"];

impl Prioritizer {
    /// The name multipath.conf and `multipath -v3` use.
    pub const fn name(self) -> &'static str {
        match self {
            Prioritizer::Alua => "alua",
            Prioritizer::Ana => "ana",
            Prioritizer::Const => "const",
            Prioritizer::Datacore => "datacore",
            Prioritizer::Emc => "emc",
            Prioritizer::Hds => "hds",
            Prioritizer::HpSw => "hp_sw",
            Prioritizer::Iet => "iet",
            Prioritizer::Ontap => "ontap",
            Prioritizer::PathLatency => "path_latency",
            Prioritizer::Random => "random",
            Prioritizer::Rdac => "rdac",
            Prioritizer::Sysfs => "sysfs",
            Prioritizer::Weightedpath => "weightedpath",
        }
    }
}

fn refuse(field: &str, message: String) -> Result<(), PolicyError> {
    Err(PolicyError { field: field.to_string(), message })
}

/// A prioritizer the simulation runs.
pub fn check_prio(prio: Prioritizer) -> Result<(), PolicyError> {
    if SIMULATED_PRIORITIZERS.contains(&prio) {
        return Ok(());
    }
    let names = SIMULATED_PRIORITIZER_NAMES.join(", ");
    refuse("prio", format!("\"{}\" is not simulated; simulated: {names}", prio.name()))
}

pub fn check_hardware_handler(handler: &str) -> Result<(), PolicyError> {
    if HARDWARE_HANDLERS.contains(&handler) {
        return Ok(());
    }
    let allowed: Vec<String> = HARDWARE_HANDLERS.iter().map(|h| format!("\"{h}\"")).collect();
    refuse("hardware_handler", format!("\"{handler}\" is not a handler; allowed: {}", allowed.join(", ")))
}

/// `N word...` with N the number of words; `queue_if_no_path` is `no_path_retry`'s to set
/// (multipathd ignores it in features since 0.8.0 and follows `no_path_retry`).
pub fn check_features(features: &str) -> Result<(), PolicyError> {
    let mut words = features.split_whitespace();
    let count = words.next().and_then(|n| n.parse::<usize>().ok());
    let rest: Vec<&str> = words.collect();
    if count != Some(rest.len()) {
        let message =
            format!("\"{features}\" must be the count of words then the words (\"0\", \"2 pg_init_retries 50\")");
        return refuse("features", message);
    }
    if rest.contains(&"queue_if_no_path") {
        return refuse("features", "queue_if_no_path is set by no_path_retry = \"queue\", not in features".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_count_their_words() {
        assert!(check_features("0").is_ok());
        assert!(check_features("2 pg_init_retries 50").is_ok());
        let wrong = check_features("3 pg_init_retries 50").unwrap_err();
        assert_eq!(wrong.field, "features");
        assert!(check_features("").is_err());
        let queue = check_features("1 queue_if_no_path").unwrap_err();
        assert_eq!(queue.message, "queue_if_no_path is set by no_path_retry = \"queue\", not in features");
    }

    #[test]
    fn handlers_are_printed_with_their_count() {
        assert!(check_hardware_handler("1 alua").is_ok());
        assert!(check_hardware_handler("0").is_ok());
        let bare = check_hardware_handler("alua").unwrap_err();
        assert_eq!(
            bare.message,
            "\"alua\" is not a handler; allowed: \"0\", \"1 alua\", \"1 rdac\", \"1 emc\", \"1 hp_sw\", \"1 ana\""
        );
    }

    #[test]
    fn prioritizers_multipath_tools_has_but_pathlab_does_not_run_are_refused() {
        assert!(check_prio(Prioritizer::Const).is_ok());
        let random = check_prio(Prioritizer::Random).unwrap_err();
        assert_eq!(
            random.message,
            "\"random\" is not simulated; simulated: const, alua, emc, ontap, rdac, hp_sw, weightedpath"
        );
        let word = serde::de::value::StrDeserializer::<serde::de::value::Error>::new("hp_sw");
        let hp_sw = Prioritizer::deserialize(word).unwrap();
        assert_eq!(hp_sw.name(), "hp_sw");
        assert!(check_prio(hp_sw).is_ok());
        assert!(check_prio(Prioritizer::Sysfs).is_err());
    }

    #[test]
    fn the_prio_choices_are_the_simulated_prioritizers_names() {
        let names: Vec<&str> = SIMULATED_PRIORITIZERS.iter().map(|p| p.name()).collect();
        assert_eq!(crate::dm::multipath::SPEC.param("prio").choices, names.as_slice());
    }
}
