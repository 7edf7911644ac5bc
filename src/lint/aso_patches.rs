//! `asoManagedClusterPatches` / `asoManagedClustersAgentPoolPatches` checked offline: each patch is applied as
//! CAPZ's `aso.PatchedParameters` applies it to the object CAPZ generates (src/migrate), and a patch CAPZ cannot
//! apply (not YAML, or an object that no longer decodes as the ASO kind) or one that changes nothing is reported
//! at the patch's file:line, as is a patch that changes a field CAPZ owns. Templates and control planes outside a
//! full classic cluster get the YAML and owned-field checks only.

use crate::manifest::{Document, parse_plain_value};
use crate::migrate::{ClassicCluster, PatchVerdict, check_patches, find_classic_clusters, translate};
use crate::report::Severity;
use crate::schema::{ObjectStatus, ValidateOptions, Validator};

use super::Sink;

pub(crate) const PATCH_BROKEN: &str = "capz-aso-patch-broken";
pub(crate) const PATCH_NO_OP: &str = "capz-aso-patch-no-op";
pub(crate) const PATCH_OWNED_FIELD: &str = "capz-aso-patch-owned-field";
pub(crate) const PATCH_SCHEMA: &str = "aso-patched-object-schema";

/// Fields of the generated object CAPZ owns: it overwrites them after the patches (metadata), derives them
/// itself (agentPoolProfiles, the agent pool's name), or a change breaks what CAPZ relies on (owner, the
/// kubeconfig Secrets in operatorSpec).
const OWNED: &[(&str, &str)] = &[
    ("/metadata/name", "CAPZ sets the name after the patches"),
    ("/metadata/namespace", "CAPZ sets the namespace after the patches"),
    ("/metadata/ownerReferences", "CAPZ sets the controller owner reference after the patches"),
    ("/metadata/labels/cluster.x-k8s.io~1cluster-name", "CAPZ sets this label after the patches"),
    (
        "/metadata/annotations/serviceoperator.azure.com~1reconcile-policy",
        "CAPZ sets this annotation after the patches",
    ),
    ("/metadata/annotations/serviceoperator.azure.com~1credential-from", "CAPZ sets this annotation after the patches"),
    ("/apiVersion", "CAPZ cannot decode the object as another version"),
    ("/kind", "CAPZ cannot decode the object as another kind"),
    ("/spec/owner", "CAPZ points the owner at the ResourceGroup / ManagedCluster it creates"),
    ("/spec/azureName", "CAPZ derives the Azure name (and the pool's agentPoolProfiles name) itself"),
    ("/spec/operatorSpec", "CAPZ reads the kubeconfig Secrets and the OIDC ConfigMap it names here"),
    ("/spec/agentPoolProfiles", "CAPZ builds agentPoolProfiles from the AzureManagedMachinePools"),
];

/// The JSON pointers a merge patch touches (its leaves, and nulls).
fn touched(value: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
    match value.as_object() {
        Some(map) if !map.is_empty() => {
            for (key, child) in map {
                touched(child, &format!("{prefix}/{}", super::escape_segment(key)), out);
            }
        }
        _ => out.push(prefix.to_string()),
    }
}

const PATCH_FIELDS: &[(&str, &str)] = &[
    ("AzureManagedControlPlane", "/spec/asoManagedClusterPatches"),
    ("AzureManagedMachinePool", "/spec/asoManagedClustersAgentPoolPatches"),
    ("AzureManagedControlPlaneTemplate", "/spec/template/spec/asoManagedClusterPatches"),
    ("AzureManagedMachinePoolTemplate", "/spec/template/spec/asoManagedClustersAgentPoolPatches"),
];

pub(super) fn check(documents: &[Document], sink: &mut Sink<'_>) {
    if !sink.wants(&[PATCH_BROKEN, PATCH_NO_OP, PATCH_OWNED_FIELD, PATCH_SCHEMA]) {
        return;
    }
    let mut judged = std::collections::BTreeSet::new();
    if let Ok(clusters) = find_classic_clusters(documents) {
        for cluster in &clusters {
            check_patched_schemas(documents, cluster, sink);
            for finding in check_patches(cluster) {
                let Some(doc) = documents.iter().position(|d| d.origin == finding.origin) else { continue };
                judged.insert((doc, finding.pointer.clone()));
                match finding.verdict {
                    PatchVerdict::Broken(error) => sink.emit(
                        PATCH_BROKEN,
                        doc,
                        &finding.pointer,
                        format!("{error}; CAPZ fails to reconcile with this patch"),
                    ),
                    PatchVerdict::NoOp => sink.emit(
                        PATCH_NO_OP,
                        doc,
                        &finding.pointer,
                        format!(
                            "patch at index {} changes nothing in the object CAPZ generates: it sets only what CAPZ \
                             already sets, or fields the ASO type does not have (CAPZ drops them)",
                            finding.index
                        ),
                    ),
                }
            }
        }
    }
    for (doc, document) in documents.iter().enumerate() {
        let Some((_, pointer)) = PATCH_FIELDS.iter().find(|(kind, _)| *kind == document.kind()) else { continue };
        let Some(patches) = document.value.pointer(pointer).and_then(|v| v.as_array()) else { continue };
        for (index, patch) in patches.iter().enumerate() {
            let at = format!("{pointer}/{index}");
            let text = patch.as_str().unwrap_or("");
            match parse_plain_value(text, "the patch") {
                Err(error) => {
                    if !judged.contains(&(doc, at.clone())) {
                        sink.emit(PATCH_BROKEN, doc, &at, format!("patch at index {index} is not valid YAML: {error}"));
                    }
                }
                Ok(value) => {
                    let mut paths = Vec::new();
                    touched(&value, "", &mut paths);
                    for path in paths {
                        if let Some((field, why)) =
                            OWNED.iter().find(|(owned, _)| path == *owned || path.starts_with(&format!("{owned}/")))
                        {
                            sink.emit(
                                PATCH_OWNED_FIELD,
                                doc,
                                &at,
                                format!("patch at index {index} changes {field}, which CAPZ owns: {why}"),
                            );
                        }
                    }
                }
            }
        }
    }
}

fn patch_count(document: &Document, pointer: &str) -> usize {
    document.value.pointer(pointer).and_then(|v| v.as_array()).map_or(0, Vec::len)
}

/// The patched ManagedCluster / agent pools validated with the ASO schema of their apiVersion; an error is
/// reported at the last patch of the object. A version our schemas lack is not checked (no finding).
fn check_patched_schemas(documents: &[Document], cluster: &ClassicCluster, sink: &mut Sink<'_>) {
    let Ok(translation) = translate(cluster) else { return };
    let mut targets = Vec::new();
    let cp_patches = patch_count(&cluster.control_plane, "/spec/asoManagedClusterPatches");
    if cp_patches > 0 {
        targets.push((
            &cluster.control_plane,
            "/spec/asoManagedClusterPatches",
            cp_patches,
            &translation.managed_cluster,
        ));
    }
    for ((_, pool), object) in cluster.pools.iter().zip(&translation.agent_pools) {
        let count = patch_count(pool, "/spec/asoManagedClustersAgentPoolPatches");
        if count > 0 {
            targets.push((pool, "/spec/asoManagedClustersAgentPoolPatches", count, object));
        }
    }
    if targets.is_empty() {
        return;
    }
    let validator = Validator::new(crate::migrate::schemas(), ValidateOptions::default());
    for (document, field, count, object) in targets {
        let Some(doc) = documents.iter().position(|d| d.origin == document.origin) else { continue };
        let patched = Document::from_value(object.clone(), &document.origin.source, document.origin.index);
        let outcome = validator.validate_document(&patched);
        if outcome.status != ObjectStatus::Invalid {
            continue;
        }
        let kind = patched.kind().to_string();
        for finding in outcome.findings.iter().filter(|f| f.severity == Severity::Error) {
            sink.emit(
                PATCH_SCHEMA,
                doc,
                &format!("{field}/{}", count - 1),
                format!(
                    "with the patches applied, the {kind} CAPZ creates fails ASO's schema ({}) at {}: {}",
                    patched.api_version(),
                    finding.path,
                    finding.message
                ),
            );
        }
    }
}
