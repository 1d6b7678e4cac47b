//! The Linux claim tables applied to scenarios: a dm-multipath or nvme policy table that names
//! no parameter gets what a default Linux host gives the array (multipath-tools 0.14.3
//! hwtable.c / defaults.h, nvme-cli's udev rules); a parameter the scenario gives wins.

use pathlab_policy::{
    DmMultipathConfig, DmSelectorKind, Failback, NoPathRetry, NvmeIoPolicy, PathGrouping, PolicyConfig,
};
use pathlab_sim::model::build_model;
use pathlab_sim::run;

const CX4: &str = include_str!("../../../python/pathlab/scenarios/cx4-alua-path-failure.toml");
const C1: &str = include_str!("../../../python/pathlab/scenarios/c1-vmax-1lun.toml");
const C2: &str = include_str!("../../../python/pathlab/scenarios/c2-activecluster-distance.toml");

/// Every device's policy after the claim, with `policy` (a TOML table) for every device.
fn policies(text: &str, policy: &str, more: &[(&str, &str)]) -> Vec<PolicyConfig> {
    let mut sets = vec![
        ("policy".to_string(), pathlab_sim::scenario::parse_override_value(policy)),
        ("devices.*.policy".to_string(), pathlab_sim::scenario::parse_override_value(policy)),
        ("esxcli".to_string(), toml::Value::Array(Vec::new())),
    ];
    sets.extend(more.iter().map(|(k, v)| (k.to_string(), pathlab_sim::scenario::parse_override_value(v))));
    let s = run::load(text, "t.toml", None, &sets, None).unwrap_or_else(|e| panic!("{e}"));
    build_model(&s.spec).unwrap().devices.into_iter().map(|d| d.policy_config).collect()
}

fn dm(config: &PolicyConfig) -> &DmMultipathConfig {
    let PolicyConfig::DmMultipath(c) = config else { panic!("{config:?}") };
    c
}

/// (selector, grouping, failback, no_path_retry).
fn summary(c: &DmMultipathConfig) -> (DmSelectorKind, PathGrouping, Failback, NoPathRetry) {
    (c.selector, c.path_grouping_policy, c.failback, c.no_path_retry)
}

#[test]
fn a_dm_multipath_table_with_no_parameter_gets_the_arrays_hwtable_entry() {
    use DmSelectorKind::ServiceTime;
    // CX4 (DGC VRAID, ALUA): alua prio → group_by_prio; the entry's failback immediate and
    // no_path_retry 300 / 5.
    for c in policies(CX4, "{ name = \"dm-multipath\" }", &[]) {
        assert_eq!(
            summary(dm(&c)),
            (ServiceTime, PathGrouping::GroupByPrio, Failback::Immediate, NoPathRetry::Retries(60))
        );
    }
    // VMAX 250F (EMC SYMMETRIX, no ALUA): multibus, no_path_retry 6, failback the default manual.
    for c in policies(C1, "{ name = \"dm-multipath\" }", &[]) {
        assert_eq!(summary(dm(&c)), (ServiceTime, PathGrouping::Multibus, Failback::Manual, NoPathRetry::Retries(6)));
    }
    // FlashArray (PURE, ALUA): group_by_prio, failback immediate, no queueing (default).
    for c in policies(C2, "{ name = \"dm-multipath\" }", &[]) {
        assert_eq!(summary(dm(&c)), (ServiceTime, PathGrouping::GroupByPrio, Failback::Immediate, NoPathRetry::Fail));
    }
}

#[test]
fn what_the_scenario_gives_wins_over_the_hwtable() {
    let table =
        "{ name = \"dm-multipath\", selector = \"round-robin\", failback = \"manual\", no_path_retry = \"queue\" }";
    for c in policies(CX4, table, &[]) {
        let expected = (DmSelectorKind::RoundRobin, PathGrouping::GroupByPrio, Failback::Manual, NoPathRetry::Queue);
        assert_eq!(summary(dm(&c)), expected);
    }
    // A --set on top of the table counts as given too.
    for c in policies(C1, "{ name = \"dm-multipath\" }", &[("devices.*.policy.path_grouping_policy", "\"failover\"")]) {
        assert_eq!(dm(&c).path_grouping_policy, PathGrouping::Failover);
    }
}

#[test]
fn an_array_without_an_entry_gets_multipath_tools_defaults() {
    // The CX4 renamed: no hwtable entry. With ALUA, detection still gives group_by_prio; without,
    // defaults.h's failover grouping.
    let text = CX4.replace("vendor = \"DGC\"", "vendor = \"ACME\"");
    for c in policies(&text, "{ name = \"dm-multipath\" }", &[]) {
        let expected = (DmSelectorKind::ServiceTime, PathGrouping::GroupByPrio, Failback::Manual, NoPathRetry::Fail);
        assert_eq!(summary(dm(&c)), expected);
    }
    for c in policies(&text, "{ name = \"dm-multipath\" }", &[("arrays.0.tpgs", "false")]) {
        assert_eq!(dm(&c).path_grouping_policy, PathGrouping::Failover);
    }
}

#[test]
fn nvme_takes_the_vendors_udev_iopolicy_unless_the_scenario_sets_one() {
    let netapp = C2.replace("model = \"FlashArray\"", "model = \"NetApp ONTAP Controller\"");
    let iopolicy = |text: &str, table: &str| {
        policies(text, table, &[])
            .into_iter()
            .map(|c| match c {
                PolicyConfig::Nvme(n) => n.iopolicy,
                other => panic!("{other:?}"),
            })
            .collect::<Vec<_>>()
    };
    assert!(iopolicy(&netapp, "{ name = \"nvme\" }").iter().all(|&p| p == NvmeIoPolicy::QueueDepth));
    assert!(iopolicy(&netapp, "{ name = \"nvme\", iopolicy = \"numa\" }").iter().all(|&p| p == NvmeIoPolicy::Numa));
    // No rule for FlashArray: the kernel's default.
    assert!(iopolicy(C2, "{ name = \"nvme\" }").iter().all(|&p| p == NvmeIoPolicy::Numa));
}

#[test]
fn a_bad_value_in_a_policy_table_names_its_field_and_what_is_allowed() {
    let sets = [(
        "policy".to_string(),
        pathlab_sim::scenario::parse_override_value("{ name = \"dm-multipath\", failback = \"sometimes\" }"),
    )];
    let e = run::load(CX4, "t.toml", None, &sets, None).unwrap_err().to_string();
    assert_eq!(e, "t.toml: policy.failback: unknown failback \"sometimes\": manual, immediate, followover or seconds");
    let sets = [(
        "policy".to_string(),
        pathlab_sim::scenario::parse_override_value("{ name = \"dm-multipath\", prio = \"sysfs\" }"),
    )];
    let e = run::load(CX4, "t.toml", None, &sets, None).unwrap_err().to_string();
    assert_eq!(e, "t.toml: policy.prio: \"sysfs\" is not simulated; simulated: const, alua, emc, ontap, rdac, hp_sw, weightedpath");
}
