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
