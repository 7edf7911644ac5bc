//! Deprecated APIs with their migration target: CAPZ's `deprecatedversion` markers on AzureManaged* v1beta1 and
//! AzureASOManaged* v1alpha1, and CAPI's v1beta1 (superseded by v1beta2).

use super::Sink;
use super::bundle::{Bundle, CAPZ_GROUP};

pub(crate) const DEPRECATED_API: &str = "capz-deprecated-api";
pub(crate) const CAPI_V1BETA1: &str = "capi-v1beta1";

/// The command that fixes these findings (docs/convert.md).
pub(crate) const CONVERT_FIX: &str = "kubectl capz convert -w FILE|DIR";

/// Whether `doc` is a CAPI object in v1beta1: what `capi-v1beta1` reports (and the API server's
/// `deprecated-api` warning says too, which `validate` shows only when that rule is enabled).
pub(crate) fn is_capi_v1beta1(doc: &crate::manifest::Document) -> bool {
    CAPI_GROUPS.contains(&doc.group()) && doc.version() == "v1beta1"
}

const CAPI_GROUPS: &[&str] =
    &["cluster.x-k8s.io", "bootstrap.cluster.x-k8s.io", "controlplane.cluster.x-k8s.io", "addons.cluster.x-k8s.io"];

/// The AzureASOManaged* kind that replaces an AzureManaged* kind.
fn aso_replacement(kind: &str) -> Option<String> {
    let rest = kind.strip_prefix("AzureManaged")?;
    matches!(
        rest,
        "ControlPlane" | "Cluster" | "MachinePool" | "ControlPlaneTemplate" | "ClusterTemplate" | "MachinePoolTemplate"
    )
    .then(|| format!("AzureASOManaged{rest}"))
}

pub(crate) fn check(bundle: &Bundle<'_>, sink: &mut Sink<'_>) {
    for (index, doc) in bundle.docs.iter().enumerate() {
        let group = bundle.group(index);
        if group == CAPZ_GROUP {
            if let Some(replacement) = aso_replacement(doc.kind()) {
                sink.emit(
                    DEPRECATED_API,
                    index,
                    "/kind",
                    format!(
                        "{} is deprecated; migrate to {replacement} ({CAPZ_GROUP}/v1beta1), which embeds ASO resources \
                         (CAPZ docs: managed/asomanagedcluster.md, \"Migrating existing Clusters\")",
                        doc.kind()
                    ),
                );
            } else if doc.kind().starts_with("AzureASOManaged") && doc.version() == "v1alpha1" {
                sink.emit(
                    DEPRECATED_API,
                    index,
                    "/apiVersion",
                    format!(
                        "{CAPZ_GROUP}/v1alpha1 {} is deprecated; change apiVersion to {CAPZ_GROUP}/v1beta1 (same \
                         fields), also in the references to it: `{CONVERT_FIX} --to-version v1beta1` does both",
                        doc.kind()
                    ),
                );
            }
        } else if CAPI_GROUPS.contains(&group) && doc.version() == "v1beta1" {
            sink.emit(
                CAPI_V1BETA1,
                index,
                "/apiVersion",
                format!(
                    "{}/v1beta1 is deprecated in favour of {}/v1beta2 (references become apiGroup + kind + name, \
                     ClusterClass refs become templateRef); when your CAPI and CAPZ versions serve v1beta2, \
                     `{CONVERT_FIX}` converts the files in place",
                    doc.group(),
                    doc.group()
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{findings_among, ids};
    use super::*;
    use crate::report::Severity;

    fn findings(yaml: &str) -> Vec<crate::report::Finding> {
        findings_among(yaml, &[DEPRECATED_API, CAPI_V1BETA1])
    }

    #[test]
    fn azure_managed_kinds_point_to_aso() {
        let found = findings(
            "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedMachinePoolTemplate\nmetadata: {name: t}\n",
        );
        assert_eq!(ids(&found), [DEPRECATED_API]);
        assert_eq!(found[0].severity, Severity::Info);
        assert!(found[0].message.contains("migrate to AzureASOManagedMachinePoolTemplate"));
        assert_eq!(found[0].path, "/kind");
    }

    #[test]
    fn aso_v1alpha1_points_to_v1beta1_and_v1beta1_is_fine() {
        let found = findings(
            "apiVersion: infrastructure.cluster.x-k8s.io/v1alpha1\nkind: AzureASOManagedCluster\nmetadata: {name: c}\n",
        );
        assert_eq!(ids(&found), [DEPRECATED_API]);
        assert!(found[0].message.contains("v1beta1"));
        assert!(found[0].message.contains("`kubectl capz convert -w FILE|DIR --to-version v1beta1`"));
        assert!(findings("apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureASOManagedCluster\nmetadata: {name: c}\n").is_empty());
        assert!(
            findings(
                "apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureClusterIdentity\nmetadata: {name: c}\n"
            )
            .is_empty()
        );
    }

    #[test]
    fn capi_v1beta1_is_reported_only_for_capi_groups() {
        let found = findings(
            "apiVersion: bootstrap.cluster.x-k8s.io/v1beta1\nkind: KubeadmConfigTemplate\nmetadata: {name: c}\n",
        );
        assert_eq!(ids(&found), [CAPI_V1BETA1]);
        assert!(found[0].message.contains("`kubectl capz convert -w FILE|DIR`"), "{}", found[0].message);
        assert!(findings("apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: c}\n").is_empty());
    }
}
