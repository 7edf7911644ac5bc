//! The deployments of Fleet bundles as units of their own while they are validated, and back to the user's files
//! afterwards.
//!
//! Two targets of one bundle are never applied together (each cluster gets one), yet they render the same
//! objects from the same files, often with different content. While validating, the documents of each target
//! carry a source of their own: the real file with a marker directory before its name
//! (`fleet/aks/templates/\u{1}fleet:3\u{1}/cc.yaml`). So every cross-object rule judges a target with its own
//! objects (copies in different directories are scopes of their own), identical findings of two targets stay two
//! findings, and `duplicate-object` between two targets of one bundle can be told from a real duplicate. Once
//! validated, [`Units::resolve`] gives each finding its real file back, traces a value to the values line of the
//! target that rendered it, and says which bundle and target it is about.

use crate::source::budget::Budget;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

use regex::Regex;

use crate::manifest::Document;
use crate::report::Finding;
use crate::source::helm::{self, HelmRender};
use crate::source::{BuiltSource, PatchedField};

const MARK_START: &str = "\u{1}fleet:";
const MARK_END: char = '\u{1}';

/// The marker directory of a virtual source, with the unit's number.
static MARKER: LazyLock<Regex> = LazyLock::new(|| Regex::new("\u{1}fleet:([0-9]+)\u{1}/").expect("valid regex"));

/// One deployment of a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// The bundle directory as shown (`fleet/aks-classes`).
    pub bundle: String,
    /// The customization, `None` for the default target.
    pub target: Option<String>,
    /// Whether the bundle has other targets rendered (then the default target is named as such).
    pub has_variants: bool,
    /// Other targets whose objects are the same as this one's (rendered once, named with it).
    pub same_as: Vec<String>,
}

impl Unit {
    /// How findings name it: ` (Fleet bundle B)`, ` (Fleet bundle B, target prod)`.
    fn tag(&self) -> String {
        let mut targets: Vec<String> = Vec::new();
        match &self.target {
            Some(target) => targets.push(format!("target {target}")),
            None if self.has_variants => targets.push("default target".to_string()),
            None => {}
        }
        targets.extend(self.same_as.iter().map(|target| format!("target {target}")));
        match targets.as_slice() {
            [] => format!(" (Fleet bundle {})", self.bundle),
            [one] => format!(" (Fleet bundle {}, {one})", self.bundle),
            [first @ .., last] => format!(" (Fleet bundle {}, {} and {last})", self.bundle, first.join(", ")),
        }
    }
}

/// The units of a repository's Fleet bundles, the Helm renders they came from, and which builds are variants.
#[derive(Debug, Default)]
pub struct Units {
    units: Vec<Unit>,
    /// Helm renders by unit, to trace values.
    renders: HashMap<usize, HelmRender>,
    /// Indexes (in the repository's `built`) of builds of customizations (not the default target).
    variant_builds: Vec<usize>,
    budget: Budget,
}

/// The virtual source of `real` in unit `unit`.
fn virtual_source(real: &str, unit: usize) -> String {
    match real.rsplit_once('/') {
        Some((dir, name)) => format!("{dir}/{MARK_START}{unit}{MARK_END}/{name}"),
        None => format!("{MARK_START}{unit}{MARK_END}/{real}"),
    }
}

/// `text` with every virtual source in it made real again.
pub fn strip(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(MARK_START) {
        return std::borrow::Cow::Borrowed(text);
    }
    MARKER.replace_all(text, "")
}

/// The unit of a source, when it is virtual.
fn unit_of(source: &str) -> Option<usize> {
    MARKER.captures(source).and_then(|captures| captures[1].parse().ok())
}

impl Units {
    pub fn new(budget: Budget) -> Self {
        Units { budget, ..Units::default() }
    }

    /// Whether no Fleet target was built (nothing to resolve).
    pub fn is_empty(&self) -> bool {
        self.units.is_empty()
    }

    /// Registers a unit; its number.
    pub fn add(&mut self, unit: Unit) -> usize {
        self.units.push(unit);
        self.units.len() - 1
    }

    /// Adds a target to the unit whose objects it shares.
    pub fn add_same(&mut self, unit: usize, target: &str) {
        if let Some(unit) = self.units.get_mut(unit) {
            unit.same_as.push(target.to_string());
        }
    }

    /// Gives the documents (and the patched fields) of `built` the sources of unit `unit`; `render` is the Helm
    /// render they came from, if any; `index` is the build's place in the repository's `built`.
    pub fn assign(&mut self, unit: usize, built: &mut BuiltSource, render: Option<HelmRender>, index: usize) {
        let mut cache: HashMap<Arc<str>, Arc<str>> = HashMap::new();
        for document in &mut built.documents {
            let source = document.origin.source.clone();
            let shown = cache.entry(source.clone()).or_insert_with(|| Arc::from(virtual_source(&source, unit)));
            document.origin.source = shown.clone();
        }
        for fields in &mut built.patched {
            for PatchedField { source, .. } in fields.iter_mut() {
                *source = virtual_source(source, unit);
            }
        }
        if let Some(render) = render {
            self.renders.insert(unit, render);
        }
        if self.units.get(unit).is_some_and(|unit| unit.target.is_some()) {
            self.variant_builds.push(index);
        }
    }

    /// Whether build `index` of the repository is a customization's (not what the default target applies).
    pub fn is_variant_build(&self, index: usize) -> bool {
        self.variant_builds.contains(&index)
    }

    /// Findings with virtual sources back at the user's files: values traced to the values line of the unit's
    /// render, the bundle and target named, `duplicate-object` between two targets of one bundle dropped (they
    /// are never applied together).
    pub fn resolve(&self, findings: &mut Vec<Finding>, trace: bool) {
        if self.units.is_empty() {
            return;
        }
        findings.retain(|finding| !self.is_duplicate_across_targets(finding));
        let mut by_unit: HashMap<usize, Vec<usize>> = HashMap::new();
        for (index, finding) in findings.iter_mut().enumerate() {
            let unit = unit_of(&finding.source);
            finding.source = strip(&finding.source).into_owned();
            finding.message = strip(&finding.message).into_owned();
            if let Some(unit) = unit {
                by_unit.entry(unit).or_default().push(index);
            }
        }
        let mut units: Vec<(usize, Vec<usize>)> = by_unit.into_iter().collect();
        units.sort();
        for (unit, indexes) in units {
            if trace && let Some(render) = self.renders.get(&unit) {
                let mut batch: Vec<Finding> = indexes.iter().map(|&index| findings[index].clone()).collect();
                helm::attribute_values(std::slice::from_ref(render), &mut batch, &self.budget, &mut Vec::new());
                for (&index, traced) in indexes.iter().zip(batch) {
                    findings[index] = traced;
                }
            }
            let Some(tag) = self.units.get(unit).map(Unit::tag) else { continue };
            for &index in &indexes {
                findings[index].message.push_str(&tag);
            }
        }
    }

    /// A `duplicate-object` finding whose copies are all in different targets of one bundle.
    fn is_duplicate_across_targets(&self, finding: &Finding) -> bool {
        // The rule id of src/lint/duplicates.rs.
        if finding.rule != "duplicate-object" {
            return false;
        }
        let Some(own) = unit_of(&finding.source) else { return false };
        let Some(others) = finding.message.split_once("(also at ").map(|(_, rest)| rest) else { return false };
        let others = others.split(')').next().unwrap_or("");
        let others = others.split(" and ").next().unwrap_or(others);
        let bundle = &self.units[own].bundle;
        let units: Vec<Option<usize>> = others.split(", ").map(unit_of).collect();
        !units.is_empty()
            && units.iter().all(|unit| {
                unit.is_some_and(|unit| unit != own && self.units.get(unit).is_some_and(|u| &u.bundle == bundle))
            })
            && {
                let mut seen: Vec<usize> = units.iter().flatten().copied().collect();
                seen.sort();
                seen.windows(2).all(|pair| pair[0] != pair[1])
            }
    }

    /// `documents` with their real sources (for `diff`, which shows them).
    pub fn real_documents<'a>(documents: impl Iterator<Item = &'a Document>) -> Vec<Document> {
        documents
            .map(|document| {
                let mut document = document.clone();
                if document.origin.source.contains(MARK_START) {
                    document.origin.source = Arc::from(strip(&document.origin.source).as_ref());
                }
                document
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Severity;

    fn finding(rule: &str, source: &str, message: &str) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Error,
            source: source.into(),
            line: 3,
            column: None,
            object: "ClusterClass/aks".into(),
            path: "/spec".into(),
            message: message.into(),
        }
    }

    #[test]
    fn findings_get_their_files_back_and_name_bundle_and_target() {
        let mut units = Units::new(Budget::default());
        let unit = |target: Option<&str>| Unit {
            bundle: "fleet/aks".into(),
            target: target.map(str::to_string),
            has_variants: true,
            same_as: Vec::new(),
        };
        let default = units.add(unit(None));
        let prod = units.add(unit(Some("prod")));
        units.add_same(prod, "staging");
        let other = units.add(Unit { bundle: "fleet/other".into(), ..unit(Some("x")) });
        let file = "repo/fleet/aks/chart/templates/cc.yaml";
        let (in_default, in_prod, in_other) =
            (virtual_source(file, default), virtual_source(file, prod), virtual_source(file, other));
        assert_eq!(in_prod, format!("repo/fleet/aks/chart/templates/\u{1}fleet:{prod}\u{1}/cc.yaml"));
        let mut findings = vec![
            finding("schema", &in_default, "bad"),
            finding("schema", &in_prod, "bad"),
            finding(
                "duplicate-object",
                &in_default,
                &format!("ClusterClass aks is defined 2 times (also at {in_prod}:4); ..."),
            ),
            finding(
                "duplicate-object",
                &in_default,
                &format!("ClusterClass aks is defined 2 times (also at {in_other}:4); ..."),
            ),
            finding("schema", "repo/plain.yaml", "plain"),
        ];
        units.resolve(&mut findings, false);
        let shown: Vec<(String, String)> = findings.iter().map(|f| (f.source.clone(), f.message.clone())).collect();
        assert_eq!(
            shown,
            [
                (file.to_string(), "bad (Fleet bundle fleet/aks, default target)".to_string()),
                (file.to_string(), "bad (Fleet bundle fleet/aks, target prod and target staging)".to_string()),
                // A copy in another bundle is a duplicate that matters; between two targets of one bundle it is not.
                (
                    file.to_string(),
                    format!(
                        "ClusterClass aks is defined 2 times (also at {file}:4); ... (Fleet bundle fleet/aks, default target)"
                    )
                ),
                ("repo/plain.yaml".to_string(), "plain".to_string()),
            ]
        );
    }
}
