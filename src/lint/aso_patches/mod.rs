//! `asoManagedClusterPatches` / `asoManagedClustersAgentPoolPatches` checked offline, on AzureManagedControlPlanes
//! and AzureManagedMachinePools of a classic cluster and on their Templates (judged on a cluster made up from the
//! template, see `migrate::clusters_from_templates`): each patch is applied as CAPZ's `aso.PatchedParameters`
//! applies it to the object CAPZ generates (src/migrate), and a patch CAPZ cannot apply (not YAML, or an object
//! that no longer decodes as the ASO kind), one that changes nothing and one that changes a field CAPZ owns are
//! reported at the patch's file:line, as is what the patched object fails ([`patched`]). And the objects CAPZ
//! creates for every classic cluster, with or without patches, are checked against ASO's schemas ([`created`]).

mod created;
mod patched;

use crate::fast_hash::HashMap;
use crate::manifest::{Document, Origin, parse_plain_value};
use crate::migrate::{
    ClassicCluster, PatchVerdict, check_patches, clusters_from_templates, complete_classic_clusters,
    put_placeholder_ssh_key, translate, without_patches,
};

pub(crate) use created::{CREATED_SCHEMA, drop_reported_causes};

use super::Sink;
use crate::json_pointer::At;

pub(crate) const PATCH_BROKEN: &str = "capz-aso-patch-broken";
pub(crate) const PATCH_NO_OP: &str = "capz-aso-patch-no-op";
pub(crate) const PATCH_OWNED_FIELD: &str = "capz-aso-patch-owned-field";
pub(crate) const PATCH_SCHEMA: &str = "aso-patched-object-schema";
pub(crate) const PATCH_UNCHECKED: &str = "aso-patched-object-unchecked";
/// The rules of this module (the embedded-object rules run on the patched objects without them).
const PATCH_RULES: &[&str] = &[PATCH_BROKEN, PATCH_NO_OP, PATCH_OWNED_FIELD, PATCH_SCHEMA, PATCH_UNCHECKED];
/// The rules of this module: the patch rules and the check of the objects CAPZ creates.
const RULES: &[&str] = &[PATCH_BROKEN, PATCH_NO_OP, PATCH_OWNED_FIELD, PATCH_SCHEMA, PATCH_UNCHECKED, CREATED_SCHEMA];

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
pub(super) fn touched(value: &serde_json::Value, prefix: &str, out: &mut Vec<String>) {
    match value.as_object() {
        Some(map) if !map.is_empty() => {
            for (key, child) in map {
                touched(child, &format!("{prefix}/{}", crate::json_pointer::escape_token(key)), out);
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

/// The input documents by origin, indexed once per check: each finding finds its document without a scan.
pub(super) struct Locator<'a> {
    documents: &'a [Document],
    /// `(source, index in the source, line)` -> the first document of that origin.
    by_origin: HashMap<(&'a str, usize, usize), usize>,
}

impl<'a> Locator<'a> {
    fn new(documents: &'a [Document]) -> Self {
        let mut by_origin = HashMap::with_capacity_and_hasher(documents.len(), Default::default());
        for (position, document) in documents.iter().enumerate() {
            let origin = &document.origin;
            by_origin.entry((&*origin.source, origin.index, origin.line)).or_insert(position);
        }
        Locator { documents, by_origin }
    }

    /// The input document holding the patches of `origin` and the pointer of `pointer` in it: a Template holds the
    /// spec of the object CAPZ reads under `/spec/template`.
    pub(super) fn locate(&self, origin: &Origin, pointer: &str) -> Option<(usize, String)> {
        let doc = *self.by_origin.get(&(&*origin.source, origin.index, origin.line))?;
        if self.documents[doc].kind().ends_with("Template") {
            Some((doc, format!("/spec/template{pointer}")))
        } else {
            Some((doc, pointer.to_string()))
        }
    }
}

/// Whether any object of the cluster carries patches (a cluster without any has nothing to judge).
fn has_patches(cluster: &ClassicCluster<'_>) -> bool {
    let listed =
        |document: &Document, pointer: &str| document.value.array_at(pointer).is_some_and(|list| !list.is_empty());
    listed(&cluster.control_plane, "/spec/asoManagedClusterPatches")
        || cluster.pools.iter().any(|(_, pool)| listed(pool, "/spec/asoManagedClustersAgentPoolPatches"))
}

pub(super) fn check(documents: &[Document], sink: &mut Sink<'_>) {
    if !sink.wants(RULES) {
        return;
    }
    let locator = Locator::new(documents);
    let mut judged = std::collections::BTreeSet::new();
    // A cluster whose objects are not all in the bundle is left out (the rules about references report it); the
    // others are still checked, each once (a Cluster defined several times: its first copy, as lookups find it).
    // Each is translated once, and once more without its patches when it has any.
    let complete = complete_classic_clusters(documents);
    let from_templates = clusters_from_templates(documents);
    let schemas = sink.selection.schemas();
    let complete_count = complete.len();
    for (index, mut cluster) in complete.into_iter().chain(from_templates).enumerate() {
        let patched = has_patches(&cluster);
        // A cluster made up from templates has made-up names: only its patches are judged.
        let created = index < complete_count && sink.wants(&[CREATED_SCHEMA]);
        if !patched && !created {
            continue;
        }
        // The patches are judged on the cluster as it is; the translations get a placeholder for an empty key.
        let as_is = patched.then(|| cluster.clone());
        put_placeholder_ssh_key(&mut cluster);
        let cluster_with_key = cluster;
        sink.work.count_translation();
        let Ok(mut translation) = translate(&cluster_with_key, schemas) else {
            if let Some(as_is) = &as_is {
                judge_patches(&locator, as_is, sink, &mut judged);
            }
            continue;
        };
        let mut unpatched = if patched {
            sink.work.count_translation();
            translate(&without_patches(&cluster_with_key), schemas).ok()
        } else {
            None
        };
        if let Some(as_is) = &as_is {
            patched::check(&locator, &cluster_with_key, &translation, unpatched.as_ref(), sink);
            judge_patches(&locator, as_is, sink, &mut judged);
        }
        // Last: the check of the created objects trims both translations. A cluster with patches whose unpatched
        // translation failed has nothing to compare with; one without patches is its own unpatched translation.
        if created && (!patched || unpatched.is_some()) {
            created::check(&locator, &cluster_with_key, &mut translation, unpatched.as_mut(), sink);
        }
    }
    check_texts(documents, sink, &judged);
}

/// Broken and no-op patches of one cluster; `judged` gets the patches reported.
fn judge_patches(
    locator: &Locator<'_>,
    cluster: &ClassicCluster<'_>,
    sink: &mut Sink<'_>,
    judged: &mut std::collections::BTreeSet<(usize, String)>,
) {
    for finding in check_patches(cluster, sink.selection.schemas()) {
        let Some((doc, pointer)) = locator.locate(&finding.origin, &finding.pointer) else { continue };
        judged.insert((doc, pointer.clone()));
        match finding.verdict {
            PatchVerdict::Broken(error) => {
                sink.emit(PATCH_BROKEN, doc, &pointer, format!("{error}; CAPZ fails to reconcile with this patch"))
            }
            PatchVerdict::NoOp => sink.emit(
                PATCH_NO_OP,
                doc,
                &pointer,
                format!(
                    "patch at index {} changes nothing in the object CAPZ generates: it sets only what CAPZ already \
                     sets, or fields the ASO type does not have (CAPZ drops them)",
                    finding.index
                ),
            ),
        }
    }
}

/// Every patch of every document on its own: not YAML (unless judged already), or touching a field CAPZ owns.
fn check_texts(documents: &[Document], sink: &mut Sink<'_>, judged: &std::collections::BTreeSet<(usize, String)>) {
    for (doc, document) in documents.iter().enumerate() {
        let Some((_, pointer)) = PATCH_FIELDS.iter().find(|(kind, _)| *kind == document.kind()) else { continue };
        let Some(patches) = document.value.array_at(pointer) else { continue };
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
