//! One run judged against several targets (`validate --capz-version v1.27,v1.28`): the targets' reports merged
//! into one, each finding that does not hold on every target saying on which it does.

use std::collections::HashMap;

use crate::report::Finding;
use crate::schema::ObjectStatus;

use super::report::{Report, ResourceResult, finding_order, sort_suppressed};

/// The merged report and, for each of its findings (same order), the targets it holds on.
#[derive(Debug, Clone, Default)]
pub(crate) struct TargetedReport {
    pub report: Report,
    pub holds_on: Vec<Vec<&'static str>>,
}

/// What a finding holding on `on` of `all` targets adds to its message: `(on v1.28; not on v1.27)`; `(on v1.28)`
/// when the other targets have a finding of the same rule at the same place in their own words (`key_on`: the
/// targets with one); nothing when it holds on every target.
fn qualifier(on: &[&str], key_on: &[&str], all: &[&str]) -> Option<String> {
    if on.len() == all.len() {
        return None;
    }
    if key_on.len() == all.len() {
        return Some(format!("(on {})", on.join(", ")));
    }
    let not_on: Vec<&str> = all.iter().copied().filter(|name| !key_on.contains(name)).collect();
    Some(format!("(on {}; not on {})", on.join(", "), not_on.join(", ")))
}

/// A finding but for its wording: the rule, severity and place.
type Key = (String, crate::report::Severity, String, usize, Option<usize>, String, String);

fn key(finding: &Finding) -> Key {
    let f = finding;
    (f.rule.clone(), f.severity, f.source.clone(), f.line, f.column, f.object.clone(), f.path.clone())
}

/// The targets findings hold on, by finding and by [`Key`].
#[derive(Default)]
struct Holders {
    exact: HashMap<Finding, Vec<&'static str>>,
    by_key: HashMap<Key, Vec<&'static str>>,
}

impl Holders {
    /// Records that `finding` holds on `name`; true the first time it is seen.
    fn add(&mut self, finding: &Finding, name: &'static str) -> bool {
        let on = self.by_key.entry(key(finding)).or_default();
        if !on.contains(&name) {
            on.push(name);
        }
        let on = self.exact.entry(finding.clone()).or_default();
        let first = on.is_empty();
        if !on.contains(&name) {
            on.push(name);
        }
        first
    }

    /// `finding` with its qualifier, and the targets it holds on.
    fn qualified(&self, finding: &Finding, all: &[&str]) -> (Finding, Vec<&'static str>) {
        let on = self.exact.get(finding).cloned().unwrap_or_default();
        let key_on = self.by_key.get(&key(finding)).map_or(&[][..], Vec::as_slice);
        let mut finding = finding.clone();
        if let Some(qualifier) = qualifier(&on, key_on, all) {
            finding.message = format!("{} {qualifier}", finding.message);
        }
        (finding, on)
    }
}

/// The verdict on an object over the targets: invalid on any is invalid, valid only when valid on all, else not
/// checked (skipped) on some.
fn worst(a: ObjectStatus, b: ObjectStatus) -> ObjectStatus {
    match (a, b) {
        (ObjectStatus::Invalid, _) | (_, ObjectStatus::Invalid) => ObjectStatus::Invalid,
        (ObjectStatus::Valid, ObjectStatus::Valid) => ObjectStatus::Valid,
        _ => ObjectStatus::Skipped,
    }
}

/// Merges the reports of one run on several targets (`names[i]` is the target of `reports[i]`; at least one):
/// a finding equal on several targets is one finding, its message saying on which targets it holds unless it holds
/// on all; an object's verdict is its worst; the files and sources not built are the first report's (the targets
/// read the same sources).
pub(crate) fn merge(names: &[&'static str], reports: Vec<Report>) -> TargetedReport {
    assert_eq!(names.len(), reports.len(), "one name per target's report");
    let mut order: Vec<Finding> = Vec::new();
    let mut holders = Holders::default();
    let mut resources: Vec<ResourceResult> = Vec::new();
    let mut resource_index: HashMap<(String, usize, String, String), usize> = HashMap::new();
    let mut suppressed = Vec::new();
    let mut merged = Report::default();
    for (index, (name, report)) in names.iter().copied().zip(reports).enumerate() {
        if index == 0 {
            merged.files = report.files.clone();
            merged.not_built = report.not_built.clone();
            merged.summary = report.summary.clone();
        }
        for finding in report.findings {
            if holders.add(&finding, name) {
                order.push(finding);
            }
        }
        for resource in report.resources {
            let key = (resource.source.clone(), resource.line, resource.object.clone(), resource.api_version.clone());
            let slot = match resource_index.get(&key) {
                Some(&slot) => {
                    resources[slot].status = worst(resources[slot].status, resource.status);
                    slot
                }
                None => {
                    resource_index.insert(key, resources.len());
                    resources.push(ResourceResult { errors: Vec::new(), ..resource.clone() });
                    resources.len() - 1
                }
            };
            let kept = &mut resources[slot];
            for error in resource.errors {
                if !kept.errors.contains(&error) {
                    kept.errors.push(error);
                }
            }
        }
        suppressed.extend(report.suppressed);
    }
    // An object's errors are among the findings: each says where it holds as its finding does.
    for resource in &mut resources {
        for error in &mut resource.errors {
            *error = holders.qualified(error, names).0;
        }
    }
    let mut findings: Vec<(Finding, Vec<&'static str>)> =
        order.iter().map(|finding| holders.qualified(finding, names)).collect();
    findings.sort_by(|(a, _), (b, _)| finding_order(a, b));
    findings.dedup_by(|(a, _), (b, _)| a == b);
    sort_suppressed(&mut suppressed);
    let (findings, holds_on): (Vec<Finding>, Vec<Vec<&'static str>>) = findings.into_iter().unzip();
    merged.findings = findings;
    merged.resources = resources;
    merged.suppressed = suppressed;
    merged.count();
    TargetedReport { report: merged, holds_on }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Severity;

    fn finding(rule: &str, line: usize, message: &str) -> Finding {
        Finding {
            rule: rule.into(),
            severity: Severity::Error,
            source: "c.yaml".into(),
            line,
            column: None,
            object: "AzureASOManagedControlPlane/a".into(),
            path: "/spec/resources/0/apiVersion".into(),
            message: message.into(),
        }
    }

    fn report(findings: Vec<Finding>, status: ObjectStatus) -> Report {
        let mut report = Report {
            resources: vec![ResourceResult {
                source: "c.yaml".into(),
                line: 1,
                object: "AzureASOManagedControlPlane/a".into(),
                api_version: "infrastructure.cluster.x-k8s.io/v1beta1".into(),
                status,
                errors: findings.clone(),
            }],
            findings,
            ..Report::default()
        };
        report.count();
        report
    }

    #[test]
    fn findings_say_on_which_targets_they_hold() {
        let shared = finding("schema", 3, "missing location");
        let only_new = finding("api-version", 5, "v1api20240402preview is not served");
        let merged = merge(
            &["v1.27", "v1.28"],
            vec![
                report(vec![shared.clone()], ObjectStatus::Invalid),
                report(vec![shared.clone(), only_new.clone()], ObjectStatus::Invalid),
            ],
        );
        let messages: Vec<&str> = merged.report.findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(messages, ["missing location", "v1api20240402preview is not served (on v1.28; not on v1.27)"]);
        assert_eq!(merged.holds_on, [vec!["v1.27", "v1.28"], vec!["v1.28"]]);
        assert_eq!(merged.report.summary.errors, 2);
        assert_eq!(merged.report.resources.len(), 1);
        assert_eq!(merged.report.resources[0].errors.len(), 2);
        assert!(merged.report.resources[0].errors[1].message.ends_with("(on v1.28; not on v1.27)"));
    }

    #[test]
    fn a_finding_worded_per_target_says_only_where_it_holds() {
        let old = finding("api-version", 5, "not served by ASO v2.19 that CAPZ v1.27 installs");
        let new = finding("api-version", 5, "not served by ASO v2.20 that CAPZ v1.28 installs");
        let merged = merge(
            &["v1.27", "v1.28"],
            vec![report(vec![old], ObjectStatus::Invalid), report(vec![new], ObjectStatus::Invalid)],
        );
        let messages: Vec<&str> = merged.report.findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "not served by ASO v2.19 that CAPZ v1.27 installs (on v1.27)",
                "not served by ASO v2.20 that CAPZ v1.28 installs (on v1.28)"
            ]
        );
        assert_eq!(merged.holds_on, [vec!["v1.27"], vec!["v1.28"]]);
    }

    #[test]
    fn an_object_invalid_on_one_target_is_invalid() {
        let error = finding("api-version", 5, "not served");
        let merged = merge(
            &["v1.27", "v1.28"],
            vec![report(Vec::new(), ObjectStatus::Valid), report(vec![error], ObjectStatus::Invalid)],
        );
        assert_eq!(merged.report.resources[0].status, ObjectStatus::Invalid);
        assert_eq!(merged.report.summary.invalid, 1);
        assert_eq!(merged.report.summary.valid, 0);
        let clean = merge(
            &["v1.27", "v1.28"],
            vec![report(Vec::new(), ObjectStatus::Valid), report(Vec::new(), ObjectStatus::Skipped)],
        );
        assert_eq!(clean.report.resources[0].status, ObjectStatus::Skipped);
        assert!(clean.report.findings.is_empty());
    }
}
