//! dm-multipath: the Linux device-mapper multipath target, with the priority groups, failback
//! and queueing that multipath-tools (multipathd) drives around it.
//!
//! Algorithm. The kernel (torvalds/linux `drivers/md/dm-mpath.c`, `choose_pgpath`) holds an
//! ordered list of priority groups (PGs), each with its own instance of the path selector, and
//! asks for a path on every I/O (modern kernels have no repeat counter):
//! 1. no valid path at all: none (and no current PG);
//! 2. a PG to switch to (`next_pg`: the table's initial PG, or a `switch_group` message) is
//!    tried first, and forgotten whether or not it had a path;
//! 3. else the current PG: the kernel never leaves a PG while it has a usable path;
//! 4. else the first PG in table order whose selector returns a path; it becomes current.
//!
//! The selectors are `round_robin.rs`, `queue_length.rs`, `service_time.rs`,
//! `historical_service_time.rs` and `io_affinity.rs`. PG bypassing and pg_init (the
//! hardware handler's activation on a PG switch, during which I/O is held) are not modelled.
//! The kernel does not look at ALUA states: a standby or unavailable path in the PG in use is
//! chosen like any other, and scsi_dh_alua fails its I/O (the harness reports the error and
//! fails the path); ALUA reaches dm only through priorities and grouping.
//!
//! multipath-tools (opensvc/multipath-tools: `pgpolicies.c`, `switchgroup.c`,
//! `prioritizers/alua.c`, `multipathd/main.c`):
//! - Path priority from the `alua` prioritizer: active-optimized 50, active-non-optimized 10,
//!   standby 1, unavailable 0, plus 80 when the target port group's preferred bit is set and
//!   the state is not active-optimized.
//! - Grouping (`path_grouping_policy`): `failover`, one PG per path; `multibus`, one PG;
//!   `group_by_prio`, greedy: each path not yet grouped opens a PG and pulls in every later path
//!   of equal priority. PG priority = integer average of the priorities of its paths that are up
//!   (0 if none). PGs are then sorted by priority, then by number of paths up, highest first
//!   (stable), and the table's initial PG is the best one: the first with a path up, replaced by
//!   any with a strictly higher priority, or equal priority and more paths up.
//! - Failback, evaluated by multipathd after each checker event (a path failing, coming back, or
//!   changing priority). A switch is needed when the best PG is not the one the kernel reports
//!   (next, else current, else the first) or when the PGs are no longer in priority order (then
//!   the map is reloaded: regrouped, re-sorted, initial PG the best):
//!   - `manual`: never;
//!   - `immediate`: at once; with `group_by_prio`, a priority change reloads the map;
//!   - N seconds (deferred): a timer of N s is armed when a path comes back (re-armed by each
//!     later one) or when a switch is needed and none is armed; when it expires, switch if still
//!     needed. multipathd counts N + 1 one-second ticks; we apply it on the first I/O at least
//!     N s after the event;
//!   - `followover`: only when the path that came back is in the best PG and every other path of
//!     that PG is down (the first path of the group returns), so as not to fight a failover that
//!     another cluster node caused by changing ALUA states.
//! - Shaky paths (`san_path_err_*`, `marginal_path_*`, default off): multipathd holds a path
//!   that keeps failing and coming back (`shaky_paths.rs`); the harness's checker applies it.
//! - `no_path_retry`: `fail` (default: no `queue_if_no_path`, I/O fails at once), `queue` (hold
//!   I/O for ever; request-based dm re-kicks it every 100 ms), or N: hold it for N checker
//!   intervals of 5 s (`polling_interval`), then fail it.
//!
//! Defaults are multipath-tools': `path_selector "service-time 0"`, `failback manual`,
//! `no_path_retry fail`. The grouping default is `group_by_prio`: `DEFAULT_PGPOLICY` is
//! `failover`, but `detect_pgpolicy` (default yes) turns it into `group_by_prio` for every path
//! whose prioritizer is `alua` or `sysfs`, which `detect_prio` picks for every ALUA array.
//!
//! Timing: the harness calls `reinstate_path` when multipathd's checker would see the path up,
//! `fail_path` when the kernel or the checker fails it. The trait passes no time with those
//! calls, so a deferred failback counts from the latest time the policy has seen (the last
//! select, start or completion), which under load is the event's time.
//!
//! Parameters: see [`SPEC`]. Tie-break: within a PG, the selector's own; between PGs, table
//! order.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Unexpected, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

use crate::dm::historical_service_time::{HistoricalServiceTime, DEFAULT_BASE_WEIGHT};
use crate::dm::io_affinity::IoAffinity;
use crate::dm::map_table::{self, Prioritizer};
use crate::dm::queue_length::QueueLength;
use crate::dm::round_robin::RoundRobin;
use crate::dm::selector::{DmPathArgs, DmPathSelector};
use crate::dm::service_time::ServiceTime;
use crate::dm::shaky_paths::ShakyCheck;
use crate::dm::weightedpath;
use crate::params::{check_range, ParamSpec, PolicyError, PolicySpec};
use crate::positions::PathPositions;
use crate::registered::{HostStack, Registered};
use crate::status::{DmGroupStatus, DmPathStatus, PolicyStatus};
use crate::{
    AluaState, GroupState, HostView, IoDesc, IoDone, NoPathAction, PathDesc, PathGroup, PathId, PathSelector, TimeNs,
};

const NS_PER_S: u64 = 1_000_000_000;
/// multipathd's default `polling_interval`, the unit of `no_path_retry`.
const POLLING_INTERVAL_NS: TimeNs = 5 * NS_PER_S;
/// How far below the lowest ALUA priority a marginal path's group goes (any non-marginal group,
/// whose priorities are 0 to 130, stays above it).
const MARGINAL_PRIORITY_DROP: i32 = 1000;
/// dm-rq's delay before re-kicking a request that found no path (`delay_requeue`).
const REQUEUE_DELAY_NS: TimeNs = 100_000_000;

pub(crate) const SPEC: PolicySpec = PolicySpec {
    stack: "Linux dm-multipath + multipath-tools",
    summary: "Priority groups from ALUA priorities, a path selector in the current group, multipathd failback",
    params: &[
        ParamSpec {
            name: "selector",
            unset: None,
            range: None,
            choices: &["round-robin", "queue-length", "service-time", "historical-service-time", "io-affinity"],
            help: "path selector inside a priority group (multipath.conf path_selector)",
        },
        ParamSpec {
            name: "path_grouping_policy",
            unset: None,
            range: None,
            choices: &["failover", "multibus", "group_by_prio"],
            help: "how paths form priority groups (group_by_prio: by ALUA priority)",
        },
        ParamSpec {
            name: "failback",
            unset: None,
            range: Some((1, 2_147_483_647)),
            choices: &["manual", "immediate", "followover"],
            help: "return to the best priority group: never, at once, when its first path returns, or after N s",
        },
        ParamSpec {
            name: "no_path_retry",
            unset: None,
            range: Some((1, 2_147_483_647)),
            choices: &["fail", "queue"],
            help: "with no path: fail I/O, queue it for ever, or queue it for N polling intervals of 5 s",
        },
        ParamSpec {
            name: "prio",
            unset: Some("the hardware table's for the array"),
            range: None,
            choices: crate::dm::map_table::SIMULATED_PRIORITIZER_NAMES,
            help: "prioritizer: path priorities 1 (const), from ALUA states, the LUN owner's paths above the others (emc, ontap, rdac, hp_sw), or given per path (weightedpath)",
        },
        ParamSpec {
            name: "path_priorities",
            unset: Some("every path 0, weightedpath's default"),
            range: Some((0, crate::dm::weightedpath::MAX_PRIORITY)),
            choices: &[],
            help: "weightedpath: each path's priority by runtime name ({ \"host1:C0:T0:L1\" = 40 }); a path not named 0",
        },
        ParamSpec {
            name: "hardware_handler",
            unset: Some("the handler the kernel attached"),
            range: None,
            choices: crate::dm::map_table::HARDWARE_HANDLERS,
            help: "the kernel's device handler, as multipath -ll prints it (0: none); shown only, not simulated \
                   (no pg_init or trespass)",
        },
        ParamSpec {
            name: "features",
            unset: Some("the hardware table's"),
            range: None,
            choices: &[],
            help: "the table's features as 'N word...', N the count of words; shown only, not simulated \
                   (queue_if_no_path is no_path_retry's)",
        },
        ParamSpec {
            name: "base_weight",
            unset: None,
            range: Some((0, 1023)),
            choices: &[],
            help: "historical-service-time: weight of history, in 1024ths (0 ignores history)",
        },
        ParamSpec {
            name: "threshold_multiplier",
            unset: None,
            range: Some((0, 4_294_967_295)),
            choices: &[],
            help: "historical-service-time: paths count as different only beyond this ratio (0, 1: always)",
        },
        ParamSpec {
            name: "relative_throughput",
            unset: Some("1 for every path"),
            range: Some((0, 100)),
            choices: &[],
            help: "service-time: one value per path in path order (0: use only if no other path)",
        },
        ParamSpec {
            name: "cpu_map",
            unset: Some("none"),
            range: None,
            choices: &[],
            help: "io-affinity (required): one list of CPUs per path in path order; first mapping of a CPU wins",
        },
        ParamSpec {
            name: "marginal_pathgroups",
            unset: None,
            range: None,
            choices: &["off", "on", "fpin"],
            help: "paths the fabric marks marginal (FPIN) go to a group of their own, below every other",
        },
        ParamSpec {
            name: "san_path_err_threshold",
            unset: Some("no"),
            range: Some((1, 2_147_483_647)),
            choices: &[],
            help: "san_path_err: failures counted above this hold the path (needs the three san_path_err settings)",
        },
        ParamSpec {
            name: "san_path_err_forget_rate",
            unset: Some("no"),
            range: Some((1, 2_147_483_647)),
            choices: &[],
            help: "san_path_err: one failure forgotten every this many checks that find the path up",
        },
        ParamSpec {
            name: "san_path_err_recovery_time",
            unset: Some("no"),
            range: Some((1, 2_147_483_647)),
            choices: &[],
            help: "san_path_err: seconds a path past the threshold is held after its last failure",
        },
        ParamSpec {
            name: "marginal_path_double_failed_time",
            unset: Some("no"),
            range: Some((1, 2_147_483_647)),
            choices: &[],
            help: "marginal_path: two failures within this many seconds start the probing (needs the four marginal_path settings)",
        },
        ParamSpec {
            name: "marginal_path_err_sample_time",
            unset: Some("no"),
            range: Some((120, 2_147_483_647)),
            choices: &[],
            help: "marginal_path: seconds of direct-read probes (multipathd raises less than 120 to 120)",
        },
        ParamSpec {
            name: "marginal_path_err_rate_threshold",
            unset: Some("no"),
            range: Some((1, 2_147_483_647)),
            choices: &[],
            help: "marginal_path: probe errors per thousand above which the path stays held",
        },
        ParamSpec {
            name: "marginal_path_err_recheck_gap_time",
            unset: Some("no"),
            range: Some((1, 2_147_483_647)),
            choices: &[],
            help: "marginal_path: seconds a path over the rate is held before it is probed again",
        },
    ],
};

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum DmSelectorKind {
    RoundRobin,
    QueueLength,
    #[default]
    ServiceTime,
    HistoricalServiceTime,
    IoAffinity,
}

/// multipath.conf `marginal_pathgroups`: what multipathd does with paths the fabric marks
/// marginal (FPIN link integrity). Off: nothing. On / fpin: they leave their group for a group
/// of their own, below every other (`fpin`: marked by FPIN notifications; `on`: by multipathd's
/// own marginal-path detection, which FPIN also feeds here).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum MarginalPathgroups {
    #[default]
    Off,
    On,
    Fpin,
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum PathGrouping {
    Failover,
    Multibus,
    #[default]
    GroupByPrio,
}

/// A multipath.conf value that is a word or a number (`failback`, `no_path_retry`).
#[derive(Serialize)]
#[serde(untagged)]
enum WordOrNumber {
    Word(String),
    Number(u64),
}

impl<'de> Deserialize<'de> for WordOrNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct WordOrNumberVisitor;
        impl Visitor<'_> for WordOrNumberVisitor {
            type Value = WordOrNumber;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a word or a whole number of at least 0")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<WordOrNumber, E> {
                Ok(WordOrNumber::Word(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<WordOrNumber, E> {
                Ok(WordOrNumber::Number(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<WordOrNumber, E> {
                u64::try_from(v).map(WordOrNumber::Number).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
            }
        }
        deserializer.deserialize_any(WordOrNumberVisitor)
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "WordOrNumber", into = "WordOrNumber")]
pub enum Failback {
    #[default]
    Manual,
    Immediate,
    Followover,
    AfterSeconds(u64),
}

impl TryFrom<WordOrNumber> for Failback {
    type Error = String;
    fn try_from(value: WordOrNumber) -> Result<Self, String> {
        match value {
            WordOrNumber::Word(w) if w == "manual" => Ok(Failback::Manual),
            WordOrNumber::Word(w) if w == "immediate" => Ok(Failback::Immediate),
            WordOrNumber::Word(w) if w == "followover" => Ok(Failback::Followover),
            WordOrNumber::Word(w) => Err(format!("unknown failback \"{w}\": manual, immediate, followover or seconds")),
            WordOrNumber::Number(n) => Ok(Failback::AfterSeconds(n)),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(try_from = "WordOrNumber", into = "WordOrNumber")]
pub enum NoPathRetry {
    #[default]
    Fail,
    Queue,
    Retries(u64),
}

impl From<Failback> for WordOrNumber {
    fn from(value: Failback) -> Self {
        match value {
            Failback::Manual => WordOrNumber::Word("manual".into()),
            Failback::Immediate => WordOrNumber::Word("immediate".into()),
            Failback::Followover => WordOrNumber::Word("followover".into()),
            Failback::AfterSeconds(s) => WordOrNumber::Number(s),
        }
    }
}

impl From<NoPathRetry> for WordOrNumber {
    fn from(value: NoPathRetry) -> Self {
        match value {
            NoPathRetry::Fail => WordOrNumber::Word("fail".into()),
            NoPathRetry::Queue => WordOrNumber::Word("queue".into()),
            NoPathRetry::Retries(n) => WordOrNumber::Number(n),
        }
    }
}

impl TryFrom<WordOrNumber> for NoPathRetry {
    type Error = String;
    fn try_from(value: WordOrNumber) -> Result<Self, String> {
        match value {
            WordOrNumber::Word(w) if w == "fail" => Ok(NoPathRetry::Fail),
            WordOrNumber::Word(w) if w == "queue" => Ok(NoPathRetry::Queue),
            WordOrNumber::Word(w) => Err(format!("unknown no_path_retry \"{w}\": fail, queue or a number of retries")),
            WordOrNumber::Number(n) => Ok(NoPathRetry::Retries(n)),
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct DmMultipathConfig {
    pub selector: DmSelectorKind,
    pub path_grouping_policy: PathGrouping,
    pub failback: Failback,
    pub no_path_retry: NoPathRetry,
    pub base_weight: u64,
    pub threshold_multiplier: u64,
    pub relative_throughput: Vec<u64>,
    pub cpu_map: Vec<Vec<u32>>,
    pub marginal_pathgroups: MarginalPathgroups,
    /// The prioritizer, hardware handler and features (`map_table.rs`); each left out is the
    /// hardware table's for the array, as multipathd picks it (`LinuxClaim`).
    pub prio: Option<Prioritizer>,
    /// `weightedpath`'s priority of each path, by runtime name (`weightedpath.rs`); boxed, as
    /// few maps have it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_priorities: Option<Box<BTreeMap<String, u64>>>,
    pub hardware_handler: Option<String>,
    pub features: Option<String>,
    /// Shaky-path detection (`shaky_paths.rs`); each left out is multipath-tools' `no`.
    pub san_path_err_threshold: Option<u64>,
    pub san_path_err_forget_rate: Option<u64>,
    pub san_path_err_recovery_time: Option<u64>,
    pub marginal_path_double_failed_time: Option<u64>,
    pub marginal_path_err_sample_time: Option<u64>,
    pub marginal_path_err_rate_threshold: Option<u64>,
    pub marginal_path_err_recheck_gap_time: Option<u64>,
}

impl Default for DmMultipathConfig {
    fn default() -> Self {
        DmMultipathConfig {
            selector: DmSelectorKind::default(),
            path_grouping_policy: PathGrouping::default(),
            failback: Failback::default(),
            no_path_retry: NoPathRetry::default(),
            base_weight: u64::from(DEFAULT_BASE_WEIGHT),
            threshold_multiplier: 0,
            relative_throughput: Vec::new(),
            cpu_map: Vec::new(),
            marginal_pathgroups: MarginalPathgroups::default(),
            prio: None,
            path_priorities: None,
            hardware_handler: None,
            features: None,
            san_path_err_threshold: None,
            san_path_err_forget_rate: None,
            san_path_err_recovery_time: None,
            marginal_path_double_failed_time: None,
            marginal_path_err_sample_time: None,
            marginal_path_err_rate_threshold: None,
            marginal_path_err_recheck_gap_time: None,
        }
    }
}

impl Registered for DmMultipathConfig {
    const SPEC: &'static PolicySpec = &SPEC;
    const HOST: HostStack = HostStack::LinuxDm;

    fn validate(&self) -> Result<(), PolicyError> {
        check_range(SPEC.param("base_weight"), self.base_weight)?;
        check_range(SPEC.param("threshold_multiplier"), self.threshold_multiplier)?;
        if let Failback::AfterSeconds(s) = self.failback {
            check_range(SPEC.param("failback"), s)?;
        }
        if let NoPathRetry::Retries(n) = self.no_path_retry {
            check_range(SPEC.param("no_path_retry"), n)?;
        }
        self.shaky_settings()?;
        if let Some(prio) = self.prio {
            map_table::check_prio(prio)?;
        }
        for &p in self.path_priorities.iter().flat_map(|given| given.values()) {
            check_range(SPEC.param("path_priorities"), p)?;
        }
        if let Some(handler) = &self.hardware_handler {
            map_table::check_hardware_handler(handler)?;
        }
        if let Some(features) = &self.features {
            map_table::check_features(features)?;
        }
        for &rt in &self.relative_throughput {
            check_range(SPEC.param("relative_throughput"), rt)?;
        }
        let only_for = |field: &str, selector: &str| PolicyError {
            field: field.to_string(),
            message: format!("only the {selector} selector takes it"),
        };
        if !self.relative_throughput.is_empty() && self.selector != DmSelectorKind::ServiceTime {
            return Err(only_for("relative_throughput", "service-time"));
        }
        if self.path_priorities.is_some() && self.prio != Some(Prioritizer::Weightedpath) {
            return Err(PolicyError {
                field: "path_priorities".to_string(),
                message: "only prio = \"weightedpath\" takes it".to_string(),
            });
        }
        if !self.cpu_map.is_empty() && self.selector != DmSelectorKind::IoAffinity {
            return Err(only_for("cpu_map", "io-affinity"));
        }
        if self.cpu_map.is_empty() && self.selector == DmSelectorKind::IoAffinity {
            return Err(PolicyError {
                field: "cpu_map".to_string(),
                message: "io-affinity needs a CPU list for each path".to_string(),
            });
        }
        Ok(())
    }

    fn build(&self) -> Box<dyn PathSelector> {
        Box::new(DmMultipath::new(self.clone()))
    }
}

impl DmMultipathConfig {
    /// The shaky-path check multipathd runs with these settings, if any: both methods need
    /// every one of their settings (`san_path_check_enabled`, `marginal_path_check_enabled` in
    /// `libmultipath/structs.h`). multipathd turns them off for `marginal_pathgroups fpin` and
    /// san_path_err off when marginal_path is on (`propsel.c`); both are refused here instead.
    pub fn shaky_check(&self) -> Option<ShakyCheck> {
        self.shaky_settings().ok().flatten()
    }

    fn shaky_settings(&self) -> Result<Option<ShakyCheck>, PolicyError> {
        let s = |v: u64| v * NS_PER_S;
        let san = [self.san_path_err_threshold, self.san_path_err_forget_rate, self.san_path_err_recovery_time];
        let marginal = [
            self.marginal_path_double_failed_time,
            self.marginal_path_err_sample_time,
            self.marginal_path_err_rate_threshold,
            self.marginal_path_err_recheck_gap_time,
        ];
        let names = [
            "san_path_err_threshold",
            "san_path_err_forget_rate",
            "san_path_err_recovery_time",
            "marginal_path_double_failed_time",
            "marginal_path_err_sample_time",
            "marginal_path_err_rate_threshold",
            "marginal_path_err_recheck_gap_time",
        ];
        for (name, value) in names.iter().zip(san.iter().chain(&marginal)) {
            if let Some(v) = value {
                check_range(SPEC.param(name), *v)?;
            }
        }
        let refuse = |field: &str, message: &str| Err(PolicyError { field: field.into(), message: message.into() });
        let method = match (san, marginal) {
            ([None, None, None], [None, None, None, None]) => return Ok(None),
            ([Some(threshold), Some(forget_rate), Some(recovery)], [None, None, None, None]) => {
                ShakyCheck::SanPathErr { threshold, forget_rate, recovery_ns: s(recovery) }
            }
            ([None, None, None], [Some(double), Some(sample), Some(rate), Some(gap)]) => ShakyCheck::MarginalPath {
                double_failed_ns: s(double),
                sample_ns: s(sample),
                rate_threshold_permille: rate,
                recheck_gap_ns: s(gap),
            },
            ([None, None, None], _) => {
                return refuse(names[3], "the marginal_path check needs all four marginal_path_* settings")
            }
            (_, [None, None, None, None]) => {
                return refuse(names[0], "the san_path_err check needs all three san_path_err_* settings")
            }
            _ => return refuse(names[0], "set the san_path_err or the marginal_path check, not both"),
        };
        if self.marginal_pathgroups == MarginalPathgroups::Fpin {
            return refuse("marginal_pathgroups", "fpin turns the san_path_err and marginal_path checks off");
        }
        Ok(Some(method))
    }

    fn new_selector(&self) -> Box<dyn DmPathSelector> {
        match self.selector {
            DmSelectorKind::RoundRobin => Box::new(RoundRobin::new()),
            DmSelectorKind::QueueLength => Box::new(QueueLength::new()),
            DmSelectorKind::ServiceTime => Box::new(ServiceTime::new()),
            DmSelectorKind::HistoricalServiceTime => {
                Box::new(HistoricalServiceTime::new(self.base_weight as u32, self.threshold_multiplier as u32))
            }
            DmSelectorKind::IoAffinity => Box::new(IoAffinity::new()),
        }
    }
}

/// multipath-tools' `alua` prioritizer.
fn alua_priority(state: AluaState, preferred: bool) -> i32 {
    let base = match state {
        AluaState::ActiveOptimized => 50,
        AluaState::ActiveNonOptimized => 10,
        AluaState::Standby => 1,
        AluaState::Unavailable => 0,
    };
    if preferred && state != AluaState::ActiveOptimized {
        base + 80
    } else {
        base
    }
}

/// The priority an ownership prioritizer gives a path to the controller owning the LUN
/// (`owner`) and one to the other controller, the LUN on its preferred controller: `emc` and
/// `ontap` 4 and 1; `rdac` (`prioritizers/rdac.c`) owner 0x02 plus preferred 0x04, the other
/// controller secondary 0x01 (the I/O-shipping bit 0x08 is not modelled: it adds 8 to both and
/// changes no group); `hp_sw` (`prioritizers/hp_sw.c`) HP_PATH_ACTIVE 4, HP_PATH_STANDBY 2.
fn owner_priority(kind: Prioritizer, owner: bool) -> i32 {
    match (kind, owner) {
        (Prioritizer::Rdac, true) => 0x02 | 0x04,
        (Prioritizer::Rdac, false) => 0x01,
        (Prioritizer::HpSw, false) => 2,
        (_, true) => 4,
        (_, false) => 1,
    }
}

#[derive(Clone)]
struct DmPath {
    id: PathId,
    alua: AluaState,
    preferred: bool,
    /// `weightedpath`'s priority of the path (by its name in `path_priorities`).
    weight: i32,
    failed: bool,
    /// Marked marginal by the fabric (FPIN).
    marginal: bool,
    in_flight_ios: u64,
    in_flight_bytes: u64,
}

#[derive(Clone)]
struct PriorityGroup {
    /// Indices into `DmMultipath::paths`, in table order.
    members: Vec<usize>,
    selector: Box<dyn DmPathSelector>,
}

/// One multipath map (one device).
#[derive(Clone)]
pub struct DmMultipath {
    config: DmMultipathConfig,
    /// In discovery order.
    paths: Vec<DmPath>,
    /// Positions in `paths` by id.
    positions: PathPositions,
    /// In table order.
    groups: Vec<PriorityGroup>,
    current: Option<usize>,
    next: Option<usize>,
    /// The latest time seen: when checker events are taken to happen.
    now_ns: TimeNs,
    failback_due_ns: Option<TimeNs>,
}

impl DmMultipath {
    pub fn new(config: DmMultipathConfig) -> Self {
        DmMultipath {
            config,
            paths: Vec::new(),
            positions: PathPositions::default(),
            groups: Vec::new(),
            current: None,
            next: None,
            now_ns: 0,
            failback_due_ns: None,
        }
    }

    fn index_of(&self, id: PathId) -> Option<usize> {
        self.positions.get(id)
    }

    /// The path's priority from its prioritizer (`alua` when none is set): `const` gives every
    /// path 1, so `group_by_prio` makes one group of them all; `emc` and `ontap` 4 on the LUN
    /// owner's paths (seen active-optimized) and 1 on the others; `rdac` and `hp_sw` their own
    /// values for the owner's paths and the others (`owner_priority`); `weightedpath` the
    /// priority given for the path by name (`weightedpath.rs`).
    fn priority(&self, index: usize) -> i32 {
        let path = &self.paths[index];
        let owner = path.alua == AluaState::ActiveOptimized;
        let prio = match self.config.prio {
            Some(Prioritizer::Const) => 1,
            Some(Prioritizer::Weightedpath) => path.weight,
            Some(kind @ (Prioritizer::Emc | Prioritizer::Ontap | Prioritizer::Rdac | Prioritizer::HpSw)) => {
                owner_priority(kind, owner)
            }
            _ => alua_priority(path.alua, path.preferred),
        };
        // A marginal path sits below every other: its own group, the last one tried.
        match self.in_marginal_group(index) {
            true => prio - MARGINAL_PRIORITY_DROP,
            false => prio,
        }
    }

    fn in_marginal_group(&self, index: usize) -> bool {
        self.paths[index].marginal && self.config.marginal_pathgroups != MarginalPathgroups::Off
    }

    /// `path_group_prio_update`: (integer average priority of the paths up, number up).
    fn group_priority(&self, members: &[usize]) -> (i32, usize) {
        let up = members.iter().copied().filter(|&i| !self.paths[i].failed);
        // Summed in i64: weightedpath's priorities (up to 1,000,000 a path) on thousands of paths
        // pass i32; their integer average is within a path's priority, so within i32.
        let (sum, count) = up.fold((0i64, 0usize), |(sum, count), i| (sum + i64::from(self.priority(i)), count + 1));
        if count == 0 {
            (0, 0)
        } else {
            ((sum / count as i64) as i32, count)
        }
    }

    /// The path grouping policy, in order of each group's first path.
    /// multipath-tools' `group_paths` (`libmultipath/pgpolicies.c`): with marginal_pathgroups,
    /// the marginal paths are split off first and grouped by the same policy on their own, so
    /// even multibus puts them in a group apart.
    fn grouping(&self) -> Vec<Vec<usize>> {
        let (marginal, normal): (Vec<usize>, Vec<usize>) =
            (0..self.paths.len()).partition(|&i| self.in_marginal_group(i));
        let mut groups = self.group(&normal);
        groups.extend(self.group(&marginal));
        groups
    }

    /// The grouping policy over `members` (indices into `paths`).
    fn group(&self, members: &[usize]) -> Vec<Vec<usize>> {
        match self.config.path_grouping_policy {
            PathGrouping::Failover => members.iter().map(|&i| vec![i]).collect(),
            PathGrouping::Multibus if members.is_empty() => Vec::new(),
            PathGrouping::Multibus => vec![members.to_vec()],
            PathGrouping::GroupByPrio => {
                let mut groups: Vec<Vec<usize>> = Vec::new();
                for &i in members {
                    match groups.iter_mut().find(|g| self.priority(g[0]) == self.priority(i)) {
                        Some(g) => g.push(i),
                        None => groups.push(vec![i]),
                    }
                }
                groups
            }
        }
    }

    /// Builds (or reloads) the map: groups, sorted, with fresh selectors that take over the
    /// paths' state and load; the initial PG is the best one.
    fn load_table(&mut self) {
        let mut grouping = self.grouping();
        grouping.sort_by_key(|members| Reverse(self.group_priority(members)));
        let mut groups = Vec::with_capacity(grouping.len());
        for members in grouping {
            let mut selector = self.config.new_selector();
            for &i in &members {
                let id = self.paths[i].id;
                let relative_throughput = self.config.relative_throughput.get(i).map_or(1, |&rt| rt as u32);
                let cpus = self.config.cpu_map.get(i).map_or(&[][..], Vec::as_slice);
                selector.add_path(&DmPathArgs { id, relative_throughput, cpus });
                if self.paths[i].failed {
                    selector.fail_path(id);
                }
                if self.paths[i].in_flight_ios > 0 {
                    selector.adopt_in_flight(id, self.paths[i].in_flight_ios, self.paths[i].in_flight_bytes);
                }
            }
            groups.push(PriorityGroup { members, selector });
        }
        self.groups = groups;
        self.current = None;
        self.next = Some(self.best_group());
    }

    /// multipath-tools' `select_path_group` (0-based).
    fn best_group(&self) -> usize {
        let mut best: Option<(usize, i32, usize)> = None;
        for (g, group) in self.groups.iter().enumerate() {
            let (prio, up) = self.group_priority(&group.members);
            if up == 0 {
                continue;
            }
            let better = match best {
                None => true,
                Some((_, best_prio, best_up)) => prio > best_prio || (prio == best_prio && up > best_up),
            };
            if better {
                best = Some((g, prio, up));
            }
        }
        best.map_or(0, |(g, _, _)| g)
    }

    /// multipath-tools' `path_groups_in_order`.
    fn groups_in_order(&self) -> bool {
        let prios = self.groups.iter().map(|g| self.group_priority(&g.members).0);
        prios.clone().zip(prios.skip(1)).all(|(a, b)| b <= a)
    }

    /// multipathd's `need_switch_pathgroup`: `Some(reload)` when a switch is needed, `reload`
    /// telling whether the PG order itself must change.
    fn need_switch(&self) -> Option<bool> {
        if self.config.failback == Failback::Manual || self.groups.is_empty() {
            return None;
        }
        let reported = self.next.or(self.current).unwrap_or(0);
        let reload = !self.groups_in_order();
        (reload || self.best_group() != reported).then_some(reload)
    }

    /// `switch_group` to the best PG, or a map reload when the PGs are out of order.
    fn switch_to_best(&mut self, reload: bool) {
        if reload {
            self.load_table();
        } else {
            self.current = None;
            self.next = Some(self.best_group());
        }
    }

    fn group_of(&self, index: usize) -> usize {
        self.groups.iter().position(|g| g.members.contains(&index)).expect("every path is in a group")
    }

    /// multipathd's `followover_should_failback`.
    fn followover_should_failback(&self, index: usize) -> bool {
        let g = self.group_of(index);
        g == self.best_group() && self.groups[g].members.iter().all(|&i| i == index || self.paths[i].failed)
    }

    /// The tail of multipathd's `check_path`, after a path failed, came back or changed priority.
    fn after_checker(&mut self, index: usize, path_came_up: bool, priority_changed: bool) {
        let by_prio = self.config.path_grouping_policy == PathGrouping::GroupByPrio;
        if priority_changed && by_prio && self.config.failback == Failback::Immediate {
            self.load_table();
            return;
        }
        let Some(reload) = self.need_switch() else { return };
        match self.config.failback {
            Failback::AfterSeconds(s) => {
                if path_came_up || self.failback_due_ns.is_none() {
                    self.failback_due_ns = Some(self.now_ns + s * NS_PER_S);
                }
            }
            Failback::Immediate => self.switch_to_best(reload),
            Failback::Followover => {
                if path_came_up && self.followover_should_failback(index) {
                    self.switch_to_best(reload);
                }
            }
            Failback::Manual => {}
        }
    }

    /// The kernel's `choose_pgpath`.
    fn choose_path(&mut self, io: &IoDesc, now_ns: TimeNs, host: &dyn HostView) -> Option<PathId> {
        if self.paths.iter().all(|p| p.failed) {
            self.current = None;
            return None;
        }
        if let Some(g) = self.next.take() {
            if let Some(path) = self.groups[g].selector.select_path(io, now_ns, host) {
                self.current = Some(g);
                return Some(path);
            }
        }
        if let Some(g) = self.current {
            if let Some(path) = self.groups[g].selector.select_path(io, now_ns, host) {
                return Some(path);
            }
        }
        for g in 0..self.groups.len() {
            if let Some(path) = self.groups[g].selector.select_path(io, now_ns, host) {
                self.current = Some(g);
                return Some(path);
            }
        }
        self.current = None;
        None
    }

    fn see_time(&mut self, now_ns: TimeNs) {
        self.now_ns = self.now_ns.max(now_ns);
    }

    fn has_path_up(&self, g: usize) -> bool {
        self.groups[g].members.iter().any(|&i| !self.paths[i].failed)
    }
}

impl PathSelector for DmMultipath {
    /// Reads no other device's commands in flight (`HostView::nexus_outstanding`).
    fn reads_host_queues(&self) -> bool {
        false
    }

    fn add_path(&mut self, path: &PathDesc) {
        self.positions.add(path.id, self.paths.len());
        self.paths.push(DmPath {
            id: path.id,
            alua: path.alua,
            preferred: path.preferred,
            weight: weightedpath::priority_of(self.config.path_priorities.as_deref(), path.name),
            failed: false,
            marginal: false,
            in_flight_ios: 0,
            in_flight_bytes: 0,
        });
        self.load_table();
    }

    fn fail_path(&mut self, path: PathId) {
        let Some(i) = self.index_of(path) else { return };
        if self.paths[i].failed {
            return;
        }
        self.paths[i].failed = true;
        let g = self.group_of(i);
        self.groups[g].selector.fail_path(path);
        self.after_checker(i, false, false);
    }

    fn reinstate_path(&mut self, path: PathId) {
        let Some(i) = self.index_of(path) else { return };
        if !self.paths[i].failed {
            return;
        }
        self.paths[i].failed = false;
        let g = self.group_of(i);
        self.groups[g].selector.reinstate_path(path);
        self.after_checker(i, true, false);
    }

    fn set_alua_state(&mut self, path: PathId, state: AluaState) {
        let Some(i) = self.index_of(path) else { return };
        let before = self.priority(i);
        self.paths[i].alua = state;
        let changed = self.priority(i) != before;
        self.after_checker(i, false, changed);
    }

    fn set_marginal(&mut self, path: PathId, marginal: bool) {
        let Some(i) = self.index_of(path) else { return };
        let before = self.priority(i);
        self.paths[i].marginal = marginal;
        // multipathd reloads the map at once, the marginal path in a group of its own
        // (`reload_and_sync_map` on a marginal state change), whatever failback says.
        if self.priority(i) != before {
            self.load_table();
        }
    }

    fn select_path(&mut self, io: &IoDesc, now_ns: TimeNs, host: &dyn HostView) -> Option<PathId> {
        self.see_time(now_ns);
        if self.failback_due_ns.is_some_and(|due| now_ns >= due) {
            self.failback_due_ns = None;
            if let Some(reload) = self.need_switch() {
                self.switch_to_best(reload);
            }
        }
        self.choose_path(io, now_ns, host)
    }

    fn start_io(&mut self, path: PathId, io: &IoDesc, now_ns: TimeNs) {
        self.see_time(now_ns);
        let Some(i) = self.index_of(path) else { return };
        self.paths[i].in_flight_ios += 1;
        self.paths[i].in_flight_bytes += io.bytes;
        let g = self.group_of(i);
        self.groups[g].selector.start_io(path, io);
    }

    fn end_io(&mut self, path: PathId, io: &IoDesc, done: &IoDone) {
        self.see_time(done.now_ns);
        let Some(i) = self.index_of(path) else { return };
        let p = &mut self.paths[i];
        p.in_flight_ios = p.in_flight_ios.saturating_sub(1);
        p.in_flight_bytes = p.in_flight_bytes.saturating_sub(io.bytes);
        let g = self.group_of(i);
        self.groups[g].selector.end_io(path, io, done);
    }

    fn no_path_action(&self) -> NoPathAction {
        match self.config.no_path_retry {
            NoPathRetry::Fail => NoPathAction::Fail,
            NoPathRetry::Queue => NoPathAction::Queue { retry_ns: Some(REQUEUE_DELAY_NS), give_up_after_ns: None },
            NoPathRetry::Retries(n) => NoPathAction::Queue {
                retry_ns: Some(REQUEUE_DELAY_NS),
                give_up_after_ns: Some(n * POLLING_INTERVAL_NS),
            },
        }
    }

    fn path_groups(&self) -> Vec<PathGroup> {
        self.groups
            .iter()
            .enumerate()
            .map(|(g, group)| PathGroup {
                priority: self.group_priority(&group.members).0,
                state: if self.current == Some(g) { GroupState::Active } else { GroupState::Enabled },
                selector: group.selector.table(),
                paths: group.members.iter().map(|&i| self.paths[i].id).collect(),
            })
            .collect()
    }

    /// Like `multipath -ll`: the features line, then each PG and its paths, each path followed
    /// by its selector's info args from `dmsetup status` when the selector has any.
    fn status(&self) -> PolicyStatus {
        let queue_if_no_path = !matches!(self.config.no_path_retry, NoPathRetry::Fail);
        let groups = self
            .path_groups()
            .into_iter()
            .zip(&self.groups)
            .map(|(group, pg)| DmGroupStatus {
                paths: group
                    .paths
                    .iter()
                    .map(|&id| DmPathStatus {
                        path: id,
                        failed: self.index_of(id).is_some_and(|i| self.paths[i].failed),
                        info: pg.selector.path_info(id),
                    })
                    .collect(),
                selector: group.selector,
                priority: group.priority,
                state: group.state,
            })
            .collect();
        // Filled from the claim before the map is built (`LinuxClaim::fill`); a map built
        // without one (a unit test) has no handler: `0`, as multipath -ll prints none.
        let hwhandler = self.config.hardware_handler.clone().unwrap_or_else(|| "0".to_string());
        PolicyStatus::DmMultipath { queue_if_no_path, hwhandler, groups }
    }

    /// The paths up in the PG the next I/O would use.
    fn working_paths(&self) -> Vec<PathId> {
        let next = self.next.filter(|&g| self.has_path_up(g));
        let current = self.current.filter(|&g| self.has_path_up(g));
        let Some(g) = next.or(current).or_else(|| (0..self.groups.len()).find(|&g| self.has_path_up(g))) else {
            return Vec::new();
        };
        let mut up: Vec<usize> = self.groups[g].members.iter().copied().filter(|&i| !self.paths[i].failed).collect();
        up.sort_unstable();
        up.into_iter().map(|i| self.paths[i].id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{add_paths_with, complete, io, issue};
    use crate::IdleHost;

    const AO: AluaState = AluaState::ActiveOptimized;
    const ANO: AluaState = AluaState::ActiveNonOptimized;

    fn dm(config: DmMultipathConfig, states: &[(AluaState, bool)]) -> DmMultipath {
        let mut p = DmMultipath::new(config);
        add_paths_with(&mut p, states.len() as u32, |i, d| (d.alua, d.preferred) = states[i as usize]);
        p
    }

    /// One 4 KiB I/O at `now_ns` that completes at once; the path it took.
    fn one_io(p: &mut DmMultipath, now_ns: TimeNs) -> u32 {
        let io = io(4096, 0);
        let path = issue(p, &IdleHost, &io, now_ns);
        complete(p, path, &io, now_ns, now_ns + 1000);
        path
    }

    fn groups(p: &DmMultipath) -> Vec<(i32, Vec<u32>)> {
        p.path_groups().into_iter().map(|g| (g.priority, g.paths.iter().map(|id| id.0).collect())).collect()
    }

    fn failback(failback: Failback) -> DmMultipathConfig {
        DmMultipathConfig { selector: DmSelectorKind::RoundRobin, failback, ..DmMultipathConfig::default() }
    }

    /// Two active-optimized paths (0, 1) and two non-optimized (2, 3), grouped by priority.
    fn ao_ano(config: DmMultipathConfig) -> DmMultipath {
        dm(config, &[(AO, false), (AO, false), (ANO, false), (ANO, false)])
    }

    #[test]
    fn marginal_pathgroups_puts_a_marginal_path_in_a_group_of_its_own_below_the_others() {
        let fpin = DmMultipathConfig { marginal_pathgroups: MarginalPathgroups::Fpin, ..Default::default() };
        let mut p = dm(fpin, &[(AO, false), (AO, false), (ANO, false)]);
        assert_eq!(groups(&p), [(50, vec![0, 1]), (10, vec![2])]);
        p.set_marginal(PathId(1), true);
        // Its own group, below the non-optimized one (priority 50 - 1000).
        assert_eq!(groups(&p), [(50, vec![0]), (10, vec![2]), (-950, vec![1])]);
        assert!((0..6).all(|k| one_io(&mut p, k * 1000) == 0));
        p.set_marginal(PathId(1), false);
        assert_eq!(groups(&p), [(50, vec![0, 1]), (10, vec![2])]);
        // Off (multipath-tools' default): the notification changes nothing.
        let mut off = dm(DmMultipathConfig::default(), &[(AO, false), (AO, false)]);
        off.set_marginal(PathId(1), true);
        assert_eq!(groups(&off), [(50, vec![0, 1])]);
    }

    #[test]
    fn marginal_paths_leave_a_multibus_group_too_as_group_paths_splits_them_first() {
        let on = DmMultipathConfig {
            marginal_pathgroups: MarginalPathgroups::On,
            path_grouping_policy: PathGrouping::Multibus,
            ..Default::default()
        };
        let mut p = dm(on, &[(AO, false), (AO, false), (AO, false)]);
        assert_eq!(groups(&p), [(50, vec![0, 1, 2])]);
        p.set_marginal(PathId(2), true);
        assert_eq!(groups(&p), [(50, vec![0, 1]), (-950, vec![2])]);
        assert!((0..6).all(|k| one_io(&mut p, k * 1000) != 2));
    }

    #[test]
    fn group_by_prio_groups_equal_priorities_and_sorts_groups() {
        // Priorities: 50, 10, 50, 10 + 80 (preferred, not AO), 1 (standby).
        let p = dm(
            DmMultipathConfig::default(),
            &[(AO, false), (ANO, false), (AO, false), (ANO, true), (AluaState::Standby, false)],
        );
        assert_eq!(groups(&p), [(90, vec![3]), (50, vec![0, 2]), (10, vec![1]), (1, vec![4])]);
        let g = &p.path_groups()[0];
        assert_eq!((g.state, g.selector.as_str()), (GroupState::Enabled, "service-time 0"));
    }

    /// `prio const`: every path 1, so group_by_prio (multipathd's `group_by_prio`) makes one
    /// group of every path whatever ALUA says, and I/O spreads over the non-optimized paths too.
    /// `emc`: the owner's paths (seen AO) 4, the others 1, two groups.
    #[test]
    fn the_prioritizer_gives_the_priorities_the_groups_follow() {
        let states = [(AO, false), (AO, false), (ANO, false), (ANO, false)];
        let mut constant = dm(DmMultipathConfig { prio: Some(Prioritizer::Const), ..Default::default() }, &states);
        assert_eq!(groups(&constant), [(1, vec![0, 1, 2, 3])]);
        let used: std::collections::BTreeSet<u32> = (0..8).map(|k| one_io(&mut constant, k * 1000)).collect();
        assert_eq!(used.into_iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
        let emc = dm(
            DmMultipathConfig { prio: Some(Prioritizer::Emc), ..Default::default() },
            &[(AluaState::Standby, false), (AO, false), (AluaState::Standby, false), (AO, false)],
        );
        assert_eq!(groups(&emc), [(4, vec![1, 3]), (1, vec![0, 2])]);
        let owner_first = [(AluaState::Standby, false), (AO, false), (AluaState::Standby, false), (AO, false)];
        let rdac = dm(DmMultipathConfig { prio: Some(Prioritizer::Rdac), ..Default::default() }, &owner_first);
        assert_eq!(groups(&rdac), [(6, vec![1, 3]), (1, vec![0, 2])]);
        let hp_sw = dm(DmMultipathConfig { prio: Some(Prioritizer::HpSw), ..Default::default() }, &owner_first);
        assert_eq!(groups(&hp_sw), [(4, vec![1, 3]), (2, vec![0, 2])]);
    }

    /// `weightedpath`: the priorities given by path name, whatever ALUA says; a path not named
    /// 0 (weightedpath.c's DEFAULT_PRIORITY), so group_by_prio puts it in a group of its own, last.
    #[test]
    fn weightedpath_groups_by_the_priorities_given_per_path() {
        let given = [("vmhba1:C0:T0:L0", 20), ("vmhba1:C0:T1:L0", 40), ("vmhba1:C0:T2:L0", 20)];
        let config = DmMultipathConfig {
            prio: Some(Prioritizer::Weightedpath),
            path_priorities: Some(Box::new(given.iter().map(|&(n, p)| (n.to_string(), p)).collect())),
            ..Default::default()
        };
        let p = dm(config.clone(), &[(ANO, false), (ANO, false), (AO, false), (AO, false)]);
        assert_eq!(groups(&p), [(40, vec![1]), (20, vec![0, 2]), (0, vec![3])]);
        assert!(config.validate().is_ok());
        let elsewhere = DmMultipathConfig { prio: Some(Prioritizer::Alua), ..config };
        assert_eq!(elsewhere.validate().unwrap_err().message, "only prio = \"weightedpath\" takes it");
        let too_high = DmMultipathConfig {
            prio: Some(Prioritizer::Weightedpath),
            path_priorities: Some(Box::new([("a".to_string(), 1_000_001)].into())),
            ..Default::default()
        };
        assert_eq!(too_high.validate().unwrap_err().message, "1000001 is out of range: allowed 0 to 1000000");
    }

    /// 2,200 paths of weightedpath's largest priority in one group: their sum passes i32, their
    /// average does not.
    #[test]
    fn a_group_of_many_paths_of_the_largest_weight_keeps_its_priority() {
        let n = 2_200;
        let given = (0..n).map(|i| (format!("vmhba1:C0:T{i}:L0"), weightedpath::MAX_PRIORITY)).collect();
        let config = DmMultipathConfig {
            prio: Some(Prioritizer::Weightedpath),
            path_priorities: Some(Box::new(given)),
            path_grouping_policy: PathGrouping::Multibus,
            ..Default::default()
        };
        let p = dm(config, &vec![(AO, false); n]);
        assert_eq!(groups(&p), [(1_000_000, (0..n as u32).collect())]);
    }

    #[test]
    fn group_priority_is_the_integer_average_of_paths_up() {
        let states = [(AO, false), (ANO, false), (AluaState::Standby, false)];
        let mut p =
            dm(DmMultipathConfig { path_grouping_policy: PathGrouping::Multibus, ..Default::default() }, &states);
        // (50 + 10 + 1) / 3 = 20; with the AO path down (10 + 1) / 2 = 5.
        assert_eq!(groups(&p), [(20, vec![0, 1, 2])]);
        p.fail_path(PathId(0));
        assert_eq!(groups(&p), [(5, vec![0, 1, 2])]);
        // failover: one group per path, sorted by priority; ties keep path order.
        let p = dm(
            DmMultipathConfig { path_grouping_policy: PathGrouping::Failover, ..Default::default() },
            &[(ANO, false), (AO, false), (AO, false), (AluaState::Unavailable, false)],
        );
        assert_eq!(groups(&p), [(50, vec![1]), (50, vec![2]), (10, vec![0]), (0, vec![3])]);
    }

    #[test]
    fn stays_in_its_group_and_manual_failback_never_returns() {
        let mut p = ao_ano(failback(Failback::Manual));
        assert_eq!((0..3).map(|_| one_io(&mut p, 0)).collect::<Vec<_>>(), [0, 1, 0]);
        assert_eq!(p.path_groups()[0].state, GroupState::Active);
        p.fail_path(PathId(0));
        p.fail_path(PathId(1));
        assert_eq!((0..3).map(|_| one_io(&mut p, 10)).collect::<Vec<_>>(), [2, 3, 2]);
        p.reinstate_path(PathId(0));
        p.reinstate_path(PathId(1));
        assert_eq!((0..3).map(|_| one_io(&mut p, 20)).collect::<Vec<_>>(), [3, 2, 3]);
        assert_eq!(p.working_paths(), [PathId(2), PathId(3)]);
        assert_eq!(groups(&p), [(50, vec![0, 1]), (10, vec![2, 3])]);
        assert_eq!(p.path_groups()[1].state, GroupState::Active);
    }

    #[test]
    fn immediate_failback_returns_as_soon_as_a_better_path_is_back() {
        let mut p = ao_ano(failback(Failback::Immediate));
        one_io(&mut p, 0);
        p.fail_path(PathId(0));
        p.fail_path(PathId(1));
        // The AO group, now priority 0, is out of order: the map is reloaded with it last.
        assert_eq!(groups(&p), [(10, vec![2, 3]), (0, vec![0, 1])]);
        assert_eq!(one_io(&mut p, 10), 2);
        p.reinstate_path(PathId(1));
        assert_eq!(groups(&p), [(50, vec![0, 1]), (10, vec![2, 3])]);
        assert_eq!((0..2).map(|_| one_io(&mut p, 20)).collect::<Vec<_>>(), [1, 1]);
    }

    #[test]
    fn deferred_failback_waits_the_given_seconds() {
        let mut p = ao_ano(failback(Failback::AfterSeconds(10)));
        one_io(&mut p, 0);
        p.fail_path(PathId(0));
        p.fail_path(PathId(1));
        assert_eq!(one_io(&mut p, NS_PER_S), 2);
        // The last I/O before the AO path returns ends at 100 s + 1 us, so the failback is due
        // at 110 s + 1 us. (At 100 s the reload armed by the failure re-sorts the groups.)
        assert_eq!(one_io(&mut p, 100 * NS_PER_S), 2);
        p.reinstate_path(PathId(0));
        assert_eq!(one_io(&mut p, 110 * NS_PER_S), 3);
        assert_eq!(one_io(&mut p, 110 * NS_PER_S + 1000), 0);
        assert_eq!(groups(&p), [(50, vec![0, 1]), (10, vec![2, 3])]);
    }

    #[test]
    fn followover_returns_only_when_the_first_path_of_the_best_group_comes_back() {
        let mut p = ao_ano(failback(Failback::Followover));
        one_io(&mut p, 0);
        p.fail_path(PathId(0));
        p.fail_path(PathId(1));
        assert_eq!(one_io(&mut p, 10), 2);
        p.reinstate_path(PathId(1));
        assert_eq!(one_io(&mut p, 20), 1);
    }

    #[test]
    fn followover_ignores_a_priority_change_that_immediate_follows() {
        // Another node moved the LUN: paths 0, 1 become non-optimized and 2, 3 optimized.
        let swap = |p: &mut DmMultipath| {
            for (i, s) in [ANO, ANO, AO, AO].into_iter().enumerate() {
                p.set_alua_state(PathId(i as u32), s);
            }
        };
        let mut p = ao_ano(failback(Failback::Followover));
        one_io(&mut p, 0);
        swap(&mut p);
        assert_eq!(groups(&p), [(10, vec![0, 1]), (50, vec![2, 3])]);
        assert_eq!((0..2).map(|_| one_io(&mut p, 10)).collect::<Vec<_>>(), [1, 0], "stays put");
        let mut p = ao_ano(failback(Failback::Immediate));
        one_io(&mut p, 0);
        swap(&mut p);
        // group_by_prio + immediate: a priority change reloads the map, regrouped.
        assert_eq!(groups(&p), [(50, vec![2, 3]), (10, vec![0, 1])]);
        assert_eq!(one_io(&mut p, 10), 2);
    }

    #[test]
    fn no_path_retry_maps_to_fail_queue_or_a_bounded_queue() {
        let action = |no_path_retry| {
            DmMultipath::new(DmMultipathConfig { no_path_retry, ..Default::default() }).no_path_action()
        };
        assert_eq!(action(NoPathRetry::Fail), NoPathAction::Fail);
        let requeue = Some(100_000_000);
        assert_eq!(action(NoPathRetry::Queue), NoPathAction::Queue { retry_ns: requeue, give_up_after_ns: None });
        assert_eq!(
            action(NoPathRetry::Retries(12)),
            NoPathAction::Queue { retry_ns: requeue, give_up_after_ns: Some(60 * NS_PER_S) }
        );
        let mut p = ao_ano(DmMultipathConfig::default());
        for i in 0..4 {
            p.fail_path(PathId(i));
        }
        assert_eq!(p.select_path(&io(4096, 0), 0, &IdleHost), None);
        assert!(p.working_paths().is_empty());
    }

    #[test]
    fn status_prints_the_handler_in_force() {
        // It printed `1 alua` whatever the handler.
        for (handler, first) in [
            (Some("1 emc"), "features='0' hwhandler='1 emc' wp=rw"),
            (Some("1 rdac"), "features='0' hwhandler='1 rdac' wp=rw"),
            (Some("0"), "features='0' hwhandler='0' wp=rw"),
            (None, "features='0' hwhandler='0' wp=rw"),
        ] {
            let config = DmMultipathConfig { hardware_handler: handler.map(str::to_string), ..Default::default() };
            let text = ao_ano(config).status().render(&|id| format!("sd{}", id.0));
            assert_eq!(text.lines().next(), Some(first), "{handler:?}");
        }
    }

    #[test]
    fn status_prints_like_multipath_ll() {
        let mut p = ao_ano(DmMultipathConfig {
            no_path_retry: NoPathRetry::Queue,
            hardware_handler: Some("1 alua".to_string()),
            ..Default::default()
        });
        one_io(&mut p, 0);
        p.fail_path(PathId(3));
        let text = p.status().render(&|id| format!("sd{}", (b'a' + id.0 as u8) as char));
        assert_eq!(
            text,
            "features='1 queue_if_no_path' hwhandler='1 alua' wp=rw\n\
             |-+- policy='service-time 0' prio=50 status=active\n\
             | |- sda active ready running ps_info='0 1'\n\
             | `- sdb active ready running ps_info='0 1'\n\
             `-+- policy='service-time 0' prio=10 status=enabled\n\
             \x20 |- sdc active ready running ps_info='0 1'\n\
             \x20 `- sdd failed faulty running ps_info='0 1'"
        );
    }

    #[test]
    fn config_reads_words_and_numbers_and_checks_ranges() {
        let c = DmMultipathConfig {
            selector: DmSelectorKind::HistoricalServiceTime,
            base_weight: 1024,
            ..Default::default()
        };
        assert_eq!(c.validate().unwrap_err().field, "base_weight");
        let c = DmMultipathConfig { relative_throughput: vec![1, 101], ..Default::default() };
        assert!(c.validate().unwrap_err().message.contains("0 to 100"));
        let c = DmMultipathConfig { selector: DmSelectorKind::IoAffinity, ..Default::default() };
        assert_eq!(c.validate().unwrap_err().field, "cpu_map");
        assert_eq!(Failback::try_from(WordOrNumber::Number(30)), Ok(Failback::AfterSeconds(30)));
        assert_eq!(Failback::try_from(WordOrNumber::Word("followover".into())), Ok(Failback::Followover));
        assert!(NoPathRetry::try_from(WordOrNumber::Word("forever".into())).is_err());
        let c = DmMultipathConfig { failback: Failback::AfterSeconds(0), ..Default::default() };
        assert_eq!(c.validate().unwrap_err().field, "failback");
    }
}
