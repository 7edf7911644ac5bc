//! The kinds the live migration reads and writes, and references to live objects.

use std::fmt;

use crate::json_pointer::At;

/// An `apiVersion` + `kind` pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub api_version: &'static str,
    pub kind: &'static str,
}

const fn kind(api_version: &'static str, kind: &'static str) -> Kind {
    Kind { api_version, kind }
}

pub const NAMESPACE: Kind = kind("v1", "Namespace");
pub const SECRET: Kind = kind("v1", "Secret");
pub const CLUSTER: Kind = kind("cluster.x-k8s.io/v1beta1", "Cluster");
pub const MACHINE_POOL: Kind = kind("cluster.x-k8s.io/v1beta1", "MachinePool");
pub const AZURE_MANAGED_CLUSTER: Kind = kind("infrastructure.cluster.x-k8s.io/v1beta1", "AzureManagedCluster");
pub const AZURE_MANAGED_CONTROL_PLANE: Kind =
    kind("infrastructure.cluster.x-k8s.io/v1beta1", "AzureManagedControlPlane");
pub const AZURE_MANAGED_MACHINE_POOL: Kind = kind("infrastructure.cluster.x-k8s.io/v1beta1", "AzureManagedMachinePool");
pub const ASO_MANAGED_CLUSTER: Kind = kind("infrastructure.cluster.x-k8s.io/v1beta1", "AzureASOManagedCluster");
pub const ASO_MANAGED_CONTROL_PLANE: Kind =
    kind("infrastructure.cluster.x-k8s.io/v1beta1", "AzureASOManagedControlPlane");
pub const ASO_MANAGED_MACHINE_POOL: Kind =
    kind("infrastructure.cluster.x-k8s.io/v1beta1", "AzureASOManagedMachinePool");
pub const RESOURCE_GROUP: Kind = kind("resources.azure.com/v1api20200601", "ResourceGroup");
pub const MANAGED_CLUSTER: Kind = kind("containerservice.azure.com/v1api20250801", "ManagedCluster");
pub const AGENT_POOL: Kind = kind("containerservice.azure.com/v1api20250801", "ManagedClustersAgentPool");

/// The ASO kinds (Azure resources behind them: deleting an armed one deletes the Azure resource).
pub const ASO_KINDS: [Kind; 3] = [RESOURCE_GROUP, MANAGED_CLUSTER, AGENT_POOL];
/// Every namespaced kind the migration touches (checked for name clashes in the new namespace).
pub const NAMESPACED_KINDS: [Kind; 12] = [
    SECRET,
    CLUSTER,
    MACHINE_POOL,
    AZURE_MANAGED_CLUSTER,
    AZURE_MANAGED_CONTROL_PLANE,
    AZURE_MANAGED_MACHINE_POOL,
    ASO_MANAGED_CLUSTER,
    ASO_MANAGED_CONTROL_PLANE,
    ASO_MANAGED_MACHINE_POOL,
    RESOURCE_GROUP,
    MANAGED_CLUSTER,
    AGENT_POOL,
];

impl Kind {
    /// Whether this is one of the ASO kinds.
    pub fn is_aso(self) -> bool {
        ASO_KINDS.contains(&self)
    }
}

/// One live object: kind, namespace (none for a Namespace), name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub kind: Kind,
    pub namespace: Option<String>,
    pub name: String,
}

impl Target {
    pub fn new(kind: Kind, namespace: &str, name: &str) -> Target {
        Target { kind, namespace: Some(namespace.to_string()), name: name.to_string() }
    }
    /// The target of an object to create.
    pub fn of(kind: Kind, object: &serde_json::Value) -> Target {
        let name = object.str_at("/metadata/name").unwrap_or("");
        match object.str_at("/metadata/namespace") {
            Some(ns) => Target::new(kind, ns, name),
            None => Target { kind, namespace: None, name: name.to_string() },
        }
    }
    pub fn namespace(name: &str) -> Target {
        Target { kind: NAMESPACE, namespace: None, name: name.to_string() }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{} {ns}/{}", self.kind.kind, self.name),
            None => write!(f, "{} {}", self.kind.kind, self.name),
        }
    }
}
