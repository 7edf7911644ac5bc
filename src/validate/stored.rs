//! A change review's objects that the management cluster already stores (the base defines them too): what the API
//! server's update of each says beside the create-time report. Schema and CEL errors at values the stored object
//! already had are forgiven by CRD validation ratcheting (warnings here, so that a pull request is not failed by
//! what it did not touch), and the CEL transition rules are judged against the stored object.

use crate::fast_hash::HashMap;
use crate::manifest::Document;
use crate::report::{Finding, Severity};
use crate::schema::{ObjectStatus, Validator};

use super::report::Report;

/// The objects both sides of a change define: the base's (as stored) and the head's (as applied), paired.
#[derive(Debug, Clone, Default)]
pub struct StoredPairs {
    pub old: Vec<Document>,
    pub new: Vec<Document>,
    /// `(index in old, index in new)` of each object both define.
    pub pairs: Vec<(usize, usize)>,
}

impl StoredPairs {
    fn iter(&self) -> impl Iterator<Item = (&Document, &Document)> {
        self.pairs.iter().map(|&(old, new)| (&self.old[old], &self.new[new]))
    }
}

/// What the message of a forgiven finding gains.
const FORGIVEN: &str = "; accepted on this update: unchanged since the base, and the API server's CRD validation \
                        ratcheting keeps it (a new object would be rejected)";

/// Turns the head's `schema` and `cel` errors that the update of a stored object forgives into warnings, and
/// recounts the report.
pub(crate) fn ratchet_report(report: &mut Report, pairs: &StoredPairs, validator: &Validator<'_>) {
    let by_object: HashMap<(&str, String), (&Document, &Document)> =
        pairs.iter().map(|(old, new)| ((&*new.origin.source, new.display_name()), (old, new))).collect();
    let mut updates = HashMap::default();
    let mut forgiven = Vec::new();
    for (index, finding) in report.findings.iter().enumerate() {
        if finding.severity != Severity::Error || !matches!(finding.rule.as_str(), "schema" | "cel") {
            continue;
        }
        let Some((old, new)) = by_object.get(&(finding.source.as_str(), finding.object.clone())) else { continue };
        let key = (finding.source.clone(), finding.object.clone());
        let update = updates.entry(key).or_insert_with(|| validator.stored_update(&old.value, &new.value));
        if update.as_ref().is_some_and(|u| u.forgives(&finding.rule, &finding.path, &finding.message)) {
            forgiven.push(index);
        }
    }
    if forgiven.is_empty() {
        return;
    }
    let mut before = Vec::with_capacity(forgiven.len());
    for index in forgiven {
        let finding = &mut report.findings[index];
        before.push(finding.clone());
        finding.severity = Severity::Warning;
        finding.message.push_str(FORGIVEN);
    }
    for resource in &mut report.resources {
        let had_errors = !resource.errors.is_empty();
        resource.errors.retain(|error| !before.contains(error));
        if had_errors && resource.errors.is_empty() && resource.status == ObjectStatus::Invalid {
            resource.status = ObjectStatus::Valid;
        }
    }
    report.count();
}

/// The errors of the CEL transition rules (`oldSelf`) on updating each changed stored object, located in the head.
pub fn transition_findings(pairs: &StoredPairs, validator: &Validator<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (old, new) in pairs.iter().filter(|(old, new)| old.value != new.value) {
        if !validator.has_transition_rules(&new.value) {
            continue;
        }
        let Some(update) = validator.stored_update(&old.value, &new.value) else { continue };
        for error in update.transition_errors() {
            out.push(Finding {
                rule: "cel".to_string(),
                severity: if error.not_checked { Severity::NotChecked } else { Severity::Error },
                source: new.origin.source.to_string(),
                line: new.line_of(&error.pointer),
                column: None,
                object: new.display_name(),
                path: error.pointer,
                message: error.message,
            });
        }
    }
    out
}
