//! Names unique per host rather than over every host (every ESXi host has a `vmhba1`; hosts
//! sharing a LUN each have its NAA): a reference writes `HOST/NAME` (as a port is `ARRAY/PORT`),
//! or `NAME` alone when only one host has it; a name several hosts have, written alone, is
//! refused naming them.

use crate::model::names::Names;
use crate::model::Adapter;
use crate::scenario::error::FieldError;
use std::collections::{HashMap, HashSet};

/// The adapter `written` names: `HOST/NAME`, or a name alone that one host has.
pub fn adapter_named(adapters: &[Adapter], hosts: &[String], written: &str, field: &str) -> Result<usize, FieldError> {
    NamesPerHost::new(adapters.iter().map(|a| (a.name.as_str(), a.host)).collect(), hosts, "adapter")
        .find(written, field)
}

/// One kind of name (adapters, devices) of several hosts, looked up through a hash map: a host
/// of 10,000 devices checks its references in linear time.
pub struct NamesPerHost<'a> {
    /// Each name and its host, in definition order.
    named: Vec<(&'a str, usize)>,
    /// Each name's positions in `named`, with their hosts.
    at: HashMap<&'a str, Vec<(usize, usize)>>,
    hosts: &'a [String],
    what: &'static str,
}

impl<'a> NamesPerHost<'a> {
    pub fn new(named: Vec<(&'a str, usize)>, hosts: &'a [String], what: &'static str) -> Self {
        let mut at: HashMap<&str, Vec<(usize, usize)>> = HashMap::with_capacity(named.len());
        for (i, &(name, host)) in named.iter().enumerate() {
            at.entry(name).or_default().push((i, host));
        }
        NamesPerHost { named, at, hosts, what }
    }

    /// The position `written` names: `HOST/NAME`, or a name alone that one host has.
    pub fn find(&self, written: &str, field: &str) -> Result<usize, FieldError> {
        match self.every(written, field)?[..] {
            [i] => Ok(i),
            _ => Err(self.unknown(written, field)),
        }
    }

    /// Every position `written` names, a name alone naming it on every host that has it (as an
    /// admin runs one esxcli command on each host of a cluster).
    pub fn on_every_host(&self, written: &str, field: &str) -> Result<Vec<usize>, FieldError> {
        let (host, name) = self.split(written, field)?;
        let found = self.at.get(name).into_iter().flatten().filter(|&&(_, h)| host.is_none_or(|o| o == h));
        match found.map(|&(i, _)| i).collect::<Vec<_>>() {
            none if none.is_empty() => Err(self.unknown(written, field)),
            some => Ok(some),
        }
    }

    /// `split`, but a defined name is one whole, `/` and all (`nqn…:uuid:1/ns1`); where names of
    /// this kind hold a `/`, a start that is no host's is part of an unknown name.
    fn split<'w>(&self, written: &'w str, field: &str) -> Result<(Option<usize>, &'w str), FieldError> {
        if self.at.contains_key(written) {
            return Ok((None, written));
        }
        match split(written, self.hosts, field) {
            Err(_) if self.named.iter().any(|(n, _)| n.contains('/')) => Ok((None, written)),
            found => found,
        }
    }

    fn unknown(&self, written: &str, field: &str) -> FieldError {
        let shown = written_where_shared(self.named.iter().copied(), self.hosts);
        Names::new(shown.iter().map(String::as_str).collect()).unknown(written, field, self.what)
    }

    /// Every position `written` names (none when unknown): `HOST/NAME`'s, or a name alone's when
    /// one host has it.
    pub fn every(&self, written: &str, field: &str) -> Result<Vec<usize>, FieldError> {
        let (host, name) = self.split(written, field)?;
        let found = self.at.get(name).cloned().unwrap_or_default();
        let article = if self.what.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
        of_one_host(found, host, name, self.hosts, field, &format!("{article} {}", self.what))
    }

    /// The host of the name at `i`.
    pub fn host(&self, i: usize) -> usize {
        self.named[i].1
    }

    /// An error at the first name its host defines a second time (`{field}.N.name`).
    pub fn unique(&self, field: &str) -> Result<(), FieldError> {
        let mut seen = HashSet::with_capacity(self.named.len());
        match self.named.iter().enumerate().find(|(_, n)| !seen.insert(*n)) {
            Some((i, (name, _))) => Err((format!("{field}.{i}.name"), format!("\"{name}\" is defined twice"))),
            None => Ok(()),
        }
    }
}

/// Each name as a reference writes it: alone when no other host has it, else `HOST/NAME`.
pub fn written_where_shared<'a>(
    named: impl Iterator<Item = (&'a str, usize)> + Clone,
    hosts: &[String],
) -> Vec<String> {
    let mut host_of: HashMap<&str, Option<usize>> = HashMap::new();
    for (name, host) in named.clone() {
        let one = host_of.entry(name).or_insert(Some(host));
        if *one != Some(host) {
            *one = None;
        }
    }
    named
        .map(|(name, host)| match host_of[name] {
            Some(_) => name.to_string(),
            None => format!("{}/{name}", hosts[host]),
        })
        .collect()
}

/// Every adapter's name as a reference writes it.
pub fn adapters_written(adapters: &[Adapter], hosts: &[String]) -> Vec<String> {
    written_where_shared(adapters.iter().map(|a| (a.name.as_str(), a.host)), hosts)
}

/// `written` as (the host it names, the name): `HOST/NAME`, or a name alone with no host. The
/// host is a prefix, not split at a `/`: an NVMe namespace's name holds one (`nqn…:uuid:1/ns1`).
pub fn split<'w>(written: &'w str, hosts: &[String], field: &str) -> Result<(Option<usize>, &'w str), FieldError> {
    let after = |h: &String| written.strip_prefix(h.as_str()).and_then(|rest| rest.strip_prefix('/'));
    if let Some((h, name)) = hosts.iter().enumerate().find_map(|(i, h)| after(h).map(|name| (i, name))) {
        return Ok((Some(h), name));
    }
    match written.rsplit_once('/') {
        None => Ok((None, written)),
        Some((host, _)) => Err((
            field.to_string(),
            format!("unknown host \"{host}\" in \"{written}\" (write HOST/NAME); hosts: {}", hosts.join(", ")),
        )),
    }
}

/// Of `found` (each a position and its host), those of `host`, or of the one host that has
/// `name` when it is written alone.
pub fn of_one_host(
    found: Vec<(usize, usize)>,
    host: Option<usize>,
    name: &str,
    hosts: &[String],
    field: &str,
    what: &str,
) -> Result<Vec<usize>, FieldError> {
    let mut having: Vec<usize> = found.iter().map(|&(_, h)| h).collect();
    having.sort_unstable();
    having.dedup();
    match (host, having.as_slice()) {
        (Some(host), _) => Ok(found.into_iter().filter(|&(_, h)| h == host).map(|(i, _)| i).collect()),
        (None, [] | [_]) => Ok(found.into_iter().map(|(i, _)| i).collect()),
        (None, several) => {
            let named: Vec<&str> = several.iter().map(|&h| hosts[h].as_str()).collect();
            let written: Vec<String> = named.iter().map(|h| format!("{h}/{name}")).collect();
            Err((
                field.to_string(),
                format!("\"{name}\" names {what} of hosts {}: write {}", named.join(" and "), written.join(" or ")),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_alone_is_one_hosts_and_host_slash_name_picks_among_several() {
        let hosts = vec!["esx-a".to_string(), "esx-b".to_string()];
        assert_eq!(split("vmhba1", &hosts, "f"), Ok((None, "vmhba1")));
        assert_eq!(split("esx-b/vmhba1", &hosts, "f"), Ok((Some(1), "vmhba1")));
        let e = split("esx-c/vmhba1", &hosts, "f").unwrap_err().1;
        assert_eq!(e, "unknown host \"esx-c\" in \"esx-c/vmhba1\" (write HOST/NAME); hosts: esx-a, esx-b");
        // Positions 0 and 2 are esx-a's, 1 esx-b's.
        let found = || vec![(0, 0), (1, 1), (2, 0)];
        assert_eq!(of_one_host(found(), Some(0), "x", &hosts, "f", "paths"), Ok(vec![0, 2]));
        assert_eq!(of_one_host(vec![(0, 0), (2, 0)], None, "x", &hosts, "f", "paths"), Ok(vec![0, 2]));
        let e = of_one_host(found(), None, "x", &hosts, "f", "paths").unwrap_err();
        assert_eq!(
            e,
            ("f".to_string(), "\"x\" names paths of hosts esx-a and esx-b: write esx-a/x or esx-b/x".to_string())
        );
        let named = [("vmhba1", 0), ("vmhba2", 0), ("vmhba1", 1)];
        assert_eq!(written_where_shared(named.into_iter(), &hosts), ["esx-a/vmhba1", "vmhba2", "esx-b/vmhba1"]);
    }

    #[test]
    fn a_device_is_found_by_host_slash_name_or_alone_on_one_host_and_unique_per_host() {
        let hosts = vec!["esx-a".to_string(), "esx-b".to_string()];
        let devices = NamesPerHost::new(vec![("naa.1", 0), ("naa.2", 0), ("naa.1", 1)], &hosts, "device");
        assert_eq!(devices.find("esx-b/naa.1", "f"), Ok(2));
        assert_eq!(devices.find("naa.2", "f"), Ok(1));
        assert_eq!(devices.unique("devices"), Ok(()));
        assert_eq!(devices.on_every_host("naa.1", "f"), Ok(vec![0, 2]));
        let nvme = NamesPerHost::new(vec![("nqn.x:uuid:1/ns1", 0), ("nqn.x:uuid:1/ns1", 1)], &hosts, "device");
        assert_eq!(nvme.find("esx-b/nqn.x:uuid:1/ns1", "f"), Ok(1));
        let one = NamesPerHost::new(vec![("nqn.x:uuid:1/ns1", 1)], &hosts, "device");
        assert_eq!(one.find("nqn.x:uuid:1/ns1", "f"), Ok(0));
        let e = one.find("nqn.x:uuid:2/ns1", "f").unwrap_err().1;
        assert_eq!(e, "unknown device \"nqn.x:uuid:2/ns1\"; defined: nqn.x:uuid:1/ns1");
        assert_eq!(devices.on_every_host("esx-b/naa.1", "f"), Ok(vec![2]));
        assert!(devices.on_every_host("esx-b/naa.2", "f").unwrap_err().1.starts_with("unknown device"));
        let e = devices.find("naa.1", "f").unwrap_err().1;
        assert_eq!(e, "\"naa.1\" names a device of hosts esx-a and esx-b: write esx-a/naa.1 or esx-b/naa.1");
        let e = devices.find("esx-b/naa.2", "f").unwrap_err().1;
        assert_eq!(e, "unknown device \"esx-b/naa.2\"; defined: esx-a/naa.1, naa.2, esx-b/naa.1");
        let twice = NamesPerHost::new(vec![("naa.1", 0), ("naa.1", 1), ("naa.1", 1)], &hosts, "device");
        assert_eq!(
            twice.unique("devices"),
            Err(("devices.2.name".to_string(), "\"naa.1\" is defined twice".to_string()))
        );
    }
}
