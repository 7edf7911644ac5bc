//! Helpers for the rule unit tests: parse inline YAML, run every rule, pick findings.

use crate::manifest::parse_documents;
use crate::report::Finding;

use super::{RuleSelection, check};

/// All findings (every rule enabled) of the YAML text.
pub(crate) fn findings(yaml: &str) -> Vec<Finding> {
    let documents = parse_documents(yaml, "test.yaml").expect("test YAML parses");
    check(&documents, &RuleSelection::all())
}

/// Findings of one rule only.
pub(crate) fn findings_of(yaml: &str, rule: &str) -> Vec<Finding> {
    findings(yaml).into_iter().filter(|finding| finding.rule == rule).collect()
}

/// The rule ids of the findings, in order.
pub(crate) fn ids(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|finding| finding.rule.as_str()).collect()
}

/// Findings of any of these rules.
pub(crate) fn findings_among(yaml: &str, rules: &[&str]) -> Vec<Finding> {
    findings(yaml).into_iter().filter(|finding| rules.contains(&finding.rule.as_str())).collect()
}
