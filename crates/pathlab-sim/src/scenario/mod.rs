//! Scenario files: parsing, variants, `--set` overrides and the checks of each table on its own.
//! The bottom layer: it knows nothing of the model; `crate::run` builds a simulation from it and
//! checks what spans tables (names that refer to other objects, limits against memory).

pub mod bounds;
pub mod error;
pub mod fault_windows;
pub mod limits;
pub mod schema;
pub mod units;
mod wording;

pub use error::ScenarioError;

use schema::{ScenarioSpec, VariantSpec, PUBLISHABLE};
use serde::Deserialize;
use std::collections::BTreeMap;

/// A scenario ready to run: the base file with one variant and the user's overrides applied.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub file: String,
    pub spec: ScenarioSpec,
    /// The variant applied, if any.
    pub variant: Option<String>,
    /// Every variant the file defines, in file order.
    pub variants: Vec<(String, VariantSpec)>,
    /// Published figures of what was selected (the variant's, else the base file's).
    pub published: BTreeMap<String, f64>,
    pub tolerance: BTreeMap<String, f64>,
    /// Published figures the model knowingly does not match, with the reason.
    pub explained: BTreeMap<String, String>,
    /// Legal settings that are probably not what was meant, as (field, message).
    pub warnings: Vec<(String, String)>,
}

/// Parses a `--set` value: a TOML literal (`1`, `true`, `"x"`, `[1, 2]`), else a bare string.
pub fn parse_override_value(raw: &str) -> toml::Value {
    toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()))
}

/// Sets `dotted.key` in a TOML tree. Numeric segments index arrays; `*` means every element.
fn set_dotted(node: &mut toml::Value, segments: &[&str], value: &toml::Value) -> Result<(), String> {
    let Some((first, rest)) = segments.split_first() else {
        *node = value.clone();
        return Ok(());
    };
    match node {
        toml::Value::Table(table) => {
            if rest.is_empty() {
                table.insert(first.to_string(), value.clone());
                return Ok(());
            }
            let child = table.entry(first.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            set_dotted(child, rest, value)
        }
        toml::Value::Array(items) if *first == "*" => {
            items.iter_mut().try_for_each(|item| set_dotted(item, rest, value))
        }
        toml::Value::Array(items) => {
            let n = items.len();
            let index: usize = first
                .parse()
                .map_err(|_| format!("\"{first}\" is not an index: use 0..{} or *", n.saturating_sub(1)))?;
            let item = items
                .get_mut(index)
                .ok_or_else(|| format!("index {index} is out of range: the list has {n} entries"))?;
            set_dotted(item, rest, value)
        }
        _ => Err(format!("cannot set \"{first}\" inside a {}", node.type_str())),
    }
}

/// The file's `[variants]`, taken out of `table` and checked, in file order.
fn variants_of(table: &mut toml::Table, file: &str) -> Result<Vec<(String, VariantSpec)>, ScenarioError> {
    let mut variants = Vec::new();
    if let Some(v) = table.remove("variants") {
        let toml::Value::Table(vt) = v else {
            return Err(ScenarioError::new(file, "variants", "must be a table of named variants"));
        };
        for (name, body) in vt {
            let spec: VariantSpec = deserialize(body, file, &format!("variants.{name}"))?;
            check_published(&spec.published, &spec.tolerance, file, &format!("variants.{name}."))?;
            if let Some(key) = spec.explained.keys().find(|k| !spec.published.contains_key(*k)) {
                let field = format!("variants.{name}.explained.{key}");
                return Err(ScenarioError::new(file, field, "explains a figure that is not published"));
            }
            variants.push((name, spec));
        }
    }
    Ok(variants)
}

/// The tables a run reads: `table` with the variant's `set` and then the overrides applied, as
/// dotted keys (`set_dotted`), with the variant's spec.
fn applied(
    table: toml::Table,
    variants: &[(String, VariantSpec)],
    file: &str,
    variant: Option<&str>,
    overrides: &[(String, toml::Value)],
) -> Result<(toml::Value, Option<VariantSpec>), ScenarioError> {
    let mut root = toml::Value::Table(table);
    let selected = match variant {
        None => None,
        Some(name) => Some(variants.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).ok_or_else(|| {
            let names: Vec<&str> = variants.iter().map(|(n, _)| n.as_str()).collect();
            let defined = if names.is_empty() { "none".to_string() } else { names.join(", ") };
            ScenarioError::new(file, "variant", format!("unknown variant \"{name}\"; defined: {defined}"))
        })?),
    };
    if let (Some(name), Some(v)) = (variant, &selected) {
        for (key, value) in &v.set {
            apply_override(&mut root, key, value, file, &format!("variants.{name}.set.{key}"))?;
        }
    }
    for (key, value) in overrides {
        apply_override(&mut root, key, value, file, key)?;
    }
    Ok((root, selected))
}

/// The tables a scenario's run reads (its variant's `set` and the overrides applied to `table`,
/// its `[variants]` and `[sweep]` left out), as the engine applies them before it types them:
/// for what the advisor reads of a run, without a second implementation of the dotted keys.
pub fn tables_as_run(
    table: toml::Table,
    file: &str,
    variant: Option<&str>,
    overrides: &[(String, toml::Value)],
) -> Result<toml::Table, ScenarioError> {
    match AppliedTables::new(table, file, variant, overrides)?.root {
        toml::Value::Table(t) => Ok(t),
        _ => Err(ScenarioError::new(file, "", "a scenario is a table")),
    }
}

/// A scenario's tables with its variant's `set` and its overrides applied, its `[sweep]` and
/// `[variants]` taken out: what [`Scenario::from_table`] types. Kept, it loads the scenarios that
/// add overrides of their own after the same ones ([`AppliedTables::scenario`]), each the scenario
/// `from_table` gives of the tables with every override, without reading and applying the kept
/// ones again (a cluster of 32 hosts × 500 devices fitted to its captures carries 32,000, about
/// 60 ms of each load of a ranking's candidate).
#[derive(Debug, Clone)]
pub struct AppliedTables {
    root: toml::Value,
    variants: Vec<(String, VariantSpec)>,
    variant: Option<String>,
    selected: Option<VariantSpec>,
}

impl AppliedTables {
    /// `table` with `variant`'s `set` and then `overrides` applied, as `from_table` applies them,
    /// with the same errors.
    pub fn new(
        mut table: toml::Table,
        file: &str,
        variant: Option<&str>,
        overrides: &[(String, toml::Value)],
    ) -> Result<AppliedTables, ScenarioError> {
        // A `[sweep]` table is read by `pathlab sweep` (Python) and means nothing to one run.
        table.remove("sweep");
        let variants = variants_of(&mut table, file)?;
        let (root, selected) = applied(table, &variants, file, variant, overrides)?;
        Ok(AppliedTables { root, variants, variant: variant.map(str::to_string), selected })
    }

    /// The scenario of these tables with `more` overrides applied after theirs, and `seed` if
    /// given: `from_table` of the tables, the variant and the overrides followed by `more`.
    pub fn scenario(
        &self,
        file: &str,
        more: &[(String, toml::Value)],
        seed: Option<u64>,
    ) -> Result<Scenario, ScenarioError> {
        let mut root = self.root.clone();
        for (key, value) in more {
            apply_override(&mut root, key, value, file, key)?;
        }
        match plainly_typed(root) {
            Some(spec) => {
                finished(spec, file, seed, self.variant.clone(), self.variants.clone(), self.selected.as_ref())
            }
            None => self.clone().into_scenario(file, more, seed),
        }
    }

    fn into_scenario(
        mut self,
        file: &str,
        more: &[(String, toml::Value)],
        seed: Option<u64>,
    ) -> Result<Scenario, ScenarioError> {
        for (key, value) in more {
            apply_override(&mut self.root, key, value, file, key)?;
        }
        let spec: ScenarioSpec = deserialize(self.root, file, "")?;
        finished(spec, file, seed, self.variant, self.variants, self.selected.as_ref())
    }
}

/// The tables typed without `serde_path_to_error`, which makes a `String` of every key it reads
/// for the path an error would name (a fifth to a third of typing the 32 × 500 × 8 cluster,
/// `examples/load_costs`); None where they do not type, which the caller types again with it,
/// from another copy, for the error naming the field.
fn plainly_typed(root: toml::Value) -> Option<ScenarioSpec> {
    ScenarioSpec::deserialize(root).ok()
}

/// The scenario of its typed tables: `seed` set, the published figures checked and chosen (the
/// variant's, else the file's), and the warnings found.
fn finished(
    mut spec: ScenarioSpec,
    file: &str,
    seed: Option<u64>,
    variant: Option<String>,
    variants: Vec<(String, VariantSpec)>,
    selected: Option<&VariantSpec>,
) -> Result<Scenario, ScenarioError> {
    // Set on the typed spec: a TOML integer cannot hold seeds of 2^63 and above.
    if let Some(seed) = seed {
        spec.run.seed = seed;
    }
    check_published(&spec.published, &spec.tolerance, file, "")?;
    let (published, tolerance, explained) = match selected {
        Some(v) => (v.published.clone(), v.tolerance.clone(), v.explained.clone()),
        None => (spec.published.clone(), spec.tolerance.clone(), Default::default()),
    };
    let warnings = limits::warnings(&spec);
    Ok(Scenario { file: file.to_string(), spec, variant, variants, published, tolerance, explained, warnings })
}

fn apply_override(
    root: &mut toml::Value,
    key: &str,
    value: &toml::Value,
    file: &str,
    field: &str,
) -> Result<(), ScenarioError> {
    let segments: Vec<&str> = key.split('.').collect();
    if segments.iter().any(|s| s.is_empty()) {
        return Err(ScenarioError::new(file, field, format!("\"{key}\" is not a dotted key like policy.iops")));
    }
    set_dotted(root, &segments, value).map_err(|m| ScenarioError::new(file, field, m))
}

fn dotted(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|s| match s {
            Segment::Seq { index } => Some(index.to_string()),
            Segment::Map { key } => Some(key.clone()),
            Segment::Enum { variant } => Some(variant.clone()),
            Segment::Unknown => None,
        })
        .collect::<Vec<_>>()
        .join(".")
}

fn deserialize<T: serde::de::DeserializeOwned>(
    value: toml::Value,
    file: &str,
    prefix: &str,
) -> Result<T, ScenarioError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut path = dotted(e.path());
        // serde's wording made plain: one line, "value" (a scenario variant is another thing),
        // and an unknown field named in the path.
        let raw = e.into_inner().to_string();
        let mut message =
            wording::plain(raw.lines().next().unwrap_or_default()).replace("unknown variant", "unknown value");
        if let Some((inner, rest)) = message.split_once(schema::FIELD_PATH_END) {
            path = if path.is_empty() { inner.to_string() } else { format!("{path}.{inner}") };
            message = rest.to_string();
        }
        let unknown = message.strip_prefix("unknown field `").and_then(|m| m.split('`').next());
        if let Some(name) = unknown.filter(|n| !path.ends_with(n)) {
            path = if path.is_empty() { name.to_string() } else { format!("{path}.{name}") };
        }
        let field = [prefix, path.as_str()].iter().filter(|s| !s.is_empty()).copied().collect::<Vec<_>>().join(".");
        ScenarioError::new(file, field, message)
    })
}

fn check_published(
    published: &BTreeMap<String, f64>,
    tolerance: &BTreeMap<String, f64>,
    file: &str,
    prefix: &str,
) -> Result<(), ScenarioError> {
    for (table, keys) in [("published", published.keys()), ("tolerance", tolerance.keys())] {
        for key in keys {
            if !PUBLISHABLE.contains(&key.as_str()) {
                return Err(ScenarioError::new(
                    file,
                    format!("{prefix}{table}.{key}"),
                    format!("not a summary figure; allowed: {}", PUBLISHABLE.join(", ")),
                ));
            }
        }
    }
    for (key, tol) in tolerance {
        if !published.contains_key(key) {
            return Err(ScenarioError::new(
                file,
                format!("{prefix}tolerance.{key}"),
                "a tolerance needs the published figure it applies to",
            ));
        }
        if !(*tol > 0.0 && *tol < 10.0) {
            return Err(ScenarioError::new(
                file,
                format!("{prefix}tolerance.{key}"),
                "a relative tolerance like 0.10 (±10%)",
            ));
        }
    }
    Ok(())
}

impl Scenario {
    /// Reads a scenario from `text` (named `file` in errors), applies `variant` and then the
    /// `overrides` (dotted key, value) in order, and `seed` if given.
    pub fn parse(
        text: &str,
        file: &str,
        variant: Option<&str>,
        overrides: &[(String, toml::Value)],
        seed: Option<u64>,
    ) -> Result<Scenario, ScenarioError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| {
            // Where and what, without the line quoted: a line may be megabytes long (a file nested
            // 50,000 deep is one line of brackets).
            let what = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
            let msg = match e.span() {
                Some(span) => {
                    let before = &text[..span.start.min(text.len())];
                    let line = before.matches('\n').count() + 1;
                    let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
                    format!("line {line}, column {column}: {what}")
                }
                None => what,
            };
            ScenarioError::new(file, "", format!("not valid TOML: {msg}"))
        })?;
        Self::from_table(table, file, variant, overrides, seed)
    }

    /// A scenario from its tables as values (what [`Scenario::parse`] reads from text, or what an
    /// importer builds without writing text), checked as `parse` checks them.
    pub fn from_table(
        table: toml::Table,
        file: &str,
        variant: Option<&str>,
        overrides: &[(String, toml::Value)],
        seed: Option<u64>,
    ) -> Result<Scenario, ScenarioError> {
        AppliedTables::new(table, file, variant, overrides)?.into_scenario(file, &[], seed)
    }

    /// [`Scenario::from_table`] of a copy of `table`, which the caller keeps (a scenario's tables
    /// converted once for its runs): typed without the path of every field read, and only where
    /// that fails again from another copy with it, for the same error.
    pub fn from_kept_table(
        table: &toml::Table,
        file: &str,
        variant: Option<&str>,
        overrides: &[(String, toml::Value)],
        seed: Option<u64>,
    ) -> Result<Scenario, ScenarioError> {
        let AppliedTables { root, variants, variant: named, selected } =
            AppliedTables::new(table.clone(), file, variant, overrides)?;
        match plainly_typed(root) {
            Some(spec) => finished(spec, file, seed, named, variants, selected.as_ref()),
            None => Scenario::from_table(table.clone(), file, variant, overrides, seed),
        }
    }

    pub fn name(&self) -> &str {
        if self.spec.name.is_empty() {
            &self.file
        } else {
            &self.spec.name
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_override_value, AppliedTables, Scenario};

    /// The three ways to load a scenario from its tables give the same scenario or the same error:
    /// `from_table` (typed with every field's path), `from_kept_table` (typed without, and again
    /// with it on an error) and kept tables with the first overrides applied, the rest added after.
    #[test]
    fn a_scenario_from_kept_or_applied_tables_is_the_one_from_its_tables() {
        let text = include_str!("../../../../scenarios/c1-vmax-1lun.toml");
        let table: toml::Table = toml::from_str(text).expect("a scenario");
        let sets = |pairs: &[(&str, &str)]| -> Vec<(String, toml::Value)> {
            pairs.iter().map(|(k, v)| (k.to_string(), parse_override_value(v))).collect()
        };
        let first = sets(&[("run.duration", "\"2s\""), ("devices.0.queue_depth", "64")]);
        let cases: [&[(&str, &str)]; 6] = [
            &[],
            &[("devices.*.policy", "{ name = \"VMW_PSP_RR\", type = \"iops\", iops = 3 }"), ("run.seed", "9")],
            &[("devices.0.queue_depth", "\"deep\"")],
            &[("devices.0.policy", "{ name = \"VMW_PSP_RR\", iops = \"many\" }")],
            &[("devices.0.nonsense", "1")],
            &[("devices.7.queue_depth", "1")],
        ];
        let shown = |loaded: Result<Scenario, super::ScenarioError>| format!("{loaded:?}");
        for variant in [None, Some("iops1")] {
            let applied = AppliedTables::new(table.clone(), "c1.toml", variant, &first).expect("applied");
            for more in cases {
                let all: Vec<_> = first.iter().cloned().chain(sets(more)).collect();
                let whole = shown(Scenario::from_table(table.clone(), "c1.toml", variant, &all, Some(5)));
                assert_eq!(shown(Scenario::from_kept_table(&table, "c1.toml", variant, &all, Some(5))), whole);
                assert_eq!(shown(applied.scenario("c1.toml", &sets(more), Some(5))), whole);
                assert_eq!(whole.starts_with("Ok"), more.len() != 1, "{whole}");
            }
        }
    }
}
