//! The upstream versions kubectl-capz targets: what its schemas were imported from and its flavors follow.

/// This plugin's version (Cargo's).
pub const PLUGIN: &str = env!("CARGO_PKG_VERSION");

/// One upstream project the plugin's schemas or flavors come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upstream {
    /// Project name as users know it.
    pub project: &'static str,
    /// Release line or tag.
    pub version: &'static str,
    /// Source revision the data was taken from.
    pub revision: &'static str,
    /// What of it the plugin uses.
    pub used_for: &'static str,
}

/// The upstream projects, in the order `kubectl capz version` prints them.
pub const UPSTREAMS: &[Upstream] = &[
    Upstream {
        project: "Cluster API",
        version: "v1.14 (API v1beta1 and v1beta2)",
        revision: "ae7ff047db499ac3858ade268ba38db8c9f128bb",
        used_for: "Cluster, MachinePool, ClusterClass, KubeadmConfigTemplate schemas",
    },
    Upstream {
        project: "Cluster API Provider Azure",
        version: "main of 2026-08-19 (API v1beta1; AzureASOManaged* v1alpha1 deprecated)",
        revision: "69ec3a40a818ccbc32b8ce88c84609404d8cb7a2",
        used_for: "aks and aks-aso flavors, AzureManaged*/AzureASOManaged* schemas, webhook rules",
    },
    Upstream {
        project: "Azure Service Operator",
        version: "v2.16.1 (the CRDs CAPZ bundled)",
        revision: "v2.16.1",
        used_for: "ResourceGroup, ManagedCluster, ManagedClustersAgentPool, ... schemas",
    },
];

/// One management-cluster target: a CAPZ release and what it brings (its CRDs, flavors and rules, the ASO
/// release it pins with the CRDs of its `--crd-pattern`, the CAPI contract).
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    /// The name users pick it by (`--capz-version`, `CAPZ_VERSION`, `.kubectl-capz.yaml`): `v1.27`.
    pub name: &'static str,
    /// The exact CAPZ release.
    pub capz: &'static str,
    /// The CAPI release CAPZ's go.mod pins.
    pub capi: &'static str,
    /// The ASO release CAPZ's go.mod pins.
    pub aso: &'static str,
    /// How the ASO CRDs were obtained, when not from that exact release (e.g. a derivation).
    pub aso_note: Option<&'static str>,
    /// Schema sets (folders below `schemas/`), searched in order: the first that has a GVK wins.
    pub schema_sets: &'static [&'static str],
}

/// The supported targets, newest first; the first is the default.
pub const TARGETS: &[Target] = &[
    Target { name: "v1.27", capz: "v1.27.0", capi: "v1.14.0", aso: "v2.19.0", aso_note: None, schema_sets: &["gvk"] },
    Target { name: "v1.26", capz: "v1.26.0", capi: "v1.14.0", aso: "v2.18.0", aso_note: None, schema_sets: &["gvk"] },
];

/// The target used when nothing picks one: the newest CAPZ release.
pub fn default_target() -> &'static Target {
    &TARGETS[0]
}

/// A `--capz-version` (or `CAPZ_VERSION`, config file) value that names no supported target.
#[derive(Debug, thiserror::Error)]
#[error("CAPZ version `{given}` is not supported; supported: {}", supported_names())]
pub struct UnknownTarget {
    /// What the user gave.
    pub given: String,
}

fn supported_names() -> String {
    TARGETS.iter().map(|t| t.name).collect::<Vec<_>>().join(", ")
}

/// Finds the target of a CAPZ version as users write it: `v1.27`, `1.27`, `v1.27.0`, `1.27.3`.
pub fn find_target(given: &str) -> Result<&'static Target, UnknownTarget> {
    let trimmed = given.trim();
    let bare = trimmed.strip_prefix('v').unwrap_or(trimmed);
    let mut parts = bare.split('.');
    let minor_line = match (parts.next(), parts.next()) {
        (Some(major), Some(minor)) if !major.is_empty() && !minor.is_empty() => format!("v{major}.{minor}"),
        _ => return Err(UnknownTarget { given: given.to_string() }),
    };
    if let Some(patch) = parts.next()
        && (patch.is_empty() || !patch.chars().all(|c| c.is_ascii_digit()) || parts.next().is_some())
    {
        return Err(UnknownTarget { given: given.to_string() });
    }
    TARGETS.iter().find(|t| t.name == minor_line).ok_or(UnknownTarget { given: given.to_string() })
}

/// Kubernetes versions (minor lines) whose core schemas are bundled, newest first; the first is the default
/// Kubernetes version of the management cluster (`kubernetesVersion` in `.kubectl-capz.yaml`).
pub const KUBERNETES_VERSIONS: &[&str] = &["v1.36"];

/// A Kubernetes version (of the management cluster) that has no bundled core schemas, or is no version.
#[derive(Debug, thiserror::Error)]
#[error("Kubernetes version `{given}` is not bundled; bundled: {}", KUBERNETES_VERSIONS.join(", "))]
pub struct UnknownKubernetesVersion {
    /// What the user gave.
    pub given: String,
}

/// The bundled Kubernetes minor line of a version as users write it: `v1.36`, `1.36`, `v1.36.2`.
pub fn find_kubernetes_version(given: &str) -> Result<&'static str, UnknownKubernetesVersion> {
    let unknown = || UnknownKubernetesVersion { given: given.to_string() };
    let minor_line = minor_line(given).ok_or_else(unknown)?;
    KUBERNETES_VERSIONS.iter().copied().find(|v| *v == minor_line).ok_or_else(unknown)
}

/// `vMAJOR.MINOR` of `vMAJOR.MINOR[.PATCH]` (the `v` optional), or None for anything else.
fn minor_line(given: &str) -> Option<String> {
    let trimmed = given.trim();
    let bare = trimmed.strip_prefix('v').unwrap_or(trimmed);
    let mut parts = bare.split('.');
    let numeric = |part: &str| !part.is_empty() && part.chars().all(|c| c.is_ascii_digit());
    let (major, minor) = (parts.next()?, parts.next()?);
    if !numeric(major) || !numeric(minor) {
        return None;
    }
    match (parts.next(), parts.next()) {
        (None, _) => {}
        (Some(patch), None) if numeric(patch) => {}
        _ => return None,
    }
    Some(format!("v{major}.{minor}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_found_by_minor_or_patch_version() {
        assert_eq!(find_target("v1.27").unwrap().capz, "v1.27.0");
        assert_eq!(find_target("1.26").unwrap().name, "v1.26");
        assert_eq!(find_target("v1.26.3").unwrap().name, "v1.26");
        assert!(find_target("v1.25").is_err());
        assert!(find_target("v1.27.x").is_err());
        assert!(find_target("27").is_err());
        assert_eq!(default_target().name, "v1.27");
    }

    #[test]
    fn kubernetes_versions_are_found_by_minor_or_patch_version() {
        assert_eq!(find_kubernetes_version("v1.36").unwrap(), "v1.36");
        assert_eq!(find_kubernetes_version("1.36.2").unwrap(), "v1.36");
        assert!(find_kubernetes_version("v1.35").is_err());
        assert!(find_kubernetes_version("v1.36.x").is_err());
        assert!(find_kubernetes_version("latest").is_err());
    }
}
