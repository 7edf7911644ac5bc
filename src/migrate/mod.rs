//! CAPZ's translation of a classic AKS cluster (AzureManagedControlPlane, AzureManagedCluster,
//! AzureManagedMachinePools with their Cluster and MachinePools) into the ASO objects its controllers create on
//! the first reconcile, and the AzureASOManaged* bundle that adopts them (`kubectl capz migrate`).
//!
//! Field for field as CAPZ v1.26.0 builds them: the defaulting webhooks ([`defaults`]), the scopes and the
//! `groups`, `managedclusters` and `agentpools` specs ([`resource_group`], [`managed_cluster`], [`agent_pool`]),
//! `aso.PatchedParameters` ([`patches`]) and the ASO reconciler's metadata ([`reconcile`]).
//!
//! Assumed (the translation is offline, with no live state): the objects are created for the first time (no
//! existing ASO object, so no Azure-assigned values such as `status.currentKubernetesVersion` or
//! `status.agentPoolProfiles` are folded in), `status.autoUpgradeVersion` of the control plane is empty, and
//! every AzureManagedMachinePool referenced by a MachinePool of the Cluster belongs to it. An empty
//! `sshPublicKey` (for which CAPZ generated a random key) is an error: only the live cluster knows that key.

mod adapted;
mod agent_pool;
mod aso_bundle;
mod bundle;
mod crd_defaults;
mod defaults;
mod from_templates;
pub mod live;
mod managed_cluster;
mod out_dir;
mod patch_check;
mod patches;
mod reconcile;
mod resource_group;

use serde_json::Value;

use crate::json_pointer::At;
use crate::target_schemas::TargetSchemas;

pub use adapted::{Adaptation, adaptations};
pub(crate) use aso_bundle::use_aso_api_kubeconfig_secrets;
pub use aso_bundle::{AsoBundle, MigrateOptions, to_aso_bundle};
pub use bundle::{ClassicCluster, complete_classic_clusters, find_classic_clusters};
pub use from_templates::{
    CONTROL_PLANE_TEMPLATE_PATCHES, POOL_TEMPLATE_PATCHES, clusters_from_templates, put_placeholder_ssh_key,
    with_placeholder_ssh_key, without_patches,
};
pub use out_dir::{ClusterFiles, bundle_tree, existing_cluster_dir};
pub use patch_check::{PatchFinding, PatchVerdict, check_patches};
pub use patches::{PatchError, apply_merge_patches};

/// What CAPZ creates for one classic cluster on its first reconcile.
#[derive(Debug, Clone, PartialEq)]
pub struct Translation {
    /// The cluster's ResourceGroup, then the virtual network's when it lives in another group.
    pub resource_groups: Vec<Value>,
    /// The ManagedCluster (`containerservice.azure.com/v1api20250801`, or `v20251002preview` with preview on).
    pub managed_cluster: Value,
    /// One ManagedClustersAgentPool per AzureManagedMachinePool, in MachinePool order.
    pub agent_pools: Vec<Value>,
}

/// Why CAPZ cannot translate a classic cluster.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TranslateError {
    /// The bundle lacks an object the translation needs.
    #[error("{location}: {message}")]
    Incomplete { location: String, message: String },
    /// A field CAPZ reads has a value it rejects.
    #[error("{location}: {message}")]
    Invalid { location: String, message: String },
    /// No AzureManagedMachinePool with `mode: System` (CAPZ: "require at least 1 system node pool").
    #[error("{location}: no AzureManagedMachinePool with mode: System; CAPZ requires at least 1 system node pool")]
    NoSystemPool { location: String },
    /// A patch in `asoManagedClusterPatches` / `asoManagedClustersAgentPoolPatches` CAPZ cannot apply.
    #[error("{location}: {error}")]
    Patch { location: String, error: PatchError },
}

/// Translates one classic cluster as CAPZ's controllers do on the first reconcile, with the target's `schemas`.
pub fn translate(cluster: &ClassicCluster<'_>, schemas: &TargetSchemas) -> Result<Translation, TranslateError> {
    let defaulted = defaults::apply(cluster, schemas);
    if defaulted.control_plane.str_at("/spec/resourceGroupName").unwrap_or("").is_empty() {
        return Err(TranslateError::Incomplete {
            location: cluster.control_plane.location_of("/spec"),
            message: format!(
                "AzureManagedControlPlane {}: spec.resourceGroupName is empty and there is no \
                 cluster.x-k8s.io/cluster-name label to default it from; CAPZ cannot name the ResourceGroup",
                cluster.control_plane.name()
            ),
        });
    }
    if cluster.control_plane.value.str_at("/spec/sshPublicKey") == Some("") {
        return Err(TranslateError::Incomplete {
            location: cluster.control_plane.location_of("/spec/sshPublicKey"),
            message: "spec.sshPublicKey is empty: CAPZ's webhook generated a random key when the object was created, \
                      which only the live cluster knows; put it (base64) in spec.sshPublicKey"
                .into(),
        });
    }
    let pools = agent_pool::build_all(&defaulted)?;
    let managed_cluster = managed_cluster::build(&defaulted, &pools)?;
    let resource_groups = resource_group::build_all(&defaulted);
    Ok(Translation {
        resource_groups,
        managed_cluster,
        agent_pools: pools.into_iter().map(|pool| pool.object).collect(),
    })
}

/// `{"apiVersion", "kind", "metadata": {}, "spec"}` in that order, with `spec` moved in: `json!` would copy it
/// through serde's serializer (`to_value(&spec)`), a twentieth of a classic fleet's `validate`.
fn aso_object(api_version: &str, kind: &str, spec: serde_json::Map<String, Value>) -> Value {
    let mut object = serde_json::Map::with_capacity(4);
    object.insert("apiVersion".into(), Value::String(api_version.into()));
    object.insert("kind".into(), Value::String(kind.into()));
    object.insert("metadata".into(), Value::Object(serde_json::Map::new()));
    object.insert("spec".into(), Value::Object(spec));
    Value::Object(object)
}
