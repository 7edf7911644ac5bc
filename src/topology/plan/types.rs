//! The types planning shares: the labels the topology controller sets, the names of live objects, the planned
//! objects, and a worker (MachineDeployment or MachinePool) while it is computed.

use std::collections::BTreeMap;

use serde_json::Value;

pub const CLUSTER_NAME_LABEL: &str = "cluster.x-k8s.io/cluster-name";
pub const TOPOLOGY_OWNED_LABEL: &str = "topology.cluster.x-k8s.io/owned";
pub const MACHINE_POOL_NAME_LABEL: &str = "topology.cluster.x-k8s.io/pool-name";
pub const MACHINE_DEPLOYMENT_NAME_LABEL: &str = "topology.cluster.x-k8s.io/deployment-name";
pub const CLONED_FROM_NAME: &str = "cluster.x-k8s.io/cloned-from-name";
pub const CLONED_FROM_GROUPKIND: &str = "cluster.x-k8s.io/cloned-from-groupkind";

/// Names of objects that already exist for a topology (read from the live Cluster and pools);
/// the controller reuses them instead of generating new ones.
#[derive(Debug, Clone, Default)]
pub struct Current {
    pub infrastructure_cluster: Option<String>,
    pub control_plane: Option<String>,
    pub control_plane_machine_infrastructure: Option<String>,
    /// By topology name.
    pub machine_pools: BTreeMap<String, CurrentWorker>,
    /// By topology name.
    pub machine_deployments: BTreeMap<String, CurrentWorker>,
}

/// Names of one existing pool or deployment and the objects it references.
#[derive(Debug, Clone, Default)]
pub struct CurrentWorker {
    pub name: Option<String>,
    pub bootstrap: Option<String>,
    pub infrastructure: Option<String>,
}

/// The computed objects of one topology Cluster.
#[derive(Debug, Clone)]
pub struct Planned {
    pub cluster_name: String,
    pub namespace: String,
    /// Cluster, infrastructure cluster, control plane (and its machine template), then per
    /// worker topology (in the Cluster's order): bootstrap, infrastructure, pool/deployment.
    pub objects: Vec<Value>,
}

pub(super) struct Worker {
    pub(super) kind: WorkerKind,
    pub(super) topology_name: String,
    pub(super) class: String,
    pub(super) index: usize,
    pub(super) bootstrap: Value,
    pub(super) infrastructure: Value,
    pub(super) object: Value,
    pub(super) bootstrap_template: Value,
    pub(super) infrastructure_template: Value,
    /// The class's `machineHealthCheck` (deployments only).
    pub(super) class_health_check: Option<Value>,
}

#[derive(Clone, Copy, PartialEq)]
pub(super) enum WorkerKind {
    Pool,
    Deployment,
}
