//! Patch by patch, what `asoManagedClusterPatches` / `asoManagedClustersAgentPoolPatches` do to the object CAPZ
//! generates: a patch CAPZ cannot apply, and a patch that changes nothing (it sets only what CAPZ already set,
//! or fields the ASO type does not have, which CAPZ's decode drops).

use serde_json::Value;

use crate::manifest::Origin;
use crate::target_schemas::TargetSchemas;

use super::defaults::{self, Defaulted};
use super::patches::{PatchError, apply_merge_patches};
use super::{ClassicCluster, agent_pool, managed_cluster};
use crate::json_pointer::At;

/// What one patch does.
#[derive(Debug, Clone, PartialEq)]
pub enum PatchVerdict {
    /// CAPZ fails on it.
    Broken(PatchError),
    /// The object is the same with and without it.
    NoOp,
}

/// One patch that is broken or does nothing.
#[derive(Debug, Clone, PartialEq)]
pub struct PatchFinding {
    /// The document (AzureManagedControlPlane or AzureManagedMachinePool) holding the patch.
    pub origin: Origin,
    /// JSON pointer of the patch (`/spec/asoManagedClusterPatches/1`).
    pub pointer: String,
    pub index: usize,
    pub verdict: PatchVerdict,
}

fn patch_list(object: &Value, pointer: &str) -> Vec<String> {
    object
        .array_at(pointer)
        .map(|items| items.iter().map(|p| p.as_str().unwrap_or("").to_string()).collect())
        .unwrap_or_default()
}

/// Judges each patch of `list` on `generated`, in order, as CAPZ applies them.
fn judge(
    generated: &Value,
    list: &[String],
    origin: &Origin,
    field: &str,
    schemas: &TargetSchemas,
    out: &mut Vec<PatchFinding>,
) {
    let decoded = |patches: &[String]| {
        let mut all = vec!["{}".to_string()];
        all.extend_from_slice(patches);
        apply_merge_patches(generated.clone(), &all, schemas)
    };
    let Ok(mut before) = decoded(&[]) else { return };
    for index in 0..list.len() {
        let pointer = format!("/spec/{field}/{index}");
        match decoded(&list[..=index]) {
            Err(error) => {
                let error = renumber(error, index);
                out.push(PatchFinding { origin: origin.clone(), pointer, index, verdict: PatchVerdict::Broken(error) });
                return;
            }
            Ok(after) => {
                if after == before {
                    out.push(PatchFinding { origin: origin.clone(), pointer, index, verdict: PatchVerdict::NoOp });
                }
                before = after;
            }
        }
    }
}

/// The error of the list `["{}", patches[..=index]]` names `index + 1`; give back the patch's own index.
fn renumber(error: PatchError, index: usize) -> PatchError {
    match error {
        PatchError::NotYaml { message, .. } => PatchError::NotYaml { index, message },
        PatchError::Undecodable { kind, message, .. } => PatchError::Undecodable { index, kind, message },
    }
}

fn without_pool_patches<'a>(cluster: &ClassicCluster<'a>) -> ClassicCluster<'a> {
    let mut cluster = cluster.clone();
    for (_, pool) in &mut cluster.pools {
        if let Some(spec) = pool.to_mut().value.get_mut("spec").and_then(Value::as_object_mut) {
            spec.remove("asoManagedClustersAgentPoolPatches");
        }
    }
    cluster
}

/// Every broken or no-op patch of a classic cluster's control plane and pools, as `target`'s CAPZ applies them.
pub fn check_patches(cluster: &ClassicCluster<'_>, schemas: &TargetSchemas) -> Vec<PatchFinding> {
    let defaulted: Defaulted<'_> = defaults::apply(cluster, schemas);
    let mut out = Vec::new();
    let Ok(pools) = agent_pool::build_unpatched(&defaulted) else { return out };
    for (pool, generated) in defaulted.pools.iter().zip(&pools) {
        let list = patch_list(&pool.pool, "/spec/asoManagedClustersAgentPoolPatches");
        judge(generated, &list, &pool.document.origin, "asoManagedClustersAgentPoolPatches", schemas, &mut out);
    }
    let list = patch_list(&defaulted.control_plane, "/spec/asoManagedClusterPatches");
    // A broken pool patch stops CAPZ before the ManagedCluster too; its own patches are judged on the
    // ManagedCluster CAPZ builds once the pools are fixed (here: without their patches).
    let generated = || {
        managed_cluster::build_unpatched(&defaulted)
            .or_else(|_| managed_cluster::build_unpatched(&defaults::apply(&without_pool_patches(cluster), schemas)))
    };
    if !list.is_empty()
        && let Ok(generated) = generated()
    {
        judge(&generated, &list, &cluster.control_plane.origin, "asoManagedClusterPatches", schemas, &mut out);
    }
    out
}
