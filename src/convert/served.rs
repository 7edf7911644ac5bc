//! Objects in API versions the management cluster no longer serves (CAPI v1.14, CAPZ v1.26):
//! `v1alpha*` of the Cluster API groups and the old `exp.` groups. `convert` cannot convert them
//! offline: CAPI dropped their conversions, so they move only through `clusterctl upgrade` of a
//! management cluster that still serves them, one release at a time.

/// The Cluster API groups of CAPI v1.14 itself, which serve `v1beta1` and `v1beta2` only.
const CAPI_GROUPS: &[&str] = &[
    "cluster.x-k8s.io",
    "bootstrap.cluster.x-k8s.io",
    "controlplane.cluster.x-k8s.io",
    "addons.cluster.x-k8s.io",
    "ipam.cluster.x-k8s.io",
    "runtime.cluster.x-k8s.io",
];
/// CAPZ's group: its `Azure*` kinds are served as `v1beta1` (and the AzureASOManaged* kinds also
/// as `v1alpha1`) by CAPZ v1.26; other providers share the group with kinds we do not judge.
const CAPZ_GROUP: &str = "infrastructure.cluster.x-k8s.io";

/// Why an object of `api_version` and `kind` cannot be converted, when its version is not served
/// (an alpha version of a CAPI group or of a CAPZ `Azure*` kind, or an old `exp.` group); `None`
/// for served versions and kinds of other providers.
pub fn not_served(api_version: &str, kind: &str) -> Option<String> {
    let (group, version) = api_version.split_once('/')?;
    let (served_group, moved) = match group.strip_prefix("exp.") {
        Some(rest) if CAPI_GROUPS.contains(&rest) || rest == CAPZ_GROUP => (rest, true),
        _ => (group, false),
    };
    let served = if CAPI_GROUPS.contains(&served_group) {
        "v1beta1, v1beta2"
    } else if served_group == CAPZ_GROUP && kind.starts_with("Azure") {
        if super::capz::is_aso_managed_kind(kind) { "v1alpha1, v1beta1" } else { "v1beta1" }
    } else {
        return None;
    };
    if !moved && served.split(", ").any(|v| v == version) {
        return None;
    }
    if !moved && !version.starts_with("v1alpha") {
        return None;
    }
    let moved = if moved { format!(" (the kind is now in {served_group})") } else { String::new() };
    let who = if served_group == CAPZ_GROUP { "CAPZ v1.26" } else { "CAPI v1.14" };
    Some(format!(
        "{api_version} {kind} is not served by {who}{moved}; served versions: {served}. `convert` cannot convert it \
         offline: upgrade the management cluster that stores it with `clusterctl upgrade` (each release converts \
         its stored objects), then export the objects again"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alpha_versions_and_exp_groups_are_not_served() {
        for (api_version, kind) in [
            ("cluster.x-k8s.io/v1alpha3", "Cluster"),
            ("cluster.x-k8s.io/v1alpha4", "MachineDeployment"),
            ("bootstrap.cluster.x-k8s.io/v1alpha4", "KubeadmConfigTemplate"),
            ("controlplane.cluster.x-k8s.io/v1alpha3", "KubeadmControlPlane"),
            ("exp.cluster.x-k8s.io/v1alpha3", "MachinePool"),
            ("exp.infrastructure.cluster.x-k8s.io/v1alpha3", "AzureManagedControlPlane"),
            ("infrastructure.cluster.x-k8s.io/v1alpha4", "AzureCluster"),
            ("infrastructure.cluster.x-k8s.io/v1alpha3", "AzureManagedMachinePool"),
        ] {
            let message = not_served(api_version, kind).unwrap_or_else(|| panic!("{api_version} {kind}"));
            assert!(message.contains("clusterctl upgrade"), "{message}");
        }
        assert!(
            not_served("exp.cluster.x-k8s.io/v1alpha3", "MachinePool").unwrap().contains("now in cluster.x-k8s.io")
        );
        for (api_version, kind) in [
            ("cluster.x-k8s.io/v1beta1", "Cluster"),
            ("cluster.x-k8s.io/v1beta2", "Cluster"),
            ("infrastructure.cluster.x-k8s.io/v1alpha1", "DockerCluster"),
            ("infrastructure.cluster.x-k8s.io/v1alpha1", "AzureASOManagedControlPlane"),
            ("cluster.x-k8s.io/v2", "Cluster"),
            ("v1", "ConfigMap"),
            ("example.com/v1alpha1", "Widget"),
        ] {
            assert_eq!(not_served(api_version, kind), None, "{api_version} {kind}");
        }
    }
}
