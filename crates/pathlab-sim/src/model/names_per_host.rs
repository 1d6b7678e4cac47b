//! Names unique per host rather than over every host (every ESXi host has a `vmhba1`): a
//! reference writes `HOST/NAME` (as a port is `ARRAY/PORT`), or `NAME` alone when only one host
//! has it; a name several hosts have, written alone, is refused naming them.

use crate::model::names::Names;
use crate::model::Adapter;
use crate::scenario::error::FieldError;
use std::collections::HashMap;

/// The adapter `written` names: `HOST/NAME`, or a name alone that one host has.
pub fn adapter_named(adapters: &[Adapter], hosts: &[String], written: &str, field: &str) -> Result<usize, FieldError> {
    let (host, name) = split(written, hosts, field)?;
    let found = adapters.iter().enumerate().filter(|(_, a)| a.name == name).map(|(i, a)| (i, a.host)).collect();
    match of_one_host(found, host, name, hosts, field, "an adapter")?[..] {
        [a] => Ok(a),
        _ => {
            let shown = adapters_written(adapters, hosts);
            Err(Names::new(shown.iter().map(String::as_str).collect()).unknown(written, field, "adapter"))
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

/// `written` as (the host it names, the name): `HOST/NAME`, or a name alone with no host.
pub fn split<'w>(written: &'w str, hosts: &[String], field: &str) -> Result<(Option<usize>, &'w str), FieldError> {
    let Some((host, name)) = written.rsplit_once('/') else { return Ok((None, written)) };
    match hosts.iter().position(|h| h == host) {
        Some(h) => Ok((Some(h), name)),
        None => Err((
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
}
