//! The versions of CAPZ's and ASO's CRDs a management cluster serves, compared with those the run's target serves.

use std::collections::BTreeSet;

use super::target::{Notice, TargetChoice};

/// One CRD of the cluster: its group, kind and served versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServedCrd {
    pub group: String,
    pub kind: String,
    pub versions: Vec<String>,
}

/// A warning for each CRD of the cluster whose served versions differ from those of the target (`target_versions`
/// gives the target's versions of a group and kind; a kind the target has no schema of is not compared). ASO's
/// `...storage` versions go with their API version and are left out of the comparison.
pub fn served_version_mismatches(
    choice: &TargetChoice,
    served: &[ServedCrd],
    target_versions: impl Fn(&str, &str) -> Vec<String>,
) -> Vec<Notice> {
    let api = |version: &&str| !version.ends_with("storage");
    let mut notices = Vec::new();
    for crd in served {
        let ours = target_versions(&crd.group, &crd.kind);
        if ours.is_empty() {
            continue;
        }
        let Some(by) = choice.target.served_by(&crd.group) else { continue };
        let ours: BTreeSet<&str> = ours.iter().map(String::as_str).filter(api).collect();
        let theirs: BTreeSet<&str> = crd.versions.iter().map(String::as_str).filter(api).collect();
        let only_cluster: Vec<&str> = theirs.difference(&ours).copied().collect();
        let only_target: Vec<&str> = ours.difference(&theirs).copied().collect();
        let checking = format!("checking against CAPZ {}, from {}", choice.target.name, choice.source);
        if !only_cluster.is_empty() {
            notices.push(Notice::Warning(format!(
                "the cluster serves {} {} {}, which {by} does not serve ({checking})",
                crd.kind,
                crd.group,
                only_cluster.join(", ")
            )));
        }
        if !only_target.is_empty() {
            notices.push(Notice::Warning(format!(
                "the cluster does not serve {} {} {}, which {by} serves ({checking})",
                crd.kind,
                crd.group,
                only_target.join(", ")
            )));
        }
    }
    notices
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{TargetSource, choose_target};

    fn crd(group: &str, kind: &str, versions: &[&str]) -> ServedCrd {
        ServedCrd { group: group.into(), kind: kind.into(), versions: versions.iter().map(|v| v.to_string()).collect() }
    }

    #[test]
    fn versions_only_one_side_serves_are_warnings_naming_both() {
        let choice = choose_target(Some("v1.26"), None, None).unwrap();
        assert_eq!(choice.source, TargetSource::Flag);
        let target = |group: &str, kind: &str| -> Vec<String> {
            match (group, kind) {
                ("containerservice.azure.com", "ManagedCluster") => {
                    ["v1api20240402preview", "v1api20240402previewstorage", "v1api20240901", "v1api20240901storage"]
                        .iter()
                        .map(|v| v.to_string())
                        .collect()
                }
                ("infrastructure.cluster.x-k8s.io", "AzureASOManagedCluster") => vec!["v1beta1".into()],
                _ => Vec::new(),
            }
        };
        let served = [
            crd(
                "containerservice.azure.com",
                "ManagedCluster",
                &["v1api20240901", "v1api20240901storage", "v20251002preview"],
            ),
            crd("infrastructure.cluster.x-k8s.io", "AzureASOManagedCluster", &["v1beta1"]),
            crd("managedidentity.azure.com", "UserAssignedIdentity", &["v1api20230131"]),
        ];
        let notices: Vec<String> =
            served_version_mismatches(&choice, &served, target).iter().map(ToString::to_string).collect();
        assert_eq!(
            notices,
            [
                "warning: the cluster serves ManagedCluster containerservice.azure.com v20251002preview, which ASO v2.18 that CAPZ v1.26 installs does not serve (checking against CAPZ v1.26, from --capz-version)",
                "warning: the cluster does not serve ManagedCluster containerservice.azure.com v1api20240402preview, which ASO v2.18 that CAPZ v1.26 installs serves (checking against CAPZ v1.26, from --capz-version)",
            ]
        );
    }
}
