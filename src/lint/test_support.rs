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

/// An AzureManagedControlPlane `c1` (version v1.33.2) with `fields` appended under `spec` (indented by 2).
pub(crate) fn amcp(fields: &str) -> String {
    format!(
        "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedControlPlane\nmetadata: {{name: c1}}\nspec:\n  version: v1.33.2\n{fields}"
    )
}

/// An AzureASOManagedControlPlane `c1` embedding a ManagedCluster whose `spec` gets `fields` (indented by 6).
pub(crate) fn aso_control_plane(fields: &str) -> String {
    format!(
        "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {{name: c1}}
spec:
  version: v1.33.2
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata: {{name: c1}}
    spec:
{fields}"
    )
}

/// The JSON pointers of the findings, in order.
pub(crate) fn paths(found: &[Finding]) -> Vec<&str> {
    found.iter().map(|f| f.path.as_str()).collect()
}
