//! multipath-tools' built-in hardware table and compiled-in defaults: what a Linux host's
//! multipathd sets for a map when multipath.conf says nothing, by the array's SCSI vendor and
//! product.
//!
//! Source: opensvc/multipath-tools 0.14.3 (commit c2fcdaf138260800d0cec4addf81ed27b5040bd8,
//! 2026-02-05): `libmultipath/hwtable.c` (`default_hw`, the entries for the arrays pathlab ships
//! and their NVMe siblings), `libmultipath/defaults.h` (the defaults) and
//! `libmultipath/propsel.c` (how a value is chosen). Only the attributes pathlab models or
//! shows are kept; each entry names its family as hwtable.c's comment does.
//!
//! Choosing (propsel.c): for each attribute the first that sets it of multipath.conf's
//! `multipaths` / `overrides` / `devices` (the scenario's own policy table here), the hardware
//! table, multipath.conf `defaults`, then the compiled-in default. Within the table every entry
//! whose vendor and product regular expressions match takes part, the later in the table first
//! (`find_hwe` searches backwards), so a specific entry wins over the generic NVMe one. Three
//! attributes are decided by the device before any table:
//! - `prio` (`select_prio`): with `detect_prio` on (the default; the FlashArray entry turns it
//!   off) an array answering REPORT TARGET PORT GROUPS gets `alua` (`detect_prio`); an `alua`
//!   prioritizer on an array without TPGS falls back to `const` ("emergency fallback").
//! - `path_grouping_policy` (`select_pgpolicy`): with `detect_pgpolicy` on (the default) and
//!   every path on the `alua` prioritizer, `group_by_prio`, whatever the table says.
//! - `hardware_handler` (`select_hwhandler`): kernels from 4.3 keep the handler the kernel
//!   attached (`retain_attached_hw_handler`): `alua` for every TPGS array, else the one
//!   `scsi_dh.c`'s `scsi_dh_blist` names (`emc` for DGC RAID, DISK and VRAID), else none (`0`);
//!   multipath-tools 0.11 removed every hwtable `hwhandler` for that reason (commit 9bda5e61).

use pathlab_policy::{DmSelectorKind, Failback, NoPathRetry, PathGrouping};

/// A prioritizer (multipath.conf `prio`): the policy table's own type, so a scenario's value
/// and the table's are one.
pub use pathlab_policy::Prioritizer as Prio;

/// A vendor or product expression of the table (POSIX extended, unanchored unless `^`), of the
/// forms it uses here: `TEXT`, `^TEXT`, `^(A|B|C)`, `(A|B)`, `.*`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pattern(pub &'static str);

impl Pattern {
    pub fn matches(&self, text: &str) -> bool {
        let (anchored, body) = match self.0.strip_prefix('^') {
            Some(rest) => (true, rest),
            None => (false, self.0),
        };
        if body == ".*" {
            return true;
        }
        let alternatives: Vec<&str> = match body.strip_prefix('(').and_then(|b| b.strip_suffix(')')) {
            Some(group) => group.split('|').collect(),
            None => vec![body],
        };
        alternatives.iter().any(|a| if anchored { text.starts_with(a) } else { text.contains(a) })
    }
}

/// One `default_hw` entry: the attributes it sets, `None` where it leaves the default.
#[derive(Clone, Copy, Debug)]
pub struct HwEntry {
    pub vendor: Pattern,
    pub product: Pattern,
    /// The product family, as hwtable.c's comment names it.
    pub family: &'static str,
    pub pgpolicy: Option<PathGrouping>,
    pub prio: Option<Prio>,
    pub failback: Option<Failback>,
    pub no_path_retry: Option<NoPathRetry>,
    pub features: Option<&'static str>,
    pub checker: Option<&'static str>,
    pub detect_prio: Option<bool>,
    pub detect_checker: Option<bool>,
}

const BLANK: HwEntry = HwEntry {
    vendor: Pattern(""),
    product: Pattern(""),
    family: "",
    pgpolicy: None,
    prio: None,
    failback: None,
    no_path_retry: None,
    features: None,
    checker: None,
    detect_prio: None,
    detect_checker: None,
};

/// `DEFAULT_CHECKINT`: `no_path_retry` values written as seconds / checker interval.
const DEFAULT_CHECKINT: u64 = 5;

/// The entries of `default_hw` for the arrays pathlab ships and their NVMe siblings, in table
/// order. Attributes pathlab does not model (`fast_io_fail`, `dev_loss`, `max_sectors_kb`,
/// `bl_product`, `flush_on_last_del`, `user_friendly_names`) are left out.
pub const HWTABLE: &[HwEntry] = &[
    HwEntry {
        vendor: Pattern("^NVME"),
        product: Pattern(".*"),
        family: "Generic NVMe",
        checker: Some("none"),
        pgpolicy: Some(PathGrouping::GroupByPrio),
        failback: Some(Failback::Immediate),
        ..BLANK
    },
    HwEntry {
        vendor: Pattern("EMC"),
        product: Pattern("SYMMETRIX"),
        family: "Symmetrix / DMX / VMAX / PowerMax",
        pgpolicy: Some(PathGrouping::Multibus),
        no_path_retry: Some(NoPathRetry::Retries(6)),
        ..BLANK
    },
    HwEntry {
        vendor: Pattern("NVME"),
        product: Pattern("EMC PowerMax"),
        family: "PowerMax NVMe",
        no_path_retry: Some(NoPathRetry::Queue),
        ..BLANK
    },
    HwEntry {
        vendor: Pattern("^DGC"),
        product: Pattern("^(RAID|DISK|VRAID)"),
        family: "DGC CLARiiON CX/AX / VNX and Unity",
        pgpolicy: Some(PathGrouping::GroupByPrio),
        failback: Some(Failback::Immediate),
        no_path_retry: Some(NoPathRetry::Retries(300 / DEFAULT_CHECKINT)),
        checker: Some("emc_clariion"),
        prio: Some(Prio::Emc),
        detect_checker: Some(false),
        ..BLANK
    },
    HwEntry {
        vendor: Pattern("DellEMC"),
        product: Pattern("PowerStore"),
        family: "PowerStore",
        pgpolicy: Some(PathGrouping::GroupByPrio),
        prio: Some(Prio::Alua),
        failback: Some(Failback::Immediate),
        no_path_retry: Some(NoPathRetry::Retries(3)),
        ..BLANK
    },
    HwEntry {
        vendor: Pattern("NVME"),
        product: Pattern("dellemc-powerstore"),
        family: "PowerStore NVMe",
        no_path_retry: Some(NoPathRetry::Retries(3)),
        ..BLANK
    },
    HwEntry {
        vendor: Pattern("NETAPP"),
        product: Pattern("LUN"),
        family: "ONTAP FAS/AFF/ASA Series",
        features: Some("2 pg_init_retries 50"),
        no_path_retry: Some(NoPathRetry::Queue),
        pgpolicy: Some(PathGrouping::GroupByPrio),
        failback: Some(Failback::Immediate),
        prio: Some(Prio::Ontap),
        ..BLANK
    },
    HwEntry {
        vendor: Pattern("NVME"),
        product: Pattern("^NetApp ONTAP Controller"),
        family: "ONTAP NVMe",
        no_path_retry: Some(NoPathRetry::Queue),
        ..BLANK
    },
    HwEntry {
        vendor: Pattern("PURE"),
        product: Pattern("FlashArray"),
        family: "FlashArray family",
        pgpolicy: Some(PathGrouping::GroupByPrio),
        failback: Some(Failback::Immediate),
        prio: Some(Prio::Alua),
        detect_prio: Some(false),
        ..BLANK
    },
    HwEntry {
        vendor: Pattern("NVME"),
        product: Pattern("Pure Storage FlashArray"),
        family: "FlashArray NVMe",
        no_path_retry: Some(NoPathRetry::Retries(10)),
        ..BLANK
    },
];

/// defaults.h: `DEFAULT_SELECTOR`, `DEFAULT_PGPOLICY`, `DEFAULT_FAILBACK`,
/// `DEFAULT_NO_PATH_RETRY` (undefined: no queueing, as `fail`), `DEFAULT_FEATURES`,
/// `DEFAULT_HWHANDLER`, `DEFAULT_PRIO`, `DEFAULT_CHECKER`, `DEFAULT_RR_WEIGHT` (uniform) and
/// `DEFAULT_MINIO_RQ`.
pub const DEFAULT_SELECTOR: DmSelectorKind = DmSelectorKind::ServiceTime;
pub const DEFAULT_PGPOLICY: PathGrouping = PathGrouping::Failover;
pub const DEFAULT_FAILBACK: Failback = Failback::Manual;
pub const DEFAULT_NO_PATH_RETRY: NoPathRetry = NoPathRetry::Fail;
pub const DEFAULT_FEATURES: &str = "0";
pub const DEFAULT_HWHANDLER: &str = "0";
pub const DEFAULT_PRIO: Prio = Prio::Const;
pub const DEFAULT_CHECKER: &str = "tur";
pub const DEFAULT_RR_WEIGHT: &str = "uniform";
pub const DEFAULT_MINIO_RQ: u32 = 1;

/// Where a value came from, as `multipath -v3` words it (propsel.c's origins).
pub const FROM_TABLE: &str = "storage device configuration";
pub const FROM_DEFAULT: &str = "multipath internal";
pub const FROM_DEVICE: &str = "storage device autodetected";
pub const FROM_KERNEL: &str = "retained by kernel driver";
pub const FROM_FALLBACK: &str = "emergency fallback - alua failed";
/// The scenario's own policy table: the admin's multipath.conf.
pub const FROM_SCENARIO: &str = "scenario";

/// The matching entries, the one that wins first (`find_hwe`).
pub fn find(vendor: &str, product: &str) -> Vec<&'static HwEntry> {
    HWTABLE.iter().rev().filter(|e| e.vendor.matches(vendor) && e.product.matches(product)).collect()
}

/// A value and where it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chosen<T> {
    pub value: T,
    pub origin: &'static str,
}

/// What multipathd sets for a map of this array when multipath.conf says nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultipathClaim {
    /// The matching entries' families, the winning one first.
    pub entries: Vec<&'static str>,
    pub selector: Chosen<DmSelectorKind>,
    pub pgpolicy: Chosen<PathGrouping>,
    pub prio: Chosen<Prio>,
    pub failback: Chosen<Failback>,
    pub no_path_retry: Chosen<NoPathRetry>,
    pub features: Chosen<String>,
    pub hwhandler: Chosen<String>,
    pub checker: Chosen<&'static str>,
}

/// The first entry that sets an attribute, else the default.
fn pick<T: Copy>(entries: &[&HwEntry], get: impl Fn(&HwEntry) -> Option<T>, default: T) -> Chosen<T> {
    match entries.iter().find_map(|e| get(e)) {
        Some(value) => Chosen { value, origin: FROM_TABLE },
        None => Chosen { value: default, origin: FROM_DEFAULT },
    }
}

/// The kernel's device handler for a SCSI device (`scsi_dh.c` `scsi_dh_find_driver`).
fn kernel_handler(vendor: &str, product: &str, tpgs: bool) -> Option<&'static str> {
    const BLIST: &[(&str, &str, &str)] = &[("DGC", "RAID", "emc"), ("DGC", "DISK", "emc"), ("DGC", "VRAID", "emc")];
    if tpgs {
        return Some("1 alua");
    }
    BLIST.iter().find(|(v, m, _)| vendor.starts_with(v) && product.starts_with(m)).map(|_| "1 emc")
}

/// The claim of an array's LUNs: `tpgs` is whether the array answers REPORT TARGET PORT GROUPS.
pub fn claim(vendor: &str, product: &str, tpgs: bool) -> MultipathClaim {
    claim_with_prio(vendor, product, tpgs, None)
}

/// The claim when multipath.conf names the prioritizer (`given`): it wins over detection and
/// the table, and the grouping follows it (`select_prio`, then `select_pgpolicy`).
pub fn claim_with_prio(vendor: &str, product: &str, tpgs: bool, given: Option<Prio>) -> MultipathClaim {
    let entries = find(vendor, product);
    let detect_prio = entries.iter().find_map(|e| e.detect_prio).unwrap_or(true);
    let mut prio = if let Some(value) = given {
        Chosen { value, origin: FROM_SCENARIO }
    } else if detect_prio && tpgs {
        Chosen { value: Prio::Alua, origin: FROM_DEVICE }
    } else {
        pick(&entries, |e| e.prio, DEFAULT_PRIO)
    };
    if prio.value == Prio::Alua && !tpgs {
        prio = Chosen { value: Prio::Const, origin: FROM_FALLBACK };
    }
    let pgpolicy = if prio.value == Prio::Alua {
        Chosen { value: PathGrouping::GroupByPrio, origin: FROM_DEVICE }
    } else {
        pick(&entries, |e| e.pgpolicy, DEFAULT_PGPOLICY)
    };
    // `select_checker`: `detect_checker` (on unless the entry turns it off) gives TPGS arrays `tur`.
    let checker = if tpgs && entries.iter().find_map(|e| e.detect_checker).unwrap_or(true) {
        Chosen { value: DEFAULT_CHECKER, origin: FROM_DEVICE }
    } else {
        pick(&entries, |e| e.checker, DEFAULT_CHECKER)
    };
    let hwhandler = match kernel_handler(vendor, product, tpgs) {
        Some(h) => Chosen { value: h.to_string(), origin: FROM_KERNEL },
        None => Chosen { value: DEFAULT_HWHANDLER.to_string(), origin: FROM_DEFAULT },
    };
    let features = pick(&entries, |e| e.features, DEFAULT_FEATURES);
    MultipathClaim {
        entries: entries.iter().map(|e| e.family).collect(),
        selector: Chosen { value: DEFAULT_SELECTOR, origin: FROM_DEFAULT },
        pgpolicy,
        prio,
        failback: pick(&entries, |e| e.failback, DEFAULT_FAILBACK),
        no_path_retry: pick(&entries, |e| e.no_path_retry, DEFAULT_NO_PATH_RETRY),
        features: Chosen { value: features.value.to_string(), origin: features.origin },
        hwhandler,
        checker,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (selector, grouping, prio, failback, no_path_retry, hardware handler) of a claim.
    fn summary(c: &MultipathClaim) -> (DmSelectorKind, PathGrouping, Prio, Failback, NoPathRetry, &str) {
        (c.selector.value, c.pgpolicy.value, c.prio.value, c.failback.value, c.no_path_retry.value, &c.hwhandler.value)
    }

    #[test]
    fn patterns_match_as_regexec_does() {
        assert!(Pattern("^DGC").matches("DGC"));
        assert!(!Pattern("^DGC").matches("XDGC"));
        assert!(Pattern("EMC").matches("DellEMC"), "unanchored: anywhere in the text");
        assert!(Pattern("^(RAID|DISK|VRAID)").matches("VRAID"));
        assert!(!Pattern("^(RAID|DISK|VRAID)").matches("LUNZ"));
        assert!(Pattern(".*").matches(""));
    }

    /// hwtable.c: `.pgpolicy = MULTIBUS, .no_path_retry = 6`; nothing else, so service-time 0,
    /// the const prioritizer (no TPGS) and failback manual are the defaults.
    #[test]
    fn symmetrix_gets_multibus_and_six_retries() {
        use NoPathRetry::Retries;
        let c = claim("EMC", "SYMMETRIX", false);
        assert_eq!(c.entries, ["Symmetrix / DMX / VMAX / PowerMax"]);
        let expected =
            (DmSelectorKind::ServiceTime, PathGrouping::Multibus, Prio::Const, Failback::Manual, Retries(6), "0");
        assert_eq!(summary(&c), expected);
        assert_eq!(
            (c.pgpolicy.origin, c.selector.origin, c.no_path_retry.origin),
            (FROM_TABLE, FROM_DEFAULT, FROM_TABLE)
        );
        // A VMAX reporting ALUA: detect_prio picks alua, and detect_pgpolicy then groups by prio.
        let alua = claim("EMC", "SYMMETRIX", true);
        assert_eq!((alua.prio.value, alua.prio.origin), (Prio::Alua, FROM_DEVICE));
        assert_eq!((alua.pgpolicy.value, alua.pgpolicy.origin), (PathGrouping::GroupByPrio, FROM_DEVICE));
        assert_eq!(alua.hwhandler.value, "1 alua");
    }

    /// hwtable.c: `.pgpolicy = GROUP_BY_PRIO, .pgfailback = -FAILBACK_IMMEDIATE,
    /// .no_path_retry = (300 / DEFAULT_CHECKINT), .checker_name = EMC_CLARIION,
    /// .prio_name = PRIO_EMC, .detect_checker = DETECT_CHECKER_OFF`.
    #[test]
    fn clariion_groups_by_prio_fails_back_at_once_and_queues_sixty_checks() {
        use NoPathRetry::Retries;
        let alua = claim("DGC", "VRAID", true);
        let expected = (
            DmSelectorKind::ServiceTime,
            PathGrouping::GroupByPrio,
            Prio::Alua,
            Failback::Immediate,
            Retries(60),
            "1 alua",
        );
        assert_eq!(summary(&alua), expected);
        assert_eq!(alua.checker.value, "emc_clariion", "detect_checker is off for the family");
        // In PNR mode (no TPGS) the emc prioritizer and scsi_dh_emc.
        let pnr = claim("DGC", "RAID 5", false);
        let expected = (
            DmSelectorKind::ServiceTime,
            PathGrouping::GroupByPrio,
            Prio::Emc,
            Failback::Immediate,
            Retries(60),
            "1 emc",
        );
        assert_eq!(summary(&pnr), expected);
        assert_eq!(pnr.hwhandler.origin, FROM_KERNEL);
    }

    /// hwtable.c: `.pgpolicy = GROUP_BY_PRIO, .pgfailback = -FAILBACK_IMMEDIATE,
    /// .prio_name = PRIO_ALUA, .detect_prio = DETECT_PRIO_OFF`.
    #[test]
    fn flasharray_uses_alua_from_the_table() {
        let c = claim("PURE", "FlashArray", true);
        let expected = (
            DmSelectorKind::ServiceTime,
            PathGrouping::GroupByPrio,
            Prio::Alua,
            Failback::Immediate,
            NoPathRetry::Fail,
            "1 alua",
        );
        assert_eq!(summary(&c), expected);
        assert_eq!(c.prio.origin, FROM_TABLE, "detect_prio is off: the table names alua itself");
        assert_eq!(c.pgpolicy.origin, FROM_DEVICE, "detect_pgpolicy: every path on alua");
        // Without TPGS the alua prioritizer falls back to const, and the table's grouping holds.
        let no_tpgs = claim("PURE", "FlashArray", false);
        assert_eq!((no_tpgs.prio.value, no_tpgs.prio.origin), (Prio::Const, FROM_FALLBACK));
        assert_eq!((no_tpgs.pgpolicy.value, no_tpgs.pgpolicy.origin), (PathGrouping::GroupByPrio, FROM_TABLE));
    }

    /// No entry: defaults.h's `DEFAULT_PGPOLICY FAILOVER`, `service-time 0`, `const`, manual
    /// failback, no queueing; with TPGS, alua and group_by_prio by detection.
    #[test]
    fn an_unknown_array_gets_the_compiled_in_defaults() {
        let c = claim("PATHLAB", "SIMARRAY", false);
        assert!(c.entries.is_empty());
        let expected = (
            DmSelectorKind::ServiceTime,
            PathGrouping::Failover,
            Prio::Const,
            Failback::Manual,
            NoPathRetry::Fail,
            "0",
        );
        assert_eq!(summary(&c), expected);
        assert_eq!((c.features.value.as_str(), c.checker.value), ("0", "tur"));
        let alua = claim("PATHLAB", "SIMARRAY", true);
        assert_eq!(
            (alua.prio.value, alua.pgpolicy.value, alua.hwhandler.value.as_str()),
            (Prio::Alua, PathGrouping::GroupByPrio, "1 alua")
        );
    }

    /// A specific NVMe entry wins over the generic one for what it sets; the generic one gives
    /// the rest (`find_hwe` searches backwards).
    #[test]
    fn specific_entries_win_over_generic_ones_attribute_by_attribute() {
        let c = claim("NVME", "Pure Storage FlashArray", false);
        assert_eq!(c.entries, ["FlashArray NVMe", "Generic NVMe"]);
        assert_eq!(c.no_path_retry.value, NoPathRetry::Retries(10));
        assert_eq!(
            (c.pgpolicy.value, c.failback.value, c.checker.value),
            (PathGrouping::GroupByPrio, Failback::Immediate, "none")
        );
        let ontap = claim("NETAPP", "LUN", false);
        assert_eq!(
            (ontap.features.value.as_str(), ontap.no_path_retry.value, ontap.prio.value),
            ("2 pg_init_retries 50", NoPathRetry::Queue, Prio::Ontap)
        );
    }
}

/// Checks the table against multipath-tools' own source: `MULTIPATH_TOOLS_HWTABLE=path/to/
/// hwtable.c cargo test -p pathlab-sim -- --ignored hwtable_agrees`. Every entry here must be
/// an entry of `default_hw` with the same vendor and product, and set the same values of the
/// attributes modelled here (and no other of them: a `selector` or `hwhandler` there fails).
#[cfg(test)]
mod source_check {
    use super::*;
    use std::collections::BTreeMap;

    /// `default_hw`'s entries as `.field` → value text, from the `{` … `},` blocks.
    fn entries(source: &str) -> Vec<BTreeMap<String, String>> {
        let body = &source[source.find("default_hw[]").expect("default_hw")..];
        let mut out = Vec::new();
        let mut current: Option<BTreeMap<String, String>> = None;
        for line in body.lines().map(str::trim) {
            if line == "{" {
                current = Some(BTreeMap::new());
            } else if line.starts_with("},") || line == "}" {
                out.extend(current.take());
            } else if let (Some(entry), Some(rest)) = (current.as_mut(), line.strip_prefix('.')) {
                if let Some((key, value)) = rest.split_once('=') {
                    entry.insert(
                        key.trim().to_string(),
                        value.trim().trim_end_matches(',').trim_matches('"').to_string(),
                    );
                }
            }
        }
        out
    }

    fn c_value(e: &HwEntry, key: &str) -> Option<String> {
        let grouping = |g: PathGrouping| match g {
            PathGrouping::Failover => "FAILOVER",
            PathGrouping::Multibus => "MULTIBUS",
            PathGrouping::GroupByPrio => "GROUP_BY_PRIO",
        };
        Some(match key {
            "pgpolicy" => grouping(e.pgpolicy?).to_string(),
            "pgfailback" => match e.failback? {
                Failback::Immediate => "-FAILBACK_IMMEDIATE".to_string(),
                Failback::Manual => "-FAILBACK_MANUAL".to_string(),
                Failback::Followover => "-FAILBACK_FOLLOWOVER".to_string(),
                Failback::AfterSeconds(s) => s.to_string(),
            },
            "no_path_retry" => match e.no_path_retry? {
                NoPathRetry::Queue => "NO_PATH_RETRY_QUEUE".to_string(),
                NoPathRetry::Fail => "NO_PATH_RETRY_FAIL".to_string(),
                NoPathRetry::Retries(n) => n.to_string(),
            },
            "prio_name" => format!("PRIO_{}", e.prio?.name().to_uppercase()),
            "checker_name" => e.checker?.to_uppercase(),
            "features" => e.features?.to_string(),
            "detect_prio" => if e.detect_prio? { "DETECT_PRIO_ON" } else { "DETECT_PRIO_OFF" }.to_string(),
            "detect_checker" => if e.detect_checker? { "DETECT_CHECKER_ON" } else { "DETECT_CHECKER_OFF" }.to_string(),
            _ => return None,
        })
    }

    #[test]
    #[ignore = "needs multipath-tools' hwtable.c: MULTIPATH_TOOLS_HWTABLE"]
    fn hwtable_agrees_with_the_source() {
        let path = std::env::var("MULTIPATH_TOOLS_HWTABLE").expect("MULTIPATH_TOOLS_HWTABLE");
        let source = std::fs::read_to_string(path).unwrap();
        let table = entries(&source);
        const MODELLED: &[&str] = &[
            "pgpolicy",
            "pgfailback",
            "no_path_retry",
            "prio_name",
            "checker_name",
            "features",
            "detect_prio",
            "detect_checker",
            "selector",
            "hwhandler",
            "prio_args",
            "rr_weight",
            "minio_rq",
        ];
        for e in HWTABLE {
            let found = table
                .iter()
                .find(|t| {
                    t.get("vendor").map(String::as_str) == Some(e.vendor.0)
                        && t.get("product").map(String::as_str) == Some(e.product.0)
                })
                .unwrap_or_else(|| panic!("{} {} is not in the source", e.vendor.0, e.product.0));
            for key in MODELLED {
                // (300 / DEFAULT_CHECKINT) is written as the expression.
                let theirs =
                    found.get(*key).map(|v| if v == "(300 / DEFAULT_CHECKINT)" { "60".to_string() } else { v.clone() });
                assert_eq!(c_value(e, key), theirs, "{} {}: .{key}", e.vendor.0, e.product.0);
            }
        }
    }
}
