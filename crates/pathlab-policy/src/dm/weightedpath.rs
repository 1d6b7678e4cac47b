//! multipath-tools' `weightedpath` prioritizer: each path's priority from the admin's
//! `prio_args`, patterns matched against the path's H:C:T:L, device name, serial or WWNs.
//!
//! Source: opensvc/multipath-tools 0.14.3 `libmultipath/prioritizers/weightedpath.c`
//! (`prio_path_weight`): the first pattern that matches gives its priority; a path no pattern
//! matches, or a `prio_args` missing or not understood, gets `DEFAULT_PRIORITY` 0.
//!
//! The patterns are matched where the host's names are known (pathlab's importer, which reads the
//! listing's H:C:T:L and device names); the policy table carries the result, a priority per path
//! by its runtime name (`path_priorities`), and a path it does not name gets 0 as a path no
//! pattern matches does.

use std::collections::BTreeMap;

/// `DEFAULT_PRIORITY` of `weightedpath.h`: a path no pattern matches.
pub const DEFAULT_PRIORITY: i32 = 0;

/// The largest priority taken (a path's priority is an i32; `group_priority` sums a group's in
/// i64, so that any number of paths of it fits). multipathd takes any int `atoi` gives; pathlab's
/// importer refuses more, naming the line.
pub const MAX_PRIORITY: u64 = 1_000_000;

/// The priority of the path called `name`.
pub fn priority_of(priorities: Option<&BTreeMap<String, u64>>, name: &str) -> i32 {
    // The parameter's range (`SPEC`) keeps every value within i32.
    priorities.and_then(|given| given.get(name)).map_or(DEFAULT_PRIORITY, |&p| i32::try_from(p).unwrap_or(i32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_path_takes_its_priority_and_another_the_default() {
        let priorities = BTreeMap::from([("host1:C0:T0:L1".to_string(), 40), ("host2:C0:T0:L1".to_string(), 10)]);
        assert_eq!(priority_of(Some(&priorities), "host1:C0:T0:L1"), 40);
        assert_eq!(priority_of(Some(&priorities), "host2:C0:T0:L1"), 10);
        assert_eq!(priority_of(Some(&priorities), "host3:C0:T0:L1"), 0);
        assert_eq!(priority_of(None, "host1:C0:T0:L1"), 0);
    }
}
