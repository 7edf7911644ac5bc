//! API versions of Kubernetes' built-in groups the management cluster does not serve (the versions Kubernetes
//! removed per its deprecated-API migration guide, and the others of a built-in group): an `api-version` error, not
//! a missing schema.

use super::{Gvk, Registry};

/// One removal: `kinds` empty means every kind of the group version.
struct Removal {
    group: &'static str,
    version: &'static str,
    kinds: &'static [&'static str],
    removed_in: &'static str,
    replacement: &'static str,
}

const fn removal(
    group: &'static str,
    version: &'static str,
    kinds: &'static [&'static str],
    removed_in: &'static str,
    replacement: &'static str,
) -> Removal {
    Removal { group, version, kinds, removed_in, replacement }
}

/// From https://kubernetes.io/docs/reference/using-api/deprecation-guide/ (most specific entries first).
const REMOVALS: &[Removal] = &[
    removal("flowcontrol.apiserver.k8s.io", "v1beta3", &[], "1.32", "flowcontrol.apiserver.k8s.io/v1"),
    removal("flowcontrol.apiserver.k8s.io", "v1beta2", &[], "1.29", "flowcontrol.apiserver.k8s.io/v1"),
    removal("flowcontrol.apiserver.k8s.io", "v1beta1", &[], "1.26", "flowcontrol.apiserver.k8s.io/v1"),
    removal("storage.k8s.io", "v1beta1", &["CSIStorageCapacity"], "1.27", "storage.k8s.io/v1"),
    removal("autoscaling", "v2beta2", &[], "1.26", "autoscaling/v2"),
    removal("autoscaling", "v2beta1", &[], "1.25", "autoscaling/v2"),
    removal("batch", "v1beta1", &[], "1.25", "batch/v1"),
    removal("discovery.k8s.io", "v1beta1", &[], "1.25", "discovery.k8s.io/v1"),
    removal("events.k8s.io", "v1beta1", &[], "1.25", "events.k8s.io/v1"),
    removal("node.k8s.io", "v1beta1", &[], "1.25", "node.k8s.io/v1"),
    removal(
        "policy",
        "v1beta1",
        &["PodSecurityPolicy"],
        "1.25",
        "no replacement: Pod Security Admission (namespace labels) or a policy engine takes its place",
    ),
    removal("policy", "v1beta1", &[], "1.25", "policy/v1"),
    removal("extensions", "v1beta1", &["Ingress"], "1.22", "networking.k8s.io/v1"),
    removal("extensions", "v1beta1", &["NetworkPolicy"], "1.16", "networking.k8s.io/v1"),
    removal("extensions", "v1beta1", &["PodSecurityPolicy"], "1.16", "policy/v1beta1, itself removed in 1.25"),
    removal("extensions", "v1beta1", &[], "1.16", "apps/v1"),
    removal("apps", "v1beta1", &[], "1.16", "apps/v1"),
    removal("apps", "v1beta2", &[], "1.16", "apps/v1"),
    removal("networking.k8s.io", "v1beta1", &[], "1.22", "networking.k8s.io/v1"),
    removal(
        "admissionregistration.k8s.io",
        "v1beta1",
        &["MutatingWebhookConfiguration"],
        "1.22",
        "admissionregistration.k8s.io/v1",
    ),
    removal(
        "admissionregistration.k8s.io",
        "v1beta1",
        &["ValidatingWebhookConfiguration"],
        "1.22",
        "admissionregistration.k8s.io/v1",
    ),
    removal("apiextensions.k8s.io", "v1beta1", &[], "1.22", "apiextensions.k8s.io/v1"),
    removal("apiregistration.k8s.io", "v1beta1", &[], "1.22", "apiregistration.k8s.io/v1"),
    removal("authentication.k8s.io", "v1beta1", &[], "1.22", "authentication.k8s.io/v1"),
    removal("authorization.k8s.io", "v1beta1", &[], "1.22", "authorization.k8s.io/v1"),
    removal("certificates.k8s.io", "v1beta1", &[], "1.22", "certificates.k8s.io/v1"),
    removal("coordination.k8s.io", "v1beta1", &[], "1.22", "coordination.k8s.io/v1"),
    removal("rbac.authorization.k8s.io", "v1beta1", &[], "1.22", "rbac.authorization.k8s.io/v1"),
    removal("rbac.authorization.k8s.io", "v1alpha1", &[], "1.22", "rbac.authorization.k8s.io/v1"),
    removal("scheduling.k8s.io", "v1beta1", &[], "1.22", "scheduling.k8s.io/v1"),
    removal("scheduling.k8s.io", "v1alpha1", &[], "1.22", "scheduling.k8s.io/v1"),
    removal("storage.k8s.io", "v1beta1", &[], "1.22", "storage.k8s.io/v1"),
];

/// `Some("removed in Kubernetes 1.25; use policy/v1")` when the guide lists `group/version` `kind` as removed.
pub(crate) fn removal_note(group: &str, version: &str, kind: &str) -> Option<String> {
    let entry = REMOVALS
        .iter()
        .find(|r| r.group == group && r.version == version && (r.kinds.is_empty() || r.kinds.contains(&kind)))?;
    let replacement = if entry.replacement.starts_with("no replacement") {
        entry.replacement.to_string()
    } else {
        format!("use {}", entry.replacement)
    };
    Some(format!("removed in Kubernetes {}; {replacement}", entry.removed_in))
}

/// The message for an object of `gvk` (no schema in any bundled release) of a built-in group of Kubernetes, or of one
/// Kubernetes removed, in a version the release does not serve. `None` otherwise: the Cluster API, CAPZ and ASO
/// groups are judged per kind (the API server answers from the kind's own CRD; another provider's kind in a shared
/// group is not the target's to judge), and a kind a built-in group does not have is a missing schema.
pub(crate) fn unserved_version_of_known_group(registry: &Registry, gvk: &Gvk, api_version: &str) -> Option<String> {
    registry.target()?;
    let served = registry.versions_of_group(&gvk.group);
    if served.contains(&gvk.version) {
        return None;
    }
    let kind = &gvk.kind;
    let kubernetes = registry.kubernetes_version();
    let note = removal_note(&gvk.group, &gvk.version, kind);
    if !(registry.is_builtin_group(&gvk.group) || note.is_some()) {
        return None;
    }
    let why = match (note, served.is_empty()) {
        (Some(note), _) => note,
        (None, false) => format!("the group {} is served in {}", gvk.group, served.join(", ")),
        (None, true) => format!("Kubernetes {kubernetes} serves no version of the group {}", gvk.group),
    };
    Some(format!("{api_version} {kind} is not served by Kubernetes {kubernetes}: {why}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_names_the_release_and_the_replacement() {
        assert_eq!(
            removal_note("policy", "v1beta1", "PodDisruptionBudget").as_deref(),
            Some("removed in Kubernetes 1.25; use policy/v1")
        );
        assert!(removal_note("policy", "v1beta1", "PodSecurityPolicy").unwrap().contains("no replacement"));
        assert_eq!(
            removal_note("extensions", "v1beta1", "Ingress").as_deref(),
            Some("removed in Kubernetes 1.22; use networking.k8s.io/v1")
        );
        assert_eq!(removal_note("policy", "v1", "PodDisruptionBudget"), None);
    }
}
