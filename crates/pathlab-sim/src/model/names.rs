//! Names that other tables refer to (adapters, ports, arrays, devices), looked up through a
//! hash map: a host of 10,000 devices or ports checks its references in linear time.

use crate::scenario::error::FieldError;
use std::collections::{HashMap, HashSet};

/// Longest list of defined names an error message repeats.
const SHOWN: usize = 20;

pub struct Names<'a> {
    list: Vec<&'a str>,
    index: HashMap<&'a str, usize>,
}

impl<'a> Names<'a> {
    pub fn new(list: Vec<&'a str>) -> Self {
        let mut index = HashMap::with_capacity(list.len());
        for (i, &n) in list.iter().enumerate() {
            index.entry(n).or_insert(i);
        }
        Names { list, index }
    }

    /// The position of `wanted`, or an error for `field` naming the names that are defined.
    pub fn find(&self, wanted: &str, field: &str, what: &str) -> Result<usize, FieldError> {
        self.index.get(wanted).copied().ok_or_else(|| self.unknown(wanted, field, what))
    }

    /// The error for `field` naming a name that is not defined, and the names that are.
    pub fn unknown(&self, wanted: &str, field: &str, what: &str) -> FieldError {
        let mut defined = self.list.iter().take(SHOWN).copied().collect::<Vec<_>>().join(", ");
        if self.list.len() > SHOWN {
            defined += &format!(", ... ({} in all)", self.list.len());
        }
        (field.to_string(), format!("unknown {what} \"{wanted}\"; defined: {defined}"))
    }

    /// An error at the first name defined a second time.
    pub fn unique(&self, field: &str) -> Result<(), FieldError> {
        let mut seen = HashSet::with_capacity(self.list.len());
        for (i, n) in self.list.iter().enumerate() {
            if !seen.insert(n) {
                return Err((format!("{field}.{i}.name"), format!("\"{n}\" is defined twice")));
            }
        }
        Ok(())
    }

    pub fn position(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn join(&self, separator: &str) -> String {
        self.list.join(separator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_names_and_reports_the_first_duplicate_and_unknown_ones() {
        let names = Names::new(vec!["a", "b", "a", "c"]);
        assert_eq!(names.find("c", "f", "port"), Ok(3));
        assert_eq!(names.find("a", "f", "port"), Ok(0));
        assert_eq!(names.unique("ports"), Err(("ports.2.name".to_string(), "\"a\" is defined twice".to_string())));
        let e = names.find("z", "f.0", "port").unwrap_err();
        assert_eq!(e, ("f.0".to_string(), "unknown port \"z\"; defined: a, b, a, c".to_string()));
        let many = Names::new((0..30).map(|i| if i % 2 == 0 { "x" } else { "y" }).collect());
        assert!(many.find("q", "f", "device").unwrap_err().1.ends_with(", ... (30 in all)"));
    }
}
